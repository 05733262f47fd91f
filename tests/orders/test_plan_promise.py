"""Issue 38 item 3: the order's promise follows its plan, and two orders on the last units get different,
honest promises. Before: both orders placed while 8 DIMMs were in stock were promised the in-stock date;
the second one's plan took what was left and dropped the rest ("ready", not late)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.utils import timezone

from accounts.models import User
from configurator.engine.workdays import add_working_days
from orders.models import Order, OrderEvent, PurchaseLine
from orders.services import order_plan
from procurement.models import Supplier, SupplierOffer
from quotes.models import Quote
from tests.orders.conftest import GOOD_SKUS, offer
from tests.orders.test_orders_api import client_for

pytestmark = pytest.mark.django_db
DIMM = "ddr5-rdimm-64gb"


@pytest.fixture
def one_build_of_dimms(catalog: None) -> Supplier:
    """Every part in stock for many builds, but the 8 DIMMs of one build only (then a 30-day back order)."""
    a = Supplier.objects.create(slug="a", name="A")
    for sku, (_, qty) in GOOD_SKUS.items():
        offer(a, sku, "1000.00", qty if sku == DIMM else qty * 10, 30 if sku == DIMM else 10)
    return a


def test_two_orders_on_the_last_dimms_get_different_promises(
    one_build_of_dimms: Supplier, accepted: Callable[[], Quote], customer_user: User
) -> None:
    client = client_for(customer_user)
    # both placed before either is planned: both are promised the in-stock date, as in the issue
    numbers = [client.post(f"/api/v1/quotes/{accepted().number}/order").json()["number"] for _ in range(2)]
    first, second = (Order.objects.get(number=number) for number in numbers)
    assert first.promised_ship_date == second.promised_ship_date
    promised = first.promised_ship_date
    assert promised is not None

    assert order_plan(order_id=first.pk) and order_plan(order_id=second.pk)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.promised_ship_date == promised  # the stock was its
    dimms = list(PurchaseLine.objects.filter(order=second, sku=DIMM).values_list("qty", "from_stock", "expected_days"))
    assert dimms == [(8, False, 30)]  # none dropped: all 8 on back order
    today = timezone.localdate()
    moved = add_working_days(today, 30 + 3 + 2)  # back order + assembly + burn-in (procurement/conf.py)
    assert second.promised_ship_date == moved and moved > promised
    planned = OrderEvent.objects.get(order=second, type="planned").data
    assert planned["promise_moved"] == {"from": promised.isoformat(), "to": moved.isoformat()}
    assert planned["late"] == [{"sku": DIMM, "qty": 8, "days": 30}] and planned["short"] == []
    assert SupplierOffer.objects.get(sku=DIMM).reserved_qty == 8
    assert isinstance(promised, dt.date)
