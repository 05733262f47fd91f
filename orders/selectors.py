"""Which orders a user may see: customers their own, sales and catalog staff all (404 otherwise), all or
only those at risk; purchase lists are for sales and catalog staff, their amounts in the offers' currencies
and in roubles at the day's rate (`purchase_table`: what pages, CSV and XLSX show)."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone

from accounts.models import User
from configurator.engine.errors import Forbidden
from configurator.wording import part_name
from finance.rates import Rate, RateBook
from orders.models import Order, OrderStatus, PurchaseLine
from procurement.selectors import offer_rates, price_in_rub


def _staff(user: User) -> bool:
    return user.is_sales or user.is_catalog_staff or user.is_superuser


def order_visible(*, user: User, at_risk: bool | None = None) -> QuerySet[Order]:
    """The orders `user` may see (`at_risk`: only those at risk, or only those not)."""
    queryset = Order.objects.select_related("owner", "quote")
    if at_risk is not None:
        queryset = queryset.filter(at_risk=at_risk)
    return queryset if _staff(user) else queryset.filter(owner=user)


def order_get(*, user: User, number: str) -> Order:
    order = order_visible(user=user).filter(number=number).first()
    if order is None:
        raise Http404(f"No order {number}.")
    return order


def may_see_purchases(user: User) -> bool:
    return _staff(user)


def plan_not_compared(*, order: Order) -> list[dict[str, str]]:
    """The offers the order's plan left out of the price choice (price on request, no rate for the currency),
    as its `planned` event recorded them: [{sku, supplier, currency, reason}]."""
    planned = order.events.filter(type="planned").order_by("-created_at", "-id").first()
    found = planned.data.get("not_compared") if planned is not None and isinstance(planned.data, dict) else None
    return [dict(item) for item in found or () if isinstance(item, dict)]


def purchase_lists(*, user: User, order: Order) -> dict[str, list[PurchaseLine]]:
    """The order's purchase lines per supplier slug (sales and catalog staff)."""
    if not _staff(user):
        raise Forbidden("Only sales and catalog staff see purchase lists.")
    grouped: dict[str, list[PurchaseLine]] = defaultdict(list)
    rows = order.purchases.select_related("supplier", "offer", "order", "order_line").order_by(
        "supplier__slug", "sku", "id"
    )
    for purchase in rows:
        grouped[purchase.supplier.slug].append(purchase)
    return dict(grouped)


def purchase_lists_to_buy(*, user: User) -> dict[str, list[PurchaseLine]]:
    """What is still to buy, per supplier slug: the purchase lines of the orders whose parts are not
    ordered yet (status `placed`), oldest order first (sales and catalog staff)."""
    if not _staff(user):
        raise Forbidden("Only sales and catalog staff see purchase lists.")
    grouped: dict[str, list[PurchaseLine]] = defaultdict(list)
    rows = (
        PurchaseLine.objects.filter(order__status=OrderStatus.PLACED, released=False)
        .select_related("supplier", "offer", "order", "order_line")
        .order_by("supplier__slug", "order__created_at", "order__id", "sku", "id")
    )
    for purchase in rows:
        grouped[purchase.supplier.slug].append(purchase)
    return dict(grouped)


@dataclass(frozen=True)
class PurchaseRow:
    """A purchase line as pages and exports show it: its amounts in the offer's currency and in roubles at the
    day's rate (`rate` None for roubles; `*_rub` None when the currency has no rate: not in any total)."""

    line: PurchaseLine
    name: str  # the part's name in the reader's language (Russian when the catalog has one)
    line_total: Decimal  # unit price × qty, in the line's currency
    rate: Rate | None
    unit_price_rub: Decimal | None
    line_total_rub: Decimal | None


@dataclass(frozen=True)
class PurchaseTable:
    """Purchase rows with their total in roubles; rows whose currency has no rate are counted apart."""

    rows: tuple[PurchaseRow, ...]
    total_rub: Decimal
    without_rate: int
    rates_on: dt.date  # the day the rates are those in force on

    @property
    def rates(self) -> tuple[Rate, ...]:
        """The rates the rows were converted at, one per currency."""
        return tuple({row.rate.currency: row.rate for row in self.rows if row.rate is not None}.values())


def purchase_rates(*, lines: Iterable[PurchaseLine], day: dt.date | None = None) -> RateBook:
    """Today's rates (or `day`'s) of the lines' currencies: read once for a page or an export."""
    return offer_rates(day=day or timezone.localdate(), currencies={line.currency for line in lines})


def purchase_table(*, lines: Iterable[PurchaseLine], rates: RateBook) -> PurchaseTable:
    """The lines with their roubles at `rates` and the total in roubles (finance.rates: never 1:1)."""
    rows: list[PurchaseRow] = []
    total, without_rate = Decimal(0), 0
    for line in lines:
        line_total = line.unit_price * line.qty
        unit_rub = price_in_rub(line.unit_price, line.currency, rates)
        total_rub = price_in_rub(line_total, line.currency, rates)
        rate = rates.rate(line.currency) if total_rub is not None else None
        if total_rub is None:
            without_rate += 1
        else:
            total += total_rub
        rows.append(PurchaseRow(line, part_name(line.order_line), line_total, rate, unit_rub, total_rub))
    return PurchaseTable(rows=tuple(rows), total_rub=total, without_rate=without_rate, rates_on=rates.day)


#: What of each order event's data a customer may read (issue 36 item 7: never suppliers, purchase prices or
#: margin). A whitelist, so a new event type or a new key shows nothing until it is added here: the `planned`
#: event's offers not compared name suppliers, `plan_requeued` keeps the worker's error text, `risk_changed`
#: reasons carry the supplier's code, the purchase-order events (STAFF_EVENTS) are not shown at all.
CUSTOMER_EVENT_KEYS: dict[str, frozenset[str]] = {
    "placed": frozenset({"quote", "revision", "ship_date"}),
    "planned": frozenset({"late", "short", "promise_moved"}),
    "plan_requeued": frozenset({"reason"}),
    "status_changed": frozenset({"from", "to", "note"}),
    "risk_changed": frozenset({"at_risk", "reasons"}),
    "ready_to_assemble": frozenset(),
    "build_step": frozenset({"kind", "result"}),
    "invoiced": frozenset({"invoice", "gross"}),
    "upd_issued": frozenset({"upd", "gross"}),
    "payment": frozenset({"invoice", "amount", "status"}),
    "invoice_cancelled": frozenset({"invoice", "paid"}),
    "invoice_kept": frozenset({"invoice", "paid"}),
}
#: The keys of a listed item (a late or short line, a risk reason) a customer may read.
CUSTOMER_ITEM_KEYS = frozenset({"code", "sku", "qty", "days", "date", "from", "to"})


def customer_event_data(event_type: str, data: object) -> dict[str, object]:
    """An order event's data as its customer may read it: the keys of CUSTOMER_EVENT_KEYS only, and in lists
    of reasons or lines only CUSTOMER_ITEM_KEYS (no supplier, no price)."""
    if not isinstance(data, dict):
        return {}
    allowed = CUSTOMER_EVENT_KEYS.get(event_type, frozenset())
    shown: dict[str, object] = {}
    for key in sorted(allowed & data.keys()):
        value = data[key]
        if isinstance(value, list):
            value = [
                {k: v for k, v in item.items() if k in CUSTOMER_ITEM_KEYS} if isinstance(item, dict) else item
                for item in value
            ]
        elif isinstance(value, dict):
            value = {k: v for k, v in value.items() if k in CUSTOMER_ITEM_KEYS}
        shown[key] = value
    return shown
