"""Celery tasks of orders: the procurement plan. Takes an id, calls the service; safe to deliver twice
(the service claims the order with a conditional UPDATE)."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from orders import services


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
