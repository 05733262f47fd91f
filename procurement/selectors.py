"""Reading offers: for the engine (the offer book of plain `OfferInfo` per SKU, build availability) and for
the catalog API (a part's offers and when it can be had)."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from django.utils import timezone

from configurator.engine.availability import (
    BuildAvailability,
    OfferBook,
    OfferInfo,
    PartAvailability,
    Schedule,
    build_availability,
    part_availability,
)
from configurator.engine.types import BuildSpec
from procurement.conf import setting
from procurement.models import SupplierOffer


def offer_info(offer: SupplierOffer) -> OfferInfo:
    """One offer as the engine's plain data (live until its validity date, in the seller's calendar)."""
    return OfferInfo(
        sku=offer.sku,
        supplier=offer.supplier.slug,
        unit_price=offer.purchase_price,
        free_qty=offer.free_qty,
        lead_time_days=offer.lead_time_days,
        live=offer.valid_until >= timezone.localdate(),
    )


def offer_book() -> OfferBook:
    """Every offer as plain data, cheapest first per SKU (one query)."""
    book: dict[str, list[OfferInfo]] = defaultdict(list)
    rows = SupplierOffer.objects.select_related("supplier").order_by("sku", "purchase_price", "supplier__slug")
    for offer in rows:
        book[offer.sku].append(offer_info(offer))
    return dict(book)


def schedule() -> Schedule:
    return Schedule(
        stock_days=setting("STOCK_DAYS"), assembly_days=setting("ASSEMBLY_DAYS"), burn_in_days=setting("BURN_IN_DAYS")
    )


def availability_reader(*, today: dt.date | None = None) -> Callable[[BuildSpec], BuildAvailability]:
    """build → its availability, from the offers as they are now (read once for all the builds asked)."""
    book, plan, day = offer_book(), schedule(), today or timezone.localdate()

    def availability(build: BuildSpec) -> BuildAvailability:
        return build_availability(build, book, today=day, schedule=plan)

    return availability


@dataclass(frozen=True)
class PartOffers:
    """A catalog part's offers (live first, then cheapest; stale ones flagged by `is_stale`) and when one
    unit can be here (`days` from today, None: no live offer)."""

    offers: tuple[SupplierOffer, ...]
    availability: PartAvailability
    earliest_date: dt.date | None


def part_offers(*, kind: str, today: dt.date | None = None) -> dict[str, PartOffers]:
    """Every part of `kind` that has offers → its `PartOffers` (one query)."""
    day = today or timezone.localdate()
    grouped: dict[str, list[SupplierOffer]] = defaultdict(list)
    rows = SupplierOffer.objects.filter(kind=kind).select_related("supplier").order_by("sku", "purchase_price", "pk")
    for offer in rows:
        grouped[offer.sku].append(offer)
    stock_days = setting("STOCK_DAYS")
    found: dict[str, PartOffers] = {}
    for sku, offers in grouped.items():
        offers.sort(key=lambda offer: offer.valid_until < day)  # stable: live first, each cheapest first
        available = part_availability([offer_info(offer) for offer in offers], sku, 1, stock_days=stock_days)
        earliest = day + dt.timedelta(days=available.days) if available.days is not None else None
        found[sku] = PartOffers(offers=tuple(offers), availability=available, earliest_date=earliest)
    return found
