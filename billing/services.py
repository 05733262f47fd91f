"""Writes of customer documents and money (thin: the arithmetic is billing/documents.py).

Sales engineers (and superusers) make an order's invoice and УПД, record payments and service costs;
everything runs in a transaction that locks the order or the invoice, so two clerks recording payments at
once never take an invoice past its total.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from billing.documents import LineIn, document_totals, invoice_state, payment_problem
from billing.models import Invoice, InvoiceLine, InvoiceStatus, Payment, ServiceCost, TransferDocument, TransferLine
from billing.selectors import buyer_of
from configurator.engine.errors import Conflict, Forbidden, InvalidInput
from configurator.engine.requisites import upd_buyer_problems
from finance.vat import vat_percent_on
from orders.models import Order, OrderStatus
from orders.services import event_add
from quotes.services.numbering import document_number_next

INVOICE_NUMBER_SEQUENCE = "billing_invoice_number_seq"  # migration 0002 (PostgreSQL)
UPD_NUMBER_SEQUENCE = "billing_upd_number_seq"
INVOICE_COUNTER_NAME = "invoice_number"  # the SQLite counter rows (quotes.QuoteCounter)
UPD_COUNTER_NAME = "upd_number"
#: The order statuses after which the goods have left: an УПД can be made, a payment is no longer a prepayment.
SHIPPED_STATUSES = frozenset({OrderStatus.SHIPPED, OrderStatus.DELIVERED})


def may_bill(user: User) -> bool:
    return bool(user.is_sales or user.is_superuser)


def _require_biller(user: User) -> None:
    if not may_bill(user):
        raise Forbidden("Only sales engineers may issue documents and record payments.")


def invoice_number_next() -> str:
    """`INV-<year>-<6 digits>` (quotes.services.numbering.document_number_next: never reused)."""
    return document_number_next(prefix="INV", sequence=INVOICE_NUMBER_SEQUENCE, counter=INVOICE_COUNTER_NAME)


def upd_number_next() -> str:
    """`UPD-<year>-<6 digits>`."""
    return document_number_next(prefix="UPD", sequence=UPD_NUMBER_SEQUENCE, counter=UPD_COUNTER_NAME)


def _order_lines(order: Order) -> list[LineIn]:
    return [
        LineIn(line.position, line.sku, line.name_ru or line.name, line.qty, line.unit_price, line.line_total)
        for line in order.lines.order_by("position")
    ]


def _check_billable(order: Order) -> None:
    if order.status == OrderStatus.CANCELLED:
        raise Conflict(f"Order {order.number} is cancelled.", fields={"order": ["the order is cancelled"]})
    if order.currency != "RUB":
        raise InvalidInput(
            f"Order {order.number} is in {order.currency}; documents are issued in roubles.",
            fields={"order": [f"in {order.currency}, not RUB"]},
        )


def invoice_create(*, order: Order, user: User, day: dt.date | None = None) -> tuple[Invoice, bool]:
    """The order's invoice for payment; the names are Russian (the catalog's `name_ru`, else `name`): the
    document is Russian. Made once: the second call returns the first, `created` False)."""
    _require_biller(user)
    with transaction.atomic():
        locked = Order.objects.select_for_update().get(pk=order.pk)
        existing = Invoice.objects.filter(order=locked).first()
        if existing is not None:
            return existing, False
        _check_billable(locked)
        issued_on = day or timezone.localdate()
        totals = document_totals(_order_lines(locked), vat_percent_on(issued_on))
        invoice = Invoice.objects.create(
            number=invoice_number_next(), order=locked, issued_on=issued_on, vat_percent=totals.vat_percent,
            net_total=totals.net, vat_total=totals.vat, gross_total=totals.gross, created_by=user,
            **buyer_of(locked),
        )  # fmt: skip
        InvoiceLine.objects.bulk_create(
            InvoiceLine(invoice=invoice, position=line.position, sku=line.sku, name=line.name[:200], qty=line.qty,
                        unit_price=line.unit_price, line_total=line.line_total, vat=line.vat, gross=line.gross)
            for line in totals.lines
        )  # fmt: skip
        event_add(locked, "invoiced", user=user, data={"invoice": invoice.number, "gross": str(invoice.gross_total)})
    return invoice, True


def upd_create(*, order: Order, user: User, day: dt.date | None = None) -> tuple[TransferDocument, bool]:
    """The order's УПД (status 1) once it has shipped, at the VAT rate in force on the shipment day."""
    _require_biller(user)
    with transaction.atomic():
        locked = Order.objects.select_for_update().get(pk=order.pk)
        existing = TransferDocument.objects.filter(order=locked).first()
        if existing is not None:
            return existing, False
        _check_billable(locked)
        if locked.status not in SHIPPED_STATUSES:
            raise Conflict(
                f"Order {locked.number} has not shipped; the УПД is made on shipment.",
                fields={"order": [f"is {locked.status}, not shipped or delivered"]},
            )
        buyer = buyer_of(locked)
        problems = upd_buyer_problems(company=locked.owner.company, inn=buyer["buyer_inn"], kpp=buyer["buyer_kpp"])
        if problems:
            raise InvalidInput(
                f"The buyer {buyer['buyer_name']} is an organisation; fill in its ИНН and КПП before the УПД.",
                fields=problems,
            )
        issued_on = day or timezone.localdate()
        totals = document_totals(_order_lines(locked), vat_percent_on(issued_on))
        document = TransferDocument.objects.create(
            number=upd_number_next(), order=locked, issued_on=issued_on, vat_percent=totals.vat_percent,
            net_total=totals.net, vat_total=totals.vat, gross_total=totals.gross, created_by=user,
            **buyer_of(locked),
        )  # fmt: skip
        TransferLine.objects.bulk_create(
            TransferLine(document=document, position=line.position, sku=line.sku, name=line.name[:200],
                         qty=line.qty, unit_price=line.unit_price, line_total=line.line_total, vat=line.vat,
                         gross=line.gross)
            for line in totals.lines
        )  # fmt: skip
        event_add(locked, "upd_issued", user=user, data={"upd": document.number, "gross": str(document.gross_total)})
    return document, True


def _amount(value: object, field: str) -> Decimal:
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, ValueError) as exc:
        raise InvalidInput(f"{field} is not a number.", fields={field: ["not a number"]}) from exc
    if not amount.is_finite():
        raise InvalidInput(f"{field} is not a number.", fields={field: ["not a number"]})
    return amount


def payment_record(
    *, invoice: Invoice, amount: Decimal, user: User, paid_on: dt.date | None = None, reference: str = ""
) -> Payment:
    """Record money received against the invoice: never more than is still due (the invoice row is locked, so
    concurrent payments queue); the invoice's paid total and state follow. Before the order has shipped the
    payment is a prepayment."""
    _require_biller(user)
    amount = _amount(amount, "amount")
    with transaction.atomic():
        locked = Invoice.objects.select_for_update().select_related("order").get(pk=invoice.pk)
        if locked.status == InvoiceStatus.CANCELLED:
            raise Conflict(f"Invoice {locked.number} is cancelled.", fields={"invoice": ["the invoice is cancelled"]})
        problem = payment_problem(gross=locked.gross_total, paid=locked.paid_total, amount=amount)
        if problem:
            raise InvalidInput(f"The payment amount {problem}.", fields={"amount": [problem]})
        payment = Payment.objects.create(
            invoice=locked, amount=amount, paid_on=paid_on or timezone.localdate(), reference=reference,
            prepayment=locked.order.status not in SHIPPED_STATUSES, created_by=user,
        )  # fmt: skip
        locked.paid_total = locked.paid_total + amount
        locked.status = invoice_state(gross=locked.gross_total, paid=locked.paid_total)
        locked.save(update_fields=["paid_total", "status"])
        event_add(
            locked.order, "payment", user=user,
            data={"invoice": locked.number, "amount": str(amount), "status": locked.status},
        )  # fmt: skip
    return payment


#: The notes an invoice gets when its order is cancelled (Russian: the accountant reads them on the page).
NOTE_CANCELLED = "Счёт аннулирован: заказ отменён."
NOTE_KEPT = "Заказ отменён после оплаты {paid} руб.: счёт сохранён, сумма подлежит возврату или зачёту."


def invoices_on_order_cancel(*, order: Order, user: User | None) -> list[tuple[str, str]]:
    """The order was cancelled (called inside its transaction, the order row locked): its unpaid invoice is
    cancelled; one with money received (partly paid or paid) is kept as it is, with a note that the money is
    to be refunded or set off, since a payment that happened cannot be undone by cancelling. Returns
    [(invoice number, "cancelled" | "kept")]."""
    done: list[tuple[str, str]] = []
    for invoice in Invoice.objects.select_for_update().filter(order=order).exclude(status=InvoiceStatus.CANCELLED):
        if invoice.paid_total == 0:
            invoice.status, invoice.note, outcome = InvoiceStatus.CANCELLED, NOTE_CANCELLED, "cancelled"
        else:
            invoice.note, outcome = NOTE_KEPT.format(paid=f"{invoice.paid_total:.2f}"), "kept"
        invoice.save(update_fields=["status", "note"])
        event_add(order, "invoice_cancelled" if outcome == "cancelled" else "invoice_kept", user=user,
                  data={"invoice": invoice.number, "paid": str(invoice.paid_total)})  # fmt: skip
        done.append((invoice.number, outcome))
    return done


def service_cost_add(*, order: Order, description: str, amount_rub: Decimal, user: User) -> ServiceCost:
    _require_biller(user)
    amount = _amount(amount_rub, "amount_rub")
    if amount <= 0 or amount != amount.quantize(Decimal("0.01")):
        raise InvalidInput(
            "A service cost is a positive amount in roubles and kopecks.",
            fields={"amount_rub": ["must be greater than zero, with at most two decimal places"]},
        )
    if not description.strip():
        raise InvalidInput("Say what the cost was for.", fields={"description": ["may not be blank"]})
    return ServiceCost.objects.create(
        order=order, description=description.strip()[:200], amount_rub=amount, created_by=user
    )
