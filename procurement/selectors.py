"""Reading offers for the engine: the offer book (plain `OfferInfo` per SKU) and build availability."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable

from django.utils import timezone

from configurator.engine.availability import BuildAvailability, OfferBook, OfferInfo, Schedule, build_availability
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
