"""Celery beat job: the CBR's daily rates, fetched and stored (finance/cbr.py)."""

from __future__ import annotations

import logging
import urllib.error

from celery import shared_task
from django.db import InterfaceError, OperationalError

from finance.cbr import CbrError, cbr_fetch, cbr_store

logger = logging.getLogger(__name__)


@shared_task(
    name="finance.fetch_cbr_rates",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError, urllib.error.URLError, TimeoutError),
    retry_backoff=60,
    max_retries=5,
    soft_time_limit=60,
    time_limit=90,
    ignore_result=True,
)
def cbr_rates_task() -> int:
    """Fetch today's rates and store them; returns how many were written. A file that is not the CBR's is
    logged and dropped (retrying would fetch the same)."""
    try:
        day, written = cbr_store(cbr_fetch())
    except CbrError:
        logger.exception("the CBR's answer could not be read")
        return 0
    logger.info("CBR rates for %s: %s stored", day, written)
    return written
