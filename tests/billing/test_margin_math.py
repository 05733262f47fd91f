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


def test_purchase_order_roubles_win_over_the_plan_and_a_line_without_either_is_named() -> None:
    from billing.margin import PurchaseCost, purchase_costs

    costs, uncounted = purchase_costs([
        PurchaseCost("gpu", ordered_rub=D("1400200.65"), plan_rub=D("1611000.00"), currency="USD"),
        PurchaseCost("cpu", ordered_rub=None, plan_rub=D("1000.00")),
        PurchaseCost("nic", ordered_rub=None, plan_rub=None, currency="TWD"),
    ])  # fmt: skip
    assert [line.amount_rub for line in costs] == [D("1400200.65"), D("1000.00")]
    assert uncounted == ["nic (TWD)"]
