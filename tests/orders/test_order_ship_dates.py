"""Ship dates of quotes and orders count working days on the Russian production calendar (issue 35 item 7), and
only the parts count: service lines (warranty, delivery, software) are sold, not bought (item 6)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.utils import timezone

from accounts.models import User
from configurator.engine.workdays import add_working_days
from orders.models import Order, OrderEvent, PurchaseLine
from procurement.models import Supplier, SupplierOffer
from quotes import services as quote_services
from quotes.services.extras import quote_services_set
from servicelines.services import services_load_fixture
from tests.builds import GOOD_BUILD
from tests.orders.conftest import GOOD_SKUS
from tests.orders.test_orders_api import client_for

pytestmark = pytest.mark.django_db
MOSCOW = ZoneInfo("Europe/Moscow")


def test_an_order_with_service_lines_keeps_its_ship_date_and_buys_no_services(
    catalog: None,
    customer_user: User,
    sales_user: User,
    suppliers: tuple[Supplier, Supplier],
    place: Callable[..., Any],
) -> None:
    """Warranty and delivery have no offers; they are not parts: the promise is the parts' (in stock: 2 + 3 + 2
    working days), the plan buys only parts, and nothing is short."""
    services_load_fixture()
    quote = quote_services.quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD)
    quote = quote_services_set(quote=quote, user=customer_user, skus=["warranty-3y", "delivery-russia"])
    quote = quote_services.quote_accept(
        quote=quote_services.quote_send(quote=quote, user=sales_user), user=customer_user
    )
    body = place(client_for(customer_user), quote.number).json()
    assert [line["kind"] for line in body["lines"]].count("services") == 2
    assert body["promised_ship_date"] == add_working_days(timezone.localdate(), 7).isoformat()
    order = Order.objects.get(number=body["number"])
    assert order.plan_status == "ready" and not order.at_risk
    assert {p.sku for p in PurchaseLine.objects.filter(order=order)} == set(GOOD_SKUS)
    planned = OrderEvent.objects.get(order=order, type="planned").data
    assert (planned["short"], planned["late"]) == ([], [])
    placed = OrderEvent.objects.get(order=order, type="placed").data
    assert placed["ship_date"] == body["promised_ship_date"]


def test_a_quote_made_on_25_12_2026_ships_on_19_01_2027(
    catalog: None, customer_user: User, sales_user: User, place: Callable[..., Any]
) -> None:
    """Every part on order with a 5-working-day lead time (none in stock): the part waits max(stock 2, lead 5) =
    5 working days, then assembly 3 and burn-in 2 (procurement/conf.py): 10 working days after Friday
    25.12.2026. The production calendar (holidays' RU with the government's transfers): Mon 28, Tue 29, Wed 30
    December are working days 1–3; Thu 31.12.2026 and 01–08.01.2027 are days off (New Year holidays), Sat 09
    and Sun 10.01 the weekend; Mon 11 is day 4 and Tue 12.01 day 5 (the parts are here), Wed 13 – Fri 15 days
    6–8 (assembly ends on 15.01), Mon 18 and Tue 19.01 days 9–10 (burn-in): ships on Tuesday 19.01.2027, where
    calendar days would have said 04.01.2027, a day off."""
    supplier = Supplier.objects.create(slug="s", name="S")
    with time_machine.travel(dt.datetime(2026, 12, 25, 11, 0, tzinfo=MOSCOW), tick=True):
        for sku, (kind, _) in GOOD_SKUS.items():
            SupplierOffer.objects.create(
                supplier=supplier, sku=sku, kind=kind, purchase_price=Decimal(1000), stock_qty=0, lead_time_days=5,
                valid_until=dt.date(2027, 1, 31),
            )  # fmt: skip
        quote = quote_services.quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD)
        assert (quote.verdict["ship_date"], quote.verdict["lead_time_days"]) == ("2027-01-19", 10)
        quote = quote_services.quote_accept(
            quote=quote_services.quote_send(quote=quote, user=sales_user), user=customer_user
        )
        body = place(client_for(customer_user), quote.number).json()
        assert body["promised_ship_date"] == "2027-01-19"
        order = Order.objects.get(number=body["number"])
        # the plan has 10 - 3 - 2 = 5 working days for the parts: the 5-day back orders are in time
        assert order.plan_status == "ready" and not order.at_risk
        assert set(PurchaseLine.objects.filter(order=order).values_list("expected_days", "from_stock")) == {(5, False)}
    assert add_working_days(dt.date(2026, 12, 25), 5) == dt.date(2027, 1, 12)  # the parts' day, as above
