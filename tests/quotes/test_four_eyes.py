"""Issue 38 item 3: four eyes means the approver is neither the creator, the submitter nor whoever last set the
discount or terms. Before: the sales engineer who set a 60 % discount on a customer's draft approved it
himself once the customer submitted it."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from quotes import services
from quotes.models import Quote, QuoteEvent, QuoteStatus


@pytest.mark.django_db
def test_the_engineer_who_set_the_discount_cannot_approve_it(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, sales_lead: User, settings: Any
) -> None:
    settings.SALES_DISCOUNT_LIMIT_PERCENT = Decimal("10")
    quote = make_quote(customer=customer_user, created_by=customer_user)  # the customer's own draft
    services.quote_discount_set(quote=quote, user=sales_user, discount_percent=60)
    services.quote_submit(quote=quote, user=customer_user)
    events_before = QuoteEvent.objects.filter(quote=quote).count()

    client = APIClient()
    client.force_authenticate(sales_user)
    response = client.post(f"/api/v1/quotes/{quote.number}/approve/", {}, format="json")
    assert response.status_code == 403, response.content
    error = response.json()["error"]
    assert error["code"] == "approver_must_differ"
    assert error["message"] == "A quote must be approved by someone other than who last set its discount or terms."
    quote.refresh_from_db()
    assert (quote.status, quote.approved_by) == (QuoteStatus.PENDING_APPROVAL, None)
    assert QuoteEvent.objects.filter(quote=quote).count() == events_before

    client.force_authenticate(sales_lead)
    assert client.post(f"/api/v1/quotes/{quote.number}/approve/", {}, format="json").status_code == 200
    quote.refresh_from_db()
    assert (quote.status, quote.approved_by, quote.discount_percent) == (
        QuoteStatus.APPROVED,
        sales_lead,
        Decimal("60.00"),
    )


@pytest.mark.django_db
def test_the_last_setter_counts_not_an_earlier_one(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, sales_lead: User, settings: Any
) -> None:
    settings.SALES_DISCOUNT_LIMIT_PERCENT = Decimal("10")
    quote = make_quote(customer=customer_user, created_by=customer_user)
    services.quote_discount_set(quote=quote, user=sales_user, discount_percent=60)
    services.quote_discount_set(quote=quote, user=sales_lead, discount_percent=40)
    services.quote_submit(quote=quote, user=customer_user)
    with pytest.raises(Exception) as denied:  # noqa: PT011 - the domain error, its code checked
        services.quote_approve(quote=quote, user=sales_lead)
    assert getattr(denied.value, "code", "") == "approver_must_differ"
    services.quote_approve(quote=quote, user=sales_user)  # set 60 %, but the 40 % in force is lena's
    quote.refresh_from_db()
    assert (quote.status, quote.approved_by) == (QuoteStatus.APPROVED, sales_user)
