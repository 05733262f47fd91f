"""Orders at risk: why an order's promised ship date may not be kept (issue 35).

Reasons, each a `Risk` (stored on the order as plain data, `Order.risk_reasons`, with `Order.at_risk`):

* `short` — a part the plan could not cover: `qty` units had no live offer with a price in roubles;
* `late` — a part the plan buys arrives too late for the promise: the build can ship on `date`, later
  than the promised ship date. A purchase's working days count as the plan counted them, after its day;
  while the parts are not ordered, after yesterday (they can still be ordered today: a weekend lost
  nothing, a working day without an order did); once ordered, after the day before they were;
* `overdue` — the promised ship date (`date`) has passed and the order has not shipped;
* `stale_offer` / `offer_gone` — an offer a purchase line relies on is past its validity (`date`) or was
  deleted, before the parts are here (placed, parts ordered);
* `not_received` — a purchase order's line was expected by `date` and `qty` of its units have not arrived
  (the receipts fell short, or nothing came); from the parts being ordered until the server is assembled;
* `po_cancelled` — a purchase order of the order was cancelled with `qty` units of a part not received (the
  order itself goes on: they must be bought again);
* `stock_short` — the supplier's latest price list, applied after the order's plan, lists fewer units of
  the part than the orders still to buy (placed) reserved from that offer: the oldest orders keep theirs,
  the newer ones are short by `qty`. Once the parts are ordered the supplier's stock no longer counts them.

The price-list import keeps an offer's stock at least at what orders reserved (procurement/services.py),
so the supplier's own figure is kept beside it: `SupplierOffer.listed_stock_qty`, set when a list is applied
(0 for an offer a full list retired).

`orders_at_risk_refresh` works them out and stores them: after a plan, after a status change, from the beat
job `orders.at_risk_refresh` (orders/schedule.py) and after a price-list import (which sends that task
by name when it commits). A change writes an order event.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from catalog.cluster_models import CLUSTER_MODELS
from catalog.models import CATALOG_MODELS
from configurator.engine.availability import Schedule
from configurator.engine.workdays import add_working_days
from orders.models import (
    FINAL_STATUSES,
    PARTS_PENDING_STATUSES,
    Order,
    OrderEvent,
    OrderStatus,
    PlanStatus,
    PurchaseLine,
    PurchaseOrderLine,
    PurchaseOrderStatus,
)
from procurement.selectors import schedule

logger = logging.getLogger(__name__)

#: Statuses whose ship date is still to come: the others (shipped, delivered, cancelled) are never at risk.
OPEN_STATUSES = frozenset(OrderStatus.values) - FINAL_STATUSES - {OrderStatus.SHIPPED}


def is_procured(kind: str) -> bool:
    """Whether an order line of `kind` is bought from suppliers: catalog parts are; service lines (kind
    `services`: warranty, on-site, software, burn-in report, delivery) are not, and take no part in ship dates.
    A cluster quote's parts (switches, adapters, cables, storage nodes, racks, PDUs: catalog CLUSTER_MODELS) are
    bought too."""
    return kind in CATALOG_MODELS or kind in CLUSTER_MODELS


@dataclass(frozen=True)
class Risk:
    code: str  # short, late, overdue, stale_offer, offer_gone, stock_short, not_received, po_cancelled
    sku: str = ""
    supplier: str = ""  # the supplier's slug (staff only)
    qty: int | None = None
    date: dt.date | None = None

    def as_data(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "sku": self.sku,
            "supplier": self.supplier,
            "qty": self.qty,
            "date": self.date.isoformat() if self.date else None,
        }


def _planned_at(order: Order) -> dt.datetime:
    return order.plan_started_at or order.created_at


def stock_shortages(purchases: Iterable[PurchaseLine]) -> dict[int, int]:
    """Purchase line id → units its supplier's later list no longer has (`SupplierOffer.listed_stock_qty`, set
    when a list is applied; offers no list has named yet tell nothing). `purchases`: the unreleased from-stock
    lines of orders still to buy, with their order and offer. Per offer, the orders planned before the list
    share its units oldest first."""
    by_offer: dict[int, list[PurchaseLine]] = defaultdict(list)
    for purchase in purchases:
        if purchase.offer_id is not None:
            by_offer[purchase.offer_id].append(purchase)
    short: dict[int, int] = {}
    for lines in by_offer.values():
        offer = lines[0].offer
        listed_at = offer.listed_at if offer is not None else None
        if offer is None or listed_at is None:
            continue
        left = offer.listed_stock_qty or 0
        for line in sorted(lines, key=lambda p: (p.order.created_at, p.order_id, p.pk)):
            if _planned_at(line.order) >= listed_at:
                continue  # planned against this list already
            taken = min(left, line.qty)
            left -= taken
            if taken < line.qty:
                short[line.pk] = line.qty - taken
    return short


def _counted_from(order: Order, today: dt.date) -> dt.date:
    """The day after which a purchase's working days run (see `late` in the module's docstring)."""
    planned_on = timezone.localdate(_planned_at(order))
    ordered_on = _parts_ordered_on(order) if order.status == OrderStatus.PARTS_ORDERED else None
    return max(planned_on, (ordered_on or today) - dt.timedelta(days=1))


def _parts_ordered_on(order: Order) -> dt.date | None:
    for event in order.events.filter(type="status_changed").order_by("-created_at", "-id"):
        if event.data.get("to") == OrderStatus.PARTS_ORDERED:
            return timezone.localdate(event.created_at)
    return None


def order_risks(
    order: Order,
    *,
    purchases: list[PurchaseLine],
    shortages: Mapping[int, int],
    today: dt.date,
    plan: Schedule,
    po_lines: Iterable[PurchaseOrderLine] = (),
) -> tuple[Risk, ...]:
    """Why `order` is at risk today (see the module's docstring); `purchases`: its purchase lines with their
    offers, suppliers and order lines; `shortages`: `stock_shortages` of every order still to buy."""
    if order.status not in OPEN_STATUSES:
        return ()
    risks: list[Risk] = []
    promised = order.promised_ship_date
    live = [p for p in purchases if not p.released]
    if order.plan_status == PlanStatus.READY:
        covered: dict[int, int] = defaultdict(int)
        for purchase in purchases:
            covered[purchase.order_line_id] += purchase.qty
        for line in order.lines.all():
            if is_procured(line.kind) and covered[line.pk] < line.qty:
                risks.append(Risk("short", sku=line.sku, qty=line.qty - covered[line.pk]))
    if promised is not None and order.status in PARTS_PENDING_STATUSES:
        since = _counted_from(order, today)
        late: dict[str, tuple[int, dt.date]] = {}
        for purchase in live:
            ships = add_working_days(
                add_working_days(since, purchase.expected_days), plan.assembly_days + plan.burn_in_days
            )
            if ships > promised:
                qty, latest = late.get(purchase.sku, (0, ships))
                late[purchase.sku] = (qty + purchase.qty, max(latest, ships))
        risks.extend(Risk("late", sku=sku, qty=qty, date=day) for sku, (qty, day) in sorted(late.items()))
    if promised is not None and promised < today:
        risks.append(Risk("overdue", date=promised))
    if order.status in PARTS_PENDING_STATUSES:
        seen: set[tuple[str, str, str]] = set()
        for purchase in live:
            offer, supplier = purchase.offer, purchase.supplier.slug
            if offer is None:
                risk = Risk("offer_gone", sku=purchase.sku, supplier=supplier)
            elif offer.valid_until < today:
                risk = Risk("stale_offer", sku=purchase.sku, supplier=supplier, date=offer.valid_until)
            else:
                continue
            if (risk.code, risk.sku, risk.supplier) not in seen:
                seen.add((risk.code, risk.sku, risk.supplier))
                risks.append(risk)
    if order.status in (OrderStatus.PARTS_ORDERED, OrderStatus.ASSEMBLING):
        for po_line in sorted(po_lines, key=lambda line: (line.expected_date, line.sku, line.pk)):
            if po_line.purchase_order.status == PurchaseOrderStatus.CANCELLED:
                risks.append(Risk(
                    "po_cancelled", sku=po_line.sku, supplier=po_line.purchase_order.supplier.slug,
                    qty=po_line.qty - po_line.received_qty,
                ))  # fmt: skip
            elif po_line.expected_date < today and po_line.received_qty < po_line.qty:
                risks.append(Risk(
                    "not_received", sku=po_line.sku, supplier=po_line.purchase_order.supplier.slug,
                    qty=po_line.qty - po_line.received_qty, date=po_line.expected_date,
                ))  # fmt: skip
    short_stock: dict[tuple[str, str], int] = defaultdict(int)
    for purchase in live:
        if purchase.pk in shortages:
            short_stock[(purchase.sku, purchase.supplier.slug)] += shortages[purchase.pk]
    risks.extend(
        Risk("stock_short", sku=sku, supplier=supplier, qty=qty) for (sku, supplier), qty in sorted(short_stock.items())
    )
    return tuple(risks)


@dataclass(frozen=True)
class RiskRefreshReport:
    checked: int
    at_risk: tuple[int, ...]  # ids of the orders at risk now
    changed: tuple[int, ...]  # ids whose reasons changed


def orders_at_risk_refresh(*, order_ids: Iterable[int] | None = None) -> RiskRefreshReport:
    """Work out and store why each open order (or those of `order_ids`) is at risk, and clear the reasons of
    orders that shipped, were delivered or were cancelled. A change of reasons writes an order event
    `risk_changed` with the new reasons. Idempotent: run it as often as wanted."""
    today, plan, now = timezone.localdate(), schedule(), timezone.now()
    wanted = Order.objects.filter(Q(status__in=OPEN_STATUSES) | Q(at_risk=True))
    if order_ids is not None:
        wanted = wanted.filter(pk__in=set(order_ids))
    orders = list(wanted.prefetch_related("lines"))
    purchases: dict[int, list[PurchaseLine]] = defaultdict(list)
    rows = PurchaseLine.objects.filter(order__in=[o.pk for o in orders]).select_related("offer", "supplier")
    for purchase in rows:
        purchases[purchase.order_id].append(purchase)
    po_lines: dict[int, list[PurchaseOrderLine]] = defaultdict(list)
    open_lines = PurchaseOrderLine.objects.filter(
        purchase_order__order__in=[o.pk for o in orders], received_qty__lt=F("qty")
    )
    for po_line in open_lines.select_related("purchase_order__supplier"):
        po_lines[po_line.purchase_order.order_id].append(po_line)
    to_buy = list(
        PurchaseLine.objects.filter(
            order__status=OrderStatus.PLACED, from_stock=True, released=False, offer__isnull=False,
            offer_id__in={p.offer_id for lines in purchases.values() for p in lines if p.offer_id},
        ).select_related("order", "offer")
    )  # fmt: skip
    shortages = stock_shortages(to_buy)
    at_risk: list[int] = []
    changed: list[int] = []
    for order in orders:
        reasons = [risk.as_data() for risk in order_risks(
            order, purchases=purchases[order.pk], shortages=shortages, today=today, plan=plan,
            po_lines=po_lines[order.pk],
        )]  # fmt: skip
        if reasons:
            at_risk.append(order.pk)
        with transaction.atomic():
            locked = Order.objects.select_for_update().only("pk", "at_risk", "risk_reasons").get(pk=order.pk)
            fields: dict[str, Any] = {"risk_checked_at": now}
            if locked.risk_reasons != reasons or locked.at_risk != bool(reasons):
                fields |= {"at_risk": bool(reasons), "risk_reasons": reasons}
                changed.append(order.pk)
                OrderEvent.objects.create(
                    order_id=order.pk, type="risk_changed", data={"at_risk": bool(reasons), "reasons": reasons}
                )
            Order.objects.filter(pk=order.pk).update(**fields)
    return RiskRefreshReport(checked=len(orders), at_risk=tuple(at_risk), changed=tuple(changed))
