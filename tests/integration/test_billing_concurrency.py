"""Payments recorded at once against one invoice on real PostgreSQL never take it past its total.

Twelve clerks record a payment of ⌊gross / 7⌋ (to the kopeck) at the same moment: seven fit, so exactly seven
are recorded and five are refused with `amount` named; the invoice's paid total is the sum of its payment
rows and its state follows (the invoice row is locked by billing.services.payment_record). Runs only with
DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis (tests/integration/services.py).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import ROUND_DOWN, Decimal
from typing import Any

import pytest

from tests.integration.services import require_real_services

require_real_services()

from django.db import connections  # noqa: E402
from django.db.models import Sum  # noqa: E402

from accounts.models import User  # noqa: E402
from billing import services as billing_services  # noqa: E402
from billing.models import Invoice, InvoiceStatus, Payment  # noqa: E402
from configurator.engine.errors import InvalidInput  # noqa: E402
from orders import services as order_services  # noqa: E402
from quotes import services as quote_services  # noqa: E402
from tests import factories  # noqa: E402
from tests.builds import GOOD_BUILD  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

CLERKS, FIT = 12, 7


def _order(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, User]:
    # no plan is needed to bill an order: its job is not handed to the broker (no worker reads it here)
    monkeypatch.setattr(order_services, "order_plan_enqueue", lambda *, order_id: True)
    customer, sales = factories.customer(username="it-billing-customer"), factories.sales(username="it-billing-sales")
    quote = quote_services.quote_create(customer=customer, created_by=customer, payload=GOOD_BUILD)
    quote = quote_services.quote_accept(quote=quote_services.quote_send(quote=quote, user=sales), user=customer)
    order, _ = order_services.order_place(quote=quote, user=customer)
    return order, sales


def test_concurrent_payments_never_exceed_the_invoice(catalog: None, monkeypatch: pytest.MonkeyPatch) -> None:
    order, sales = _order(monkeypatch)
    invoice, _ = billing_services.invoice_create(order=order, user=sales)
    amount = (invoice.gross_total / FIT).quantize(Decimal("0.01"), rounding=ROUND_DOWN)
    assert amount * (FIT + 1) > invoice.gross_total  # an eighth never fits
    start = threading.Barrier(CLERKS)

    def pay(_: int) -> str:
        try:
            start.wait(timeout=30)
            billing_services.payment_record(invoice=invoice, amount=amount, user=sales)
            return "recorded"
        except InvalidInput as refused:
            return "refused: " + ",".join(refused.fields)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=CLERKS) as pool:
        results = list(pool.map(pay, range(CLERKS)))
    assert sorted(results) == ["recorded"] * FIT + ["refused: amount"] * (CLERKS - FIT)
    invoice = Invoice.objects.get(pk=invoice.pk)
    paid = Payment.objects.filter(invoice=invoice).aggregate(total=Sum("amount"))["total"]
    assert paid == invoice.paid_total == amount * FIT
    assert invoice.paid_total <= invoice.gross_total
    assert invoice.status == InvoiceStatus.PARTLY_PAID
