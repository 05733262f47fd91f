"""/api/v1/purchase-orders/ and /api/v1/receipts/ (issue 36 item 7): the staff's round trip, bad input as 400
naming the field, `?serial=` on receipts and orders, and what a customer never sees."""

from __future__ import annotations

import io
from typing import Any

import pytest
from openpyxl import load_workbook

from accounts.models import User
from orders.models import Order, PurchaseOrder
from tests.orders.test_orders_api import GPU, client_for
from tests.orders.test_purchase_orders import order  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db


def _pos(sales_user: User, order: Order) -> dict[str, Any]:  # noqa: F811
    response = client_for(sales_user).post("/api/v1/purchase-orders/", {"order": order.number}, format="json")
    assert response.status_code == 201, response.content
    return {po["supplier"]: po for po in response.json()}


def test_staff_make_send_and_receive_through_the_api(order: Order, sales_user: User) -> None:  # noqa: F811
    api = client_for(sales_user)
    pos = _pos(sales_user, order)
    assert api.post("/api/v1/purchase-orders/", {"order": order.number}, format="json").status_code == 200
    usd = pos["u"]
    assert (usd["currency"], usd["total"], usd["total_rub"]) == ("USD", "18000.00", "1408023.00")
    assert api.get("/api/v1/purchase-orders/", {"order": order.number}).json()["count"] == 2
    sent = api.post(f"/api/v1/purchase-orders/{usd['number']}/transition/", {"to": "sent"}, format="json")
    assert sent.status_code == 200 and sent.json()["status"] == "sent"
    line = usd["lines"][0]
    body = {"purchase_order": usd["number"], "lines": [{"line": line["id"], "qty": 2, "serials": ["S-1", "S-2"]}]}
    made = api.post("/api/v1/receipts/", body, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["lines"] == [{"line": line["id"], "sku": GPU, "qty": 2, "serials": ["S-1", "S-2"],
                                     "country_code": "", "country_name": "", "declaration": ""}]  # fmt: skip
    assert api.get(f"/api/v1/purchase-orders/{usd['number']}/").json()["status"] == "received"
    found = api.get("/api/v1/receipts/", {"serial": "S-2"}).json()
    assert [r["purchase_order"] for r in found["results"]] == [usd["number"]]
    assert api.get("/api/v1/receipts/", {"serial": "nope"}).json()["count"] == 0
    assert [o["number"] for o in api.get("/api/v1/orders/", {"serial": "S-1"}).json()["results"]] == [order.number]
    again = api.post("/api/v1/receipts/", body | {"purchase_order": usd["number"]}, format="json")
    assert again.status_code == 409  # the purchase order is received: nothing more arrives against it
    xlsx = api.get(f"/api/v1/purchase-orders/{usd['number']}/xlsx/")
    assert xlsx.status_code == 200
    assert load_workbook(io.BytesIO(xlsx.content)).worksheets[0].title == usd["number"]
    assert api.get(f"/api/v1/purchase-orders/{usd['number']}/pdf/").content.startswith(b"%PDF")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"purchase_order": "PO-1", "lines": []}, "purchase_order"),
        ({"purchase_order": "PO-2026-000001", "lines": []}, "lines"),
        ({"purchase_order": "PO-2026-000001", "lines": [{"line": 1, "qty": 0}]}, "lines.0.qty"),
        ({"purchase_order": "PO-2026-000001", "lines": [{"line": "x", "qty": 1}]}, "lines.0.line"),
    ],
)
def test_bad_receipts_are_400_naming_the_field(
    order: Order,  # noqa: F811
    sales_user: User,
    body: dict[str, Any],
    field: str,
) -> None:
    _pos(sales_user, order)
    response = client_for(sales_user).post("/api/v1/receipts/", body, format="json")
    assert response.status_code == 400, response.content
    assert any(name.startswith(field) for name in response.json()["error"]["fields"]), response.json()


def test_a_receipt_short_of_serials_is_400_naming_the_line(order: Order, sales_user: User) -> None:  # noqa: F811
    usd = _pos(sales_user, order)["u"]
    PurchaseOrder.objects.filter(number=usd["number"]).update(status="sent")
    body = {"purchase_order": usd["number"], "lines": [{"line": usd["lines"][0]["id"], "qty": 2, "serials": ["A"]}]}
    response = client_for(sales_user).post("/api/v1/receipts/", body, format="json")
    assert response.status_code == 400
    assert "lines.0.serials" in response.json()["error"]["fields"]


def test_customers_see_no_purchase_orders_and_their_order_shows_no_supplier_or_price(
    order: Order,  # noqa: F811
    sales_user: User,
    customer_user: User,
) -> None:
    pos = _pos(sales_user, order)
    customer = client_for(customer_user)
    for url in ("/api/v1/purchase-orders/", f"/api/v1/purchase-orders/{pos['u']['number']}/", "/api/v1/receipts/"):
        assert customer.get(url).status_code == 403, url
    page = customer.get(f"/api/v1/orders/{order.number}/").content.decode()
    for secret in ("9000.00", "1408023.00", "Supplier U", pos["u"]["number"], pos["r"]["number"]):
        assert secret not in page, secret
    note = customer.get(f"/api/v1/orders/{order.number}/delivery-note/")
    assert note.status_code == 200 and note.content.startswith(b"%PDF")
