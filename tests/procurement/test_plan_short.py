"""Issue 38 item 3: a plan that cannot cover a line in time says so. Before: 8 DIMMs with 1 in stock in time
and the rest on back order past the promise: the plan took the one, dropped 7 silently, "ready", not late."""

from __future__ import annotations

from decimal import Decimal

from configurator.engine.availability import OfferInfo
from procurement.planning import plan_line

DIMM = "ddr5-rdimm-64gb"


def _offer(supplier: str, price: str, *, free: int, lead: int, live: bool = True) -> OfferInfo:
    return OfferInfo(
        sku=DIMM, supplier=supplier, unit_price=Decimal(price), free_qty=free, lead_time_days=lead, live=live,
        currency="RUB", unit_price_rub=Decimal(price),
    )  # fmt: skip


def test_units_beyond_the_stock_in_time_come_on_back_order_and_the_line_is_late() -> None:
    found = plan_line(DIMM, 8, [_offer("a", "30000", free=1, lead=20)], allowed_days=10, stock_days=2)
    assert [(a.supplier, a.qty, a.from_stock, a.days) for a in found.allocations] == [
        ("a", 1, True, 2),
        ("a", 7, False, 20),
    ]
    assert (found.late, found.short_qty, found.days) == (True, 0, 20)  # the promise moves to 20 working days


def test_the_quickest_later_source_covers_the_rest_cheapest_among_equals() -> None:
    offers = [
        _offer("a", "30000", free=2, lead=30),
        _offer("b", "35000", free=0, lead=15),
        _offer("c", "31000", free=0, lead=15),
    ]
    found = plan_line(DIMM, 8, offers, allowed_days=10, stock_days=2)
    assert [(a.supplier, a.qty, a.days) for a in found.allocations] == [("a", 2, 2), ("c", 6, 15)]
    assert found.late and found.short_qty == 0


def test_covered_in_time_is_not_late() -> None:
    found = plan_line(DIMM, 8, [_offer("a", "30000", free=8, lead=20)], allowed_days=10, stock_days=2)
    assert (found.late, found.short_qty, [a.qty for a in found.allocations]) == (False, 0, [8])


def test_no_live_offer_is_short_by_the_whole_quantity() -> None:
    found = plan_line(DIMM, 8, [_offer("a", "30000", free=8, lead=5, live=False)], allowed_days=10, stock_days=2)
    assert (found.allocations, found.late, found.short_qty) == ((), False, 8)
