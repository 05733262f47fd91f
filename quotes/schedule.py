"""Celery beat schedule of quotes; config/settings/base.py imports it as CELERY_BEAT_SCHEDULE.

Times are in CELERY_TIMEZONE (Europe/Moscow, the seller's time zone): the expiry job runs just after
midnight, when the previous day's validity has ended.
"""

from __future__ import annotations

from typing import Any

from celery.schedules import crontab

CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "quotes-expire": {
        "task": "quotes.expire",
        "schedule": crontab(hour=0, minute=5),
        "options": {"expires": 3600},
    },
    "quotes-sweep-stuck": {
        "task": "quotes.sweep_stuck",
        "schedule": 60.0,
        "options": {"expires": 55},
    },
}
