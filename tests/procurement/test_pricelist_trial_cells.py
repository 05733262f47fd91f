"""Cells from the user trial of issue 35 that the readers got wrong: calendar days and months ending on a day
off promised the part early, on-order words followed by a term or a date, expected dates, and stock levels
written as pluses or words of transit."""

from __future__ import annotations

import datetime as dt

import pytest

from configurator.engine.workdays import add_working_days
from procurement.pricelist.cells import CellProblem, NumberFormat, lead_time_days, stock_qty

RUSSIAN = NumberFormat(decimal=",", thousands=" ")
FRIDAY = dt.date(2026, 12, 4)


@pytest.mark.parametrize(
    ("cell", "arrives"),
    [
        # Sat 05 and Sun 06.12 are off: what comes on Sunday is there on Monday (0 said "here today, Friday")
        ("1-2 дня", dt.date(2026, 12, 7)),
        ("2 дня", dt.date(2026, 12, 7)),
        # 04.01.2027 is a New Year holiday: the next working day is Monday 11.01 (was 30.12.2026)
        ("1 мес.", dt.date(2027, 1, 11)),
        # Sunday 27.12 → Monday 28.12 (was Friday 25.12)
        ("23 дня", dt.date(2026, 12, 28)),
        ("14 дней", dt.date(2026, 12, 18)),  # a working day: unchanged
    ],
)
def test_calendar_days_ending_on_a_day_off_count_to_the_next_working_day(cell: str, arrives: dt.date) -> None:
    assert add_working_days(FRIDAY, lead_time_days(cell, RUSSIAN, today=FRIDAY)) == arrives


@pytest.mark.parametrize(
    ("cell", "days"),
    [
        ("Под заказ (2-3 нед.)", 15),  # was refused: "not a lead time"
        ("под заказ 5-7 дней", 5),  # 11.12.2026, a Friday: Mon 07 – Fri 11
        ("в пути 10 дней", 6),
        ("Ожидается 15.12", 7),  # Mon 07 – Fri 11, Mon 14, Tue 15
        ("ожидается: 15.01", 23),  # a December list: next January (Dec 07-30 less 31.12 = 18, Jan 11-15 = 5)
        ("Поступление 11.01.2027", 19),
        ("15.12.2026", 7),  # a date alone
        ("под заказ", 30),  # no term: LEAD_TIME_ON_ORDER, as before
    ],
)
def test_on_order_words_with_a_term_or_a_date_read_the_term_or_the_date(cell: str, days: int) -> None:
    assert lead_time_days(cell, RUSSIAN, today=FRIDAY) == days


@pytest.mark.parametrize("cell", ["01.12.2026", "ожидается 01.12", "31.02.2027", "1.5", "заказной"])
def test_a_day_already_past_or_no_day_is_no_lead_time(cell: str) -> None:
    """A promise already past is the supplier's stale one, not a lead time; "1.5" is no day without a year."""
    with pytest.raises(CellProblem):
        lead_time_days(cell, RUSSIAN, today=FRIDAY)


@pytest.mark.parametrize(
    ("cell", "qty"),
    [("++", 1), ("+++", 1), ("в пути", 0), ("Транзит", 0), ("on order", 0)],
)
def test_stock_written_as_pluses_or_as_words_of_transit(cell: str, qty: int) -> None:
    """Before: each refused the whole file ("not a stock quantity")."""
    assert stock_qty(cell, RUSSIAN) == qty
