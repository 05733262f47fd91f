"""Order margin: revenue net of VAT − purchases in roubles − service costs (billing/margin.py)."""

from __future__ import annotations

from decimal import Decimal

from billing.margin import CostLine, order_margin

D = Decimal


def test_margin_by_hand() -> None:
    # revenue 1 771 448.99 net; purchases 1 200 000.00 + 2 × 155 555.555 (USD at a rate, unrounded) ;
    # delivery 3 500.00: 1 771 448.99 − 1 511 111.11 − 3 500.00 = 256 837.88, 14.50 % of the revenue
    result = order_margin(
        revenue_net=D("1771448.99"),
        purchases=[CostLine(D("1200000.00")), CostLine(D("311111.11"))],
        services=[CostLine(D("3500.00"), "courier")],
    )
    assert result.purchase_cost == D("1511111.11")
    assert result.service_cost == D("3500.00")
    assert result.margin == D("256837.88")
    assert result.percent == D("14.50")
    assert result.complete


def test_a_loss_and_an_uncounted_purchase_are_shown_not_hidden() -> None:
    result = order_margin(revenue_net=D(100), purchases=[CostLine(D("150.00"))], uncounted=["gpu-x (TWD: no rate)"])
    assert result.margin == D("-50.00")
    assert result.percent == D("-50.00")
    assert not result.complete


def test_no_revenue_has_no_percentage() -> None:
    assert order_margin(revenue_net=D(0), purchases=[]).percent is None
