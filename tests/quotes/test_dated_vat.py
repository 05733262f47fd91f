"""Issue 35: the VAT rate is the one in force on the quote's date (finance.vat, the dated VatRate table: 20 % from
01.01.2019, 22 % from 01.01.2026, Tax Code art. 164 p. 3), and the terms say that the prices exclude VAT and
that VAT is added on top, in the language of the quote's documents (QUOTE_LANGUAGE), on the page and in the
PDF."""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.apps import apps as django_apps
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import User
from configurator.serializers import workload_from_data
from configurator.services import recommendation_find
from finance.models import VatRate
from quotes import services
from quotes.models import Quote
from quotes.pdf import render_quote_pdf
from tests.builds import GOOD_BUILD
from tests.quotes.test_pdf import _text

pytestmark = pytest.mark.django_db

D = Decimal
MSK = ZoneInfo("Europe/Moscow")  # settings.TIME_ZONE: the seller's day
NET = D("3308000.00")  # GOOD_BUILD at the catalog's list prices, no discount (tests/quotes/test_totals.py)
TERMS_FIRST_LINE = {
    "ru": "Цены указаны в рублях без НДС; НДС {vat} % начисляется сверху.",
    "en": "Prices are in roubles excluding VAT; VAT of {vat} % is added on top.",
}


def _vat(quote: Quote) -> tuple[Decimal, Decimal, Decimal, str]:
    return quote.vat_percent, quote.vat_total, quote.gross_total, quote.terms.splitlines()[0]


def test_a_quote_of_31_12_2025_charges_20_percent_and_one_of_01_01_2026_charges_22(
    make_quote: Callable[..., Quote],
) -> None:
    """The seller's date decides: 01.01.2026 00:00:01 in Moscow is still 31.12.2025 in UTC.
    20 %: VAT 3 308 000.00 × 20 / 100 = 661 600.00, gross 3 969 600.00;
    22 %: VAT 3 308 000.00 × 22 / 100 = 727 760.00, gross 4 035 760.00."""
    with time_machine.travel(datetime(2025, 12, 31, 23, 59, 59, tzinfo=MSK), tick=False):
        old = make_quote()
    with time_machine.travel(datetime(2026, 1, 1, 0, 0, 1, tzinfo=MSK), tick=False):
        new = make_quote()
    assert old.net_total == new.net_total == NET
    assert _vat(old) == (D("20"), D("661600.00"), D("3969600.00"), TERMS_FIRST_LINE["ru"].format(vat=20))
    assert _vat(new) == (D("22"), D("727760.00"), D("4035760.00"), TERMS_FIRST_LINE["ru"].format(vat=22))
    old.refresh_from_db()
    assert old.vat_percent == D("20.00")  # as stored


def test_a_revision_made_in_2026_of_a_quote_of_2025_charges_the_rate_of_its_own_date(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    """R1 of 30.12.2025 at 20 % is sent; R2 made on 12.01.2026 is a new offer of that day: 22 %, and its terms say
    22 %. R1 keeps its 20 % (it is what the customer was sent)."""
    with time_machine.travel(datetime(2025, 12, 30, 11, 0, tzinfo=MSK), tick=False):
        r1 = make_quote(customer=customer_user, created_by=sales_user)
        services.quote_send(quote=r1, user=sales_user)
    with time_machine.travel(datetime(2026, 1, 12, 10, 0, tzinfo=MSK), tick=False):
        r2 = services.quote_revise(quote=r1, user=sales_user)
    assert _vat(r2) == (D("22"), D("727760.00"), D("4035760.00"), TERMS_FIRST_LINE["ru"].format(vat=22))
    r1.refresh_from_db()
    assert _vat(r1) == (D("20.00"), D("661600.00"), D("3969600.00"), TERMS_FIRST_LINE["ru"].format(vat=20))
    assert r2.events.get(type="revised").data["vat_percent"] == "22.00"


def test_a_rate_added_in_the_admin_changes_quotes_and_prices_from_its_date(
    make_quote: Callable[..., Quote], sales_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 25 % row from 01.01.2030 entered in the admin: a quote of 31.12.2029 still charges 22 %, one of
    01.01.2030 charges 25 % (VAT 3 308 000.00 × 25 / 100 = 827 000.00), and so do the configurator's prices
    that day (validate: the same net and VAT; recommendations are asked with 25)."""
    admin = Client()
    admin.force_login(User.objects.create_superuser("root", "root@example.com", "pass-12345"))
    added = admin.post(
        "/admin/finance/vatrate/add/", {"valid_from": "01.01.2030", "percent": "25", "note": "a future law"}
    )
    assert added.status_code == 302, added.content.decode()[:2000]
    assert VatRate.objects.filter(valid_from="2030-01-01", percent=D("25")).count() == 1

    with time_machine.travel(datetime(2029, 12, 31, 12, 0, tzinfo=MSK), tick=False):
        before = make_quote()
    asked: list[Any] = []
    monkeypatch.setattr("configurator.services.recommend", lambda *args, **kwargs: asked.append(kwargs["vat_percent"]))
    with time_machine.travel(datetime(2030, 1, 1, 12, 0, tzinfo=MSK), tick=False):
        after = make_quote()
        price = APIClient().post("/api/v1/builds/validate", copy.deepcopy(GOOD_BUILD), format="json").json()["price"]
        workload = workload_from_data({"model": "llama-3.1-8b", "task": "inference", "precision": "q4_k_m"})
        recommendation_find(workload=workload, constraints={})
    assert _vat(before)[:3] == (D("22"), D("727760.00"), D("4035760.00"))
    assert _vat(after) == (D("25"), D("827000.00"), D("4135000.00"), TERMS_FIRST_LINE["ru"].format(vat=25))
    assert (price["net"], price["vat"], price["gross"]) == ("3308000.00", "827000.00", "4135000.00")
    assert asked == [D("25.00")]


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_terms_say_prices_exclude_vat_on_the_page_and_in_the_pdf(
    make_quote: Callable[..., Quote], customer_user: User, settings: Any, language: str
) -> None:
    """The terms are stored in QUOTE_LANGUAGE when the quote is made: Russian terms on a Russian quote, English
    on an English one, printed as stored by the page (whatever the reader's language) and by the PDF; nothing
    says the prices include VAT any more."""
    settings.QUOTE_LANGUAGE = language
    quote = make_quote()
    sentence = TERMS_FIRST_LINE[language].format(vat=22)
    assert quote.terms.splitlines()[0] == sentence
    client = Client()
    client.force_login(customer_user)
    for reader in ("ru", "en"):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = reader
        page = client.get(reverse("quotes:detail", args=[quote.number])).content.decode()
        assert f'<p class="terms" lang="{language}">{sentence}<br>' in page, reader
    text = _text(render_quote_pdf(quote))
    assert sentence in text
    for stale in ("include VAT", "включают НДС"):
        assert stale not in quote.terms and stale not in text


def test_the_migration_corrects_the_terms_of_quotes_not_yet_issued(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    """Migration 0005: a draft made before it said "включают НДС 20 %" and gets the new sentence with its own rate
    and its PDF queued again; a sent quote keeps the text the customer got."""
    migration = importlib.import_module("quotes.migrations.0005_line_service_percent_and_dated_vat")
    draft, sent = make_quote(), make_quote(created_by=sales_user)
    services.quote_send(quote=sent, user=sales_user)
    old_terms = "Цены указаны в рублях и включают НДС 20 %.\nПредложение не является публичной офертой."
    english = "Prices are in roubles and include VAT of 22 %.\nThis quote is not a public offer."
    Quote.objects.filter(pk__in=[draft.pk, sent.pk]).update(terms=old_terms, render_status="ready")
    english_draft = make_quote()
    Quote.objects.filter(pk=english_draft.pk).update(terms=english, render_status="ready")
    migration.terms_exclude_vat(django_apps, None)
    draft.refresh_from_db()
    sent.refresh_from_db()
    english_draft.refresh_from_db()
    assert (draft.terms, draft.render_status, draft.render_queued_at) == (
        "Цены указаны в рублях без НДС; НДС 20 % начисляется сверху.\nПредложение не является публичной офертой.",
        "pending",
        None,
    )
    assert english_draft.terms == "Prices are in roubles excluding VAT; VAT of 22 % is added on top.\n" + (
        "This quote is not a public offer."
    )
    assert (sent.terms, sent.render_status) == (old_terms, "ready")
