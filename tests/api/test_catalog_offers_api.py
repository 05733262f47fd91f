"""Offers and availability in the catalog API: everyone sees when a part can be had; only sales and catalog
staff see the suppliers' offers with their purchase prices."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from configurator.engine.workdays import add_working_days
from procurement.models import Supplier, SupplierOffer
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def offers(catalog: None) -> None:
    today = timezone.localdate()
    cheap = Supplier.objects.create(slug="cheap", name="Cheap Ltd")
    quick = Supplier.objects.create(slug="quick", name="Quick Ltd")
    SupplierOffer.objects.create(
        supplier=cheap, sku="rtx-4090", kind="gpus", purchase_price=Decimal("180000.00"), stock_qty=0,
        lead_time_days=21, valid_until=today + dt.timedelta(days=20), supplier_sku="C-4090",
    )  # fmt: skip
    SupplierOffer.objects.create(
        supplier=quick, sku="rtx-4090", kind="gpus", purchase_price=Decimal("195000.00"), stock_qty=4,
        reserved_qty=1, lead_time_days=7, valid_until=today + dt.timedelta(days=5),
    )  # fmt: skip
    SupplierOffer.objects.create(  # stale: cheapest, in stock, but past its validity
        supplier=quick, sku="rtx-5090", kind="gpus", purchase_price=Decimal("100.00"), stock_qty=9,
        lead_time_days=1, valid_until=today - dt.timedelta(days=1),
    )  # fmt: skip


def _client(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_staff_see_every_offer_with_its_stale_flag_and_the_availability(offers: None) -> None:
    today = timezone.localdate()
    for user in (factories.sales(username="s"), factories.catalog_staff(username="c")):
        body = _client(user).get("/api/v1/catalog/gpus/rtx-4090/").json()
        assert body["availability"] == {
            "live_offers": 2,
            "in_stock_qty": 3,  # 4 in stock, 1 reserved by an order
            "lead_time_days": 2,  # in stock: the stock days
            "earliest_date": add_working_days(today, 2).isoformat(),  # working days
        }
        assert [(o["supplier"], o["purchase_price"], o["free_qty"], o["stale"]) for o in body["offers"]] == [
            ("cheap", "180000.00", 0, False),
            ("quick", "195000.00", 3, False),
        ]
        assert body["offers"][0] == {
            "supplier": "cheap", "supplier_name": "Cheap Ltd", "purchase_price": "180000.00", "currency": "RUB",
            "stock_qty": 0, "free_qty": 0, "lead_time_days": 21,
            "valid_until": (today + dt.timedelta(days=20)).isoformat(), "stale": False,
            "updated_at": body["offers"][0]["updated_at"],
        }  # fmt: skip
    stale = _client(factories.sales(username="s2")).get("/api/v1/catalog/gpus/rtx-5090/").json()
    assert [(o["supplier"], o["stale"]) for o in stale["offers"]] == [("quick", True)]
    assert stale["availability"] == {"live_offers": 0, "in_stock_qty": 0, "lead_time_days": None, "earliest_date": None}


@pytest.mark.parametrize("who", ["anonymous", "customer"])
def test_customers_and_visitors_see_availability_but_no_purchase_price(offers: None, who: str) -> None:
    client = _client(factories.customer(username="cust") if who == "customer" else None)
    response = client.get("/api/v1/catalog/gpus/rtx-4090/")
    body = response.json()
    assert body["offers"] is None
    assert body["availability"]["in_stock_qty"] == 3
    assert "180000" not in response.content.decode() and "195000" not in response.content.decode()
    listed = client.get("/api/v1/catalog/gpus/", {"page_size": 500}).json()["results"]
    assert all(row["offers"] is None for row in listed)


def test_the_list_reads_the_offers_once_and_shows_parts_without_any(offers: None) -> None:
    client = _client(factories.sales(username="s"))
    with CaptureQueriesContext(connection) as queries:
        listed = client.get("/api/v1/catalog/gpus/", {"page_size": 500}).json()["results"]
    offer_queries = [q for q in queries.captured_queries if "procurement_supplieroffer" in q["sql"]]
    assert len(offer_queries) == 1
    by_sku = {row["sku"]: row for row in listed}
    assert len(by_sku["rtx-4090"]["offers"]) == 2
    assert by_sku["h200-nvl"]["offers"] == []
    assert by_sku["h200-nvl"]["availability"]["earliest_date"] is None


def test_the_number_of_queries_of_a_list_does_not_grow_with_its_rows(offers: None) -> None:
    """Whether the caller sees the offers is asked per row; the user's groups are read once (User.group_names)."""
    for user in (factories.sales(username="s"), factories.catalog_staff(username="c"), factories.customer()):
        counts = []
        for page_size in (2, 500):
            client = _client(User.objects.get(pk=user.pk))  # read afresh, as each request reads its user
            with CaptureQueriesContext(connection) as queries:
                listed = client.get("/api/v1/catalog/gpus/", {"page_size": page_size}).json()["results"]
            counts.append(len(queries.captured_queries))
            assert len(listed) == 2 if page_size == 2 else len(listed) > 20
        assert counts[0] == counts[1], (user.username, counts)


def test_the_kept_group_names_follow_a_change_made_through_the_user() -> None:
    user = factories.customer(username="moving")
    assert not user.is_sales
    user.groups.add(Group.objects.get(name="sales"))
    assert user.is_sales
    user.groups.clear()
    assert not user.is_sales and not user.is_catalog_staff
    Group.objects.get(name="catalog").user_set.add(user)  # through the group: seen after a refresh
    user.refresh_from_db()
    assert user.is_catalog_staff
