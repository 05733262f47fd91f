"""An accountant's and a purchasing manager's trial of issue 36 through the API: a 50 % prepayment and then an
overpayment attempt; cancelling an order after a partial receipt; bodies an integration sends by mistake
(each a 400 naming the field and the reason, never a 500); a customer's and a catalog clerk's access to
each write endpoint (refused, and nothing written)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from billing import services
from billing.models import Invoice, Payment
from orders import purchasing
from orders import services as order_services
from orders.models import Order, PurchaseOrder, Receipt, ReceivedSerial
from orders.purchasing import ReceiptLineInput
from procurement.models import Supplier
from tests import factories

pytestmark = pytest.mark.django_db
D = Decimal


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_half_prepaid_then_an_overpayment_is_refused_with_what_is_due(order: Order, sales_user: User) -> None:
    sales = client_for(sales_user)
    number = sales.post("/api/v1/invoices/", {"order": order.number}, format="json").json()["number"]
    half = (order.gross_total / 2).quantize(D("0.01"))
    paid = sales.post("/api/v1/payments/", {"invoice": number, "amount": str(half), "reference": "ПП 12"},
                      format="json")  # fmt: skip
    assert paid.status_code == 201 and paid.json()["prepayment"] is True
    due = order.gross_total - half
    over = sales.post("/api/v1/payments/", {"invoice": number, "amount": str(order.gross_total)}, format="json")
    assert over.status_code == 400
    assert over.json()["error"]["fields"]["amount"] == [f"exceeds the amount still due, {due:.2f}"]
    invoice = Invoice.objects.get(number=number)
    assert (invoice.paid_total, invoice.status, Payment.objects.count()) == (half, "partly_paid", 1)


def test_cancelling_after_a_partial_receipt(order: Order, sales_user: User) -> None:
    Supplier.objects.update(contact="zakaz@supplier.example")  # purchase orders are e-mailed when sent
    services.invoice_create(order=order, user=sales_user)
    invoice = Invoice.objects.get(order=order)
    services.payment_record(invoice=invoice, amount=D("1000.00"), user=sales_user)
    purchasing.purchase_orders_create(order=order, user=sales_user)
    usd = PurchaseOrder.objects.get(order=order, supplier__currency="USD")
    purchasing.po_transition(po=usd, to="sent", user=sales_user)
    line = usd.lines.get()
    purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(line.pk, 1, ["SN-CANCEL-1"])], user=sales_user)
    order_services.order_advance(order=order, to="cancelled", user=sales_user)
    assert set(PurchaseOrder.objects.filter(order=order).values_list("status", flat=True)) == {"cancelled"}
    # what arrived stays on record (it is in the warehouse, to be returned or sold): receipt and serial kept
    assert Receipt.objects.filter(purchase_order=usd).count() == 1
    assert list(ReceivedSerial.objects.values_list("serial", flat=True)) == ["SN-CANCEL-1"]
    invoice.refresh_from_db()
    assert invoice.status == "partly_paid" and "возврату или зачёту" in invoice.note
    refused = client_for(sales_user).post(
        "/api/v1/receipts/",
        {"purchase_order": usd.number, "lines": [{"line": line.pk, "qty": 1, "serials": ["SN-CANCEL-2"]}]},
        format="json",
    )
    assert refused.status_code == 409 and "purchase_order" in refused.json()["error"]["fields"]


BAD_BODIES: list[tuple[str, Any, str]] = [
    ("/api/v1/purchase-orders/", {"order": 12}, "order"),
    ("/api/v1/purchase-orders/", {"order": None}, "order"),
    ("/api/v1/purchase-orders/", ["O-2026-000001"], "non_field_errors"),
    ("/api/v1/receipts/", {"purchase_order": "PO-2026-000001", "lines": "all of it"}, "lines"),
    ("/api/v1/receipts/", {"purchase_order": "PO-2026-000001", "lines": []}, "lines"),
    ("/api/v1/receipts/", {"purchase_order": "{po}", "lines": [{"line": 2**63, "qty": 1}]}, "lines"),
    ("/api/v1/receipts/", {"purchase_order": "PO-2026-000001", "lines": [{"line": 1, "qty": "two"}]}, "lines"),
    (
        "/api/v1/receipts/",
        {"purchase_order": "PO-2026-000001", "lines": [{"line": 1, "qty": 1, "serials": "SN"}]},
        "lines",
    ),
    ("/api/v1/receipts/", {"purchase_order": "nonsense", "lines": [{"line": 1, "qty": 1}]}, "purchase_order"),
    ("/api/v1/payments/", {"invoice": "{invoice}", "amount": "NaN"}, "amount"),
    ("/api/v1/payments/", {"invoice": "{invoice}", "amount": "Infinity"}, "amount"),
    ("/api/v1/payments/", {"invoice": "{invoice}", "amount": "1 000,00"}, "amount"),
    ("/api/v1/payments/", {"invoice": "{invoice}", "amount": "5", "reference": "x" * 101}, "reference"),
    ("/api/v1/payments/", {"invoice": ["{invoice}"], "amount": "5"}, "invoice"),
    ("/api/v1/invoices/", {"order": {"number": "O-2026-000001"}}, "order"),
    ("/api/v1/transfer-documents/", {}, "order"),
]


@pytest.mark.parametrize(("url", "body", "field"), BAD_BODIES)
def test_bad_bodies_are_400s_naming_the_field(order: Order, sales_user: User, url: str, body: Any, field: str) -> None:
    sales = client_for(sales_user)
    number = sales.post("/api/v1/invoices/", {"order": order.number}, format="json").json()["number"]
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    if isinstance(body, dict):
        body = {
            key: value.format(invoice=number, po=made[0].number) if isinstance(value, str) else value
            for key, value in body.items()
        }
        if isinstance(body.get("invoice"), list):
            body["invoice"] = [number]
    response = sales.post(url, body, format="json")
    assert response.status_code == 400, (response.status_code, response.content[:300])
    error = response.json()["error"]
    assert any(name == field or name.startswith(f"{field}.") for name in error["fields"]), error
    assert all(reasons for reasons in error["fields"].values())
    assert Payment.objects.count() == 0


def test_a_receipt_id_past_the_database_integer_is_a_404(order: Order, sales_user: User) -> None:
    assert client_for(sales_user).get(f"/api/v1/receipts/{2**63}/").status_code == 404


WRITES: list[tuple[str, str]] = [
    ("/api/v1/purchase-orders/", '{{"order": "{order}"}}'),
    ("/api/v1/invoices/", '{{"order": "{order}"}}'),
    ("/api/v1/payments/", '{{"invoice": "{invoice}", "amount": "1.00"}}'),
    ("/api/v1/transfer-documents/", '{{"order": "{order}"}}'),
    ("/api/v1/orders/{order}/service-costs/", '{{"description": "x", "amount_rub": "1.00"}}'),
]


# catalog staff buy from suppliers by design (orders.selectors.may_see_purchases): the clerk's row for
# purchase orders is not a refusal, so it is not here
@pytest.mark.parametrize(
    ("who", "url", "body"),
    [("customer", url, body) for url, body in WRITES]
    + [("clerk", url, body) for url, body in WRITES if "purchase-orders" not in url],
)
def test_customers_and_catalog_clerks_may_not_write_money(
    order: Order, sales_user: User, customer_user: User, who: str, url: str, body: str
) -> None:
    invoice, _ = services.invoice_create(order=order, user=sales_user)
    user = customer_user if who == "customer" else factories.catalog_staff(username="clerk")
    before = (PurchaseOrder.objects.count(), Payment.objects.count(), order.service_costs.count())
    response = client_for(user).post(
        url.format(order=order.number), body.format(order=order.number, invoice=invoice.number),
        content_type="application/json",
    )  # fmt: skip
    assert response.status_code in (403, 404), (who, url, response.status_code)
    assert (PurchaseOrder.objects.count(), Payment.objects.count(), order.service_costs.count()) == before
