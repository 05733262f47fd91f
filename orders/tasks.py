"""Celery tasks of orders: the procurement plan (takes an id, calls the service; safe to deliver twice:
the service claims the order with a conditional UPDATE) and the sweep that queues lost plans again (from
beat every 15 s, orders/schedule.py, and from every worker's own sweep, quotes/tasks.py WORKER_SWEEPS);
the check of orders at risk (beat, and by name after a price-list import: `orders.at_risk_refresh`)."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from orders import services
from orders.risks import orders_at_risk_refresh


@shared_task(
    name="orders.plan",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError, ConnectionError, TimeoutError),
    retry_backoff=2,
    max_retries=5,
    soft_time_limit=60,
    time_limit=90,
    ignore_result=True,
)
def order_plan_task(order_id: int) -> bool:
    return services.order_plan(order_id=order_id)


@shared_task(name="orders.sweep_stuck", acks_late=True, soft_time_limit=50, time_limit=55, ignore_result=True)
def orders_sweep_stuck_task() -> int:
    """Lost order plans, and lost e-mails of sent purchase orders, queued again."""
    from orders.purchasing import purchase_orders_email_sweep

    return len(services.orders_sweep_stuck().requeued) + len(purchase_orders_email_sweep())


@shared_task(
    name="orders.at_risk_refresh",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=5,
    max_retries=3,
    soft_time_limit=240,
    time_limit=300,
    ignore_result=True,
)
def orders_at_risk_refresh_task() -> int:
    """Why each open order is at risk, worked out again (stale offers, a supplier's later list short of what
    orders reserved, promises the plan can no longer keep); the number of orders at risk. Idempotent."""
    return len(orders_at_risk_refresh().at_risk)


@shared_task(
    name="orders.po_email",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError, ConnectionError, TimeoutError),
    retry_backoff=5,
    max_retries=5,
    soft_time_limit=60,
    time_limit=90,
    ignore_result=True,
)
def po_email_task(po_id: int) -> bool:
    """E-mail a sent purchase order to its supplier, once (orders.purchasing.po_email_send claims it)."""
    from orders.purchasing import po_email_send

    return po_email_send(po_id=po_id)
