"""Procurement settings, each with its default here so the project's settings stay untouched unless a
deployment wants another value (`PROCUREMENT_<NAME>` in Django settings overrides it)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings

DEFAULTS: dict[str, Any] = {
    # list price = best live purchase price x (1 + markup %); per part kind (catalog fixture keys)
    "MARKUP_PERCENT": {
        "gpus": Decimal(18),
        "cpus": Decimal(15),
        "chassis": Decimal(25),
        "psus": Decimal(25),
        "memory": Decimal(20),
        "storage": Decimal(20),
        "nics": Decimal(20),
        "bridges": Decimal(25),
    },
    "PRICE_MOVE_THRESHOLD_PERCENT": Decimal(5),  # an import reports price moves beyond this
    "STOCK_DAYS": 2,  # days from a distributor's warehouse to ours when the part is in stock
    "ASSEMBLY_DAYS": 3,
    "BURN_IN_DAYS": 2,
    # a dropped price list younger than this may still be being copied: the scan leaves it for the next run
    "PRICE_LIST_SETTLE_SECONDS": 10,
}


def setting(name: str) -> Any:
    return getattr(settings, f"PROCUREMENT_{name}", DEFAULTS[name])
