"""Clusters become quotes and orders (issue 39 item 5): one configuration of many lines by section, priced by
the one quote pricing path, and an order whose purchasing plan covers the cluster's parts."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client as DjangoClient
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from catalog.cluster_models import CLUSTER_MODELS
from catalog.cluster_specs import cluster_catalog
from configurator.engine.builds import money
from orders.models import Order
from orders.services import order_place
from procurement.models import Supplier, SupplierOffer
from quotes import services
from quotes.cluster_doc import SECTION_TITLES
from quotes.models import Quote
from quotes.pricing import unit_price
from quotes.services.cluster import cluster_quote_revalidate
from servicelines.services import services_load_fixture
from tests import factories

URL = "/api/v1/quotes/cluster/"
LLAMA_405B = {"model": "llama-3.1-405b", "precision": "bf16", "concurrent_users": 200}
SECTIONS = ["nodes", "compute_fabric", "frontend", "storage", "management", "racks_power"]


def client(user: User) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.fixture
def customer_user(db: None) -> User:
    return factories.customer(username="alice")


def make(user: User, body: dict[str, Any]) -> Any:
    return client(user).post(URL, body, format="json")


def test_sales_quotes_a_cluster_by_section(catalog: None, sales_user: User, customer_user: User) -> None:
    services_load_fixture()
    response = make(
        sales_user,
        {
            "cluster": {"workload": LLAMA_405B, "gpu": "h200-sxm"},
            "customer": customer_user.pk,
            "discount_percent": "5",
            "services": ["warranty-3y", "delivery-moscow"],
        },
    )
    assert response.status_code == 201, response.content
    body = response.json()
    lines = body["lines"]
    sections = [line["section"] for line in lines]
    assert [s for i, s in enumerate(sections) if s not in sections[:i]] == [*SECTIONS, "services"]
    design = body["build"]["design"]
    assert design["gpu"] == "h200-sxm" and design["nodes"] >= 2
    nodes = design["nodes"]
    chassis = next(line for line in lines if line["kind"] == "chassis")
    gpus = next(line for line in lines if line["kind"] == "gpus")
    assert (chassis["qty"], gpus["qty"]) == (nodes, 8 * nodes)
    cat = cluster_catalog()
    kinds = {line["kind"] for line in lines if line["section"] not in ("nodes", "services")}
    assert kinds <= set(CLUSTER_MODELS)
    for line in lines:
        if line["kind"] in CLUSTER_MODELS:
            assert line["sku"] in getattr(cat, line["kind"]), line
    hardware = Decimal(0)
    for line in lines:
        if line["section"] == "services":
            continue
        assert Decimal(line["unit_price"]) == unit_price(Decimal(line["list_price"]), Decimal("5"))
        assert Decimal(line["line_total"]) == Decimal(line["unit_price"]) * line["qty"]
        hardware += Decimal(line["line_total"])
    assert Decimal(design["price"]) == sum(
        Decimal(line["list_price"]) * line["qty"] for line in lines if line["section"] != "services"
    )
    quote = Quote.objects.get(number=body["number"])
    service_lines = [line for line in lines if line["section"] == "services"]
    percent = [line for line in service_lines if line["service_percent"] is not None]
    assert percent, "warranty-3y is a percentage of the hardware"
    for line in percent:  # % of the discounted hardware, undiscounted itself
        assert Decimal(line["unit_price"]) == money(hardware * Decimal(line["service_percent"]) / 100)
    net = hardware + sum(Decimal(line["line_total"]) for line in service_lines)
    assert quote.net_total == net
    assert quote.vat_total == money(net * quote.vat_percent / 100)
    json.dumps(quote.build_payload)  # what the quote was made from is plain JSON
    assert quote.build_payload["cluster"]["gpu"] == "h200-sxm"


def test_the_stored_request_is_designed_again(catalog: None, customer_user: User) -> None:
    response = make(customer_user, {"cluster": {"workload": LLAMA_405B}})
    assert response.status_code == 201, response.content
    quote = Quote.objects.get(number=response.json()["number"])
    from configurator.serializers import workload_from_data

    again = cluster_quote_revalidate(quote=quote, workload=workload_from_data(quote.build_payload["workload"]))
    assert again["valid"] is True
    assert again["nodes"]["then"] == again["nodes"]["now"]
    assert again["price"]["then"] == again["price"]["now"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"cluster": {"workload": {**LLAMA_405B, "model": "no-such-model"}}}, "cluster.workload.model"),
        ({"cluster": {"workload": LLAMA_405B, "gpu": "a100-sxm-nope"}}, "cluster.gpu"),
        ({"cluster": {"workload": LLAMA_405B, "rack_kw_limit": 1}}, "cluster.rack_kw_limit"),
        ({"cluster": {"workload": LLAMA_405B, "nodez": 2}}, "cluster.nodez"),
        ({}, "cluster"),
    ],
)
def test_bad_input_is_400_naming_the_field(catalog: None, customer_user: User, body: Any, field: str) -> None:
    response = make(customer_user, body)
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"], response.json()
    assert not Quote.objects.exists()


def test_a_cluster_below_the_speed_target_is_not_quoted(catalog: None, customer_user: User) -> None:
    """Two H200 nodes serve 405B BF16 to 200 users at ≈4.4 tokens/s each: below the 10 asked, refused."""
    body = {"cluster": {"workload": {**LLAMA_405B, "target_tokens_per_s": 10}, "nodes": 2, "gpu": "h200-sxm"}}
    response = make(customer_user, body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "build_invalid"
    assert "cluster.speed_target" in json.dumps(response.json()["error"]["fields"])
    assert not Quote.objects.exists()


def test_a_customer_may_not_discount_or_quote_for_another(
    catalog: None, customer_user: User, other_customer: User
) -> None:
    assert make(customer_user, {"cluster": {"workload": LLAMA_405B}, "discount_percent": "3"}).status_code == 403
    body = {"cluster": {"workload": LLAMA_405B}, "customer": other_customer.pk}
    assert make(customer_user, body).status_code == 403
    assert not Quote.objects.exists()


def test_accepted_cluster_quote_orders_and_plans_every_part(
    catalog: None, customer_user: User, sales_user: User, django_capture_on_commit_callbacks: Any
) -> None:
    """The plan buys the cluster parts that have offers and says which lines have none (no crash)."""
    response = make(customer_user, {"cluster": {"workload": LLAMA_405B, "gpu": "h200-sxm"}})
    assert response.status_code == 201, response.content
    quote = Quote.objects.get(number=response.json()["number"])
    supplier = Supplier.objects.create(slug="a", name="A")
    switch = quote.lines.get(section="compute_fabric", kind="switches")
    for line in quote.lines.filter(section="nodes"):
        SupplierOffer.objects.create(
            supplier=supplier, sku=line.sku, kind=line.kind, purchase_price=Decimal("100.00"),
            stock_qty=line.qty * 2, lead_time_days=5, valid_until=timezone.localdate() + dt.timedelta(days=30),
        )  # fmt: skip
    SupplierOffer.objects.create(
        supplier=supplier, sku=switch.sku, kind="switches", purchase_price=Decimal("100.00"),
        stock_qty=10, lead_time_days=5, valid_until=timezone.localdate() + dt.timedelta(days=30),
    )  # fmt: skip
    quote = services.quote_send(quote=quote, user=sales_user)
    quote = services.quote_accept(quote=quote, user=customer_user)
    with django_capture_on_commit_callbacks(execute=True):
        order, created = order_place(quote=quote, user=customer_user)
    assert created
    order = Order.objects.get(pk=order.pk)
    assert order.plan_status == "ready", order.plan_error
    assert order.lines.count() == quote.lines.count()
    bought = set(order.purchases.values_list("sku", flat=True))
    assert switch.sku in bought and "srv-hgx-h200-5u" in bought
    planned = order.events.filter(type="planned").get().data
    no_offer = set(planned["no_offer"])
    expected = {line.sku for line in quote.lines.exclude(section__in=["nodes", "services"]) if line.sku != switch.sku}
    assert no_offer == expected and expected


def test_customer_sees_the_cluster_quote_and_order_without_purchase_prices(
    catalog: None, customer_user: User, sales_user: User, django_capture_on_commit_callbacks: Any
) -> None:
    response = make(customer_user, {"cluster": {"workload": LLAMA_405B}})
    assert response.status_code == 201, response.content
    number = response.json()["number"]
    quote = Quote.objects.get(number=number)
    supplier = Supplier.objects.create(slug="secret-supplier", name="Secret Supplier")
    switch = quote.lines.get(section="compute_fabric", kind="switches")
    SupplierOffer.objects.create(
        supplier=supplier, sku=switch.sku, kind="switches", purchase_price=Decimal("123456.78"),
        stock_qty=10, lead_time_days=5, valid_until=timezone.localdate() + dt.timedelta(days=30),
    )  # fmt: skip
    quote = services.quote_accept(quote=services.quote_send(quote=quote, user=sales_user), user=customer_user)
    with django_capture_on_commit_callbacks(execute=True):
        order, _ = order_place(quote=quote, user=customer_user)
    assert order.purchases.filter(sku=switch.sku).exists()  # the plan did buy it from the supplier
    for url in (f"/api/v1/quotes/{number}/", f"/api/v1/orders/{order.number}/"):
        seen = client(customer_user).get(url)
        assert seen.status_code == 200, (url, seen.content)
        text = seen.content.decode()
        assert switch.sku in text
        for secret in ("secret-supplier", "Secret Supplier", "123456.78", "purchase_price"):
            assert secret not in text, (url, secret)
    browser = DjangoClient()
    browser.force_login(customer_user)
    page = browser.get(f"/quotes/{number}")
    assert page.status_code == 200
    assert str(SECTION_TITLES["compute_fabric"]) in page.content.decode()  # the page lists it by section
    assert "secret-supplier" not in page.content.decode() and "123456.78" not in page.content.decode()


def test_refreshing_a_cluster_quotes_prices_is_refused_and_changes_nothing(catalog: None, customer_user: User) -> None:
    response = make(customer_user, {"cluster": {"workload": LLAMA_405B}})
    number = response.json()["number"]
    before = list(Quote.objects.get(number=number).lines.values_list("sku", "unit_price"))
    refused = client(customer_user).post(f"/api/v1/quotes/{number}/refresh-prices/", {}, format="json")
    assert refused.status_code == 409, refused.content
    assert "cluster" in refused.json()["error"]["fields"]["quote"][0]
    assert list(Quote.objects.get(number=number).lines.values_list("sku", "unit_price")) == before
