"""The procurement plan of one order line, as pure code: which offers to buy from.

For a line of `qty` units that must be here within `allowed_days` working days, the sources are each live
offer's free stock (arrives in `stock_days`) and its back order (any quantity, arrives in its lead time;
both in working days). Sources are compared by their price in roubles at the day's rate
(`OfferInfo.unit_price_rub`, procurement.selectors.offer_info): an offer without one (price on request, or
no rate for its currency) is left out and said so in `LinePlan.excluded`, never compared as if its price
were roubles. Sources that arrive in time are taken cheapest first (at equal price stock before back order,
then the supplier's name), each up to what it has, so a line splits across suppliers when the cheapest has
too few units. The units the sources in time cannot cover come from the quickest of the others (cheapest
among equals) and the line is late (issue 38: a plan took the one DIMM in stock in time and silently dropped
the other 7, the plan "ready" and the line not late); when no source arrives in time all units come so.
When no live offer can be priced, nothing is allocated and the line is short by its quantity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from configurator.engine.availability import OfferInfo

UNLIMITED = 10**9

#: Why a live offer was left out of the price choice.
PRICE_ON_REQUEST = "price_on_request"
NO_RATE = "no_rate"


@dataclass(frozen=True, slots=True)
class Allocation:
    supplier: str
    qty: int
    unit_price: Decimal  # in `currency`, as the offer says
    currency: str
    unit_price_rub: Decimal  # what it was compared by: roubles at the day's rate
    from_stock: bool  # reserved from the supplier's free stock
    days: int  # working days until the units are here


@dataclass(frozen=True, slots=True)
class Excluded:
    """A live offer the plan could not compare: `reason` is PRICE_ON_REQUEST or NO_RATE (for `currency`)."""

    supplier: str
    currency: str
    reason: str


@dataclass(frozen=True, slots=True)
class LinePlan:
    sku: str
    qty: int
    allocations: tuple[Allocation, ...]
    late: bool  # some units (or all) cannot arrive within the allowed days
    excluded: tuple[Excluded, ...] = ()

    @property
    def days(self) -> int:
        return max((a.days for a in self.allocations), default=0)

    @property
    def short_qty(self) -> int:
        """Units no offer covers (the whole line when no live offer has a price in roubles)."""
        return self.qty - sum(a.qty for a in self.allocations)


def plan_line(sku: str, qty: int, offers: Sequence[OfferInfo], *, allowed_days: int, stock_days: int) -> LinePlan:
    """The cheapest allocation of `qty` units in time (see the module's docstring)."""
    # price in roubles, back order?, supplier, capacity, days; the price and currency of the offer
    sources: list[tuple[Decimal, int, str, int, int, Decimal, str]] = []
    excluded: list[Excluded] = []
    for offer in offers:
        if not offer.live:
            continue
        if offer.unit_price is None or offer.unit_price_rub is None:
            reason = PRICE_ON_REQUEST if offer.unit_price is None else NO_RATE
            excluded.append(Excluded(offer.supplier, offer.currency, reason))
            continue
        rub, own = offer.unit_price_rub, (offer.unit_price, offer.currency)
        if offer.free_qty > 0:
            sources.append((rub, 0, offer.supplier, offer.free_qty, stock_days, *own))
        sources.append((rub, 1, offer.supplier, UNLIMITED, max(stock_days, offer.lead_time_days), *own))
    in_time = sorted((s for s in sources if s[4] <= allowed_days), key=lambda s: s[:5])
    later = sorted((s for s in sources if s[4] > allowed_days), key=lambda s: (s[4], s[0], s[1], s[2]))
    ordered = in_time + later
    allocations: list[Allocation] = []
    remaining = qty
    for rub, back_order, supplier, capacity, days, unit_price, currency in ordered:
        if remaining == 0:
            break
        take = min(remaining, capacity)
        allocations.append(
            Allocation(
                supplier=supplier, qty=take, unit_price=unit_price, currency=currency, unit_price_rub=rub,
                from_stock=not back_order, days=days,
            )
        )  # fmt: skip
        remaining -= take
    late = any(allocation.days > allowed_days for allocation in allocations)
    return LinePlan(sku=sku, qty=qty, allocations=tuple(allocations), late=late, excluded=tuple(excluded))
