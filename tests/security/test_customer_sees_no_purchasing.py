"""Issue 36 item 7: a customer never sees purchase prices, suppliers or the margin. One order is taken through
its plan (with an offer not compared and a risk naming a supplier), purchase orders, a partial receipt, an
invoice, a payment and a service cost; then every view of it its customer can open (the order and billing
pages, the order, invoice, payment and УПД API, the invoice, УПД and delivery-note PDFs) is read and searched
for the suppliers' codes and names, their part numbers, the purchase prices and the margin's figures."""

from __future__ import annotations

import datetime as dt
import io
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from pypdf import PdfReader
from rest_framework.test import APIClient

from accounts.models import User
from billing import services as billing
from billing.selectors import margin_of
from orders import purchasing
from orders import services as order_services
from orders.models import Order, OrderEvent, PurchaseOrder
from orders.purchasing import ReceiptLineInput
from orders.risks import orders_at_risk_refresh
from procurement.models import Supplier
from quotes.models import Quote
from tests.orders.conftest import GOOD_SKUS, _renders, accepted, customer_user, offer, place, rates_day
from tests.orders.test_orders_api import GPU

pytestmark = pytest.mark.django_db
__all__ = ["_renders", "accepted", "customer_user", "place", "rates_day"]

SECRET_SLUGS = ("zz-hidden-rub", "zz-hidden-usd", "zz-not-compared")
SECRET_NAMES = ("ООО Тайный Поставщик", "Hidden Vendor Ltd")
SUPPLIER_SKU = "SUPPKEY-900-5G153"
# purchase prices chosen to be found nowhere else, in the forms pages, API and PDFs write them
SECRET_PRICES = ("1234.57", "1 234,57", "1\u00a0234,57", "8765.43", "8 765,43", "8\u00a0765,43")


def _suppliers() -> None:
    rub = Supplier.objects.create(slug=SECRET_SLUGS[0], name=SECRET_NAMES[0], contact="zakaz@hidden.example")
    usd = Supplier.objects.create(slug=SECRET_SLUGS[1], name=SECRET_NAMES[1], currency="USD", contact="s@h.example")
    for sku, (_, qty) in GOOD_SKUS.items():
        if sku != GPU:
            offer(rub, sku, "1234.57", qty * 10, 10)
    gpu = offer(usd, GPU, "8765.43", 5, 10)
    gpu.currency, gpu.supplier_sku = "USD", SUPPLIER_SKU
    gpu.save()


def _texts_of_pdf(content: bytes) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(content)).pages)


def test_a_customer_sees_no_supplier_purchase_price_or_margin_anywhere(
    rates_day: dt.date,
    accepted: Callable[[], Quote],
    place: Callable[..., Any],
    customer_user: User,
    sales_user: User,
) -> None:
    _suppliers()
    api = APIClient()
    api.force_authenticate(customer_user)
    response = place(api, accepted().number)
    assert response.status_code == 201, response.content
    order = Order.objects.get(number=response.json()["number"])
    # a plan that left an offer out (its supplier named in the event) and a risk naming a supplier
    OrderEvent.objects.create(
        order=order, type="planned",
        data={"purchases": 5, "late": [], "short": [],
              "not_compared": [{"sku": GPU, "supplier": SECRET_SLUGS[2], "currency": "CNY", "reason": "no rate"}],
              "rates_on": "2026-12-03"},
    )  # fmt: skip
    OrderEvent.objects.create(
        order=order, type="risk_changed",
        data={"at_risk": True, "reasons": [{"code": "stock_short", "sku": GPU, "supplier": SECRET_SLUGS[1], "qty": 1}]},
    )  # fmt: skip
    OrderEvent.objects.create(
        order=order, type="plan_requeued", data={"reason": "asked_by_staff", "error": f"{SECRET_SLUGS[0]} timed out"}
    )
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    usd_po = PurchaseOrder.objects.get(order=order, supplier__slug=SECRET_SLUGS[1])
    purchasing.po_transition(po=usd_po, to="sent", user=sales_user)
    gpu_line = usd_po.lines.get()
    purchasing.receipt_record(po=usd_po, lines=[ReceiptLineInput(gpu_line.pk, 1, ["GPUSER-0001"])], user=sales_user)
    orders_at_risk_refresh(order_ids=[order.pk])
    invoice, _ = billing.invoice_create(order=order, user=sales_user)
    billing.payment_record(invoice=invoice, amount=Decimal("1000.00"), user=sales_user)
    billing.service_cost_add(order=order, description="Курьер", amount_rub=Decimal("4321.09"), user=sales_user)
    for status in ("assembling", "burn_in", "shipped"):
        order_services.order_advance(order=order, to=status, user=sales_user)
    upd, _ = billing.upd_create(order=order, user=sales_user)
    margin = margin_of(user=sales_user, order=order)
    secrets = [*SECRET_SLUGS, *SECRET_NAMES, SUPPLIER_SKU, *SECRET_PRICES, "4321.09", "4\u00a0321,09",
               str(margin.margin), usd_po.number, *(po.number for po in made)]  # fmt: skip

    web = Client()
    web.force_login(customer_user)
    seen: dict[str, str] = {}
    for url in (f"/orders/{order.number}", "/orders/", f"/billing/orders/{order.number}"):
        page = web.get(url)
        assert page.status_code == 200, url
        seen[url] = page.content.decode()
    for url in (f"/api/v1/orders/{order.number}/", "/api/v1/orders/", "/api/v1/invoices/",
                f"/api/v1/invoices/{invoice.number}/", "/api/v1/payments/", "/api/v1/transfer-documents/"):  # fmt: skip
        answer = api.get(url)
        assert answer.status_code == 200, url
        seen[url] = json.dumps(answer.json(), ensure_ascii=False)
    for url in (f"/billing/invoices/{invoice.number}.pdf", f"/billing/upd/{upd.number}.pdf",
                f"/orders/{order.number}/delivery-note.pdf"):  # fmt: skip
        document = web.get(url)
        assert document.status_code == 200, url
        seen[url] = _texts_of_pdf(document.content)
    # what the customer is entitled to is there (so the search below reads real pages, not error pages)
    assert order.number in seen[f"/api/v1/orders/{order.number}/"]
    assert invoice.number in seen[f"/billing/invoices/{invoice.number}.pdf"]
    assert "GPUSER-0001" in seen[f"/orders/{order.number}/delivery-note.pdf"]
    leaks = {(url, secret) for url, text in seen.items() for secret in secrets if secret in text}
    assert leaks == set()
    for url in (f"/api/v1/orders/{order.number}/margin/", "/api/v1/purchase-orders/", "/api/v1/receipts/",
                f"/api/v1/purchase-orders/{usd_po.number}/"):  # fmt: skip
        assert api.get(url).status_code in (403, 404), url
    # staff still see the supplier that was left out of the comparison
    staff = APIClient()
    staff.force_authenticate(sales_user)
    assert SECRET_SLUGS[2] in json.dumps(staff.get(f"/api/v1/orders/{order.number}/").json())
