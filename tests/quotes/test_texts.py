"""A quote's own texts (terms, the e-mail to the customer, the PDF's labels) are gettext strings and
templates rendered in QUOTE_LANGUAGE: Russian, whatever the language of the request that makes them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.utils import translation

from accounts.models import User
from quotes.models import Quote
from quotes.pdf import quote_pdf_context
from quotes.services import quote_terms
from quotes.services.notify import quote_email_texts

TERMS_RU = (
    "Цены указаны в рублях без НДС; НДС 22 % начисляется сверху.\n"
    "По истечении указанного выше срока действия цены и наличие уточняются.\n"
    "Оплата: 100 % предоплата по счёту. Срок поставки — по согласованию после оплаты.\n"
    "В стоимость входят сборка и установка ОС по запросу; нагрузочный прогон не входит.\n"
    "Гарантия: 36 месяцев на сборку, на комплектующие — гарантия производителя.\n"
    "Предложение не является публичной офертой."
)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_terms_are_russian_in_any_request_language(language: str) -> None:
    with translation.override(language):
        assert quote_terms(vat_percent=Decimal("22.00"), validity_days=14) == TERMS_RU


def test_a_terms_setting_replaces_them(settings: object) -> None:
    settings.QUOTE_TERMS = "НДС {vat} %, {days} дней"  # type: ignore[attr-defined]
    assert quote_terms(vat_percent=Decimal("20"), validity_days=7) == "НДС 20 %, 7 дней"


def test_the_email_is_russian(make_quote: Callable[..., Quote], customer_user: User) -> None:
    quote = make_quote()
    quote.valid_until = datetime(2026, 12, 14, 23, 59, 59, tzinfo=ZoneInfo("Europe/Moscow"))
    quote.gross_total = Decimal("1234567.80")
    with translation.override("en"):
        subject, body = quote_email_texts(quote)
    assert subject == f"Коммерческое предложение {quote.number} (R1)"
    assert body == (
        "Здравствуйте, Алиса Иванова!\n\n"
        f"Направляем коммерческое предложение {quote.number}, редакция R1.\n"
        "Сумма с НДС: 1\xa0234\xa0567,80 ₽.\n"  # formatted as on the page (issue 16)
        "Предложение действительно до 14.12.2026 включительно.\n"
    )


def test_the_pdf_labels_are_russian(make_quote: Callable[..., Quote]) -> None:
    quote = make_quote()
    with translation.override("en"):
        context = quote_pdf_context(quote)
    assert context["title"] == "Коммерческое предложение"
    assert context["currency"] == "₽"
    assert {line["kind"] for line in context["lines"]} >= {"Платформа", "Процессор", "Видеокарта"}
    psu = next(line for line in context["lines"] if line["sku"].startswith("psu-"))
    assert psu["name"].startswith("Блок питания") and psu["kind"] == ""  # the Russian name says the kind already


def test_the_quote_modules_hold_no_russian_literals() -> None:
    root = Path(__file__).resolve().parents[2] / "quotes"
    for path in [root / "pdf.py", root / "pdf_layout.py", *sorted((root / "services").glob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        assert not any("а" <= char.lower() <= "я" for char in text), path
