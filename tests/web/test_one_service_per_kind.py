"""A customer trial of issue 37: on a result card a customer ticked every service box — three warranty terms and
both deliveries — and the draft quote sold 1 + 3 + 5 years of warranty and two deliveries. A quote sells one
service of each such kind (servicelines.services.ONE_PER_QUOTE), on the request page, the quote page and the API."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from quotes.models import Quote
from servicelines.services import services_load_fixture
from tests.builds import GOOD_BUILD

pytestmark = pytest.mark.django_db

NOTE = {"name": "Иван Петров", "company": "", "contact": "+7 (916) 123-45-67", "comment": ""}


@pytest.fixture(autouse=True)
def _services(db: None, catalog: None) -> None:
    services_load_fixture()
    cache.clear()  # the request page's rate-limit counters


def _post(user: User, services: list[str]) -> tuple[int, str]:
    client = Client()
    client.force_login(user)
    response = client.post("/quotes/request", {"build": json.dumps(GOOD_BUILD), "services": services, **NOTE})
    return response.status_code, response.content.decode()


def test_two_warranties_or_two_deliveries_are_refused_with_a_plain_reason(customer_user: User) -> None:
    status, body = _post(customer_user, ["warranty-1y", "warranty-3y", "warranty-5y", "delivery-moscow"])
    assert status == 400 and not Quote.objects.exists()
    assert "Выберите не больше одной услуги каждого из этих видов: гарантия." in body
    status, body = _post(customer_user, ["warranty-3y", "delivery-moscow", "delivery-russia"])
    assert status == 400 and "видов: доставка." in body
    status, _ = _post(customer_user, ["warranty-3y", "onsite-nbd-3y", "delivery-russia", "software-ai-stack"])
    assert status == 302
    assert sorted(Quote.objects.get().lines.filter(kind="services").values_list("sku", flat=True)) == [
        "delivery-russia", "onsite-nbd-3y", "software-ai-stack", "warranty-3y",
    ]  # fmt: skip


def test_the_api_refuses_a_second_warranty_on_a_draft(customer_user: User, sales_user: User) -> None:
    status, _ = _post(customer_user, ["warranty-1y"])
    quote = Quote.objects.get()
    api = APIClient()
    api.force_authenticate(sales_user)
    response = api.post(
        f"/api/v1/quotes/{quote.number}/services", {"services": ["warranty-1y", "warranty-5y"]}, format="json"
    )
    assert status == 302 and response.status_code == 400, response.content
    assert "services[1]" in response.json()["error"]["fields"]
    assert list(quote.lines.filter(kind="services").values_list("sku", flat=True)) == ["warranty-1y"]
