"""Reservations end with the order (issue 35 item 6): a delivered or cancelled order holds no stock, and an order
cancelled before its plan job runs is never planned and reserves nothing."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from orders import services
from orders.models import Order, OrderEvent, PurchaseLine
from procurement.models import Supplier, SupplierOffer
from quotes.models import Quote
from tests.orders.test_orders_api import GPU, client_for

pytestmark = pytest.mark.django_db
PATH = ("parts_ordered", "assembling", "burn_in", "shipped", "delivered")


def _reserved() -> dict[tuple[str, str], int]:
    return {(o.supplier.slug, o.sku): o.reserved_qty for o in SupplierOffer.objects.select_related("supplier")}


def _held(order: Order) -> dict[tuple[str, str], int]:
    """What the order's unreleased from-stock purchase lines hold, per (supplier, SKU)."""
    held: dict[tuple[str, str], int] = {}
    for p in PurchaseLine.objects.filter(order=order, from_stock=True, released=False).select_related("supplier"):
        held[(p.supplier.slug, p.sku)] = held.get((p.supplier.slug, p.sku), 0) + p.qty
    return held


def test_a_delivered_order_gives_its_reservation_back_and_a_cancelled_one_too(
    accepted: Callable[[], Quote],
    place: Callable[..., Any],
    customer_user: User,
    sales_user: User,
    suppliers: tuple[Supplier, Supplier],
) -> None:
    client = client_for(customer_user)
    first = Order.objects.get(number=place(client, accepted().number).json()["number"])
    second = Order.objects.get(number=place(client, accepted().number).json()["number"])
    assert _reserved()[("a", GPU)] == 1 and _reserved()[("b", GPU)] == 3  # first: A1 + B1, second: B2
    for status in PATH:
        services.order_advance(order=first, to=status, user=sales_user)
        if status == "shipped":
            assert _held(first) != {}  # shipped still holds until delivered (its final state)
    assert _held(first) == {}
    others = _held(second)
    assert {key: qty for key, qty in _reserved().items() if qty} == others  # only what the second order holds
    assert others[("b", GPU)] == 2
    services.order_advance(order=second, to="cancelled", user=sales_user)
    assert set(_reserved().values()) == {0}
    assert not PurchaseLine.objects.filter(from_stock=True, released=False).exists()
    assert [e.data["to"] for e in OrderEvent.objects.filter(order=first, type="status_changed")] == list(PATH)


def test_an_order_cancelled_before_its_plan_runs_is_never_planned(
    accepted: Callable[[], Quote],
    customer_user: User,
    sales_user: User,
    suppliers: tuple[Supplier, Supplier],
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The plan job is queued on commit; here it waits (not run) while sales cancel the order. When it runs it
    claims nothing; the sweep never queues it again; nothing is reserved."""
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(customer_user).post(f"/api/v1/quotes/{accepted().number}/order")
    order = Order.objects.get(number=response.json()["number"])
    assert order.plan_status == "pending"
    cancelled = services.order_advance(order=order, to="cancelled", user=sales_user)
    assert (cancelled.status, cancelled.plan_status) == ("cancelled", "skipped")
    assert services.order_plan(order_id=order.pk) is False
    Order.objects.filter(pk=order.pk).update(
        updated_at=timezone.now() - dt.timedelta(minutes=5), plan_queued_at=timezone.now() - dt.timedelta(minutes=5)
    )
    assert services.orders_sweep_stuck().requeued == ()
    assert not PurchaseLine.objects.filter(order=order).exists()
    assert set(_reserved().values()) == {0}
    assert [e.type for e in OrderEvent.objects.filter(order=order)] == ["placed", "status_changed"]
    assert Order.objects.get(pk=order.pk).plan_status == "skipped"


def test_a_plan_claimed_just_before_the_cancel_buys_nothing(
    accepted: Callable[[], Quote],
    customer_user: User,
    sales_user: User,
    suppliers: tuple[Supplier, Supplier],
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The worker claimed the plan (`planning`), then the order was cancelled before the worker locked it: the
    plan sees the cancelled order under its lock and makes nothing; a sweep later leaves it alone."""
    with django_capture_on_commit_callbacks(execute=False):
        response = client_for(customer_user).post(f"/api/v1/quotes/{accepted().number}/order")
    order = Order.objects.get(number=response.json()["number"])
    Order.objects.filter(pk=order.pk).update(plan_status="planning", plan_started_at=timezone.now())
    services.order_advance(order=order, to="cancelled", user=sales_user)
    assert Order.objects.get(pk=order.pk).plan_status == "planning"  # the worker holds it
    with transaction.atomic():
        services._plan(Order.objects.select_for_update().get(pk=order.pk))
    assert Order.objects.get(pk=order.pk).plan_status == "skipped"
    assert not PurchaseLine.objects.filter(order=order).exists()
    assert set(_reserved().values()) == {0}
    Order.objects.filter(pk=order.pk).update(
        plan_status="planning", plan_started_at=timezone.now() - dt.timedelta(hours=1)
    )
    assert services.orders_sweep_stuck().requeued == ()  # a cancelled order's lost plan is not made
    assert Order.objects.get(pk=order.pk).plan_status == "skipped"
