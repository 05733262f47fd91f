"""The billing page's forms: a sales engineer issues the invoice and records payments in Russian; bad input
and an over-payment come back as a message on the page and change nothing."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from accounts.models import User
from billing.models import Invoice, Payment
from orders.models import Order

pytestmark = pytest.mark.django_db


def _browser(user: User) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    client.force_login(user)
    return client


def _said(response: object) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]  # type: ignore[attr-defined]


def test_issue_pay_and_refuse_through_the_page(order: Order, sales_user: User, customer_user: User) -> None:
    sales = _browser(sales_user)
    page = f"/billing/orders/{order.number}"
    issued = sales.post(f"{page}/invoice")
    assert issued.status_code == 302 and issued["Location"] == page
    assert _said(issued)[-1] == "Счёт выставлен."
    invoice = Invoice.objects.get(order=order)

    for body in ({"amount": "abc"}, {"amount": "-3"}, {"amount": "1", "paid_on": "вчера"}):
        refused = sales.post(f"{page}/payment", body)
        assert refused.status_code == 302 and _said(refused)[-1] == "Введены некорректные данные.", body
    over = sales.post(f"{page}/payment", {"amount": str(invoice.gross_total + Decimal("0.01"))})
    assert over.status_code == 302
    due = f"{invoice.gross_total:.2f}"
    assert _said(over)[-1] == f"Не выполнено: сумма больше остатка к оплате, {due} руб."
    assert not Payment.objects.exists()

    paid = sales.post(f"{page}/payment", {"amount": str(invoice.gross_total), "reference": "п/п 9"})
    assert _said(paid)[-1] == "Оплата отмечена."
    invoice.refresh_from_db()
    assert invoice.status == "paid"
    shown = _browser(customer_user).get(page).content.decode()
    assert "оплачен" in shown and "п/п 9" in shown and "data-payment-form" not in shown
