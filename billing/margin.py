"""The margin of an order. Pure: dataclasses in, a dataclass out; no Django.

margin = revenue net of VAT − purchase cost in roubles − service costs.

* revenue net of VAT: the order's net total (its lines are net of VAT; quotes/pricing.py);
* purchase cost: a list of rouble amounts, one per purchase line (`purchase_costs`): a line on a purchase
  order (not cancelled) costs its purchase-order line's roubles, at the rate of that purchase order (the
  rate of the day it was made, orders/purchasing.py); a line on none yet costs the plan at today's rates
  (orders.selectors.purchase_table);
* service costs: what delivering the order cost besides the parts (courier, installation …), entered against
  the order (billing.ServiceCost), in roubles.

A purchase amount with no rouble value (its currency has no rate) cannot be counted: it is named in
`uncounted` and the margin is marked incomplete rather than overstated silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class CostLine:
    amount_rub: Decimal
    label: str = ""


@dataclass(frozen=True, slots=True)
class PurchaseCost:
    """One purchase line of the order's plan: `ordered_rub` its purchase-order line's roubles (None: on no
    purchase order, or only on cancelled ones); `plan_rub` its roubles at today's rates (None: no rate)."""

    label: str
    ordered_rub: Decimal | None
    plan_rub: Decimal | None
    currency: str = "RUB"


def purchase_costs(lines: Sequence[PurchaseCost]) -> tuple[list[CostLine], list[str]]:
    """The cost lines of the margin and the lines left out (no purchase order and no rate today)."""
    costs: list[CostLine] = []
    uncounted: list[str] = []
    for line in lines:
        amount = line.ordered_rub if line.ordered_rub is not None else line.plan_rub
        if amount is None:
            uncounted.append(f"{line.label} ({line.currency})")
        else:
            costs.append(CostLine(amount, line.label))
    return costs, uncounted


@dataclass(frozen=True, slots=True)
class Margin:
    revenue_net: Decimal
    purchase_cost: Decimal
    service_cost: Decimal
    margin: Decimal
    percent: Decimal | None  # margin / revenue × 100, to 0.01; None when there is no revenue
    uncounted: tuple[str, ...]  # purchase lines left out: no rouble amount

    @property
    def complete(self) -> bool:
        return not self.uncounted


def order_margin(
    *,
    revenue_net: Decimal,
    purchases: Sequence[CostLine],
    services: Sequence[CostLine] = (),
    uncounted: Sequence[str] = (),
) -> Margin:
    purchase = sum((line.amount_rub for line in purchases), Decimal(0)).quantize(CENT, rounding=ROUND_HALF_UP)
    service = sum((line.amount_rub for line in services), Decimal(0)).quantize(CENT, rounding=ROUND_HALF_UP)
    margin = revenue_net - purchase - service
    percent = (margin * 100 / revenue_net).quantize(CENT, rounding=ROUND_HALF_UP) if revenue_net else None
    return Margin(revenue_net, purchase, service, margin, percent, tuple(uncounted))
