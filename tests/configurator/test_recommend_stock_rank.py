"""A stream's heap of priced builds: between equal prices the build whose parts are all in stock comes
first, and a build's stock is read only when it ties on price with another (search._StockRank)."""

from __future__ import annotations

from decimal import Decimal
from heapq import heappop, heappush
from typing import Any

from configurator.engine.recommend.search import _StockRank


class Judge:
    def __init__(self, out_of_stock: set[str]) -> None:
        self.out_of_stock = out_of_stock
        self.asked: list[Any] = []

    def in_stock_rank(self, build: Any) -> int:
        self.asked.append(build)
        return int(build in self.out_of_stock)


def test_ties_on_price_go_to_the_build_in_stock_and_only_ties_read_stock() -> None:
    judge = Judge(out_of_stock={"b", "d"})
    heap: list[tuple[Any, ...]] = []
    entries = [("a", "500"), ("b", "300"), ("c", "300"), ("d", "100"), ("e", "700"), ("f", "300")]
    for serial, (build, price) in enumerate(entries):
        heappush(heap, (Decimal(price), _StockRank(judge, build), serial, build))  # type: ignore[arg-type]
    heappush(heap, (Decimal("300"), 0, 99, "fixed"))  # a repaired build enters with rank 0
    order = [heappop(heap)[-1] for _ in range(len(heap))]
    # at 300: in stock first (by serial), the one out of stock ("b", serial 1) after them
    assert order == ["d", "c", "f", "fixed", "b", "a", "e"]
    assert set(judge.asked) <= {"b", "c", "f"}  # the builds of a unique price were never read
