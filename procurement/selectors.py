"""Reading offers: for the engine (the offer book of plain `OfferInfo` per SKU, build availability) and for
the catalog API (a part's offers and when it can be had).

Money: `offer_info` (and `offer_book`, which makes the same objects from plain values) is the one place an
offer's price becomes comparable. It keeps the price in the offer's currency and adds its roubles at the
day's rate (`finance.rates.RateBook`, made once per book or plan by the caller, never per offer). An offer
priced on request or in a currency without a stored rate gets no roubles: it is never chosen for its price
(`price_not_comparable` says why), and never read 1:1. Days are working days (engine/workdays.py).
"""

from __future__ import annotations

import datetime as dt
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import timezone

from configurator.engine.availability import (
    BuildAvailability,
    OfferBook,
    OfferInfo,
    PartAvailability,
    PartMemo,
    Schedule,
    build_availability,
    part_availability,
)
from configurator.engine.types import BuildSpec
from configurator.engine.workdays import add_working_days
from finance.currency import BASE, UnknownCurrency, currency_code
from finance.rates import RateBook, rate_book
from procurement.conf import setting
from procurement.models import SupplierOffer
from procurement.planning import NO_RATE, PRICE_ON_REQUEST


def price_in_rub(amount: Decimal | None, currency: str, rates: RateBook) -> Decimal | None:
    """`amount` of `currency` in roubles at the rate `rates` holds (kopecks, half up); None when there is no
    amount (price on request) or no rate for the currency (or the text names no currency): never 1:1."""
    return rates.rub_if_known(amount, currency)


def price_not_comparable(amount: Decimal | None, currency: str, rates: RateBook) -> str:
    """Why an offer's price has no roubles: PRICE_ON_REQUEST, NO_RATE, or "" when it has."""
    if amount is None:
        return PRICE_ON_REQUEST
    return "" if price_in_rub(amount, currency, rates) is not None else NO_RATE


def offer_rates(*, day: dt.date | None = None, currencies: Iterable[str] | None = None) -> RateBook:
    """The exchange rates offers are compared at: those in force on `day` (the seller's today), of
    `currencies` (None: of every currency the offers are in; roubles need none)."""
    if currencies is None:
        currencies = SupplierOffer.objects.exclude(currency=BASE).values_list("currency", flat=True).distinct()
    wanted = {code for code in map(_iso_code, currencies) if code} - {BASE}
    day = day or seller_today()
    return rate_book(day, wanted) if wanted else RateBook(day=day, rates={})


def _iso_code(text: str) -> str:
    """The ISO code of a currency text, "" for a text that names none (its offers have no roubles)."""
    try:
        return currency_code(text)
    except UnknownCurrency:
        return ""


def offer_info(offer: SupplierOffer, *, rates: RateBook) -> OfferInfo:
    """One offer as the engine's plain data (live until its validity date, in the seller's calendar), its price
    in its currency and in roubles at `rates` (None: not comparable, see `price_in_rub`)."""
    price: Decimal | None = offer.purchase_price
    return OfferInfo(
        sku=offer.sku,
        supplier=offer.supplier.slug,
        unit_price=price,
        free_qty=offer.free_qty,
        lead_time_days=offer.lead_time_days,
        live=offer.valid_until >= timezone.localdate(),
        currency=offer.currency,
        unit_price_rub=price_in_rub(price, offer.currency, rates),
    )


def _cheapest_first(offer: OfferInfo) -> tuple[bool, Decimal, str]:
    return (offer.unit_price_rub is None, offer.unit_price_rub or Decimal(0), offer.supplier)


def offer_book(*, rates: RateBook | None = None) -> OfferBook:
    """Every offer as plain data, cheapest in roubles first per SKU (offers without roubles last), as
    `offer_info` makes them (one query of plain values, no model instances; `rates`: those of today when not
    given, read once for the whole book)."""
    book: dict[str, list[OfferInfo]] = defaultdict(list)
    today = timezone.localdate()
    fields = ("purchase_price", "currency", "stock_qty", "reserved_qty", "lead_time_days", "valid_until")
    rows = list(SupplierOffer.objects.order_by("sku", "supplier__slug").values_list("sku", "supplier__slug", *fields))
    if rates is None:
        rates = offer_rates(day=today, currencies={row[3] for row in rows})
    for sku, supplier, price, currency, stock, reserved, lead, valid_until in rows:
        book[sku].append(
            OfferInfo(
                sku=sku,
                supplier=supplier,
                unit_price=price,
                free_qty=stock - reserved,  # SupplierOffer.free_qty
                lead_time_days=lead,
                live=valid_until >= today,
                currency=currency,
                unit_price_rub=price_in_rub(price, currency, rates),
            )
        )
    for offers in book.values():
        offers.sort(key=_cheapest_first)
    return dict(book)


#: The seller's day as last worked out: (from, until) in time.time() seconds, the time zone, the day.
_day: tuple[float, float, dt.tzinfo, dt.date] | None = None


def seller_today() -> dt.date:
    """`timezone.localdate()` in the seller's time zone (settings.TIME_ZONE; the project activates no other),
    worked out again only when the clock leaves the day last worked out: the request path asks it twice
    per answer, and `localdate()` costs a few microseconds each time (the active time zone's lookup)."""
    global _day
    now, zone = time.time(), timezone.get_default_timezone()
    known = _day
    if known is not None and known[0] <= now < known[1] and known[2] is zone:
        return known[3]
    local = dt.datetime.fromtimestamp(now, zone)
    day = local.date()
    start = dt.datetime.combine(day, dt.time(), zone).timestamp()
    end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), zone).timestamp()
    _day = (start, end, zone, day)
    return day


_recent: tuple[float, dt.date, OfferBook] | None = None  # (time.monotonic() read, the day, the book)


def offer_book_recent() -> OfferBook:
    """The offer book as read at most CATALOG_SNAPSHOT_TTL_S seconds ago by this process (0 = on every call),
    as the catalog snapshot is: an answer's ship date may lag an offer import by that long, and validate
    and recommendations do not pay a query of every offer per request. Callers must not change it."""
    global _recent
    ttl = float(getattr(settings, "CATALOG_SNAPSHOT_TTL_S", 0.0))
    now, day, last = time.monotonic(), seller_today(), _recent
    if ttl > 0 and last is not None and now - last[0] < ttl and last[1] == day:
        return last[2]
    book = offer_book()
    if last is not None and last[1] == day and book == last[2]:
        book = last[2]  # unchanged: the same object, so the reader made from it (and what it knows) stands
    _recent = (now, day, book)
    return book


_schedule: Schedule | None = None


def schedule() -> Schedule:
    """The working days a build waits besides its parts, from the PROCUREMENT_* settings; made once, and again after
    one of them changes (Django's setting_changed: override_settings in tests; never while serving)."""
    global _schedule
    made = _schedule
    if made is None:
        made = _schedule = Schedule(
            stock_days=setting("STOCK_DAYS"),
            assembly_days=setting("ASSEMBLY_DAYS"),
            burn_in_days=setting("BURN_IN_DAYS"),
        )
    return made


@receiver(setting_changed)
def _forget_schedule(*, setting: str, **kwargs: Any) -> None:
    global _schedule
    if setting.startswith("PROCUREMENT_"):
        _schedule = None


#: The last reader: (its offer book, day, schedule, the reader). Within CATALOG_SNAPSHOT_TTL_S the offer
#: book is the same object, and so is the reader, whose parts' availability carries over to the next request.
_reader: tuple[OfferBook, dt.date, Schedule, Callable[[BuildSpec], BuildAvailability]] | None = None
READER_MEMO_MOST = 4096  # (sku, qty) entries a reader keeps; quantities are the caller's, so a bound


def availability_reader(*, today: dt.date | None = None) -> Callable[[BuildSpec], BuildAvailability]:
    """build → its availability, from the offers as they are now (read once for all the builds asked; the
    same reader while the offer book is — see `offer_book_recent`)."""
    global _reader
    book, plan, day = offer_book_recent(), schedule(), today or seller_today()
    last = _reader
    if last is not None and last[0] is book and last[1] == day and (last[2] is plan or last[2] == plan):
        return last[3]
    memo: PartMemo = {}  # each part once per reader: a recommendation reads dozens of builds sharing parts

    def availability(build: BuildSpec) -> BuildAvailability:
        if len(memo) > READER_MEMO_MOST:
            memo.clear()
        return build_availability(build, book, today=day, schedule=plan, memo=memo)

    _reader = (book, day, plan, availability)
    return availability


@dataclass(frozen=True)
class PartOffers:
    """A catalog part's offers (live first, then cheapest in roubles; stale ones flagged by `is_stale`) and when
    one unit can be here (`days`: working days from today, None: no live offer)."""

    offers: tuple[SupplierOffer, ...]
    availability: PartAvailability
    earliest_date: dt.date | None


def part_offers(*, kind: str, today: dt.date | None = None) -> dict[str, PartOffers]:
    """Every part of `kind` that has offers → its `PartOffers` (one query, and one of the rates)."""
    day = today or timezone.localdate()
    grouped: dict[str, list[tuple[SupplierOffer, OfferInfo]]] = defaultdict(list)
    rows = list(SupplierOffer.objects.filter(kind=kind).select_related("supplier").order_by("sku", "pk"))
    rates = offer_rates(day=day, currencies={offer.currency for offer in rows})
    for offer in rows:
        grouped[offer.sku].append((offer, offer_info(offer, rates=rates)))
    stock_days = setting("STOCK_DAYS")
    found: dict[str, PartOffers] = {}
    for sku, pairs in grouped.items():
        pairs.sort(key=lambda pair: (pair[0].valid_until < day, *_cheapest_first(pair[1])))  # live first
        offers = [offer for offer, _ in pairs]
        available = part_availability([info for _, info in pairs], sku, 1, stock_days=stock_days)
        earliest = add_working_days(day, available.days) if available.days is not None else None
        found[sku] = PartOffers(offers=tuple(offers), availability=available, earliest_date=earliest)
    return found
