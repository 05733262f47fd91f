"""Reads of customer documents and margins: customers see their own orders' invoices, payments and УПД (another
customer's is 404); sales, catalog staff and superusers see all; the margin is for sales and superusers only
(it shows purchase costs)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from accounts.models import User
from billing.margin import CostLine, Margin, PurchaseCost, order_margin, purchase_costs
from billing.models import Invoice, Payment, TransferDocument
from configurator.engine.errors import Forbidden
from orders.models import Order, PurchaseOrderLine, PurchaseOrderStatus
from orders.selectors import purchase_rates, purchase_table


def _staff(user: User) -> bool:
    return bool(user.is_sales or user.is_catalog_staff or user.is_superuser)


def may_see_margin(user: User) -> bool:
    return bool(user.is_sales or user.is_superuser)


def invoice_visible(*, user: User, order: str = "") -> QuerySet[Invoice]:
    queryset = Invoice.objects.select_related("order", "order__owner")
    if order:
        queryset = queryset.filter(order__number=order)
    return queryset if _staff(user) else queryset.filter(order__owner=user)


def invoice_get(*, user: User, number: str) -> Invoice:
    invoice = invoice_visible(user=user).filter(number=number).first()
    if invoice is None:
        raise Http404(f"No invoice {number}.")
    return invoice


def payment_visible(*, user: User, invoice: str = "") -> QuerySet[Payment]:
    queryset = Payment.objects.select_related("invoice", "invoice__order")
    if invoice:
        queryset = queryset.filter(invoice__number=invoice)
    return queryset if _staff(user) else queryset.filter(invoice__order__owner=user)


def upd_visible(*, user: User) -> QuerySet[TransferDocument]:
    queryset = TransferDocument.objects.select_related("order", "order__owner")
    return queryset if _staff(user) else queryset.filter(order__owner=user)


def upd_get(*, user: User, number: str) -> TransferDocument:
    document = upd_visible(user=user).filter(number=number).first()
    if document is None:
        raise Http404(f"No УПД {number}.")
    return document


def margin_of(*, user: User, order: Order) -> Margin:
    """The order's margin: its net revenue; its purchase lines in roubles at the rate of the purchase order
    each is on (the purchase-order line's `line_total_rub`), those on no purchase order (or only a cancelled
    one) at today's rates (orders.selectors.purchase_table, as the purchase lists show them); its service
    costs."""
    if not may_see_margin(user):
        raise Forbidden("Only sales engineers see an order's margin.")
    lines = list(order.purchases.select_related("order_line", "supplier").order_by("id"))
    ordered = dict(
        PurchaseOrderLine.objects.filter(purchase__order=order)
        .exclude(purchase_order__status=PurchaseOrderStatus.CANCELLED)
        .values_list("purchase_id", "line_total_rub")
    )
    planned = [line for line in lines if line.pk not in ordered]
    table = purchase_table(lines=planned, rates=purchase_rates(lines=planned))
    plan_rub = {row.line.pk: row.line_total_rub for row in table.rows}
    purchases, uncounted = purchase_costs([
        PurchaseCost(line.sku, ordered.get(line.pk), plan_rub.get(line.pk), line.currency) for line in lines
    ])  # fmt: skip
    services = [CostLine(cost.amount_rub, cost.description) for cost in order.service_costs.all()]
    return order_margin(revenue_net=order.net_total, purchases=purchases, services=services, uncounted=uncounted)


def buyer_of(order: Order) -> dict[str, str]:
    """The buyer's requisites a document copies when issued: the company (else the person), ИНН, КПП and
    legal address of the order's customer (accounts.models.User)."""
    owner = order.owner
    person = owner.get_full_name() or owner.username
    return {"buyer_name": (owner.company or person)[:300], "buyer_inn": owner.inn, "buyer_kpp": owner.kpp,
            "buyer_address": owner.legal_address}  # fmt: skip


def document_buyer(document: Invoice | TransferDocument) -> dict[str, str]:
    """The buyer as the document names it: as copied on issue; a document issued before the copy was kept
    (empty `buyer_name`) reads the customer's profile."""
    if document.buyer_name:
        return {"buyer_name": document.buyer_name, "buyer_inn": document.buyer_inn,
                "buyer_kpp": document.buyer_kpp, "buyer_address": document.buyer_address}  # fmt: skip
    return buyer_of(document.order)


def upd_origins(order: Order) -> dict[str, tuple[str, str, str]]:
    """SKU → (ОКСМ codes, short names, declaration numbers) of the goods received for the order, as the УПД
    prints them in columns 10, 10а and 11: the distinct values of its receipt lines (of purchase orders not
    cancelled), ", "-joined in the order first received; a SKU none was recorded for is absent."""
    from orders.models import ReceiptLine

    found: dict[str, tuple[list[str], list[str], list[str]]] = {}
    rows = (
        ReceiptLine.objects.filter(receipt__purchase_order__order=order)
        .exclude(receipt__purchase_order__status=PurchaseOrderStatus.CANCELLED)
        .order_by("id")
        .values_list("po_line__sku", "country_code", "country_name", "declaration")
    )
    for sku, *values in rows:
        lists = found.setdefault(sku, ([], [], []))
        for into, value in zip(lists, values, strict=True):
            if value and value not in into:
                into.append(value)
    return {sku: (", ".join(a), ", ".join(b), ", ".join(c)) for sku, (a, b, c) in found.items() if a or b or c}
