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
    # an import holds price moves beyond this (either way) until a person confirms them
    "PRICE_HOLD_PERCENT": Decimal(30),
    # a price list over one of these is refused whole, saying its size (procurement/pricelist/files.py)
    "PRICE_LIST_MAX_BYTES": 10 * 1024 * 1024,
    "PRICE_LIST_MAX_ROWS": 100_000,
    "PRICE_LIST_MAX_COLUMNS": 200,
    "PRICE_LIST_MAX_CELL_CHARS": 1_000,
    # a report lists at most this many errors, unmatched rows and converted prices (and says how many more)
    "PRICE_LIST_REPORT_MOST": 1_000,
    "STOCK_DAYS": 2,  # days from a distributor's warehouse to ours when the part is in stock
    "ASSEMBLY_DAYS": 3,
    "BURN_IN_DAYS": 2,
    # a dropped price list younger than this may still be being copied: the scan leaves it for the next run
    "PRICE_LIST_SETTLE_SECONDS": 10,
}


def setting(name: str) -> Any:
    return getattr(settings, f"PROCUREMENT_{name}", DEFAULTS[name])
