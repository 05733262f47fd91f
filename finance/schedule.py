"""Celery beat schedule of finance; config/settings/base.py merges it into CELERY_BEAT_SCHEDULE."""

from __future__ import annotations

from typing import Any

from celery.schedules import crontab

#: The CBR publishes the next day's rates on working days by about 15:30 Moscow time; fetched at 16:00 and
#: again at 20:00 (a late publication), Moscow time (settings.CELERY_TIMEZONE).
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "finance-fetch-cbr-rates": {
        "task": "finance.fetch_cbr_rates",
        "schedule": crontab(minute=0, hour="16,20"),
        "options": {"expires": 3600},
    },
}
