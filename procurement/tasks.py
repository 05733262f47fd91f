"""Celery tasks of procurement: the beat job that imports dropped price lists (procurement/dropbox.py)."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from procurement.dropbox import price_list_drop_scan


@shared_task(
    name="procurement.scan_price_lists",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=5,
    max_retries=3,
    soft_time_limit=240,
    time_limit=300,
    ignore_result=True,
)
def price_list_scan_task() -> int:
    """Import what waits in the drop directory; returns how many files were taken (applied, failed or
    duplicate). Safe to run twice at once: the database takes each file's bytes once."""
    return len(price_list_drop_scan())
