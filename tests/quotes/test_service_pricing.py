"""Issue 35: service lines follow the discounted hardware by one rule (quotes.services._shared.lines_price).

The project's rule (servicelines/, quotes/services/extras.py, quotes/pricing.py): a percentage service
(warranty, on-site service) costs its percentage of the hardware's net — the non-optional hardware lines after
the quote's discount — and no service is discounted. Before the fix a discount left percentage services on
the old base (overcharged) and a revision discounted the services too (undercharged)."""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from accounts.models import User
from catalog.models import CATALOG_MODELS
from quotes import services
from quotes.models import Quote, QuoteLine
from quotes.pdf import format_money, render_quote_pdf
from quotes.services.extras import quote_services_set
from servicelines.services import services_load_fixture
from tests.builds import GOOD_BUILD
from tests.quotes.test_pdf import _text

pytestmark = pytest.mark.django_db

D = Decimal
SERVICES = ["warranty-3y", "onsite-nbd-3y", "delivery-russia"]  # 5 %, 4 % of the hardware, 25 000.00 fixed
OPTIONAL = [{"sku": "nvme-8tb", "qty": 1}]  # 85 000.00, offered: in no total and in no service's base
DELIVERY = D("25000.00")  # delivery-russia, fixed


@dataclass(frozen=True)
class Figures:
    """What the quote must say after a step: the hardware net, each service line, the totals."""

    hardware: Decimal
    warranty: Decimal
    onsite: Decimal
    net: Decimal
    vat: Decimal
    gross: Decimal
    delivery: Decimal = DELIVERY


# The hand calculation of test_discount_twice_then_a_revision_to_the_kopeck (its docstring shows the working).
AT_0 = Figures(D("3308739.94"), D("165437.00"), D("132349.60"), D("3631526.54"), D("798935.84"), D("4430462.38"))
AT_9_5 = Figures(D("2994409.62"), D("149720.48"), D("119776.38"), D("3288906.48"), D("723559.43"), D("4012465.91"))
AT_5 = Figures(D("3143302.90"), D("157165.15"), D("125732.12"), D("3451200.17"), D("759264.04"), D("4210464.21"))
R2_AT_7_5 = Figures(D("3060584.44"), D("153029.22"), D("122423.38"), D("3361037.04"), D("739428.15"), D("4100465.19"))


@pytest.fixture(autouse=True)
def _priced_catalog(catalog: None) -> None:
    """The sample services, and two catalog prices with kopecks so that every rounding of the hand calculation
    shows (the GPU 987 654.33, the 64 GB RDIMM 45 678.91; the other parts keep their catalog prices)."""
    services_load_fixture()
    for kind, sku, price in (
        ("gpus", "rtx-pro-6000-blackwell-maxq", D("987654.33")),
        ("memory", "ddr5-rdimm-64gb", D("45678.91")),
    ):
        row = CATALOG_MODELS[kind].objects.get(sku=sku)
        row.list_price = price
        row.save()


def _figures(quote: Quote) -> Figures:
    """What is stored: the services' line totals, the hardware net and the totals the page, API and PDF read."""
    quote.refresh_from_db()
    lines = {line.sku: line for line in QuoteLine.objects.filter(quote=quote)}
    hardware = sum((line.line_total for line in lines.values() if line.kind != "services" and not line.optional), D(0))
    return Figures(
        hardware=hardware,
        warranty=lines["warranty-3y"].line_total,
        onsite=lines["onsite-nbd-3y"].line_total,
        delivery=lines["delivery-russia"].line_total,
        net=quote.net_total,
        vat=quote.vat_total,
        gross=quote.gross_total,
    )


def _body_figures(body: dict[str, Any]) -> Figures:
    """The same figures from an API answer's body."""
    lines = {line["sku"]: line for line in body["lines"]}
    hardware = sum(
        (D(line["line_total"]) for line in body["lines"] if line["kind"] != "services" and not line["optional"]),
        D(0),
    )
    return Figures(
        hardware=hardware,
        warranty=D(lines["warranty-3y"]["line_total"]),
        onsite=D(lines["onsite-nbd-3y"]["line_total"]),
        delivery=D(lines["delivery-russia"]["line_total"]),
        net=D(body["totals"]["net"]),
        vat=D(body["totals"]["vat"]),
        gross=D(body["totals"]["gross"]),
    )


def test_discount_twice_then_a_revision_to_the_kopeck(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    """Discount 0 → 9.5 % → 5 % on the draft, sent, then revised at 7.5 %; VAT 22 %. Rounding half-up to kopecks
    (quotes/pricing.py): unit = list × (100 − d) / 100; line = unit × qty; services on the hardware net, not
    discounted; VAT on the net once.

    Hardware lines (list price × qty): platform 420 000.00 × 1, CPU 410 000.00 × 1, GPU 987 654.33 × 2,
    PSU 48 000.00 × 2, RDIMM 45 678.91 × 8, NVMe 42 000.00 × 1; optional NVMe 8 TB 85 000.00 (left out).

    0 %:   hardware 420 000.00 + 410 000.00 + 1 975 308.66 + 96 000.00 + 365 431.28 + 42 000.00 = 3 308 739.94
           warranty 5 % = 165 436.997 → 165 437.00; on-site 4 % = 132 349.5976 → 132 349.60; delivery 25 000.00
           net 3 631 526.54; VAT 22 % = 798 935.8388 → 798 935.84; gross 4 430 462.38
    9.5 %: units 380 100.00, 371 050.00, 893 827.16865 → 893 827.17 (× 2 = 1 787 654.34), 43 440.00 (× 2 =
           86 880.00), 41 339.41355 → 41 339.41 (× 8 = 330 715.28), 38 010.00; hardware 2 994 409.62
           warranty 149 720.481 → 149 720.48; on-site 119 776.3848 → 119 776.38; delivery 25 000.00
           net 3 288 906.48; VAT 723 559.4256 → 723 559.43; gross 4 012 465.91
           (the old code left the services at 165 437.00 + 132 349.60: 28 289.74 too much)
    5 %:   units 399 000.00, 389 500.00, 938 271.6135 → 938 271.61 (× 2 = 1 876 543.22), 45 600.00 (× 2 =
           91 200.00), 43 394.9645 → 43 394.96 (× 8 = 347 159.68), 39 900.00; hardware 3 143 302.90
           warranty 157 165.145 → 157 165.15; on-site 125 732.116 → 125 732.12; delivery 25 000.00
           net 3 451 200.17; VAT 759 264.0374 → 759 264.04; gross 4 210 464.21
    R2 at 7.5 %: units 388 500.00, 379 250.00, 913 580.25525 → 913 580.26 (× 2 = 1 827 160.52), 44 400.00
           (× 2 = 88 800.00), 42 252.99175 → 42 252.99 (× 8 = 338 023.92), 38 850.00; hardware 3 060 584.44
           warranty 153 029.222 → 153 029.22; on-site 122 423.3776 → 122 423.38; delivery 25 000.00 (not
           discounted: the old code made it 23 125.00)
           net 3 361 037.04; VAT 739 428.1488 → 739 428.15; gross 4 100 465.19
    """
    quote = make_quote(customer=customer_user, created_by=sales_user, optional_lines=OPTIONAL)
    quote_services_set(quote=quote, user=sales_user, skus=SERVICES)
    assert _figures(quote) == AT_0
    services.quote_discount_set(quote=quote, user=sales_user, discount_percent="9.5")
    assert _figures(quote) == AT_9_5
    services.quote_discount_set(quote=quote, user=sales_user, discount_percent=5)
    assert _figures(quote) == AT_5
    services.quote_send(quote=quote, user=sales_user)
    r2 = services.quote_revise(quote=quote, user=sales_user, discount_percent="7.5")
    assert (r2.revision, r2.vat_percent, r2.discount_percent) == (2, D("22"), D("7.5"))
    assert _figures(r2) == R2_AT_7_5
    assert _figures(quote) == AT_5  # the revision it replaced keeps what was sent

    service_lines = list(QuoteLine.objects.filter(quote=r2, kind="services").order_by("position"))
    assert [(line.sku, line.service_percent, line.discount_percent, line.qty) for line in service_lines] == [
        ("warranty-3y", D("5.00"), D("0.00"), 1),
        ("onsite-nbd-3y", D("4.00"), D("0.00"), 1),
        ("delivery-russia", None, D("0.00"), 1),
    ]
    assert all(line.list_price == line.unit_price == line.line_total for line in service_lines)
    optional = QuoteLine.objects.get(quote=r2, optional=True)
    assert (optional.unit_price, optional.line_total) == (D("78625.00"), D("78625.00"))  # 85 000 less 7.5 %


def test_refreshing_prices_and_setting_services_again_follow_the_same_rule(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    """A catalog price change taken by refresh-prices moves the percentage services with the hardware; setting the
    services again on a discounted draft gives what the discount change gave (AT_5 of the test above): one rule
    whatever changed the lines. Refresh: the GPU back to 990 000.00 at 5 % = 940 500.00 × 2 = 1 881 000.00, the
    hardware 3 143 302.90 − 1 876 543.22 + 1 881 000.00 = 3 147 759.68; warranty 157 387.984 → 157 387.98,
    on-site 125 910.3872 → 125 910.39; net 3 147 759.68 + 157 387.98 + 125 910.39 + 25 000.00 = 3 456 058.05;
    VAT 760 332.771 → 760 332.77; gross 4 216 390.82."""
    quote = make_quote(customer=customer_user, created_by=sales_user, optional_lines=OPTIONAL)
    services.quote_discount_set(quote=quote, user=sales_user, discount_percent=5)
    quote_services_set(quote=quote, user=sales_user, skus=SERVICES)
    assert _figures(quote) == AT_5
    gpu = CATALOG_MODELS["gpus"].objects.get(sku="rtx-pro-6000-blackwell-maxq")
    gpu.list_price = D("990000.00")
    gpu.save()
    services.quote_refresh_prices(quote=quote, user=sales_user)
    assert _figures(quote) == Figures(
        D("3147759.68"), D("157387.98"), D("125910.39"), D("3456058.05"), D("760332.77"), D("4216390.82")
    )
    event = quote.events.filter(type="prices_refreshed").last()
    assert event is not None
    assert event.data["lines"] == [
        {"sku": "rtx-pro-6000-blackwell-maxq", "old": "987654.33", "new": "990000.00", "qty": 2},
        {"sku": "warranty-3y", "old": "157165.15", "new": "157387.98", "qty": 1},
        {"sku": "onsite-nbd-3y", "old": "125732.12", "new": "125910.39", "qty": 1},
    ]


def test_the_api_the_page_and_the_pdf_show_the_same_figures(customer_user: User, sales_user: User) -> None:
    """The steps of test_discount_twice_then_a_revision_to_the_kopeck through the doors: the API makes the quote,
    sets its services, sends and revises it; the page's form changes the discount (the only door for a draft's
    discount). Every answer body carries the hand-calculated figures (AT_0, AT_9_5, AT_5, R2_AT_7_5 above),
    and the page and the PDF print them."""
    api = APIClient()
    api.force_authenticate(sales_user)
    page = Client()
    page.force_login(sales_user)
    created = api.post(
        "/api/v1/quotes/",
        {"build": copy.deepcopy(GOOD_BUILD), "customer": customer_user.pk, "optional_lines": OPTIONAL},
        format="json",
    )
    assert created.status_code == 201, created.json()
    number = created.json()["number"]
    body = api.post(f"/api/v1/quotes/{number}/services", {"services": SERVICES}, format="json").json()
    assert _body_figures(body) == AT_0
    for discount, expected in (("9.5", AT_9_5), ("5", AT_5)):
        answer = page.post(f"/quotes/{number}/discount", {"revision": 1, "discount_percent": discount})
        assert answer.status_code == 302
        body = api.get(f"/api/v1/quotes/{number}/").json()
        assert (D(body["discount_percent"]), _body_figures(body)) == (D(discount), expected)
    assert api.post(f"/api/v1/quotes/{number}/send/").status_code == 200
    revised = api.post(f"/api/v1/quotes/{number}/revise/", {"discount_percent": "7.5"}, format="json")
    assert revised.status_code == 201, revised.json()
    body = revised.json()
    assert (body["revision"], D(body["vat_percent"]), _body_figures(body)) == (2, D("22"), R2_AT_7_5)
    assert [(line["sku"], line["service_percent"]) for line in body["lines"] if line["kind"] == "services"] == [
        ("warranty-3y", "5.00"),
        ("onsite-nbd-3y", "4.00"),
        ("delivery-russia", None),
    ]
    assert _body_figures(api.get(f"/api/v1/quotes/{number}/", {"revision": 1}).json()) == AT_5

    r1, r2 = Quote.objects.get(number=number, revision=1), Quote.objects.get(number=number, revision=2)
    html = page.get(f"/quotes/{number}").content.decode()
    with translation.override("ru"):  # the page's language (LANGUAGE_CODE) and the document's (QUOTE_LANGUAGE)
        for value in (R2_AT_7_5.warranty, R2_AT_7_5.onsite, R2_AT_7_5.net, R2_AT_7_5.vat, R2_AT_7_5.gross):
            assert f"{format_money(value)}\xa0₽" in html, value
        for quote, figures in ((r1, AT_5), (r2, R2_AT_7_5)):
            text = _text(render_quote_pdf(quote))
            for value in (figures.warranty, figures.onsite, figures.delivery, figures.net, figures.vat, figures.gross):
                assert format_money(value).replace("\xa0", " ") in text, (quote.label, value)


def test_the_migration_gives_older_service_lines_their_percentage(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    """Migration 0005: service lines made before it kept the percentage only in their summary ("5 % of the
    hardware"); it is read from there, fixed services stay fixed, and the next discount prices them by the
    rule (AT_9_5)."""
    migration = importlib.import_module("quotes.migrations.0005_line_service_percent_and_dated_vat")
    quote = make_quote(customer=customer_user, created_by=sales_user, optional_lines=OPTIONAL)
    quote_services_set(quote=quote, user=sales_user, skus=SERVICES)
    QuoteLine.objects.filter(quote=quote).update(service_percent=None)
    migration.percent_from_summary(django_apps, None)
    percents = dict(QuoteLine.objects.filter(quote=quote, kind="services").values_list("sku", "service_percent"))
    assert percents == {"warranty-3y": D("5.00"), "onsite-nbd-3y": D("4.00"), "delivery-russia": None}
    services.quote_discount_set(quote=quote, user=sales_user, discount_percent="9.5")
    assert _figures(quote) == AT_9_5
