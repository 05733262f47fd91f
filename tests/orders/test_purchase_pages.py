"""The purchasing pages in Russian (issue 36 item 7): staff make an order's purchase orders from its page, send
one, receive part of it with serial numbers typed one per line, see what is still to arrive, record assembly;
a refused receipt says why; the customer's order page shows no purchase order, supplier or purchase price."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from orders.models import BuildStep, Order, PurchaseOrder, ReceivedSerial
from tests.orders.test_order_pages import browser
from tests.orders.test_orders_api import GPU
from tests.orders.test_purchase_orders import order  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db


def _text(response: Any) -> str:
    assert response.status_code == 200, response.status_code
    return str(response.content.decode())


def test_staff_buy_receive_and_assemble_through_the_pages(order: Order, sales_user: User) -> None:  # noqa: F811
    staff = browser(sales_user, "ru")
    page = _text(staff.get(f"/orders/{order.number}"))
    assert "Создать заказы поставщикам по плану" in page
    made = staff.post(f"/orders/{order.number}/purchase-orders", follow=True)
    numbers = ", ".join(PurchaseOrder.objects.filter(order=order).order_by("number").values_list("number", flat=True))
    assert numbers.count("PO-2026-") == 2  # the sequence is not reset between tests on PostgreSQL
    assert f"Созданы заказы поставщикам: {numbers}" in _text(made)
    usd = PurchaseOrder.objects.get(order=order, supplier__slug="u")
    listing = _text(staff.get("/orders/purchase-orders/"))
    assert "Заказы поставщикам" in listing and usd.number in listing and "1\u00a0408\u00a0023,00" in listing
    detail = _text(staff.get(f"/orders/purchase-orders/{usd.number}"))
    assert "Артикул поставщика" in detail and "900-5G153-2200-000" in detail and "78,2235 руб. за 1 USD" in detail
    sent = _text(staff.post(f"/orders/purchase-orders/{usd.number}/transition", {"to": "sent"}, follow=True))
    assert "Статус заказа поставщику изменён." in sent and "Серийные номера, по одному в строке" in sent
    line = usd.lines.get()
    refused = staff.post(
        f"/orders/purchase-orders/{usd.number}/receive",
        {f"qty_{line.pk}": "2", f"serials_{line.pk}": "SN-1"},
        follow=True,
    )
    assert "Не выполнено: lines.0.serials" in _text(refused)
    received = staff.post(
        f"/orders/purchase-orders/{usd.number}/receive",
        {f"qty_{line.pk}": "1", f"serials_{line.pk}": " SN-1 \n"},
        follow=True,
    )
    assert "Поступление записано." in _text(received)
    assert list(ReceivedSerial.objects.filter(order=order).values_list("sku", "serial")) == [(GPU, "SN-1")]
    order_page = _text(staff.get(f"/orders/{order.number}"))
    assert "Ещё не поступило:" in order_page and f"{GPU} × 1" in order_page
    refused_step = staff.post(
        f"/orders/{order.number}/build-step", {"kind": "assembly", "result": "passed"}, follow=True
    )
    assert "Не выполнено: kind: parts missing" in _text(refused_step)
    assert not BuildStep.objects.exists()


def test_customers_see_no_purchasing(order: Order, sales_user: User, customer_user: User) -> None:  # noqa: F811
    staff = browser(sales_user, "ru")
    staff.post(f"/orders/{order.number}/purchase-orders")
    customer = browser(customer_user, "ru")
    page = _text(customer.get(f"/orders/{order.number}"))
    for secret in ("PO-2026", "Supplier U", "9\u00a0000,00", "Заказы поставщикам"):
        assert secret not in page, secret
    assert customer.get("/orders/purchase-orders/").status_code == 403
    assert "Накладная с серийными номерами (PDF)" in page
