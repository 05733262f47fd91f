"""Celery beat schedule of orders (config/settings/base.py merges it into CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from typing import Any

from quotes.schedule import SWEEP_INTERVAL_S

AT_RISK_REFRESH_S = 15 * 60.0

ORDERS_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    # plans whose worker died or whose message was lost are queued again within PLAN_LOST_AFTER + this
    "orders-sweep-stuck": {
        "task": "orders.sweep_stuck",
        "schedule": SWEEP_INTERVAL_S,
        "options": {"expires": SWEEP_INTERVAL_S - 1},
    },
    # offers go stale at midnight and suppliers' lists come any time: orders at risk are looked for again
    "orders-at-risk-refresh": {
        "task": "orders.at_risk_refresh",
        "schedule": AT_RISK_REFRESH_S,
        "options": {"expires": AT_RISK_REFRESH_S - 60},
    },
}
