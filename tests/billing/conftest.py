"""Billing tests: an order placed from the orders suite's accepted quote of GOOD_BUILD, its plan made from
supplier A (roubles) and supplier B (US dollars) on the CBR's sample day (tests/orders/conftest.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from orders.models import Order
from procurement.models import Supplier, SupplierOffer
from quotes.models import Quote
from tests.orders.conftest import GOOD_SKUS, _renders, accepted, customer_user, place, rates_day

__all__ = ["_renders", "accepted", "customer_user", "place", "rates_day"]

USD_GPU_PRICE = Decimal("8950.00")  # supplier B's price per GPU in US dollars (made up for the test)


@pytest.fixture
def two_currency_suppliers(catalog: None, rates_day: dt.date) -> tuple[Supplier, Supplier]:
    """A sells every part but the GPUs in roubles (1 000.00 each); B sells the GPUs in US dollars."""
    a = Supplier.objects.create(slug="a", name="A")
    b = Supplier.objects.create(slug="b", name="B", currency="USD")
    until = timezone.localdate() + dt.timedelta(days=30)
    for sku, (kind, qty) in GOOD_SKUS.items():
        if sku != "rtx-pro-6000-blackwell-maxq":
            SupplierOffer.objects.create(supplier=a, sku=sku, kind=kind, purchase_price=Decimal("1000.00"),
                                         stock_qty=qty * 10, lead_time_days=10, valid_until=until)  # fmt: skip
    SupplierOffer.objects.create(
        supplier=b, sku="rtx-pro-6000-blackwell-maxq", kind="gpus", purchase_price=USD_GPU_PRICE, currency="USD",
        stock_qty=5, lead_time_days=14, valid_until=until,
    )  # fmt: skip
    return a, b


@pytest.fixture
def order(
    accepted: Callable[[], Quote],
    place: Callable[..., Any],
    customer_user: User,
    two_currency_suppliers: tuple[Supplier, Supplier],
) -> Order:
    quote = accepted()
    client = APIClient()
    client.force_authenticate(customer_user)
    response = place(client, quote.number)
    assert response.status_code == 201, response.content
    return Order.objects.get(number=response.json()["number"])
