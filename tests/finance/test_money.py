"""Currencies as people write them, the CBR's daily file, rates by date, the dated VAT table and the
Russian working-day calendar."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from configurator.engine.workdays import add_working_days, is_working_day, working_days_between
from finance.cbr import CbrError, cbr_parse, cbr_store
from finance.currency import UnknownCurrency, currency_code
from finance.models import ExchangeRate, VatRate
from finance.rates import NoRate, rate_book, to_rub
from finance.vat import net_of_vat, vat_percent_on

SAMPLE = Path(settings.BASE_DIR) / "finance" / "fixtures" / "cbr_daily_sample.xml"


@pytest.mark.parametrize(
    ("text", "code"),
    [("RUR", "RUB"), ("руб", "RUB"), ("руб.", "RUB"), ("Руб.", "RUB"), ("₽", "RUB"), ("р.", "RUB"), ("rub", "RUB"),
     ("USD", "USD"), ("$", "USD"), ("у.е.", "USD"), ("eur", "EUR"), ("€", "EUR"), ("юань", "CNY"), (" CNY ", "CNY")],
)  # fmt: skip
def test_currency_texts_read_as_iso_codes(text: str, code: str) -> None:
    assert currency_code(text) == code


@pytest.mark.parametrize("text", ["XYZ", "рупии", "US", "12"])
def test_unknown_currency_is_refused_not_invented(text: str) -> None:
    with pytest.raises(UnknownCurrency):
        currency_code(text)


def test_empty_currency_takes_the_default() -> None:
    assert currency_code("", default="RUR") == "RUB"
    with pytest.raises(UnknownCurrency):
        currency_code("")


def test_cbr_file_is_read_per_unit_with_its_nominal() -> None:
    day, rates = cbr_parse(SAMPLE.read_bytes())
    by_code = {rate.currency: rate for rate in rates}
    assert day == dt.date(2026, 12, 3)
    assert by_code["USD"].rub_per_unit == Decimal("78.2235")
    assert by_code["JPY"].rub_per_unit == Decimal("0.503517")  # 50,3517 ₽ per 100 yen
    assert {rate.source for rate in rates} == {"cbr"}


@pytest.mark.parametrize("content", [b"", b"<html/>", b'<ValCurs Date="3.12"/>', b"x" * 1_000_001])
def test_cbr_file_that_is_not_one_is_refused(content: bytes) -> None:
    with pytest.raises(CbrError):
        cbr_parse(content)


@pytest.mark.django_db
def test_rates_convert_at_the_newest_rate_on_or_before_the_day() -> None:
    cbr_store(SAMPLE.read_bytes())  # 03.12.2026 (a Thursday)
    ExchangeRate.objects.create(currency="USD", date=dt.date(2026, 12, 1), rub_per_unit=Decimal("80"))
    converted = to_rub(Decimal("12000"), "USD", dt.date(2026, 12, 5))  # a Saturday: Thursday's rate
    assert converted.rub == Decimal("938682.00") and converted.rate is not None
    assert converted.rate.date == dt.date(2026, 12, 3)
    assert to_rub(Decimal("12000"), "USD", dt.date(2026, 12, 2)).rub == Decimal("960000.00")
    assert to_rub(Decimal("10.005"), "RUR", dt.date(2026, 12, 2)).rub == Decimal("10.01")
    with pytest.raises(NoRate):
        to_rub(Decimal(1), "USD", dt.date(2026, 11, 30))
    with pytest.raises(NoRate):
        rate_book(dt.date(2026, 12, 5)).convert(Decimal(1), "GBP")


@pytest.mark.django_db
def test_a_rate_entered_by_hand_is_kept_over_the_cbr_job() -> None:
    ExchangeRate.objects.create(currency="USD", date=dt.date(2026, 12, 3), rub_per_unit=Decimal("79"))
    call_command("cbr_rates", "--sample")
    assert ExchangeRate.objects.get(currency="USD", date=dt.date(2026, 12, 3)).rub_per_unit == Decimal("79")
    assert ExchangeRate.objects.get(currency="EUR", date=dt.date(2026, 12, 3)).source == "cbr"


@pytest.mark.django_db
def test_vat_rate_follows_its_dates() -> None:
    assert VatRate.objects.count() == 2
    assert vat_percent_on(dt.date(2025, 12, 31)) == Decimal(20)
    assert vat_percent_on(dt.date(2026, 1, 1)) == Decimal(22)
    assert net_of_vat(Decimal("122000.00"), Decimal(22)) == Decimal("100000.00")
    assert net_of_vat(Decimal("100.00"), Decimal(22)) == Decimal("81.97")


def test_working_days_follow_the_russian_production_calendar() -> None:
    assert not is_working_day(dt.date(2026, 12, 31))  # moved off by the 2026 decree (from 03.01)
    assert is_working_day(dt.date(2027, 2, 20))  # a Saturday made a working day in 2027
    assert not is_working_day(dt.date(2027, 2, 22))
    # Friday 25.12.2026 + 5 working days: 28, 29, 30 December, then the New Year days off to 10.01
    assert add_working_days(dt.date(2026, 12, 25), 5) == dt.date(2027, 1, 12)
    assert add_working_days(dt.date(2026, 12, 26), 0) == dt.date(2026, 12, 28)
    assert working_days_between(dt.date(2026, 12, 25), dt.date(2027, 1, 12)) == 5


def test_the_cbr_job_is_on_the_beat_schedule() -> None:
    assert settings.CELERY_BEAT_SCHEDULE["finance-fetch-cbr-rates"]["task"] == "finance.fetch_cbr_rates"
