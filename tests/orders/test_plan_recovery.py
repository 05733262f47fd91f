"""Lost procurement plans are made after all: an order placed while the broker was down, a plan whose worker
died after claiming it, a plan message lost with a broker that restarted empty. The sweep (beat every 15 s
and every worker's own sweep) finds each, says why in the order's history, and the plan is made once."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerDown
from rest_framework.test import APIClient

from accounts.models import User
from orders import services
from orders.models import Order, OrderEvent, PurchaseLine
from orders.schedule import ORDERS_BEAT_SCHEDULE
from orders.tasks import order_plan_task, orders_sweep_stuck_task
from procurement.models import Supplier, SupplierOffer
from quotes.models import Quote
from quotes.schedule import SWEEP_INTERVAL_S
from quotes.tasks import WORKER_SWEEPS
from tests.orders.test_order_pages import browser

pytestmark = pytest.mark.django_db
SECOND = dt.timedelta(seconds=1)


@pytest.fixture
def placing(
    accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User, suppliers: tuple[Supplier, Supplier]
) -> Callable[[], Order]:
    """An order of a new accepted quote, placed through the API by its customer (offers for every part)."""

    def make() -> Order:
        client = APIClient()
        client.force_authenticate(customer_user)
        response = place(client, accepted().number)
        assert response.status_code == 201, response.content
        return Order.objects.get(number=response.json()["number"])

    return make


def _reserved() -> dict[tuple[str, str], int]:
    return {(o.supplier.slug, o.sku): o.reserved_qty for o in SupplierOffer.objects.select_related("supplier")}


def _broker_down(*args: Any, **kwargs: Any) -> None:
    """apply_async with the broker refusing connections."""
    raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def _requeue_reasons(order: Order) -> list[str]:
    return [e.data["reason"] for e in OrderEvent.objects.filter(order=order, type="plan_requeued")]


def test_an_order_placed_while_the_broker_is_down_is_planned_once_it_answers(
    placing: Callable[[], Order], customer_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(order_plan_task, "apply_async", _broker_down)
    order = placing()  # the customer still gets the order
    order.refresh_from_db()
    assert (order.plan_status, order.plan_queued_at) == ("pending", None)
    assert services.orders_sweep_stuck().requeued == ()  # within the grace: the commit's own publish may be late
    monkeypatch.undo()  # the broker answers again

    Order.objects.filter(pk=order.pk).update(updated_at=timezone.now() - services.PLAN_UNQUEUED_GRACE - SECOND)
    assert services.orders_sweep_stuck().requeued == (order.pk,)
    order.refresh_from_db()
    assert order.plan_status == "ready" and order.plan_queued_at is not None
    assert _requeue_reasons(order) == ["not_queued"]
    assert [e.type for e in OrderEvent.objects.filter(order=order)] == ["placed", "plan_requeued", "planned"]
    assert PurchaseLine.objects.filter(order=order, sku="rtx-pro-6000-blackwell-maxq").count() == 2
    assert services.orders_sweep_stuck().requeued == ()  # nothing left to do
    # the order's page says so in its history, in the reader's language
    for language, what, why in [
        ("en", "Procurement plan queued again", "the task queue was unavailable when the order was placed"),
        ("ru", "План закупки снова поставлен в очередь", "очередь задач была недоступна, когда заказ оформили"),
    ]:
        page = re.sub(r"\s+", " ", browser(customer_user, language).get(f"/orders/{order.number}").content.decode())
        assert f'<span class="event__what">{what}</span> <span class="event__detail">{why}</span>' in page, language


def test_a_plan_whose_worker_died_is_made_again_from_scratch_and_once(
    placing: Callable[[], Order], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(order_plan_task, "apply_async", lambda *args, **kwargs: None)  # queued, never delivered
    order = placing()
    # a worker claimed it and died: its transaction was rolled back, so only the claim is left
    claimed_at = timezone.now()
    Order.objects.filter(pk=order.pk).update(plan_status="planning", plan_started_at=claimed_at)
    monkeypatch.undo()
    assert services.orders_sweep_stuck().requeued == ()  # may still be running: the task's time limit has not passed
    assert order_plan_task.apply(args=(order.pk,)).get() is False  # a redelivery does not take a claimed plan

    Order.objects.filter(pk=order.pk).update(plan_started_at=claimed_at - services.PLAN_STUCK_AFTER - SECOND)
    assert services.orders_sweep_stuck().requeued == (order.pk,)
    order.refresh_from_db()
    assert order.plan_status == "ready" and order.plan_started_at is not None and order.plan_started_at > claimed_at
    assert _requeue_reasons(order) == ["planning_too_long"]
    assert OrderEvent.objects.filter(order=order, type="planned").count() == 1
    # every unit reserved once: the reservations are the stock the purchase lines took
    taken: dict[tuple[str, str], int] = {}
    for line in PurchaseLine.objects.filter(order=order, from_stock=True).select_related("supplier"):
        taken[line.supplier.slug, line.sku] = taken.get((line.supplier.slug, line.sku), 0) + line.qty
    assert {key: qty for key, qty in _reserved().items() if qty} == taken


def test_a_lost_plan_message_is_queued_again_and_a_second_delivery_does_nothing(
    placing: Callable[[], Order], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(order_plan_task, "apply_async", lambda *args, **kwargs: None)  # handed over, then lost
    lost, waiting = placing(), placing()
    now = timezone.now()
    Order.objects.filter(pk=lost.pk).update(plan_queued_at=now - services.PLAN_LOST_AFTER - SECOND)
    Order.objects.filter(pk=waiting.pk).update(plan_queued_at=now - dt.timedelta(seconds=5))
    monkeypatch.undo()
    assert services.orders_sweep_stuck().requeued == (lost.pk,)
    assert _requeue_reasons(lost) == ["message_lost"] and _requeue_reasons(waiting) == []
    reserved = _reserved()
    assert order_plan_task.apply(args=(lost.pk,)).get() is False  # the first message turns up after all
    assert _reserved() == reserved
    assert OrderEvent.objects.filter(order=lost, type="planned").count() == 1
    assert Order.objects.get(pk=waiting.pk).plan_status == "pending"


def test_the_sweep_runs_from_beat_and_from_every_worker_within_a_minute() -> None:
    beat = ORDERS_BEAT_SCHEDULE["orders-sweep-stuck"]
    assert beat["task"] == orders_sweep_stuck_task.name and beat["schedule"] == SWEEP_INTERVAL_S
    assert "orders.services.orders_sweep_stuck" in WORKER_SWEEPS
    assert services.PLAN_LOST_AFTER.total_seconds() + SWEEP_INTERVAL_S < 60
    # a plan still running is never taken from its worker before the task's hard time limit kills it
    assert services.PLAN_STUCK_AFTER.total_seconds() > order_plan_task.time_limit
    assert orders_sweep_stuck_task.apply().get() == 0  # no orders: nothing to do


# --------------------------------------------------------------------------- a failed plan, made again by staff

ADMIN_ORDERS = "/admin/orders/order/"


def _supplier_down(order: Order) -> None:
    raise RuntimeError("supplier API down")


def _failed(placing: Callable[[], Order], monkeypatch: pytest.MonkeyPatch) -> Order:
    """An order whose plan failed (the task gives up after its retries; here its one attempt fails)."""
    with monkeypatch.context() as patch:
        patch.setattr(order_plan_task, "apply_async", lambda *args, **kwargs: None)  # queued, not delivered yet
        order = placing()
        patch.setattr(services, "_plan", _supplier_down)
        with pytest.raises(RuntimeError, match="supplier API down"):
            services.order_plan(order_id=order.pk)
    order.refresh_from_db()
    assert order.plan_status == "failed" and "supplier API down" in order.plan_error
    return order


def _offered_actions(client: Any) -> set[str]:
    response = client.get(ADMIN_ORDERS)
    assert response.status_code == 200
    form = response.context["action_form"]  # None: no action at all
    return set() if form is None else {name for name, _ in form.fields["action"].choices}


def test_sales_make_a_failed_plan_again_from_the_admin_and_the_history_says_who_and_why(
    placing: Callable[[], Order],
    sales_user: User,
    client: Any,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failed = _failed(placing, monkeypatch)
    ready = placing()  # a plan that did not fail is left alone
    ready.refresh_from_db()
    assert ready.plan_status == "ready"
    client.force_login(sales_user)
    assert "plan_again" in _offered_actions(client)
    with monkeypatch.context() as patch, django_capture_on_commit_callbacks(execute=True):
        patch.setattr(order_plan_task, "apply_async", _broker_down)  # and the broker is down at the commit
        response = client.post(
            ADMIN_ORDERS, {"action": "plan_again", "_selected_action": [failed.pk, ready.pk]}, follow=True
        )
    shown = [str(message) for message in response.context["messages"]]
    assert shown == [  # the admin speaks the site's default language
        f"План закупки заказа {failed.number} снова поставлен в очередь.",
        f"Заказ {ready.number} оставлен как есть: заново составляется только несостоявшийся план.",
    ]
    failed.refresh_from_db()
    assert (failed.plan_status, failed.plan_error) == ("pending", "")  # so the sweep takes it up: a lost
    Order.objects.filter(pk=failed.pk).update(updated_at=timezone.now() - services.PLAN_UNQUEUED_GRACE - SECOND)
    assert services.orders_sweep_stuck().requeued == (failed.pk,)  # failed plan is never queued again by it
    failed.refresh_from_db()
    assert (failed.plan_status, failed.plan_error) == ("ready", "")
    bought: Counter[str] = Counter()
    for sku, qty in PurchaseLine.objects.filter(order=failed).values_list("sku", "qty"):
        bought[sku] += qty
    wanted: Counter[str] = Counter()
    for sku, qty in failed.lines.values_list("sku", "qty"):
        wanted[sku] += qty
    assert bought == wanted and wanted  # every part of the order is bought once
    event = OrderEvent.objects.filter(order=failed, type="plan_requeued").order_by("pk").first()
    assert event is not None and event.user == sales_user and event.data["reason"] == "asked_by_staff"
    assert "supplier API down" in event.data["error"]
    assert [e.type for e in OrderEvent.objects.filter(order=ready)] == ["placed", "planned"]
    # asked again once it is made: nothing more happens
    assert _requeue_reasons(failed) == ["asked_by_staff", "not_queued"]
    assert services.order_plan_retry(order=failed, user=sales_user) is False
    assert _requeue_reasons(failed) == ["asked_by_staff", "not_queued"]
    # the order's page says so in the reader's language
    for language, why in [
        ("en", "asked for by staff after it failed"),
        ("ru", "запрошен сотрудником после сбоя"),
    ]:
        page = re.sub(r"\s+", " ", browser(sales_user, language).get(f"/orders/{failed.number}").content.decode())
        assert f'<span class="event__detail">{why}</span>' in page, language


def test_catalog_staff_are_not_offered_the_action_and_cannot_post_it(
    placing: Callable[[], Order], client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests import factories

    failed = _failed(placing, monkeypatch)
    client.force_login(factories.catalog_staff(username="cat"))
    assert "plan_again" not in _offered_actions(client)
    client.post(ADMIN_ORDERS, {"action": "plan_again", "_selected_action": [failed.pk]})
    failed.refresh_from_db()
    assert failed.plan_status == "failed"
    assert not OrderEvent.objects.filter(order=failed, type="plan_requeued").exists()
