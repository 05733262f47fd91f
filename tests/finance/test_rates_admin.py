"""An accountant enters a rate by hand in the admin (issue 35 trial): "80,50" as Russian writes it, "usd" or "$"
for the currency; a currency the service cannot convert is refused in words, never as a database constraint."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.test import Client

from accounts.models import User
from finance.models import ExchangeRate, VatRate
from tests.factories import catalog_staff

pytestmark = pytest.mark.django_db
ADD = "/admin/finance/exchangerate/add/"


def _client(language: str, user: User | None = None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user or catalog_staff(username="accountant"))
    client.cookies["django_language"] = language
    return client


@pytest.mark.parametrize(
    ("language", "written", "currency", "rate"),
    [("ru", "usd", "USD", "80,50"), ("ru", "$", "USD", "80.50"), ("en", "eur", "EUR", "80.50")],
)
def test_a_rate_typed_as_people_write_it_is_stored(language: str, written: str, currency: str, rate: str) -> None:
    """Before: "80,50" was "Введите число." and "usd" "Нарушено ограничение "exchange_rate_currency_iso"."."""
    data = {"currency": written, "date": "04.12.2026" if language == "ru" else "2026-12-04", "rub_per_unit": rate,
            "source": "manual", "note": "ЦБ по телефону"}  # fmt: skip
    response = _client(language).post(ADD, data)
    assert response.status_code == 302, response.content.decode()[-3000:]
    stored = ExchangeRate.objects.get()
    assert (stored.currency, stored.date, stored.rub_per_unit, stored.source) == (
        currency, dt.date(2026, 12, 4), Decimal("80.50"), "manual",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("written", "russian"),
    [
        ("XYZ", "Неизвестная валюта XYZ: укажите её код, например USD, EUR или CNY"),
        ("RUR", "Для рубля курс не нужен"),
    ],
)
def test_a_currency_the_service_cannot_convert_is_refused_in_words(written: str, russian: str) -> None:
    data = {"currency": written, "date": "04.12.2026", "rub_per_unit": "80,50", "source": "manual"}
    page = _client("ru").post(ADD, data).content.decode()
    assert russian in page and "exchange_rate_currency_iso" not in page
    assert not ExchangeRate.objects.exists()


def test_a_vat_rate_typed_with_a_decimal_comma_is_stored() -> None:
    data = {"valid_from": "01.01.2027", "percent": "22,00", "note": "ст. 164 НК РФ"}
    admin = User.objects.create_superuser("chief", password="x")  # VAT rates are the superuser's to change
    response = _client("ru", admin).post("/admin/finance/vatrate/add/", data)
    assert response.status_code == 302
    assert VatRate.objects.get(valid_from=dt.date(2027, 1, 1)).percent == Decimal("22.00")
