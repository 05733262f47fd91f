"""The procurement plan of one order line, as pure code: which offers to buy from.

For a line of `qty` units that must be here within `allowed_days`, the sources are each live offer's
free stock (arrives in `stock_days`) and its back order (any quantity, arrives in its lead time). Sources
that arrive in time are taken cheapest first (at equal price stock before back order, then the
supplier's name), each up to what it has, so a line splits across suppliers when the cheapest has too
few units. When no source arrives in time the quickest are taken (cheapest among equals) and the line
is late. An offer without a price (on request) is never a source: a purchase needs its price (it still
counts for the part's availability, configurator/engine/availability.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from configurator.engine.availability import OfferInfo

UNLIMITED = 10**9


@dataclass(frozen=True, slots=True)
class Allocation:
    supplier: str
    qty: int
    unit_price: Decimal
    from_stock: bool  # reserved from the supplier's free stock
    days: int


@dataclass(frozen=True, slots=True)
class LinePlan:
    sku: str
    allocations: tuple[Allocation, ...]
    late: bool  # nothing could arrive within the allowed days

    @property
    def days(self) -> int:
        return max((a.days for a in self.allocations), default=0)


def plan_line(
    sku: str, qty: int, offers: Sequence[OfferInfo], *, allowed_days: int, stock_days: int
) -> LinePlan | None:
    """None when the part has no live offer with a price at all."""
    sources: list[tuple[Decimal, int, str, int, int]] = []  # price, back order?, supplier, capacity, days
    for offer in offers:
        if not offer.live or offer.unit_price is None:
            continue
        if offer.free_qty > 0:
            sources.append((offer.unit_price, 0, offer.supplier, offer.free_qty, stock_days))
        sources.append((offer.unit_price, 1, offer.supplier, UNLIMITED, max(stock_days, offer.lead_time_days)))
    if not sources:
        return None
    in_time = sorted(source for source in sources if source[4] <= allowed_days)
    late = not in_time
    ordered = in_time or sorted(sources, key=lambda s: (s[4], s[0], s[1], s[2]))
    allocations: list[Allocation] = []
    remaining = qty
    for price, back_order, supplier, capacity, days in ordered:
        if remaining == 0:
            break
        take = min(remaining, capacity)
        allocations.append(Allocation(supplier, take, price, from_stock=not back_order, days=days))
        remaining -= take
    return LinePlan(sku=sku, allocations=tuple(allocations), late=late)
