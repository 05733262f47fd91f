"""Reads of customer documents and margins: customers see their own orders' invoices, payments and УПД (another
customer's is 404); sales, catalog staff and superusers see all; the margin is for sales and superusers only
(it shows purchase costs)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from accounts.models import User
from billing.margin import CostLine, Margin, order_margin
from billing.models import Invoice, Payment, TransferDocument
from configurator.engine.errors import Forbidden
from orders.models import Order
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
    """The order's margin today: its net revenue, its purchase lines in roubles at today's rates
    (orders.selectors.purchase_table, as the purchase lists show them), its service costs."""
    if not may_see_margin(user):
        raise Forbidden("Only sales engineers see an order's margin.")
    lines = list(order.purchases.select_related("order_line", "supplier").order_by("id"))
    table = purchase_table(lines=lines, rates=purchase_rates(lines=lines))
    purchases = [CostLine(row.line_total_rub, row.line.sku) for row in table.rows if row.line_total_rub is not None]
    uncounted = [f"{row.line.sku} ({row.line.currency})" for row in table.rows if row.line_total_rub is None]
    services = [CostLine(cost.amount_rub, cost.description) for cost in order.service_costs.all()]
    return order_margin(revenue_net=order.net_total, purchases=purchases, services=services, uncounted=uncounted)
