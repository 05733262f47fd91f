"""Services that write orders: place one from an accepted quote (idempotent), make its procurement plan
(the Celery job; reserves stock), move it through the transition table, cancel or deliver it (gives stock
back). Only the quote's catalog parts are procured and count for the ship date; its service lines are sold,
not bought (orders.risks.is_procured). Days are working days on the Russian production calendar; offers are
compared in roubles at the day's rate (procurement.selectors.offer_info)."""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from config.celery import publish
from configurator.engine.availability import quantities_availability
from configurator.engine.errors import Conflict, ErrorCode, Forbidden
from configurator.engine.workdays import add_working_days, working_days_between
from finance.rates import RateBook
from orders.models import (
    FINAL_STATUSES,
    TRANSITIONS,
    Order,
    OrderEvent,
    OrderLine,
    OrderStatus,
    PlanStatus,
    PurchaseLine,
)
from orders.purchasing import purchase_orders_cancel_open
from orders.risks import is_procured, orders_at_risk_refresh
from procurement.models import SupplierOffer
from procurement.planning import LinePlan, plan_line
from procurement.selectors import offer_book, offer_info, offer_rates, schedule
from quotes.models import Quote, QuoteStatus
from quotes.services.numbering import document_number_next

logger = logging.getLogger(__name__)

# a plan `planning` this long lost its worker: longer than the plan task's hard time limit (orders.tasks, 90 s)
PLAN_STUCK_AFTER = dt.timedelta(minutes=2)
# a `pending` order not handed to the broker after this is queued by the sweep (the broker was down)
PLAN_UNQUEUED_GRACE = dt.timedelta(seconds=20)
# a plan handed to the broker this long ago and still `pending`: its message was lost (a broker restarted
# without persistence), as quotes' RENDER_LOST_AFTER; a message merely waiting is queued twice, made once
PLAN_LOST_AFTER = dt.timedelta(seconds=30)

ORDER_NUMBER_SEQUENCE = "orders_order_number_seq"  # made by migration 0002 on PostgreSQL
ORDER_COUNTER_NAME = "order_number"  # the SQLite counter row (quotes.QuoteCounter keeps named counters)


class InvalidOrderTransition(Conflict):
    default_code = ErrorCode.INVALID_TRANSITION


def order_number_next() -> str:
    """`O-<year>-<6 digits>`; as quote numbers: a sequence never hands a value out twice."""
    return document_number_next(prefix="O", sequence=ORDER_NUMBER_SEQUENCE, counter=ORDER_COUNTER_NAME)


def event_add(order: Order, type_: str, *, user: User | None = None, data: Mapping[str, Any] | None = None) -> None:
    OrderEvent.objects.create(order=order, type=type_, user=user, data=dict(data or {}))


def order_plan_enqueue(*, order_id: int) -> bool:
    """Hand the plan job to the broker. A broker failure is logged, not raised: the order stays `pending`
    with no `plan_queued_at`, and `orders_sweep_stuck` queues it once the broker answers again."""
    from orders.tasks import order_plan_task

    if not publish(order_plan_task, order_id, what=f"order {order_id}: plan"):
        return False
    Order.objects.filter(pk=order_id).update(plan_queued_at=timezone.now())
    return True


def _plan_queue_on_commit(order_id: int) -> None:
    transaction.on_commit(lambda: order_plan_enqueue(order_id=order_id), robust=True)


def order_place(*, quote: Quote, user: User) -> tuple[Order, bool]:
    """The order of an accepted quote: made once, whoever asks and however often (the quote row is locked
    while the order is made, and the database allows one order per quote). Returns (order, created)."""
    if not (user.is_sales or user.is_superuser or quote.owner_id == user.pk):
        raise Forbidden("Only the customer or sales may order this quote.")
    try:
        with transaction.atomic():
            locked = Quote.objects.select_for_update().get(pk=quote.pk)
            existing = Order.objects.filter(quote__number=locked.number).first()
            if existing is not None:
                return existing, False
            if locked.status != QuoteStatus.ACCEPTED:
                raise Conflict(
                    f"Only an accepted quote can be ordered; {locked.number} R{locked.revision} is {locked.status}.",
                    code=ErrorCode.INVALID_TRANSITION,
                    fields={"status": [locked.status]},
                )
            order = _order_create(locked, user)
    except IntegrityError:  # a concurrent caller made it first (the one-to-one on quote)
        return Order.objects.get(quote__number=quote.number), False
    return order, True


def _order_create(quote: Quote, user: User) -> Order:
    lines = [line for line in quote.lines.order_by("position") if not line.optional]
    quantities: Counter[str] = Counter()
    for line in lines:
        if is_procured(line.kind):  # service lines have no offers and no part in the ship date
            quantities[line.sku] += line.qty
    availability = quantities_availability(quantities, offer_book(), today=timezone.localdate(), schedule=schedule())
    order = Order.objects.create(
        number=order_number_next(), quote=quote, owner=quote.owner, placed_by=user, currency=quote.currency,
        net_total=quote.net_total, vat_total=quote.vat_total, gross_total=quote.gross_total,
        promised_ship_date=availability.ship_date,
    )  # fmt: skip
    OrderLine.objects.bulk_create(
        OrderLine(
            order=order,
            position=position,
            kind=line.kind,
            sku=line.sku,
            name=line.name,
            name_ru=line.name_ru,
            qty=line.qty,
            unit_price=line.unit_price,
            line_total=line.line_total,
        )
        for position, line in enumerate(lines, start=1)
    )
    ship = availability.ship_date.isoformat() if availability.ship_date else None
    event_add(order, "placed", user=user, data={"quote": quote.number, "revision": quote.revision, "ship_date": ship})
    _plan_queue_on_commit(order.pk)
    return order


def order_plan(*, order_id: int) -> bool:
    """Make the order's procurement plan once: claim it (`pending|failed → planning`, a conditional
    UPDATE that also requires the order not to be cancelled or delivered, so a repeated delivery or a plan
    of a cancelled order does nothing), lock the offers of its parts in id order, pick per line the cheapest
    offers in roubles that arrive in time (splitting when stock is short), reserve the stock taken
    (`reserved_qty`, never above `stock_qty`: a database constraint too), write the purchase lines, and say
    whether the order is at risk (a line short or late)."""
    claimed = (
        Order.objects.filter(pk=order_id, plan_status__in=[PlanStatus.PENDING, PlanStatus.FAILED])
        .exclude(status__in=FINAL_STATUSES)
        .update(plan_status=PlanStatus.PLANNING, plan_started_at=timezone.now())
    )
    if claimed != 1:
        return False
    try:
        with transaction.atomic():
            _plan(Order.objects.select_for_update().get(pk=order_id))
    except Exception as exc:
        Order.objects.filter(pk=order_id).update(plan_status=PlanStatus.FAILED, plan_error=repr(exc)[:2000])
        raise
    return True


def _plan(order: Order) -> None:
    if order.status in FINAL_STATUSES:  # cancelled after the claim, before this lock: nothing is bought
        order.plan_status = PlanStatus.SKIPPED
        order.save(update_fields=["plan_status", "updated_at"])
        return
    lines = [line for line in order.lines.all() if is_procured(line.kind)]
    offers = {
        offer.pk: offer
        for offer in SupplierOffer.objects.select_for_update()
        .select_related("supplier")
        .filter(sku__in={line.sku for line in lines})
        .order_by("pk")
    }
    today = timezone.localdate()
    rates = offer_rates(day=today, currencies={offer.currency for offer in offers.values()})
    book = offer_book_of(offers.values(), rates=rates)
    by_key = {(offer.sku, offer.supplier.slug): offer for offer in offers.values()}
    plan = schedule()
    ship_by = order.promised_ship_date or today + dt.timedelta(days=365)
    allowed = working_days_between(today, ship_by) - plan.assembly_days - plan.burn_in_days
    made: list[LinePlan] = []
    taken: dict[int, int] = defaultdict(int)
    for line in lines:
        found = plan_line(line.sku, line.qty, book.get(line.sku, ()), allowed_days=allowed, stock_days=plan.stock_days)
        made.append(found)
        for excluded in found.excluded:
            logger.warning(
                "order %s: offer of %s for %s (%s) not compared: %s",
                order.number, excluded.supplier, line.sku, excluded.currency, excluded.reason,
            )  # fmt: skip
        for allocation in found.allocations:
            offer = by_key[(line.sku, allocation.supplier)]
            if allocation.from_stock:
                taken[offer.pk] += allocation.qty
            PurchaseLine.objects.create(
                order=order, order_line=line, supplier=offer.supplier, offer=offer, sku=line.sku, qty=allocation.qty,
                unit_price=allocation.unit_price, currency=allocation.currency, from_stock=allocation.from_stock,
                expected_days=allocation.days,
            )  # fmt: skip
    for offer_pk, qty in taken.items():
        reserved = SupplierOffer.objects.filter(pk=offer_pk, reserved_qty__lte=F("stock_qty") - qty).update(
            reserved_qty=F("reserved_qty") + qty
        )
        if reserved != 1:  # cannot happen under the row locks; refuse rather than over-reserve
            raise RuntimeError(f"offer {offer_pk} has fewer than {qty} free units")
    order.plan_status, order.plan_error = PlanStatus.READY, ""
    fields = ["plan_status", "plan_error", "updated_at"]
    data = _plan_data(order, made, rates)
    # the promise follows the plan (issue 38): a line late past it moves the ship date, said in the event
    needed = max((found.days for found in made), default=0) + plan.assembly_days + plan.burn_in_days
    planned_ship = add_working_days(today, needed)
    if order.promised_ship_date is not None and planned_ship > order.promised_ship_date:
        data["promise_moved"] = {"from": order.promised_ship_date.isoformat(), "to": planned_ship.isoformat()}
        order.promised_ship_date = planned_ship
        fields.append("promised_ship_date")
    order.save(update_fields=fields)
    event_add(order, "planned", data=data)
    orders_at_risk_refresh(order_ids=[order.pk])


def _plan_data(order: Order, made: list[LinePlan], rates: RateBook) -> dict[str, Any]:
    """What the plan event keeps: purchases, lines late or short (with quantities), offers not compared, and
    the day of the rates the offers were compared at."""
    return {
        "purchases": order.purchases.count(),
        "late": [{"sku": found.sku, "qty": found.qty, "days": found.days} for found in made if found.late],
        "short": [{"sku": found.sku, "qty": found.short_qty} for found in made if found.short_qty],
        # lines no supplier offers at all (e.g. a cluster's switches before any price list names them)
        "no_offer": [found.sku for found in made if not found.allocations and not found.excluded],
        "not_compared": [
            {"sku": found.sku, "supplier": excluded.supplier, "currency": excluded.currency, "reason": excluded.reason}
            for found in made
            for excluded in found.excluded
        ],
        "rates_on": rates.day.isoformat(),
    }


def order_plan_retry(*, order: Order, user: User) -> bool:
    """Make a failed plan again (the task gave up after its retries; staff have fixed what failed it, an offer
    or a supplier): back to `pending`, an order event `plan_requeued` naming who asked and the error it
    replaces, and queued when the transaction commits (the sweep queues it should the broker be down).
    False, and nothing changed, when the order's plan has not failed."""
    with transaction.atomic():
        failed = Order.objects.select_for_update().filter(pk=order.pk, plan_status=PlanStatus.FAILED).first()
        if failed is None:
            return False
        previous = failed.plan_error
        failed.plan_status, failed.plan_queued_at, failed.plan_error = PlanStatus.PENDING, None, ""
        failed.save(update_fields=["plan_status", "plan_queued_at", "plan_error", "updated_at"])
        event_add(failed, "plan_requeued", user=user, data={"reason": "asked_by_staff", "error": previous})
        _plan_queue_on_commit(failed.pk)
    return True


@dataclass(frozen=True)
class PlanSweepReport:
    requeued: tuple[int, ...]


def orders_sweep_stuck(
    *,
    older_than: dt.timedelta = PLAN_STUCK_AFTER,
    unqueued_grace: dt.timedelta = PLAN_UNQUEUED_GRACE,
    lost_after: dt.timedelta = PLAN_LOST_AFTER,
) -> PlanSweepReport:
    """Queue again the plans that were lost, as quotes_sweep_stuck does for renders: `planning` for longer
    than `older_than` (its worker died: the plan's transaction was rolled back, nothing was reserved), so
    back to `pending`; `pending` but never handed to the broker (it was down when the order was placed) or
    handed over longer than `lost_after` ago (the message was lost). A delivery claims the order first, so a
    plan queued twice is made once. Each re-queue is an order event with its reason."""
    now = timezone.now()
    requeued: list[int] = []
    # a cancelled (or delivered) order is never planned: its lost plan is not made, only marked so
    ended = Order.objects.filter(status__in=FINAL_STATUSES, plan_status__in=[PlanStatus.PENDING, PlanStatus.PLANNING])
    ended.exclude(plan_status=PlanStatus.PLANNING, plan_started_at__gte=now - older_than).update(
        plan_status=PlanStatus.SKIPPED
    )
    stuck = Order.objects.filter(plan_status=PlanStatus.PLANNING, plan_started_at__lt=now - older_than)
    for order_id, started in stuck.values_list("pk", "plan_started_at"):
        with transaction.atomic():
            if not Order.objects.filter(pk=order_id, plan_status=PlanStatus.PLANNING, plan_started_at=started).update(
                plan_status=PlanStatus.PENDING, plan_queued_at=None
            ):
                continue  # it finished or was claimed again meanwhile
            OrderEvent.objects.create(
                order_id=order_id,
                type="plan_requeued",
                data={"reason": "planning_too_long", "started_at": started.isoformat() if started else None},
            )
        requeued.append(order_id)
    pending = Order.objects.filter(plan_status=PlanStatus.PENDING).exclude(pk__in=requeued)
    unqueued = pending.filter(plan_queued_at__isnull=True, updated_at__lt=now - unqueued_grace)
    lost = pending.filter(plan_queued_at__lt=now - lost_after)
    for order_id, reason in [
        *((pk, "not_queued") for pk in unqueued.values_list("pk", flat=True)),
        *((pk, "message_lost") for pk in lost.values_list("pk", flat=True)),
    ]:
        OrderEvent.objects.create(order_id=order_id, type="plan_requeued", data={"reason": reason})
        requeued.append(order_id)
    for order_id in requeued:
        order_plan_enqueue(order_id=order_id)
    return PlanSweepReport(requeued=tuple(requeued))


def offer_book_of(offers: Any, *, rates: RateBook) -> dict[str, list[Any]]:
    """The given offers as plain data per SKU, priced in roubles at `rates` (procurement.selectors.offer_info
    is the one conversion)."""
    book: dict[str, list[Any]] = defaultdict(list)
    for offer in offers:
        book[offer.sku].append(offer_info(offer, rates=rates))
    return book


def order_advance(*, order: Order, to: str, user: User, note: str = "") -> Order:
    """Move the order along the transition table (sales only). An order that ends (delivered, cancelled)
    gives its reserved stock back; one cancelled before its plan was made is never planned (its plan is
    marked `skipped`; a plan job that comes later finds it cancelled). Its risks are worked out again."""
    if not (user.is_sales or user.is_superuser):
        raise Forbidden("Only sales engineers may change an order's status.")
    with transaction.atomic():
        locked = Order.objects.select_for_update().get(pk=order.pk)
        if to not in TRANSITIONS.get(locked.status, frozenset()):
            raise InvalidOrderTransition(
                f"An order cannot go from {locked.status} to {to}.",
                fields={"to": [f"not allowed from {locked.status}"]},
            )
        from_status, locked.status = locked.status, to
        fields = ["status", "updated_at"]
        if to == OrderStatus.CANCELLED and locked.plan_status in (PlanStatus.PENDING, PlanStatus.FAILED):
            locked.plan_status = PlanStatus.SKIPPED
            fields.append("plan_status")
        locked.save(update_fields=fields)
        if to in FINAL_STATUSES:
            _release(locked)
        if to == OrderStatus.CANCELLED:
            purchase_orders_cancel_open(order=locked, user=user)
            from billing.services import invoices_on_order_cancel  # billing's models import orders'

            invoices_on_order_cancel(order=locked, user=user)
        event_add(locked, "status_changed", user=user, data={"from": from_status, "to": to, "note": note})
        orders_at_risk_refresh(order_ids=[locked.pk])
    locked.refresh_from_db()
    return locked


def _release(order: Order) -> None:
    """Give back the units the order's plan reserved on its offers (once: each line is marked released)."""
    for purchase in order.purchases.select_for_update().filter(from_stock=True, released=False, offer__isnull=False):
        SupplierOffer.objects.filter(pk=purchase.offer_id or 0).update(reserved_qty=F("reserved_qty") - purchase.qty)
        purchase.released = True
        purchase.save(update_fields=["released"])
