"""Creating a quote safely: the Idempotency-Key is bound to the request's body (same key, other body → 422),
a replay draws no number, a create answers its quote only once it is committed, a failed render leaves no
file behind, and sales quote only members of the customers group."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import OperationalError
from rest_framework.test import APIClient

from accounts.models import User
from quotes import services
from quotes.apis import QuoteDetailSerializer
from quotes.models import Quote, QuoteCounter, QuoteEvent, QuoteLine, RenderStatus
from quotes.services import render
from tests import factories
from tests.builds import GOOD_BUILD

pytestmark = pytest.mark.django_db

URL = "/api/v1/quotes/"
NOT_A_CUSTOMER = {
    "code": "invalid",
    "message": "Quotes are made for customers only; this user is not a customer.",
    "fields": {"customer": ["not a member of the customers group"]},
}


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _counter() -> int:
    row = QuoteCounter.objects.filter(name="quote_number").first()
    return row.value if row else 0


def _counts() -> tuple[int, int, int]:
    return Quote.objects.count(), QuoteLine.objects.count(), QuoteEvent.objects.count()


# --------------------------------------------------------------------------- the key is bound to the body


@pytest.mark.parametrize(
    "changed",
    [
        {"build": {**GOOD_BUILD, "storage": [{"sku": "nvme-4tb", "qty": 2}]}},
        {"discount_percent": "5"},
        {"customer": "OTHER"},
        {"acknowledge_warnings": True},
        {"optional_lines": [{"sku": "nvme-4tb", "qty": 1}]},
    ],
    ids=["build", "discount", "customer", "acknowledge", "optional-lines"],
)
def test_a_reused_key_with_another_body_is_a_422_and_makes_nothing(
    catalog: None, sales_user: User, customer_user: User, other_customer: User, changed: dict[str, Any]
) -> None:
    client = client_for(sales_user)
    body = {"build": copy.deepcopy(GOOD_BUILD), "customer": customer_user.pk}
    first = client.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="order-7")
    assert first.status_code == 201, first.json()
    counts, counter = _counts(), _counter()

    other = {**body, **changed}
    if other.get("customer") == "OTHER":
        other["customer"] = other_customer.pk
    response = client.post(URL, other, format="json", HTTP_IDEMPOTENCY_KEY="order-7")
    assert response.status_code == 422
    assert response.json() == {
        "error": {
            "code": "idempotency_mismatch",
            "message": f"The Idempotency-Key was already used for quote {first.json()['number']} with a different "
            "request; use a new key for a new quote.",
            "fields": {"Idempotency-Key": ["already used with a different body"]},
        }
    }
    assert (_counts(), _counter()) == (counts, counter)

    # the first request itself still replays
    again = client.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="order-7")
    assert (again.status_code, again["Idempotent-Replayed"], again.json()["number"]) == (
        200,
        "true",
        first.json()["number"],
    )
    assert (_counts(), _counter()) == (counts, counter)


def test_the_same_body_in_another_key_order_or_spelling_replays(catalog: None, customer_user: User) -> None:
    client = client_for(customer_user)
    first = client.post(URL, {"build": GOOD_BUILD, "discount_percent": "0"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    reordered = {"build": dict(reversed(list(GOOD_BUILD.items()))), "discount_percent": "0.00"}
    again = client.post(URL, reordered, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()


def test_a_quote_made_before_hashes_were_stored_replays_for_any_body(catalog: None, customer_user: User) -> None:
    quote = services.quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD)
    Quote.objects.filter(pk=quote.pk).update(idempotency_key="legacy", idempotency_hash="")
    other = {**GOOD_BUILD, "storage": [{"sku": "nvme-4tb", "qty": 2}]}
    again = client_for(customer_user).post(URL, {"build": other}, format="json", HTTP_IDEMPOTENCY_KEY="legacy")
    assert (again.status_code, again.json()["number"]) == (200, quote.number)


def test_the_service_stores_the_hash_of_the_request_with_the_key(catalog: None, customer_user: User) -> None:
    quote = services.quote_create(
        customer=customer_user, created_by=customer_user, payload=GOOD_BUILD, idempotency_key="svc-1"
    )
    expected = services.create.quote_request_hash(
        customer_id=customer_user.pk,
        payload=GOOD_BUILD,
        saved_build_id=None,
        acknowledge_warnings=False,
        discount_percent=0,
        optional_lines=(),
    )
    assert (quote.idempotency_key, quote.idempotency_hash) == ("svc-1", expected)
    assert len(expected) == 64
    unkeyed = services.quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD)
    assert (unkeyed.idempotency_key, unkeyed.idempotency_hash) == ("", "")


# --------------------------------------------------------------------------- answered only once committed


def test_a_failure_reading_the_answer_rolls_the_create_back(
    catalog: None, customer_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer is read before the commit: a 503 never stands for a quote that was made."""

    def database_gone(self: Any, instance: Any) -> Any:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(QuoteDetailSerializer, "to_representation", database_gone)
    counter = _counter()
    response = client_for(customer_user).post(URL, {"build": GOOD_BUILD}, format="json", HTTP_IDEMPOTENCY_KEY="k2")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "service_unavailable"
    assert (_counts(), _counter()) == ((0, 0, 0), counter)


def test_a_broker_or_database_failure_after_the_commit_still_answers_the_quote(
    catalog: None,
    customer_user: User,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    def enqueue_fails(*, quote_id: int) -> bool:
        raise OperationalError("the database went away after the commit")

    monkeypatch.setattr(render, "quote_render_enqueue", enqueue_fails)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client_for(customer_user).post(URL, {"build": GOOD_BUILD}, format="json")
    assert len(callbacks) == 1
    assert response.status_code == 201
    quote = Quote.objects.get()
    assert (response.json()["number"], response.json()["pdf"]["status"]) == (quote.number, "pending")


# --------------------------------------------------------------------------- no orphan PDF


def test_a_render_that_fails_after_writing_its_file_removes_it(
    catalog: None, customer_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    quote = services.quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD)
    Quote.objects.filter(pk=quote.pk).update(render_status=RenderStatus.PENDING)

    def event_fails(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("connection lost while storing the PDF")

    monkeypatch.setattr(render, "event_add", event_fails)
    with pytest.raises(OperationalError, match="connection lost"):
        services.quote_pdf_render(quote_id=quote.pk)
    assert list((Path(settings.MEDIA_ROOT) / "quotes").glob("*.pdf")) == []
    quote.refresh_from_db()
    assert (quote.render_status, quote.pdf.name, quote.render_error) == (
        RenderStatus.FAILED,
        "",
        "OperationalError('connection lost while storing the PDF')",
    )


# --------------------------------------------------------------------------- quotes are for customers


@pytest.mark.parametrize("who", ["another-sales", "superuser", "catalog", "themselves"])
def test_sales_naming_a_user_who_is_not_a_customer_is_a_400(
    catalog: None, sales_user: User, sales_lead: User, who: str
) -> None:
    named = {
        "another-sales": sales_lead,
        "superuser": User.objects.create_superuser("root", "root@example.com", "pw-123456"),
        "catalog": factories.catalog_staff(username="cathy"),
        "themselves": sales_user,
    }[who]
    response = client_for(sales_user).post(URL, {"build": GOOD_BUILD, "customer": named.pk}, format="json")
    assert response.status_code == 400
    assert response.json() == {"error": NOT_A_CUSTOMER}
    assert _counts() == (0, 0, 0)


def test_the_service_refuses_a_quote_for_someone_who_is_not_a_customer(
    catalog: None, sales_user: User, sales_lead: User
) -> None:
    with pytest.raises(services.create.InvalidInput) as refused:
        services.quote_create(customer=sales_lead, created_by=sales_user, payload=GOOD_BUILD)
    assert (refused.value.code, refused.value.message, refused.value.fields) == (
        NOT_A_CUSTOMER["code"],
        NOT_A_CUSTOMER["message"],
        NOT_A_CUSTOMER["fields"],
    )
    assert _counts() == (0, 0, 0)
