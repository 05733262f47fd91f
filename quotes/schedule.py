"""Celery beat schedule of quotes; config/settings/base.py imports it as CELERY_BEAT_SCHEDULE.

Times are in CELERY_TIMEZONE (Europe/Moscow, the seller's time zone): the expiry job runs just after
midnight, when the previous day's validity has ended.
"""

from __future__ import annotations

from typing import Any

from celery.schedules import crontab

SWEEP_INTERVAL_S = 15.0

CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "quotes-expire": {
        "task": "quotes.expire",
        "schedule": crontab(hour=0, minute=5),
        "options": {"expires": 3600},
    },
    # lost renders are queued again within RENDER_LOST_AFTER + this (45 s); every worker also sweeps on
    # its own (quotes/tasks.py), so nothing waits for beat
    "quotes-sweep-stuck": {
        "task": "quotes.sweep_stuck",
        "schedule": SWEEP_INTERVAL_S,
        "options": {"expires": SWEEP_INTERVAL_S - 1},
    },
}
