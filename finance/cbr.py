"""The Central Bank of Russia's daily exchange rates: its XML read into `Rate`s, and the job that stores
them.

Format (https://www.cbr.ru/development/SXML/, "Получение котировок на заданный день", XML_daily.asp),
Windows-1251, decimal commas, a rate per `Nominal` units:

    <ValCurs Date="03.12.2026" name="Foreign Currency Market">
      <Valute ID="R01235"><NumCode>840</NumCode><CharCode>USD</CharCode><Nominal>1</Nominal>
        <Name>Доллар США</Name><Value>78,2235</Value><VunitRate>78,2235</VunitRate></Valute> …

`Date` is the day the rates are set for (the CBR sets tomorrow's rates today; a request for a weekend
answers with the next working day's date).
"""

from __future__ import annotations

import datetime as dt
import logging
import urllib.request
from decimal import Decimal, InvalidOperation
from xml.etree import ElementTree

from django.conf import settings
from django.db import transaction

from finance.currency import KNOWN
from finance.rates import Rate

logger = logging.getLogger(__name__)

CBR_DAILY_URL = "https://www.cbr.ru/scripts/XML_daily.asp"
MAX_XML_BYTES = 1_000_000  # the real file is ~10 KB


class CbrError(ValueError):
    pass


def _decimal(text: str | None) -> Decimal:
    try:
        return Decimal((text or "").strip().replace(",", "."))
    except InvalidOperation as exc:
        raise CbrError(f"not a number: {text!r}") from exc


def cbr_parse(content: bytes, *, only: frozenset[str] = KNOWN) -> tuple[dt.date, list[Rate]]:
    """The day and the rates of one XML_daily answer (per one unit, the CBR's decimals kept); currencies
    outside `only` are skipped. Raises CbrError on anything that is not that file."""
    if len(content) > MAX_XML_BYTES:
        raise CbrError(f"the file is {len(content)} bytes, more than {MAX_XML_BYTES}")
    try:
        root = ElementTree.fromstring(content)  # noqa: S314 - the CBR's answer or a stored sample, size-capped
    except ElementTree.ParseError as exc:
        raise CbrError(f"not XML: {exc}") from exc
    if root.tag != "ValCurs" or not root.get("Date"):
        raise CbrError("not the CBR's ValCurs file")
    try:
        day = dt.datetime.strptime(root.get("Date", ""), "%d.%m.%Y").date()  # noqa: DTZ007 - a calendar date
    except ValueError as exc:
        raise CbrError(f"bad Date {root.get('Date')!r}") from exc
    rates: list[Rate] = []
    for valute in root.findall("Valute"):
        code = (valute.findtext("CharCode") or "").strip().upper()
        if code not in only or code == "RUB":
            continue
        nominal = _decimal(valute.findtext("Nominal"))
        value = _decimal(valute.findtext("Value"))
        if nominal <= 0 or value <= 0:
            raise CbrError(f"{code}: nominal {nominal}, value {value}")
        rates.append(Rate(currency=code, rub_per_unit=value / nominal, date=day, source="cbr"))
    if not rates:
        raise CbrError("no rates in the file")
    return day, rates


def cbr_store(content: bytes) -> tuple[dt.date, int]:
    """Store one XML_daily answer: each rate of its day is added or replaced (a rate entered by hand for
    that day and currency is left alone). Returns (day, rates written)."""
    from finance.models import ExchangeRate

    day, rates = cbr_parse(content)
    written = 0
    with transaction.atomic():
        manual = set(
            ExchangeRate.objects.filter(date=day, source=ExchangeRate.Source.MANUAL).values_list("currency", flat=True)
        )
        for rate in rates:
            if rate.currency in manual:
                continue
            ExchangeRate.objects.update_or_create(
                currency=rate.currency,
                date=day,
                defaults={"rub_per_unit": rate.rub_per_unit, "source": ExchangeRate.Source.CBR},
            )
            written += 1
    return day, written


def cbr_fetch(day: dt.date | None = None, *, timeout: float = 20.0) -> bytes:
    """The CBR's answer for `day` (today's rates when None). settings.CBR_DAILY_URL may point elsewhere (a
    mirror, or a file:// sample)."""
    url = getattr(settings, "CBR_DAILY_URL", CBR_DAILY_URL)
    if day is not None and url.startswith("http"):
        url = f"{url}?date_req={day:%d/%m/%Y}"
    with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 - a configured http(s) or file URL
        return bytes(answer.read(MAX_XML_BYTES + 1))
