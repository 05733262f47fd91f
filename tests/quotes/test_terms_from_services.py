"""The terms' warranty and burn-in sentences come from the quote's service lines (issue 37 trial: the terms
said "36 months, 72-hour test included" beside a 1-year warranty line and a paid 48-hour burn-in line)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest
from django.test import override_settings

from accounts.models import User
from quotes.models import Quote
from quotes.pdf import quote_pdf_context
from quotes.services import quote_terms
from quotes.services.extras import quote_services_set
from quotes.services.lifecycle import quote_revise, quote_send
from quotes.services.terms import ServiceTerm
from servicelines.services import services_load_fixture

pytestmark = pytest.mark.django_db

ONE_YEAR = ServiceTerm("warranty", 1, "Warranty 1 year, return to base", "Гарантия 1 год, ремонт в сервисном центре")
FIVE_YEARS = ServiceTerm("warranty", 5, "Warranty 5 years, return to base", "Гарантия 5 лет, ремонт в сервисном центре")
BURN_IN = ServiceTerm(
    "burn_in_report",
    None,
    "48-hour burn-in test with a written report",
    "Нагрузочный прогон 48 часов с письменным отчётом",
)


@pytest.fixture(autouse=True)
def _services(db: None) -> None:
    services_load_fixture()


def _terms(*services: ServiceTerm) -> list[str]:
    return quote_terms(vat_percent=Decimal(22), validity_days=14, services=services).splitlines()


def test_the_warranty_and_burn_in_sentences_follow_the_service_lines_in_russian() -> None:
    terms = _terms(ONE_YEAR, BURN_IN)
    assert terms[3] == (
        "В стоимость входят сборка, установка ОС по запросу и услуга "
        "«Нагрузочный прогон 48 часов с письменным отчётом» (строка предложения)."
    )
    assert terms[4] == (
        "Гарантия: 1 год на сборку (Гарантия 1 год, ремонт в сервисном центре), "
        "на комплектующие — гарантия производителя."
    )
    assert "36 месяцев" not in "\n".join(terms) and "72" not in "\n".join(terms)
    assert _terms(FIVE_YEARS)[4].startswith("Гарантия: 5 лет на сборку")


def test_without_service_lines_the_base_warranty_and_no_burn_in() -> None:
    terms = _terms()
    assert terms[3] == "В стоимость входят сборка и установка ОС по запросу; нагрузочный прогон не входит."
    assert terms[4] == "Гарантия: 36 месяцев на сборку, на комплектующие — гарантия производителя."


@override_settings(QUOTE_LANGUAGE="en")
def test_the_same_sentences_in_english() -> None:
    terms = _terms(ONE_YEAR, BURN_IN)
    assert terms[3] == (
        "The price includes assembly, OS installation on request and the service line "
        "“48-hour burn-in test with a written report”."
    )
    assert terms[4] == (
        "Warranty: 1 year on the assembly (Warranty 1 year, return to base); "
        "components carry the manufacturer’s warranty."
    )
    assert _terms(FIVE_YEARS)[4].startswith("Warranty: 5 years on the assembly")


def test_a_quote_with_services_stores_those_terms_and_the_pdf_prints_them(make_quote: Callable[..., Quote]) -> None:
    quote = make_quote(services=["warranty-1y", "burn-in-report-48h"])
    assert quote.terms == "\n".join(_terms(ONE_YEAR, BURN_IN))
    assert quote_pdf_context(quote)["terms"] == _terms(ONE_YEAR, BURN_IN)  # page and PDF print the stored text


def test_changing_a_drafts_services_changes_its_generated_terms_not_hand_edited_ones(
    make_quote: Callable[..., Quote], customer_user: User
) -> None:
    quote = make_quote(services=["warranty-1y"])
    quote = quote_services_set(quote=quote, user=customer_user, skus=["warranty-5y", "burn-in-report-48h"])
    quote.refresh_from_db()
    assert quote.terms == "\n".join(_terms(FIVE_YEARS, BURN_IN))
    Quote.objects.filter(pk=quote.pk).update(terms="Особые условия")
    quote.refresh_from_db()
    quote_services_set(quote=quote, user=customer_user, skus=["warranty-1y"])
    quote.refresh_from_db()
    assert quote.terms == "Особые условия"


def test_a_revision_makes_terms_from_its_copied_service_lines(
    make_quote: Callable[..., Quote], sales_user: User
) -> None:
    quote = make_quote(services=["warranty-5y"], created_by=sales_user)
    quote_send(quote=quote, user=sales_user)
    new = quote_revise(quote=quote, user=sales_user)
    assert new.terms.splitlines()[4].startswith("Гарантия: 5 лет на сборку")
