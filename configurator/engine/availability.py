"""When parts can be had and when a build can ship, from suppliers' offers as plain data.

Pure: offers in (`OfferInfo`, per SKU), availability out. A part's quantity is *in stock* when the free
stock of its live offers covers it; it then arrives in `stock_days` (a distributor's warehouse to ours).
Otherwise the quickest live offer's lead time applies (the supplier orders it). A part without a live
offer has no date, and neither has a build that needs it. A build ships after its slowest part plus the
assembly and the burn-in. Every one of those days is a working day on the Russian production calendar
(`workdays.py`: distributors quote lead times in working days, and our stock, assembly and burn-in days are
working days too; the settings say how many): the ship date is `add_working_days(today, lead)`.

Offers carry their price in their own currency and, for comparing, in roubles at the day's rate
(`unit_price_rub`, set by the one conversion point, `procurement.selectors.offer_info`). Availability reads
neither: an offer whose price is on request or whose currency has no rate still says when a part can be had.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from configurator.engine.builds import PART_KINDS
from configurator.engine.frozen import direct_init
from configurator.engine.types import BuildSpec
from configurator.engine.workdays import add_working_days


@direct_init
@dataclass(frozen=True, slots=True)
class OfferInfo:
    sku: str
    supplier: str
    unit_price: Decimal | None  # in `currency`; None: price on request
    free_qty: int  # stock not reserved by orders
    lead_time_days: int  # working days when the supplier must order the part
    live: bool = True  # within its validity
    currency: str = "RUB"  # of `unit_price`
    # the price compared with other offers: roubles at the day's rate; None: not comparable (price on request,
    # or no rate for `currency`), so never chosen for its price; never `unit_price` taken 1:1
    unit_price_rub: Decimal | None = None


@direct_init
@dataclass(frozen=True, slots=True)
class PartAvailability:
    sku: str
    qty: int
    in_stock_qty: int  # free units across the live offers
    days: int | None  # working days until `qty` units can be here; None: no live offer

    @property
    def in_stock(self) -> bool:
        return self.in_stock_qty >= self.qty


@direct_init
@dataclass(frozen=True, slots=True)
class BuildAvailability:
    parts: tuple[PartAvailability, ...]
    lead_time_days: int | None  # working days from today to the ship date; None when a part has no live offer
    ship_date: dt.date | None  # `lead_time_days` working days after today (Russian production calendar)

    @property
    def in_stock(self) -> bool:
        return all(part.in_stock for part in self.parts)

    @property
    def without_offer(self) -> tuple[str, ...]:
        return tuple(part.sku for part in self.parts if part.days is None)


@direct_init
@dataclass(frozen=True, slots=True)
class Schedule:
    """Working days a build waits besides its parts (settings PROCUREMENT_STOCK_DAYS, _ASSEMBLY_DAYS,
    _BURN_IN_DAYS)."""

    stock_days: int = 2
    assembly_days: int = 3
    burn_in_days: int = 2


OfferBook = Mapping[str, Sequence[OfferInfo]]


def part_availability(offers: Sequence[OfferInfo], sku: str, qty: int, *, stock_days: int) -> PartAvailability:
    live = [offer for offer in offers if offer.live]
    in_stock = sum(offer.free_qty for offer in live)
    if not live:
        return PartAvailability(sku=sku, qty=qty, in_stock_qty=0, days=None)
    days = stock_days if in_stock >= qty else max(stock_days, min(offer.lead_time_days for offer in live))
    return PartAvailability(sku=sku, qty=qty, in_stock_qty=in_stock, days=days)


def build_quantities(build: BuildSpec) -> dict[str, int]:
    """Units per SKU of a build, the chassis included."""
    wanted = {build.chassis.sku: 1}
    for kind in PART_KINDS:
        for line in getattr(build, kind):
            sku = line.spec.sku
            wanted[sku] = wanted.get(sku, 0) + line.qty
    return wanted


#: (sku, qty) → that part's availability, for one offer book and schedule (a reader's, see `build_availability`)
PartMemo = dict[tuple[str, int], PartAvailability]


def build_availability(
    build: BuildSpec, offers: OfferBook, *, today: dt.date, schedule: Schedule, memo: PartMemo | None = None
) -> BuildAvailability:
    """`memo` keeps each part's availability for the next builds read against the same offers and schedule
    (a recommendation reads dozens of builds that share most of their parts)."""
    return quantities_availability(build_quantities(build), offers, today=today, schedule=schedule, memo=memo)


def quantities_availability(
    quantities: Mapping[str, int],
    offers: OfferBook,
    *,
    today: dt.date,
    schedule: Schedule,
    memo: PartMemo | None = None,
) -> BuildAvailability:
    """As `build_availability`, for units per SKU (an order's lines)."""
    known = {} if memo is None else memo
    parts = []
    for sku, qty in sorted(quantities.items()):
        part = known.get((sku, qty))
        if part is None:
            part = known[(sku, qty)] = part_availability(offers.get(sku, ()), sku, qty, stock_days=schedule.stock_days)
        parts.append(part)
    return _shipping(tuple(parts), today=today, schedule=schedule)


def ships_soonest(shipping: BuildAvailability) -> bool:
    """Whether no build read against the same offers and schedule can ship before this one: its slowest part
    takes the working days of one of its parts in stock (`stock_days`), the fewest `part_availability` gives
    any part, so its lead time is the schedule's least (stock + assembly + burn-in). False when that is not
    known (no part in stock, or a part without a date)."""
    if shipping.lead_time_days is None:
        return False
    stocked = [part.days for part in shipping.parts if part.in_stock and part.days is not None]
    return bool(stocked) and max(part.days or 0 for part in shipping.parts) <= min(stocked)


def _shipping(parts: tuple[PartAvailability, ...], *, today: dt.date, schedule: Schedule) -> BuildAvailability:
    if any(part.days is None for part in parts):
        return BuildAvailability(parts=parts, lead_time_days=None, ship_date=None)
    slowest = max(part.days or 0 for part in parts)
    lead = slowest + schedule.assembly_days + schedule.burn_in_days
    return BuildAvailability(parts=parts, lead_time_days=lead, ship_date=add_working_days(today, lead))
