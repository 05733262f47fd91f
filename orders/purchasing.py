"""Services of purchase orders, receipts and the built server (issue 36 items 1-3). The rules are pure code in
configurator/engine/purchasing.py (the transition table, the drafts from the plan, what a receipt may hold);
here they are read from and written to the database.

* `purchase_orders_create` — an order's plan as one purchase order per supplier, numbered `PO-<year>-<6
  digits>` from a sequence (quotes.services.numbering), priced in roubles at the day's rate
  (finance.rates via procurement.selectors.offer_rates). Made once: asked again it returns those made.
* `po_transition` — a person's move (sent, confirmed, cancelled) through `PO_TRANSITIONS`; sending queues the
  e-mail to the supplier (Celery, `orders.po_email`) and marks the order's parts ordered.
* `receipt_record` — what arrived, against purchase-order lines, with serial numbers; each line is locked
  (`select_for_update`, in id order) so two receipts of one line at once never receive more than ordered,
  and the database refuses a serial number of a SKU twice (`serial_once_per_sku`).
* `build_step_record` — assembly and burn-in of the order's server, once every line has arrived.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone, translation
from django.utils.translation import pgettext

from accounts.models import User
from config.celery import publish
from configurator.engine import purchasing as rules
from configurator.engine.errors import Conflict, ErrorCode, Forbidden, InvalidInput
from configurator.engine.origin import origin_clean
from finance.rates import NoRate
from orders.models import (
    BuildStep,
    BuildStepKind,
    BuildStepResult,
    Order,
    OrderStatus,
    PurchaseLine,
    PurchaseOrder,
    PurchaseOrderLine,
    PurchaseOrderStatus,
    Receipt,
    ReceiptLine,
    ReceivedSerial,
)
from orders.risks import is_procured, orders_at_risk_refresh
from orders.selectors import may_see_purchases
from procurement.models import Supplier, SupplierPartNumber
from procurement.selectors import offer_rates
from quotes.services.numbering import document_number_next

logger = logging.getLogger(__name__)

PO_NUMBER_SEQUENCE = "orders_purchase_order_number_seq"  # made by migration 0008 on PostgreSQL
PO_COUNTER_NAME = "purchase_order_number"  # the SQLite counter row (quotes.QuoteCounter)
EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
P = PurchaseOrderStatus


#: Order events about purchase orders and receipts: they name suppliers' documents, so staff only see them.
STAFF_EVENTS = frozenset({
    "purchase_orders_made", "purchase_order_changed", "purchase_orders_cancelled", "purchase_order_emailed",
    "purchase_order_email_failed", "goods_received",
})  # fmt: skip


class InvalidPoTransition(Conflict):
    default_code = ErrorCode.INVALID_TRANSITION


def po_number_next() -> str:
    """`PO-<year>-<6 digits>`, as order numbers: a sequence never hands a value out twice."""
    return document_number_next(prefix="PO", sequence=PO_NUMBER_SEQUENCE, counter=PO_COUNTER_NAME)


def _staff_only(user: User) -> None:
    if not may_see_purchases(user):
        raise Forbidden("Only sales and catalog staff work with purchase orders.")


def purchase_orders_create(*, order: Order, user: User) -> tuple[list[PurchaseOrder], bool]:
    """One purchase order per supplier of the order's plan (its unreleased purchase lines), in draft; made once
    (the order row is locked; a second call returns those made). Returns (purchase orders, created)."""
    _staff_only(user)
    with transaction.atomic():
        locked = Order.objects.select_for_update().get(pk=order.pk)
        existing = list(locked.purchase_orders.select_related("supplier").order_by("supplier__slug"))
        if existing:
            return existing, False
        if locked.status in (OrderStatus.CANCELLED, OrderStatus.DELIVERED, OrderStatus.SHIPPED):
            raise Conflict(f"Order {locked.number} is {locked.status}.", code=ErrorCode.INVALID_TRANSITION)
        purchases = list(
            PurchaseLine.objects.filter(order=locked, released=False)
            .select_related("supplier", "offer", "order_line")
            .order_by("supplier__slug", "order_line__position", "id")
        )
        if not purchases:
            raise Conflict(f"Order {locked.number} has no procurement plan yet.", fields={"order": ["no plan"]})
        today = timezone.localdate()
        book = offer_rates(day=today, currencies={p.currency for p in purchases})
        rates: dict[str, tuple[Decimal, Any]] = {}
        for currency in {p.currency for p in purchases} - {"RUB"}:
            try:
                rate = book.rate(currency)
            except NoRate as exc:
                raise Conflict(str(exc), fields={"currency": [f"no exchange rate for {currency}"]}) from None
            if rate is not None:
                rates[currency] = (rate.rub_per_unit, rate.date)
        mapped = {  # the supplier's own part number where its offer does not say it (procurement's mapping)
            (row.supplier_id, row.sku): row.part_number
            for row in SupplierPartNumber.objects.filter(
                supplier__in={p.supplier_id for p in purchases}, sku__in={p.sku for p in purchases}
            ).order_by("-pk")
        }
        plan = [
            rules.PlanLine(
                purchase_id=p.pk, supplier=p.supplier.slug, sku=p.sku,
                supplier_sku=(p.offer.supplier_sku if p.offer else "") or mapped.get((p.supplier_id, p.sku), ""),
                kind=p.order_line.kind, qty=p.qty,
                unit_price=p.unit_price, currency=p.currency, expected_days=p.expected_days,
            )
            for p in purchases
        ]  # fmt: skip
        suppliers = {p.supplier.slug: p.supplier for p in purchases}
        made: list[PurchaseOrder] = []
        for draft in rules.po_drafts(plan, rates=rates, day=today):
            po = PurchaseOrder.objects.create(
                number=po_number_next(), order=locked, supplier=suppliers[draft.supplier], currency=draft.currency,
                rate=draft.rate, rate_date=draft.rate_date, total=draft.total, total_rub=draft.total_rub,
                expected_date=draft.expected_date, created_by=user,
            )  # fmt: skip
            PurchaseOrderLine.objects.bulk_create(
                PurchaseOrderLine(
                    purchase_order=po, purchase_id=line.purchase_id, sku=line.sku, supplier_sku=line.supplier_sku,
                    kind=line.kind, qty=line.qty, unit_price=line.unit_price, line_total=line.line_total,
                    unit_price_rub=line.unit_price_rub, line_total_rub=line.line_total_rub,
                    expected_date=line.expected_date,
                )
                for line in draft.lines
            )  # fmt: skip
            made.append(po)
        _event(locked, "purchase_orders_made", user, {"numbers": [po.number for po in made]})
    return made, True


def _event(order: Order, type_: str, user: User | None, data: Mapping[str, Any]) -> None:
    from orders.services import event_add

    event_add(order, type_, user=user, data=data)


def supplier_email(supplier: Supplier) -> str:
    """The first e-mail address in the supplier's contact text ("" when it has none)."""
    found = EMAIL_RE.search(supplier.contact or "")
    return found.group(0) if found else ""


def po_transition(*, po: PurchaseOrder, to: str, user: User) -> PurchaseOrder:
    """Move a purchase order by hand (sent, confirmed, cancelled) along `PO_TRANSITIONS`. Sending needs the
    supplier's e-mail, queues the e-mail (on commit) and moves a placed order to `parts_ordered`."""
    _staff_only(user)
    if to not in rules.MANUAL_TARGETS:
        raise InvalidInput(f"{to} follows from receipts.", fields={"to": ["not a state set by hand"]})
    with transaction.atomic():
        locked = PurchaseOrder.objects.select_for_update().select_related("supplier", "order").get(pk=po.pk)
        if not rules.po_can_transition(locked.status, to):
            raise InvalidPoTransition(
                f"A purchase order cannot go from {locked.status} to {to}.",
                fields={"to": [f"not allowed from {locked.status}"]},
            )
        fields = ["status"]
        if to == P.SENT:
            address = supplier_email(locked.supplier)
            if not address:
                raise Conflict(
                    f"Supplier {locked.supplier.slug} has no e-mail address in its contact.",
                    fields={"supplier": ["no e-mail address in the supplier's contact"]},
                )
            locked.sent_at, locked.email_to = timezone.now(), address
            fields += ["sent_at", "email_to"]
        from_status, locked.status = locked.status, to
        locked.save(update_fields=fields)
        _event(locked.order, "purchase_order_changed", user, {"number": locked.number, "from": from_status, "to": to})
        if to == P.SENT:
            _parts_ordered(locked.order, user)
            po_id = locked.pk
            transaction.on_commit(lambda: po_email_enqueue(po_id=po_id), robust=True)
    orders_at_risk_refresh(order_ids=[locked.order_id])
    return locked


def _parts_ordered(order: Order, user: User) -> None:
    """The first purchase order sent: a placed order's parts are ordered (the order's own transition table)."""
    moved = Order.objects.filter(pk=order.pk, status=OrderStatus.PLACED).update(
        status=OrderStatus.PARTS_ORDERED, updated_at=timezone.now()
    )
    if moved:
        _event(order, "status_changed", user, {"from": OrderStatus.PLACED, "to": OrderStatus.PARTS_ORDERED,
                                               "note": "purchase order sent"})  # fmt: skip


def purchase_orders_cancel_open(*, order: Order, user: User | None) -> list[str]:
    """Cancel the order's purchase orders not yet received or cancelled (the order was cancelled)."""
    numbers = list(
        order.purchase_orders.select_for_update().filter(status__in=rules.OPEN).values_list("number", flat=True)
    )
    if numbers:
        PurchaseOrder.objects.filter(number__in=numbers).update(status=P.CANCELLED)
        _event(order, "purchase_orders_cancelled", user, {"numbers": numbers})
    return numbers


def po_email_enqueue(*, po_id: int) -> bool:
    from orders.tasks import po_email_task

    return publish(po_email_task, po_id, what=f"purchase order {po_id}: e-mail")


def po_email_send(*, po_id: int) -> bool:
    """E-mail a sent purchase order to its supplier once, PDF and XLSX attached (claimed with a conditional
    UPDATE of `emailed_at`; a failure gives the claim back and is an order event)."""
    from orders.po_documents import po_pdf, po_xlsx

    now = timezone.now()
    if not PurchaseOrder.objects.filter(pk=po_id, status=P.SENT, emailed_at__isnull=True).update(emailed_at=now):
        return False
    po = PurchaseOrder.objects.select_related("supplier", "order").get(pk=po_id)
    try:
        with translation.override(settings.QUOTE_LANGUAGE):
            subject = pgettext("purchase order", "Purchase order %(number)s") % {"number": po.number}
            body = pgettext(
                "purchase order",
                "Good day!\n\nPlease find attached our purchase order %(number)s. Please confirm it by replying "
                "to this e-mail.\n\n%(seller)s\n",
            ) % {"number": po.number, "seller": settings.SELLER.get("name", "")}
        message = EmailMessage(subject=subject, body=body, from_email=settings.DEFAULT_FROM_EMAIL, to=[po.email_to])
        message.attach(f"{po.number}.pdf", po_pdf(po), "application/pdf")
        message.attach(
            f"{po.number}.xlsx", po_xlsx(po), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        )
        message.send()
    except Exception as exc:
        logger.exception("purchase order %s: e-mail to the supplier failed", po.number)
        PurchaseOrder.objects.filter(pk=po_id, emailed_at=now).update(emailed_at=None)
        _event(po.order, "purchase_order_email_failed", None, {"number": po.number, "error": repr(exc)[:500]})
        raise
    _event(po.order, "purchase_order_emailed", None, {"number": po.number, "to": po.email_to})
    return True


#: A sent purchase order not e-mailed this long after it was sent: its message was never queued (the broker
#: was down) or was lost, or its e-mail failed; the sweep queues it again (the send claims it, so never twice).
EMAIL_LOST_AFTER = dt.timedelta(seconds=30)


def purchase_orders_email_sweep(*, older_than: dt.timedelta = EMAIL_LOST_AFTER) -> tuple[int, ...]:
    """Queue again the e-mails of sent purchase orders not e-mailed `older_than` after they were sent."""
    due = PurchaseOrder.objects.filter(
        status=P.SENT, emailed_at__isnull=True, sent_at__lt=timezone.now() - older_than
    ).values_list("pk", flat=True)
    queued = tuple(po_id for po_id in due if po_email_enqueue(po_id=po_id))
    return queued


@dataclass(frozen=True)
class ReceiptLineInput:
    po_line_id: int
    qty: int
    serials: Sequence[str] = field(default_factory=tuple)
    country_code: str = ""  # ОКСМ, imported goods (configurator.engine.origin)
    country_name: str = ""
    declaration: str = ""


def receipt_record(*, po: PurchaseOrder, lines: Sequence[ReceiptLineInput], user: User, note: str = "") -> Receipt:
    """Record what arrived against `po`'s lines (partial allowed), with serial numbers where the kind needs
    them. The purchase order and then its lines are locked, so concurrent receipts of one line queue and the
    second sees the first's quantity; a serial number already received for the SKU is refused (and the
    database constraint refuses it should two receipts carry it at once). Problems are InvalidInput naming
    `lines.<i>.qty` or `lines.<i>.serials` (as the API names nested fields)."""
    _staff_only(user)
    if not lines:
        raise InvalidInput("A receipt needs at least one line.", fields={"lines": ["empty"]})
    ids = [line.po_line_id for line in lines]
    if len(set(ids)) != len(ids):
        raise InvalidInput("A purchase-order line is given twice.", fields={"lines": ["a line is given twice"]})
    try:
        with transaction.atomic():
            receipt = _receipt(po, lines, user, note)
    except IntegrityError as exc:  # a concurrent receipt took the same serial number first
        raise Conflict(
            "A serial number was received by another receipt meanwhile.", fields={"serials": ["already received"]}
        ) from exc
    orders_at_risk_refresh(order_ids=[po.order_id])
    return receipt


def _receipt(po: PurchaseOrder, lines: Sequence[ReceiptLineInput], user: User, note: str) -> Receipt:
    locked = PurchaseOrder.objects.select_for_update().select_related("order").get(pk=po.pk)
    if locked.status not in rules.RECEIVABLE:
        raise Conflict(
            f"Nothing can be received against a {locked.status} purchase order.",
            code=ErrorCode.INVALID_TRANSITION,
            fields={"purchase_order": [f"is {locked.status}"]},
        )
    po_lines = {
        line.pk: line
        for line in PurchaseOrderLine.objects.select_for_update()
        .filter(purchase_order=locked, pk__in=[item.po_line_id for item in lines])
        .order_by("pk")
    }
    errors: dict[str, list[str]] = {}
    for index, item in enumerate(lines):
        po_line = po_lines.get(item.po_line_id)
        if po_line is None:
            errors[f"lines.{index}.line"] = ["not a line of this purchase order"]
            continue
        serials = [rules.serial_normal(serial) for serial in item.serials]
        known = ReceivedSerial.objects.filter(sku=po_line.sku, serial__in=serials).values_list("serial", flat=True)
        problems = rules.receipt_problems(
            kind=po_line.kind, ordered=po_line.qty, received=po_line.received_qty, qty=item.qty, serials=serials,
            known=list(known),
        )  # fmt: skip
        errors.update({f"lines.{index}.{name}": reasons for name, reasons in problems.items()})
        _, unclear = origin_clean(country_code=item.country_code, country_name=item.country_name,
                                  declaration=item.declaration)  # fmt: skip
        errors.update({f"lines.{index}.{name}": [reason] for name, reason in unclear.items()})
    if errors:
        raise InvalidInput("The receipt cannot be recorded.", fields=errors)
    receipt = Receipt.objects.create(purchase_order=locked, received_by=user, note=note)
    for item in lines:
        po_line = po_lines[item.po_line_id]
        origin, _ = origin_clean(country_code=item.country_code, country_name=item.country_name,
                                 declaration=item.declaration)  # fmt: skip
        receipt_line = ReceiptLine.objects.create(receipt=receipt, po_line=po_line, qty=item.qty, **origin)
        ReceivedSerial.objects.bulk_create(
            ReceivedSerial(
                receipt_line=receipt_line, order_id=locked.order_id, sku=po_line.sku, serial=rules.serial_normal(serial)
            )
            for serial in item.serials
        )
        PurchaseOrderLine.objects.filter(pk=po_line.pk).update(received_qty=F("received_qty") + item.qty)
    quantities = PurchaseOrderLine.objects.filter(purchase_order=locked).values_list("qty", "received_qty")
    from_status, locked.status = locked.status, rules.po_status_after_receipt(quantities)
    locked.save(update_fields=["status"])
    data = {"number": locked.number, "receipt": receipt.pk, "from": from_status, "to": locked.status,
            "lines": [{"sku": po_lines[i.po_line_id].sku, "qty": i.qty} for i in lines]}  # fmt: skip
    _event(locked.order, "goods_received", user, data)
    if ready_to_assemble(locked.order):
        _event(locked.order, "ready_to_assemble", user, {})
    return receipt


def shortfalls(order: Order) -> list[dict[str, Any]]:
    """The order's parts not all here: per procured order line, units ordered from suppliers and not yet
    received (units on cancelled purchase orders or on none count as missing). [{sku, qty}]."""
    received: dict[int, int] = {}
    for line in PurchaseOrderLine.objects.filter(purchase__order=order).exclude(
        purchase_order__status=P.CANCELLED
    ).select_related("purchase"):  # fmt: skip
        order_line_id = line.purchase.order_line_id
        received[order_line_id] = received.get(order_line_id, 0) + line.received_qty
    return [
        {"sku": line.sku, "qty": line.qty - received.get(line.pk, 0)}
        for line in order.lines.order_by("position")
        if is_procured(line.kind) and received.get(line.pk, 0) < line.qty
    ]


def ready_to_assemble(order: Order) -> bool:
    """Every procured line of the order has arrived in full."""
    return not shortfalls(order)


def build_step_record(*, order: Order, kind: str, result: str, user: User, note: str = "") -> BuildStep:
    """Assembly or burn-in of the order's server (staff). Assembly needs every part here and an order whose
    parts are ordered or being assembled; passed, the order goes on to burn-in. Burn-in needs the order in
    burn-in; its result is recorded (shipping stays sales' move)."""
    _staff_only(user)
    if kind not in BuildStepKind.values or result not in BuildStepResult.values:
        raise InvalidInput("Unknown step or result.", fields={"kind": [kind], "result": [result]})
    with transaction.atomic():
        locked = Order.objects.select_for_update().get(pk=order.pk)
        allowed = (
            (OrderStatus.PARTS_ORDERED, OrderStatus.ASSEMBLING)
            if kind == BuildStepKind.ASSEMBLY
            else (OrderStatus.BURN_IN,)
        )
        if locked.status not in allowed:
            raise Conflict(
                f"{kind} cannot be recorded for an order that is {locked.status}.",
                code=ErrorCode.INVALID_TRANSITION,
                fields={"kind": [f"not while the order is {locked.status}"]},
            )
        if kind == BuildStepKind.ASSEMBLY and not ready_to_assemble(locked):
            missing = ", ".join(f"{item['sku']} × {item['qty']}" for item in shortfalls(locked))
            raise Conflict(f"Parts still missing: {missing}.", fields={"kind": [f"parts missing: {missing}"]})
        step = BuildStep.objects.create(order=locked, kind=kind, result=result, note=note, done_by=user)
        _event(locked, "build_step", user, {"kind": kind, "result": result, "note": note})
        path = [OrderStatus.ASSEMBLING, OrderStatus.BURN_IN] if result == BuildStepResult.PASSED else []
        if kind == BuildStepKind.ASSEMBLY:
            for to in path or [OrderStatus.ASSEMBLING]:
                if locked.status != to:
                    _event(locked, "status_changed", user, {"from": locked.status, "to": to, "note": "build step"})
                    locked.status = to
            locked.save(update_fields=["status", "updated_at"])
    orders_at_risk_refresh(order_ids=[order.pk])
    return step


def serial_orders(serial: str) -> QuerySet[Order]:
    """The orders whose received parts include `serial` (normalised as received: any case, look-alikes)."""
    return Order.objects.filter(serials__serial=rules.serial_normal(serial)).distinct()
