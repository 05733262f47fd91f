"""What applying a read price list would change, against the supplier's current offers. No database.

- `new`: SKUs the supplier had no offer of;
- `moved`: prices that move beyond PROCUREMENT_PRICE_MOVE_THRESHOLD_PERCENT (reported);
- `held`: prices that move beyond PROCUREMENT_PRICE_HOLD_PERCENT (default ±30 %), or change currency
  without a rate to compare them: applied only when a person confirms them;
- `changed`: other changes (a smaller move, stock, lead time, validity, a price withdrawn or given);
- `gone`: a **full** list's retirements: the supplier's live offers the list does not name, except those
  holding reservations (`gone_reserved`, left alone); applied only when a person confirms them. A partial
  list retires nothing;
- `without_price`: SKUs listed with the price on request;
- `unchanged`: how many rows change nothing.

Prices in different currencies are compared in roubles at the day's rates.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

from finance.rates import NoRate, RateBook
from procurement.pricelist.read import OfferRow


@dataclass
class Diff:
    new: list[str] = field(default_factory=list)
    moved: list[dict[str, str]] = field(default_factory=list)
    held: list[dict[str, str]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    gone_reserved: list[str] = field(default_factory=list)
    without_price: list[str] = field(default_factory=list)
    unchanged: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _comparable(
    old: Decimal, old_currency: str, new: Decimal, new_currency: str, rates: RateBook
) -> tuple[Decimal, Decimal] | None:
    if old_currency == new_currency:
        return old, new
    try:
        return rates.rub(old, old_currency), rates.rub(new, new_currency)
    except NoRate:
        return None


def _move(row: OfferRow, offer: Any, rates: RateBook) -> dict[str, str] | None:
    """The price move of `row` against `offer` (None when both prices are the same or either is missing)."""
    old, new = offer.purchase_price, row.purchase_price
    if old is None or new is None or (old == new and offer.currency == row.currency):
        return None
    pair = _comparable(Decimal(old), offer.currency, new, row.currency, rates)
    percent = "" if pair is None else f"{(pair[1] - pair[0]) / pair[0] * 100:+.1f}"
    return {"sku": row.sku, "old": str(old), "new": str(new), "currency": row.currency,
            "old_currency": offer.currency, "percent": percent}  # fmt: skip


def price_list_diff(
    rows: Sequence[OfferRow],
    current: Mapping[str, Any],
    *,
    full: bool,
    threshold_percent: Decimal,
    hold_percent: Decimal,
    rates: RateBook,
    today: dt.date,
) -> Diff:
    """What applying `rows` would change; `current` maps SKU → the supplier's offer (model or alike)."""
    diff = Diff()
    for row in rows:
        if row.purchase_price is None:
            diff.without_price.append(row.sku)
        offer = current.get(row.sku)
        if offer is None:
            diff.new.append(row.sku)
            continue
        move = _move(row, offer, rates)
        if move is not None and (move["percent"] == "" or abs(Decimal(move["percent"])) > hold_percent):
            diff.held.append(move)
        elif move is not None and abs(Decimal(move["percent"])) > threshold_percent:
            diff.moved.append(move)
        elif move is not None or (
            offer.purchase_price,
            offer.currency,
            offer.stock_qty,
            offer.lead_time_days,
            offer.valid_until,
        ) != (row.purchase_price, row.currency, row.stock_qty, row.lead_time_days, row.valid_until):
            diff.changed.append(row.sku)
        else:
            diff.unchanged += 1
    if full:
        listed = {row.sku for row in rows}
        for sku in sorted(current):
            offer = current[sku]
            if sku in listed or offer.valid_until < today:
                continue  # listed, or retired already
            (diff.gone_reserved if offer.reserved_qty > 0 else diff.gone).append(sku)
    return diff
