"""The billing API end to end on one order: invoice → prepayment → shipment → УПД → the rest paid; what a
customer sees (their documents, never purchase prices, suppliers or the margin); bad input is a 400 naming
the field."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from orders import services as order_services
from orders.models import Order

pytestmark = pytest.mark.django_db
D = Decimal


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_invoice_prepayment_upd_and_the_rest_through_the_api(
    order: Order, sales_user: User, customer_user: User
) -> None:
    sales, customer = client_for(sales_user), client_for(customer_user)
    made = sales.post("/api/v1/invoices/", {"order": order.number}, format="json")
    assert made.status_code == 201, made.content
    invoice = made.json()
    assert invoice["totals"]["gross"] == str(order.gross_total)
    assert (invoice["status"], invoice["paid"], invoice["due"]) == ("unpaid", "0.00", str(order.gross_total))
    assert sales.post("/api/v1/invoices/", {"order": order.number}, format="json").status_code == 200

    prepay = (order.gross_total / 2).quantize(D("0.01"))
    paid = sales.post("/api/v1/payments/", {"invoice": invoice["number"], "amount": str(prepay)}, format="json")
    assert paid.status_code == 201, paid.content
    assert paid.json()["prepayment"] is True
    early = sales.post("/api/v1/transfer-documents/", {"order": order.number}, format="json")
    assert early.status_code == 409
    for status in ("parts_ordered", "assembling", "burn_in", "shipped"):
        order_services.order_advance(order=order, to=status, user=sales_user)
    upd = sales.post("/api/v1/transfer-documents/", {"order": order.number}, format="json")
    assert upd.status_code == 201, upd.content
    assert upd.json()["totals"] == invoice["totals"]
    rest = order.gross_total - prepay
    assert (
        sales.post("/api/v1/payments/", {"invoice": invoice["number"], "amount": str(rest)}, format="json").status_code
        == 201
    )

    mine = customer.get(f"/api/v1/invoices/{invoice['number']}/").json()
    assert (mine["status"], mine["paid"], mine["due"]) == ("paid", str(order.gross_total), "0.00")
    payments = customer.get("/api/v1/payments/").json()["results"]
    assert sum(D(p["amount"]) for p in payments) == order.gross_total
    assert customer.get("/api/v1/transfer-documents/").json()["count"] == 1
    pdf = customer.get(f"/api/v1/invoices/{invoice['number']}/pdf")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    seen = json.dumps([mine, payments, customer.get("/api/v1/transfer-documents/").json()])
    for secret in ("purchase", "supplier", "margin", "unit_price_rub"):
        assert secret not in seen
    assert customer.get(f"/api/v1/orders/{order.number}/margin/").status_code == 403
    margin = sales.get(f"/api/v1/orders/{order.number}/margin/").json()
    assert D(margin["revenue_net"]) == order.net_total
    assert D(margin["margin"]) == order.net_total - D(margin["purchase_cost"])


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/api/v1/invoices/", {"order": "nonsense"}, "order"),
        ("/api/v1/invoices/", {"order": "O-2026-999999"}, "order"),
        ("/api/v1/payments/", {"invoice": "INV-2026-999999", "amount": "1.00"}, "invoice"),
        ("/api/v1/payments/", {"invoice": "{invoice}", "amount": "abc"}, "amount"),
        ("/api/v1/payments/", {"invoice": "{invoice}", "amount": "-1"}, "amount"),
        ("/api/v1/payments/", {"invoice": "{invoice}", "amount": "1.001"}, "amount"),
        ("/api/v1/payments/", {"invoice": "{invoice}", "amount": "99999999999.00"}, "amount"),
        ("/api/v1/payments/", {"invoice": "{invoice}", "amount": "1", "paid_on": "yesterday"}, "paid_on"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(
    order: Order, sales_user: User, url: str, body: dict[str, str], field: str
) -> None:
    sales = client_for(sales_user)
    number = sales.post("/api/v1/invoices/", {"order": order.number}, format="json").json()["number"]
    response = sales.post(url, {key: value.format(invoice=number) for key, value in body.items()}, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"], response.json()


def test_a_payment_over_the_amount_due_is_refused(order: Order, sales_user: User) -> None:
    sales = client_for(sales_user)
    number = sales.post("/api/v1/invoices/", {"order": order.number}, format="json").json()["number"]
    over = order.gross_total + D("0.01")
    response = sales.post("/api/v1/payments/", {"invoice": number, "amount": str(over)}, format="json")
    assert response.status_code == 400
    assert "exceeds" in response.json()["error"]["fields"]["amount"][0]
