"""Celery beat schedule of procurement; config/settings/base.py merges it into CELERY_BEAT_SCHEDULE."""

from __future__ import annotations

from typing import Any


def procurement_beat_schedule(scan_seconds: int) -> dict[str, dict[str, Any]]:
    """The dropped price lists are looked for every `scan_seconds` (setting PRICE_LIST_SCAN_SECONDS); a run
    not started before the next one is due is dropped rather than queued behind it."""
    return {
        "procurement-scan-price-lists": {
            "task": "procurement.scan_price_lists",
            "schedule": float(scan_seconds),
            "options": {"expires": max(scan_seconds - 5, 1)},
        },
    }
