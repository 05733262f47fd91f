"""Service lines on a quote: fixed and percentage prices, defaults per machine class, totals, the PDF."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from accounts.models import User
from quotes.models import Quote, QuoteLine
from quotes.pdf import format_money, render_quote_pdf
from servicelines.services import services_load_fixture
from tests.quotes.test_pdf import _text

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _services(db: None) -> None:
    services_load_fixture()


def _client(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_services_price_fixed_and_as_a_share_of_the_hardware_and_count_in_the_totals(
    make_quote: Callable[..., Quote], customer_user: User
) -> None:
    quote = make_quote(discount_percent=0)
    hardware_net = quote.net_total
    response = _client(customer_user).post(
        f"/api/v1/quotes/{quote.number}/services", {"services": ["warranty-3y", "delivery-russia"]}, format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    services = [line for line in body["lines"] if line["sku"] in ("warranty-3y", "delivery-russia")]
    warranty = (hardware_net * Decimal(5) / 100).quantize(Decimal("0.01"))
    assert [(line["sku"], Decimal(line["line_total"])) for line in services] == [
        ("warranty-3y", warranty),
        ("delivery-russia", Decimal("25000.00")),
    ]
    net = hardware_net + warranty + Decimal(25000)
    vat = (net * Decimal(22) / 100).quantize(Decimal("0.01"))
    assert (Decimal(body["totals"]["net"]), Decimal(body["totals"]["vat"]), Decimal(body["totals"]["gross"])) == (
        net, vat, net + vat,
    )  # fmt: skip
    assert body["events"][-1]["type"] == "prices_refreshed"
    assert body["events"][-1]["data"]["services"] == ["warranty-3y", "delivery-russia"]
    # setting them again replaces, never adds
    again = _client(customer_user).post(
        f"/api/v1/quotes/{quote.number}/services", {"services": ["delivery-russia"]}, format="json"
    )
    assert Decimal(again.json()["totals"]["net"]) == hardware_net + Decimal(25000)
    assert QuoteLine.objects.filter(quote__number=quote.number, kind="services").count() == 1


def test_defaults_per_machine_class_and_pdf_lines(make_quote: Callable[..., Quote], customer_user: User) -> None:
    quote = make_quote()  # GOOD_BUILD: a Threadripper PRO workstation
    response = _client(customer_user).post(f"/api/v1/quotes/{quote.number}/services", {}, format="json")
    skus = [line["sku"] for line in response.json()["lines"] if line["kind"] == "services"]
    assert skus == ["delivery-moscow", "software-ai-stack", "warranty-1y"]
    quote = Quote.objects.get(pk=quote.pk)
    text = _text(render_quote_pdf(quote))
    for sku in skus:
        assert sku in text
    with translation.override("ru"):
        assert format_money(Decimal("25000.00")).replace("\xa0", " ") in text
        assert format_money(quote.gross_total).replace("\xa0", " ") in text


def test_unknown_services_and_other_customers_change_nothing(
    make_quote: Callable[..., Quote], customer_user: User, other_customer: User
) -> None:
    quote = make_quote()
    before = (quote.net_total, QuoteLine.objects.filter(quote=quote).count())
    bad = _client(customer_user).post(
        f"/api/v1/quotes/{quote.number}/services", {"services": ["warranty-3y", "gold-plating"]}, format="json"
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["fields"] == {"services[1]": ["unknown service 'gold-plating'"]}
    other = _client(other_customer).post(f"/api/v1/quotes/{quote.number}/services", {}, format="json")
    assert other.status_code == 404
    quote.refresh_from_db()
    assert (quote.net_total, QuoteLine.objects.filter(quote=quote).count()) == before


def test_the_service_list_is_public() -> None:
    body = APIClient().get("/api/v1/services/").json()
    assert [row["sku"] for row in body][:3] == ["burn-in-report-48h", "delivery-moscow", "delivery-russia"]
    assert all(row["is_sample"] for row in body)


def test_refreshing_prices_keeps_the_service_lines(make_quote: Callable[..., Quote], customer_user: User) -> None:
    quote = make_quote()
    client = _client(customer_user)
    client.post(f"/api/v1/quotes/{quote.number}/services", {"services": ["delivery-russia"]}, format="json")
    response = client.post(f"/api/v1/quotes/{quote.number}/refresh-prices/")
    assert response.status_code == 200, response.content
    lines = [(line["sku"], line["line_total"]) for line in response.json()["lines"] if line["kind"] == "services"]
    assert lines == [("delivery-russia", "25000.00")]
