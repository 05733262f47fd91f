"""Shared pieces of the price-list tests (issue 35): a fixed day, the CBR's stored sample rates, a
distributor with offers, and files made by the tests themselves."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings
from openpyxl import Workbook

from finance.cbr import cbr_store
from procurement.models import Supplier, SupplierOffer

CBR_SAMPLE = Path(settings.BASE_DIR) / "finance" / "fixtures" / "cbr_daily_sample.xml"  # 03.12.2026: USD 78.2235
IMPORT_DAY = dt.date(2026, 12, 4)  # a Friday; VAT 22 % (from 01.01.2026)
VALID = "31.12.2026"


@pytest.fixture
def import_day() -> Iterator[dt.date]:
    with time_machine.travel(dt.datetime(2026, 12, 4, 12, 0, tzinfo=ZoneInfo("Europe/Moscow")), tick=False):
        yield IMPORT_DAY


@pytest.fixture
def cbr_rates(db: None) -> None:
    cbr_store(CBR_SAMPLE.read_bytes())


@pytest.fixture
def distributor(catalog: None, import_day: dt.date) -> Supplier:
    """A Russian distributor (decimal comma, space thousands, the default column mapping) with five offers."""
    supplier = Supplier.objects.create(slug="dist", name="Distributor")
    prices = {"rtx-4090": "200000.00", "rtx-5090": "300000.00", "l40s": "900000.00", "h200-nvl": "3000000.00",
              "a100-80gb-pcie": "1000000.00"}  # fmt: skip
    for sku, price in prices.items():
        SupplierOffer.objects.create(
            supplier=supplier, sku=sku, kind="gpus", purchase_price=Decimal(price), stock_qty=3,
            lead_time_days=10, valid_until=import_day + dt.timedelta(days=20),
        )  # fmt: skip
    return supplier


def csv_bytes(rows: Sequence[str], *, encoding: str = "utf-8") -> bytes:
    return ("\n".join(rows) + "\n").encode(encoding)


def xlsx_bytes(rows: Sequence[Sequence[Any]]) -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append(list(row))
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def offer(supplier: Supplier, sku: str) -> SupplierOffer:
    return SupplierOffer.objects.get(supplier=supplier, sku=sku)
