"""Orders from accepted quotes: idempotent placing, the procurement plan and its reservations, the status
table, purchase lists, and who sees what."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from configurator.engine.workdays import add_working_days
from orders.models import Order, OrderEvent, PurchaseLine
from procurement.models import Supplier, SupplierOffer
from quotes import services as quote_services
from quotes.models import Quote
from tests import factories
from tests.builds import GOOD_BUILD

pytestmark = pytest.mark.django_db
GPU = "rtx-pro-6000-blackwell-maxq"


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_ordering_an_accepted_quote_makes_one_order_with_its_lines(
    accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User, suppliers: tuple[Supplier, Supplier]
) -> None:
    quote = accepted()
    client = client_for(customer_user)
    first = place(client, quote.number)
    assert first.status_code == 201, first.content
    body = first.json()
    assert re.fullmatch(rf"O-{timezone.localdate().year}-\d{{6}}", body["number"])
    assert (body["quote"], body["status"], body["customer"]) == (quote.number, "placed", "alice")
    assert [(line["sku"], line["qty"]) for line in body["lines"]] == [
        (line.sku, line.qty) for line in quote.lines.filter(optional=False).order_by("position")
    ]
    assert body["totals"]["gross"] == str(quote.gross_total)
    # in time: GPUs from B's stock (2 days), everything else in stock: 2 + 3 assembly + 2 burn-in, working days
    assert body["promised_ship_date"] == add_working_days(timezone.localdate(), 7).isoformat()
    assert (body["at_risk"], body["risk_reasons"]) == (False, [])
    assert [event["type"] for event in body["events"]] == ["placed"]  # the plan job runs after the commit
    again = client.post(f"/api/v1/quotes/{quote.number}/order")
    assert again.status_code == 200
    assert again.json()["number"] == body["number"]
    assert Order.objects.count() == 1
    assert [e.type for e in OrderEvent.objects.all()] == ["placed", "planned"]


def test_an_order_needs_an_accepted_quote(catalog: None, customer_user: User) -> None:
    quote = quote_services.quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD)
    response = client_for(customer_user).post(f"/api/v1/quotes/{quote.number}/order")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "invalid_transition"
    assert not Order.objects.exists()


def test_the_plan_takes_the_cheapest_offers_in_time_and_splits_when_stock_is_short(
    accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User, suppliers: tuple[Supplier, Supplier]
) -> None:
    number = place(client_for(customer_user), accepted().number).json()["number"]
    order = Order.objects.get(number=number)
    assert order.plan_status == "ready"
    gpus = list(PurchaseLine.objects.filter(order=order, sku=GPU).order_by("unit_price"))
    # A is cheaper but has one in stock and a 30-day back order: one from A's stock, one from B's stock
    assert [(p.supplier.slug, p.qty, p.unit_price, p.from_stock) for p in gpus] == [
        ("a", 1, Decimal("700000.00"), True),
        ("b", 1, Decimal("720000.00"), True),
    ]
    assert {p.sku for p in PurchaseLine.objects.filter(order=order)} == {
        "ws-tr-pro-2gpu-4u5", "tr-pro-7975wx", GPU, "psu-crps-2000w", "ddr5-rdimm-64gb", "nvme-4tb",
    }  # fmt: skip
    assert dict(SupplierOffer.objects.filter(sku=GPU).values_list("supplier__slug", "reserved_qty")) == {"a": 1, "b": 1}
    assert SupplierOffer.objects.get(sku="ddr5-rdimm-64gb").reserved_qty == 8


def test_a_second_order_does_not_count_the_reserved_units(
    accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User, suppliers: tuple[Supplier, Supplier]
) -> None:
    client = client_for(customer_user)
    place(client, accepted().number)
    second = place(client, accepted().number).json()
    gpus = PurchaseLine.objects.filter(order__number=second["number"], sku=GPU)
    assert [(p.supplier.slug, p.qty, p.from_stock) for p in gpus] == [("b", 2, True)]  # A's one unit is taken
    assert dict(SupplierOffer.objects.filter(sku=GPU).values_list("supplier__slug", "reserved_qty")) == {"a": 1, "b": 3}


def test_sales_advance_orders_through_the_table_and_cancelling_gives_stock_back(
    accepted: Callable[[], Quote],
    place: Callable[..., Any],
    customer_user: User,
    sales_user: User,
    suppliers: tuple[Supplier, Supplier],
) -> None:
    number = place(client_for(customer_user), accepted().number).json()["number"]
    sales = client_for(sales_user)
    url = f"/api/v1/orders/{number}/advance/"
    refused = client_for(customer_user).post(url, {"to": "parts_ordered"}, format="json")
    assert refused.status_code == 403
    skip = sales.post(url, {"to": "shipped"}, format="json")
    assert skip.status_code == 409
    assert skip.json()["error"]["fields"] == {"to": ["not allowed from placed"]}
    moved = sales.post(url, {"to": "parts_ordered", "note": "PO sent"}, format="json")
    assert moved.status_code == 200
    assert moved.json()["status"] == "parts_ordered"
    assert moved.json()["events"][-1]["data"] == {"from": "placed", "to": "parts_ordered", "note": "PO sent"}
    cancelled = sales.post(url, {"to": "cancelled"}, format="json")
    assert cancelled.json()["status"] == "cancelled"
    assert set(SupplierOffer.objects.values_list("reserved_qty", flat=True)) == {0}
    assert sales.post(url, {"to": "assembling"}, format="json").status_code == 409
    assert [e.type for e in OrderEvent.objects.filter(order__number=number)] == [
        "placed", "planned", "status_changed", "status_changed",
    ]  # fmt: skip


def test_purchase_lists_per_supplier_with_csv_for_staff_only(
    accepted: Callable[[], Quote],
    place: Callable[..., Any],
    customer_user: User,
    sales_user: User,
    suppliers: tuple[Supplier, Supplier],
) -> None:
    number = place(client_for(customer_user), accepted().number).json()["number"]
    staff = client_for(factories.catalog_staff(username="cat"))
    lists = staff.get(f"/api/v1/orders/{number}/purchase-lists/").json()
    assert [entry["supplier"] for entry in lists] == ["a", "b"]
    assert [(line["sku"], line["qty"]) for line in lists[1]["lines"]] == [(GPU, 1)]
    response = staff.get(f"/api/v1/orders/{number}/purchase-lists/b.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=";"))
    name = "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"
    assert rows == [
        [
            "Order", "Supplier", "SKU", "Supplier's SKU", "Name", "Qty", "Unit price", "Currency",
            "Rate, RUB per unit", "Rate date", "Unit price, RUB", "Line total", "Line total, RUB", "Source",
        ],
        [number, "b", GPU, "", name, "1", "720000,00", "RUB", "", "", "720000,00", "720000,00", "720000,00",
         "from stock"],
        ["Total, RUB", "", "", "", "", "1", "", "", "", "", "", "", "720000,00", ""],
    ]  # fmt: skip
    assert client_for(customer_user).get(f"/api/v1/orders/{number}/purchase-lists/").status_code == 403
    assert staff.get(f"/api/v1/orders/{number}/purchase-lists/nobody.csv").status_code == 404


def test_customers_see_only_their_own_orders(
    accepted: Callable[[], Quote],
    place: Callable[..., Any],
    customer_user: User,
    sales_user: User,
    suppliers: tuple[Supplier, Supplier],
) -> None:
    number = place(client_for(customer_user), accepted().number).json()["number"]
    other = client_for(factories.customer(username="bob"))
    assert other.get(f"/api/v1/orders/{number}/").status_code == 404
    assert other.get("/api/v1/orders/").json()["results"] == []
    mine = client_for(customer_user).get("/api/v1/orders/").json()["results"]
    assert [(o["number"], o["status"]) for o in mine] == [(number, "placed")]
    assert [o["number"] for o in client_for(sales_user).get("/api/v1/orders/").json()["results"]] == [number]
