"""Orders tests: an accepted quote of GOOD_BUILD and offers for its parts; the CBR's sample rates on their day."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from finance.cbr import cbr_store
from procurement.models import Supplier, SupplierOffer
from quotes import services as quote_services
from quotes.models import Quote
from tests import factories
from tests.builds import GOOD_BUILD

GOOD_SKUS = {
    "ws-tr-pro-2gpu-4u5": ("chassis", 1),
    "tr-pro-7975wx": ("cpus", 1),
    "rtx-pro-6000-blackwell-maxq": ("gpus", 2),
    "psu-crps-2000w": ("psus", 2),
    "ddr5-rdimm-64gb": ("memory", 8),
    "nvme-4tb": ("storage", 1),
}


@pytest.fixture(autouse=True)
def _renders(renders_in_process: None) -> None:
    """Quote renders run in process (tests/conftest.py)."""


@pytest.fixture
def customer_user(db: None) -> User:
    return factories.customer(username="alice")


@pytest.fixture
def accepted(catalog: None, customer_user: User, sales_user: User) -> Callable[[], Quote]:
    def make() -> Quote:
        quote = quote_services.quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD)
        quote = quote_services.quote_send(quote=quote, user=sales_user)
        return quote_services.quote_accept(quote=quote, user=customer_user)

    return make


@pytest.fixture
def place(django_capture_on_commit_callbacks: Any) -> Callable[..., Any]:
    """POST …/order as `client`, running the on-commit work (the plan job, in process) as a commit would."""

    def post(client: APIClient, number: str) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(f"/api/v1/quotes/{number}/order")

    return post


def offer(supplier: Supplier, sku: str, price: str, stock: int, lead: int) -> SupplierOffer:
    return SupplierOffer.objects.create(
        supplier=supplier,
        sku=sku,
        kind=GOOD_SKUS.get(sku, ("gpus", 1))[0],
        purchase_price=Decimal(price),
        stock_qty=stock,
        lead_time_days=lead,
        valid_until=timezone.localdate() + dt.timedelta(days=30),
    )


@pytest.fixture
def suppliers(catalog: None) -> tuple[Supplier, Supplier]:
    """Two suppliers: A cheaper with 1 GPU in stock (30-day back order), B dearer with 5 in stock.
    Every other part in stock at A."""
    a = Supplier.objects.create(slug="a", name="A")
    b = Supplier.objects.create(slug="b", name="B")
    for sku, (_, qty) in GOOD_SKUS.items():
        if sku != "rtx-pro-6000-blackwell-maxq":
            offer(a, sku, "1000.00", qty * 10, 10)
    offer(a, "rtx-pro-6000-blackwell-maxq", "700000.00", 1, 30)
    offer(b, "rtx-pro-6000-blackwell-maxq", "720000.00", 5, 14)
    return a, b


RATES_DAY = dt.date(2026, 12, 3)  # the day of finance/fixtures/cbr_daily_sample.xml: USD 78.2235, EUR 91.0584
SAMPLE_RATES = Path(__file__).resolve().parents[2] / "finance" / "fixtures" / "cbr_daily_sample.xml"


@pytest.fixture
def rates_day(db: None) -> Iterator[dt.date]:
    """The clock on Thursday 03.12.2026, 10:00 in Moscow (ticking), and the CBR's rates of that day stored."""
    with time_machine.travel(dt.datetime(2026, 12, 3, 10, 0, tzinfo=ZoneInfo("Europe/Moscow")), tick=True):
        cbr_store(SAMPLE_RATES.read_bytes())
        yield RATES_DAY
