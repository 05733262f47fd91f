"""Cells as distributors write them (procurement/pricelist/cells.py), the header found below title rows
(header.py) and the file's encoding and delimiter (files.py): plain functions, no database."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from procurement.pricelist.cells import CellProblem, NumberFormat, lead_time_days, money, number, stock_qty
from procurement.pricelist.files import decoded, delimiter_sniffed
from procurement.pricelist.header import header_find

RUSSIAN = NumberFormat(decimal=",", thousands=" ")
AMBIGUOUS = "ambiguous: three digits after the decimal separator '%(decimal)s' look like a thousands group"
NOT_BY_THE_RULES = "not a number as this supplier writes them (decimal '%(decimal)s', thousands separated by spaces)"
US = NumberFormat(decimal=".", thousands=",")
THURSDAY = dt.date(2026, 12, 3)  # lead times count from the day after


@pytest.mark.parametrize(
    ("text", "fmt", "value"),
    [
        ("215 500", RUSSIAN, Decimal(215500)),
        ("215\u00a0500,50", RUSSIAN, Decimal("215500.50")),
        ("1\u202f215\u202f500", RUSSIAN, Decimal(1215500)),
        ("215500,5", RUSSIAN, Decimal("215500.5")),
        ("215,500", US, Decimal(215500)),
        ("1,215,500.25", US, Decimal("1215500.25")),
        ("99.9", US, Decimal("99.9")),
    ],
)
def test_numbers_are_read_by_the_declared_separators(text: str, fmt: NumberFormat, value: Decimal) -> None:
    assert number(text, fmt) == value


@pytest.mark.parametrize(
    ("text", "fmt", "message"),
    [
        ("215,500", RUSSIAN, AMBIGUOUS),
        ("215.500", US, AMBIGUOUS),
        ("215.500", RUSSIAN, NOT_BY_THE_RULES),
        ("21 55 00", RUSSIAN, "the thousands are not grouped in threes"),
        ("2,15,500", US, "the thousands are not grouped in threes"),
        ("10,5555", RUSSIAN, "more than %(places)s decimal places"),
        ("три сотни", RUSSIAN, "not a number"),
    ],
)  # fmt: skip
def test_a_number_not_written_by_the_rules_is_refused_never_guessed(text: str, fmt: NumberFormat, message: str) -> None:
    with pytest.raises(CellProblem) as caught:
        number(text, fmt)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("cell", "amount", "currency"),
    [
        ("215 500 ₽", Decimal(215500), "₽"),
        ("12 000 руб.", Decimal(12000), "руб."),
        ("$1 200,50", Decimal("1200.50"), "$"),
        ("по запросу", None, ""),
        ("Звоните!", None, ""),
        ("on request", None, ""),
        (199000.456, Decimal("199000.46"), ""),  # a spreadsheet's number: rounded to the kopeck
    ],
)
def test_price_cells_carry_their_currency_or_say_on_request(
    cell: object, amount: Decimal | None, currency: str
) -> None:
    found = money(cell, RUSSIAN)
    assert (found.amount, found.currency_text) == (amount, currency)


@pytest.mark.parametrize(
    ("cell", "qty"),
    [(">10", 10), ("> 10", 10), ("10+", 10), ("более 10", 10), ("много", 10), ("есть", 1), ("в наличии", 1),
     ("нет", 0), ("-", 0), ("0", 0), ("", 0), (None, 0), ("5-10", 5), ("<5", 1), ("менее 1", 0), ("12 шт.", 12),
     ("1 000", 1000), (7, 7), (3.0, 3)],
)  # fmt: skip
def test_stock_as_people_write_it_is_read_conservatively(cell: object, qty: int) -> None:
    assert stock_qty(cell, RUSSIAN) == qty


def test_a_stock_cell_that_says_nothing_known_is_an_error() -> None:
    with pytest.raises(CellProblem):
        stock_qty("уточняйте", RUSSIAN)
    with pytest.raises(CellProblem):
        stock_qty("2,5", RUSSIAN)


@pytest.mark.parametrize(
    ("cell", "days"),
    [
        ("2-3 нед.", 15),  # the upper bound, a week is 5 working days
        ("5 раб. дней", 5),
        ("5 р.д.", 5),
        ("5", 5),
        (7, 7),
        # calendar days: 04.12-13.12.2026 hold 6 working days (Fri, Mon-Fri); Sunday 13.12 is off, so the part is
        # there on Monday 14.12, working day 7 (6 would be Friday 11.12, two days early: issue 35 trial)
        ("10 дней", 7),
        # 04.12.2026-03.01.2027: 19 in December (31.12 is off), none on 1-3 January; Sunday 03.01 is off, so the
        # part is there on the next working day, Monday 11.01.2027: working day 20 (19 was 30.12.2026)
        ("1 мес.", 20),
        ("в наличии", 0),
        ("склад", 0),
        ("до 3 недель", 15),
        ("под заказ", 30),  # on order, no date: LEAD_TIME_ON_ORDER, six weeks, so a ship date is late, not early
        ("Ожидается", 30),
        ("по запросу", 30),
    ],
)
def test_lead_times_are_working_days(cell: object, days: int) -> None:
    assert lead_time_days(cell, RUSSIAN, today=THURSDAY) == days


def test_a_lead_time_that_is_not_one_is_an_error() -> None:
    for cell in ("", "когда-нибудь", "3 года"):
        with pytest.raises(CellProblem):
            lead_time_days(cell, RUSSIAN, today=THURSDAY)


def test_utf8_is_preferred_and_windows_1251_is_detected() -> None:
    text = "Артикул;Цена, руб.;Остаток\nrtx-4090;215 500,00;>10\nrtx-5090;312 000,00;есть\n"
    assert decoded(text.encode("utf-8")) == (text, "UTF-8")
    assert decoded(b"\xef\xbb\xbf" + text.encode("utf-8")) == (text, "UTF-8")
    assert decoded(text.encode("cp1251")) == (text, "Windows-1251")


def test_the_delimiter_is_sniffed_on_data_rows_not_the_header() -> None:
    semicolons = "Артикул;Цена, руб.;Остаток\nrtx-4090;215 500,00;5\nrtx-5090;312 000,00;1\n"
    assert delimiter_sniffed(semicolons) == ";"
    quoted = '"Артикул";"Цена, руб.";"Остаток"\n"rtx-4090";"215 500,00";"5"\n'
    assert delimiter_sniffed(quoted) == ";"
    commas = 'Part number,"Price, USD",Stock\nrtx-4090,"2,500.00",5\nrtx-5090,3100,1\n'
    assert delimiter_sniffed(commas) == ","
    tabs = "Title only\n\nSKU\tPrice\tQty\nrtx-4090\t1\t2\n"
    assert delimiter_sniffed(tabs) == "\t"


def test_the_header_is_found_below_title_rows_by_synonyms() -> None:
    rows = [
        ("ООО «Дистрибьютор»", None, None),
        ("Прайс-лист на 04.12.2026",),
        (),
        ("Арт.", "Наименование", "Цена, $", "Наличие", "Срок поставки, дн.", "Действует до"),
        ("rtx-4090", "RTX 4090", 2500, ">10", 5, None),
    ]
    header = header_find(rows, mapping={}, currency="RUB")
    assert header is not None
    assert header.line == 4 and header.data_from == 4
    assert {name: column.index for name, column in header.columns.items()} == {
        "sku": 0, "name": 1, "purchase_price": 2, "stock_qty": 3, "lead_time_days": 4, "valid_until": 5,
    }  # fmt: skip
    assert header.columns["purchase_price"].currency == "USD"


def test_a_two_level_header_reads_the_price_in_the_suppliers_currency() -> None:
    rows = [
        ("P/N", "Name", "Цена", None, "Stock", "Lead time"),
        (None, None, "USD", "RUB", None, None),
        ("rtx-4090", "RTX 4090", 2500, 195000, 3, 5),
    ]
    header = header_find(rows, mapping={}, currency="RUB")
    assert header is not None and header.problem is None
    assert header.data_from == 2
    assert (header.columns["purchase_price"].index, header.columns["purchase_price"].header) == (3, "Цена RUB")
    euro = header_find(rows, mapping={}, currency="EUR")
    assert euro is not None and euro.problem is not None  # neither column is in euros: ask for the mapping
    assert euro.problem[1] == {"columns": "Цена USD, Цена RUB"}
