"""Offers are compared in roubles at the day's rate (procurement.selectors.offer_info, the one conversion point,
and procurement.planning.plan_line): never as plain numbers across currencies, never 1:1 without a rate."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
import time_machine
from django.utils import timezone

from configurator.engine.availability import OfferInfo
from finance.cbr import cbr_store
from finance.rates import RateBook, rate_book
from procurement.models import Supplier, SupplierOffer
from procurement.planning import NO_RATE, PRICE_ON_REQUEST, Excluded, plan_line
from procurement.selectors import offer_book, offer_info, offer_rates, price_in_rub, price_not_comparable

GPU = "rtx-pro-6000-blackwell"
SAMPLE = Path(__file__).resolve().parents[2] / "finance" / "fixtures" / "cbr_daily_sample.xml"
RATES_DAY = dt.date(2026, 12, 3)  # the CBR sample: USD 78.2235, EUR 91.0584; no GBP


def _offer(slug: str, price: str | None, currency: str, *, free: int = 5, lead: int = 10) -> OfferInfo:
    rates = _sample_book()
    amount = Decimal(price) if price is not None else None
    return OfferInfo(
        sku=GPU, supplier=slug, unit_price=amount, free_qty=free, lead_time_days=lead, currency=currency,
        unit_price_rub=price_in_rub(amount, currency, rates),
    )  # fmt: skip


def _sample_book() -> RateBook:
    from finance.rates import Rate

    usd = Rate("USD", Decimal("78.2235"), RATES_DAY, "cbr")
    return RateBook(day=RATES_DAY, rates={"USD": usd})


def test_the_plan_takes_the_rouble_offer_in_stock_over_dollars_that_cost_more_in_roubles() -> None:
    """12,000 USD × 78.2235 = 938,682.00 RUB: dearer than 799,999.50 RUB, though 12,000 < 799,999.50."""
    offers = [_offer("usd", "12000.00", "USD"), _offer("rub", "799999.50", "RUB")]
    assert offers[0].unit_price_rub == Decimal("938682.00")
    found = plan_line(GPU, 2, offers, allowed_days=10, stock_days=2)
    assert [(a.supplier, a.qty, a.unit_price, a.currency, a.unit_price_rub) for a in found.allocations] == [
        ("rub", 2, Decimal("799999.50"), "RUB", Decimal("799999.50"))
    ]
    assert (found.late, found.short_qty, found.excluded) == (False, 0, ())


def test_the_plan_takes_dollars_when_they_cost_less_in_roubles_and_keeps_their_currency() -> None:
    """9,000 USD × 78.2235 = 704,011.50 RUB < 799,999.50 RUB."""
    offers = [_offer("rub", "799999.50", "RUB"), _offer("usd", "9000.00", "USD", free=1)]
    found = plan_line(GPU, 2, offers, allowed_days=10, stock_days=2)
    assert [
        (a.supplier, a.qty, a.unit_price, a.currency, a.unit_price_rub, a.from_stock) for a in found.allocations
    ] == [
        ("usd", 1, Decimal("9000.00"), "USD", Decimal("704011.50"), True),  # its one unit in stock first
        ("usd", 1, Decimal("9000.00"), "USD", Decimal("704011.50"), False),  # then its back order, in time
    ]


def test_an_offer_without_a_rate_or_a_price_is_never_compared_and_says_why() -> None:
    """100 GBP would be the cheapest read 1:1; there is no GBP rate, so it is left out, and so is an offer
    priced on request. With nothing else the line is short, not bought at a guess."""
    offers = [_offer("gbp", "100.00", "GBP"), _offer("ask", None, "RUB"), _offer("rub", "799999.50", "RUB")]
    assert (offers[0].unit_price_rub, offers[1].unit_price_rub) == (None, None)
    found = plan_line(GPU, 1, offers, allowed_days=10, stock_days=2)
    assert [a.supplier for a in found.allocations] == ["rub"]
    assert found.excluded == (Excluded("gbp", "GBP", NO_RATE), Excluded("ask", "RUB", PRICE_ON_REQUEST))
    alone = plan_line(GPU, 3, offers[:2], allowed_days=10, stock_days=2)
    assert (alone.allocations, alone.short_qty, alone.late) == ((), 3, False)


def test_price_in_rub_never_reads_an_unknown_or_unrated_currency_as_roubles() -> None:
    rates = _sample_book()
    assert price_in_rub(Decimal("10.00"), "RUB", rates) == Decimal("10.00")
    assert price_in_rub(Decimal("10.00"), "RUR", rates) == Decimal("10.00")  # the pre-1998 code is RUB
    assert price_in_rub(Decimal("10.00"), "EUR", rates) is None  # no EUR in this book
    assert price_in_rub(Decimal("10.00"), "XYZ", rates) is None  # names no currency
    assert price_in_rub(None, "RUB", rates) is None
    assert price_not_comparable(Decimal(1), "EUR", rates) == NO_RATE
    assert price_not_comparable(None, "USD", rates) == PRICE_ON_REQUEST
    assert price_not_comparable(Decimal(1), "USD", rates) == ""


@pytest.mark.django_db
@time_machine.travel(dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC))
def test_the_offer_book_carries_roubles_at_the_stored_rate_cheapest_in_roubles_first(catalog: None) -> None:
    cbr_store(SAMPLE.read_bytes())
    valid = timezone.localdate() + dt.timedelta(days=30)
    for slug, price, currency in (("u", "12000.00", "USD"), ("r", "799999.50", "RUB"), ("g", "100.00", "GBP")):
        supplier = Supplier.objects.create(slug=slug, name=slug.upper(), currency=currency)
        SupplierOffer.objects.create(
            supplier=supplier, sku=GPU, kind="gpus", purchase_price=Decimal(price), currency=currency, stock_qty=3,
            lead_time_days=5, valid_until=valid,
        )  # fmt: skip
    rates = offer_rates()
    assert rates.can_convert("USD") and not rates.can_convert("GBP")
    book = offer_book(rates=rate_book(timezone.localdate()))
    assert [(o.supplier, o.unit_price, o.currency, o.unit_price_rub) for o in book[GPU]] == [
        ("r", Decimal("799999.50"), "RUB", Decimal("799999.50")),
        ("u", Decimal("12000.00"), "USD", Decimal("938682.00")),
        ("g", Decimal("100.00"), "GBP", None),  # no rate: last, and never compared
    ]
    assert offer_book() == book  # the rates of today by default, read once for the book
    model = SupplierOffer.objects.select_related("supplier").get(supplier__slug="u")
    assert offer_info(model, rates=rates) == book[GPU][1]
