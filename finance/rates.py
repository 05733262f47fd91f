"""Conversion to roubles at a dated rate, as plain data (`RateBook`, no Django) and the service that
fills a book from the table.

A conversion says which rate it used and of which day: a rate is the newest one on or before the day
asked for (the CBR sets no rate for weekends and holidays: Friday's stays in force). A currency without
any rate on or before that day cannot be converted: `NoRate`, never a silent 1:1.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from configurator.engine.builds import money
from finance.currency import BASE, UnknownCurrency, currency_code


class NoRate(LookupError):
    def __init__(self, currency: str, day: dt.date) -> None:
        super().__init__(f"no exchange rate for {currency} on or before {day:%d.%m.%Y}")
        self.currency = currency
        self.day = day


@dataclass(frozen=True, slots=True)
class Rate:
    currency: str
    rub_per_unit: Decimal
    date: dt.date  # the day the rate was set for (may be before the day asked for)
    source: str = "manual"


@dataclass(frozen=True, slots=True)
class Converted:
    amount: Decimal  # in the original currency
    currency: str
    rub: Decimal  # rounded half-up to kopecks
    rate: Rate | None  # None for roubles


@dataclass(frozen=True, slots=True)
class RateBook:
    """The rates in force on `day`, per currency; roubles need none."""

    day: dt.date
    rates: Mapping[str, Rate]

    def rate(self, currency: str) -> Rate | None:
        code = currency_code(currency)
        if code == BASE:
            return None
        found = self.rates.get(code)
        if found is None:
            raise NoRate(code, self.day)
        return found

    def convert(self, amount: Decimal, currency: str) -> Converted:
        code = currency_code(currency)
        rate = self.rate(code)
        rub = amount if rate is None else amount * rate.rub_per_unit
        return Converted(amount=amount, currency=code, rub=money(rub), rate=rate)

    def rub(self, amount: Decimal, currency: str) -> Decimal:
        return self.convert(amount, currency).rub

    def can_convert(self, currency: str) -> bool:
        code = currency_code(currency)
        return code == BASE or code in self.rates

    def rub_if_known(self, amount: Decimal | None, currency: str) -> Decimal | None:
        """`rub`, or None where it cannot be said: no amount (a price on request), a text that names no
        currency, no rate for it. Never 1:1."""
        try:
            return self.rub(amount, currency) if amount is not None else None
        except (NoRate, UnknownCurrency):
            return None

    def from_rub(self, rub: Decimal, currency: str) -> Decimal | None:
        """Roubles in `currency` at its rate, to its cent (None: no rate for it)."""
        try:
            rate = self.rate(currency)
        except NoRate:
            return None
        return rub if rate is None else money(rub / rate.rub_per_unit)


def rate_book(day: dt.date, currencies: Iterable[str] | None = None) -> RateBook:
    """The newest rate on or before `day` of each currency (all the table has, or those named)."""
    from finance.models import ExchangeRate

    query = ExchangeRate.objects.filter(date__lte=day)
    if currencies is not None:
        query = query.filter(currency__in={currency_code(c) for c in currencies} - {BASE})
    rates: dict[str, Rate] = {}
    for row in query.order_by("currency", "-date").values("currency", "rub_per_unit", "date", "source"):
        rates.setdefault(row["currency"], Rate(row["currency"], row["rub_per_unit"], row["date"], row["source"]))
    return RateBook(day=day, rates=rates)


def to_rub(amount: Decimal, currency: str, day: dt.date) -> Converted:
    """One amount in roubles at the rate in force on `day` (NoRate when there is none)."""
    return rate_book(day, [currency]).convert(amount, currency)
