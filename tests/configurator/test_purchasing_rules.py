"""configurator/engine/purchasing.py: the purchase-order transition table, drafts from a plan (roubles at the
day's rate, half up to kopecks, totals the sum of the rows) and what a receipt of a line may hold."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from configurator.engine import purchasing as rules

DAY = dt.date(2026, 12, 3)  # a Thursday
USD = (Decimal("78.2235"), DAY)  # CBR rate of 03.12.2026 (finance/fixtures/cbr_daily_sample.xml)


def line(pk: int, supplier: str, price: str, qty: int, currency: str = "RUB", kind: str = "gpus") -> rules.PlanLine:
    return rules.PlanLine(pk, supplier, f"sku-{pk}", f"PN-{pk}", kind, qty, Decimal(price), currency, 2)


def test_the_transition_table() -> None:
    assert rules.po_can_transition("draft", "sent") and rules.po_can_transition("sent", "confirmed")
    assert not rules.po_can_transition("draft", "confirmed")
    assert not rules.po_can_transition("received", "cancelled")
    assert not rules.po_can_transition("cancelled", "sent")
    assert {"draft", "sent", "confirmed", "partly_received"} == rules.OPEN
    assert rules.po_status_after_receipt([(2, 2), (1, 0)]) == "partly_received"
    assert rules.po_status_after_receipt([(2, 2), (1, 1)]) == "received"


def test_one_draft_per_supplier_with_roubles_half_up_and_totals_the_sum_of_rows() -> None:
    drafts = rules.po_drafts(
        [line(1, "u", "0.05", 1, "USD"), line(2, "u", "0.15", 3, "USD"), line(3, "r", "10.005", 2)],
        rates={"USD": USD},
        day=DAY,
    )
    assert [d.supplier for d in drafts] == ["r", "u"]
    rub, usd = drafts
    # 0.05 × 78.2235 = 3.911175 → 3.91; 0.45 × 78.2235 = 35.200575 → 35.20
    assert [(x.line_total, x.line_total_rub) for x in usd.lines] == [
        (Decimal("0.05"), Decimal("3.91")), (Decimal("0.45"), Decimal("35.20")),
    ]  # fmt: skip
    assert (usd.total, usd.total_rub, usd.rate) == (Decimal("0.50"), Decimal("39.11"), Decimal("78.2235"))
    # 10.005 × 2 = 20.010 → 20.01 (half up to the kopeck); roubles need no rate
    assert (rub.lines[0].line_total, rub.lines[0].line_total_rub, rub.rate) == (
        Decimal("20.01"), Decimal("20.01"), None,
    )  # fmt: skip
    assert usd.expected_date == dt.date(2026, 12, 7)  # two working days after Thursday: Friday, Monday


def test_a_currency_without_a_rate_is_refused_not_read_as_roubles() -> None:
    with pytest.raises(KeyError):
        rules.po_drafts([line(1, "u", "10.00", 1, "USD")], rates={}, day=DAY)
    with pytest.raises(rules.MixedCurrencies):
        rules.po_drafts([line(1, "u", "1", 1, "USD"), line(2, "u", "1", 1)], rates={"USD": USD}, day=DAY)


@pytest.mark.parametrize(
    ("kind", "received", "qty", "serials", "known", "fields"),
    [
        ("gpus", 0, 2, ["A", "B"], [], set()),
        ("memory", 0, 2, [], [], set()),
        ("gpus", 1, 2, ["A", "B"], [], {"qty"}),
        ("gpus", 0, 0, [], [], {"qty"}),
        ("cpus", 0, 2, ["A"], [], {"serials"}),
        ("storage", 0, 2, ["A", "A"], [], {"serials"}),
        ("psus", 0, 1, [""], [], {"serials"}),
        ("memory", 0, 1, ["X"], [], {"serials"}),
        ("gpus", 0, 1, ["A"], ["A"], {"serials"}),
    ],
)
def test_receipt_problems(
    kind: str, received: int, qty: int, serials: list[str], known: list[str], fields: set[str]
) -> None:
    problems = rules.receipt_problems(kind=kind, ordered=2, received=received, qty=qty, serials=serials, known=known)
    assert set(problems) == fields
