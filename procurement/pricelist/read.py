"""A price list read into offers, row by row. No database: the catalog, the supplier's part numbers and
the exchange rates come in as plain data (`ReadOptions`).

Each bad cell is a `RowError` with the file's row (`line`; the file's first row is 1), our field, the
column's header as the file writes it, and the value found (cut to `VALUE_CHARS`); a file with any error
is never applied. Rows that are not offers are skipped and counted, never errors: blank rows, category
rows (one text, "Видеокарты", or no part number, and neither price nor stock), totals ("Итого", "Total")
and the header repeated.

A row without a price and with nothing in stock ("нет", 0) is an offer without a price, as one priced
"по запросу" (distributors leave the price of what they do not have blank); with stock, the blank price is
an error. A row's part number is looked up in the supplier's part numbers (case and spaces ignored), then
among our SKUs; one found in neither is **unmatched**: listed with its line and name, not imported, and
not an error (the file is still applied). A row's currency is its currency column's, else the one written
in its price cell, else its price header's ("Цена, $"), else the supplier's; a currency without an
exchange rate on or before the import day is an error of that row. Prices that include VAT are stored net
of the VAT in force on the import day; whether they include it is said by the price header ("Цена с
НДС"), else by a title row above the header ("Цены указаны с НДС"), else by the supplier's setting. A missing
valid-until date is the import day + the supplier's `offer_valid_days`. A stock column per warehouse
(header.py) is summed: each cell read by the same rules, a bad one an error of its own column.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext, gettext_noop

from catalog.services import cell_error
from finance.currency import BASE, UnknownCurrency, currency_code
from finance.rates import RateBook
from finance.vat import net_of_vat
from procurement.models import part_number_key
from procurement.pricelist import cells as c
from procurement.pricelist.files import Limits, UnreadableFile, table_read
from procurement.pricelist.header import HEADER_SCAN_ROWS, Column, Header, header_find, header_named

logger = logging.getLogger(__name__)

REQUIRED = ("sku", "purchase_price", "stock_qty", "lead_time_days")
MAX_LEAD_TIME_DAYS = 365
MAX_STOCK = 1_000_000
VALUE_CHARS = 200  # a bad cell's value as the report echoes it
TOTAL_WORDS = ("итого", "всего", "total", "subtotal", "grand total")
Stocks = list[tuple[Column, Any]]  # a row's stock cells: one, or one per warehouse (summed)


def cut(text: str, most: int = VALUE_CHARS) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


@dataclass(frozen=True)
class RowError:
    """One bad cell: the file's row (`line`; 0: the file as a whole), our field, the file's column header, the
    value found and the reason: `message` is an English msgid with `params`; `reason` and `text` say it in the
    active language ("Row 3, column price, value 'abc': not a number")."""

    line: int
    field: str
    column: str
    value: str
    message: str
    params: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def reason(self) -> str:
        return gettext(self.message) % self.params if self.params else gettext(self.message)

    @property
    def text(self) -> str:
        if self.line == 0:  # the file as a whole (unreadable, too large, no header)
            return f"{self.value}: {self.reason}" if self.value else self.reason
        return cell_error(self.line, self.column, self.value, self.reason)


@dataclass(frozen=True)
class OfferRow:
    line: int
    sku: str
    kind: str
    supplier_sku: str  # the part number as the file writes it
    name: str
    purchase_price: Decimal | None  # net of VAT; None: on request
    listed_price: Decimal | None  # as the file says it (with VAT when the list includes it)
    currency: str
    stock_qty: int
    lead_time_days: int
    valid_until: dt.date
    valid_until_given: bool = True  # False: the import day + the supplier's offer_valid_days


@dataclass(frozen=True)
class Unmatched:
    line: int
    part_number: str
    name: str


@dataclass(frozen=True)
class ReadOptions:
    mapping: Mapping[str, str]  # our field → the supplier's header (Supplier.mapping())
    kinds: Mapping[str, str]  # every catalog SKU → its kind
    part_numbers: Mapping[str, str]  # part_number_key(supplier's part number) → our SKU
    number_format: c.NumberFormat
    default_currency: str
    prices_include_vat: bool
    vat_percent: Decimal  # in force on `today`
    today: dt.date
    valid_days: int
    rates: RateBook
    limits: Limits = field(default_factory=Limits)


@dataclass
class Reading:
    rows: list[OfferRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    unmatched: list[Unmatched] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(("blank", "category", "total", "header"), 0))
    header_line: int | None = None
    columns: dict[str, str] = field(default_factory=dict)  # our field → the file's header
    encoding: str | None = None
    delimiter: str | None = None
    vat_included: bool = False
    vat_said_by: str = ""  # "supplier" or the price header that said it
    notes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (msgid, params)


def price_list_read(*, content: bytes, filename: str, options: ReadOptions) -> Reading:
    """Read and check a price list (see the module's docstring). Raises PriceListTooLarge."""
    reading = Reading()
    try:
        table = table_read(content, filename, options.limits)
    except UnreadableFile as exc:
        logger.info("price list %s not read: %r", filename, exc.__cause__ or exc)
        reading.errors.append(RowError(0, "", "", cut(filename), exc.message))
        return reading
    reading.encoding, reading.delimiter = table.encoding, table.delimiter
    if not any(table.rows):
        reading.errors.append(RowError(1, "", "", "", gettext_noop("the file is empty")))
        return reading
    header = header_find(table.rows, mapping=options.mapping, currency=options.default_currency)
    if header is None:
        message = gettext_noop(
            "no header in the first %(rows)s rows names both a part number (%(sku)s) and a price (%(price)s)"
        )
        params = {
            "rows": HEADER_SCAN_ROWS,
            "sku": header_named("sku", options.mapping),
            "price": header_named("purchase_price", options.mapping),
        }
        reading.errors.append(RowError(0, "", "", "", message, params))
        return reading
    reading.header_line = header.line
    reading.columns = {name: column.header for name, column in header.columns.items()}
    if header.stock_columns:
        reading.columns["stock_qty"] = " + ".join(column.header for column in header.stock_columns)
    reading.notes.extend(header.notes)
    missing = [name for name in REQUIRED if name not in header.columns]
    for name in missing:
        reading.errors.append(
            RowError(header.line, name, header_named(name, options.mapping), "", gettext_noop("the column is missing"))
        )
    if header.problem is not None:
        reading.errors.append(RowError(header.line, "purchase_price", "", "", header.problem[0], header.problem[1]))
    if reading.errors:
        return reading
    price_column = header.columns["purchase_price"]
    if price_column.vat_included is not None:
        reading.vat_included, reading.vat_said_by = price_column.vat_included, price_column.header
    elif header.title_vat is not None:
        reading.vat_included, reading.vat_said_by = header.title_vat[0], cut(header.title_vat[1], 100)
    else:
        reading.vat_included, reading.vat_said_by = options.prices_include_vat, "supplier"
    _rows(reading, header, table.rows, options)
    return reading


def _rows(reading: Reading, header: Header, rows: Any, options: ReadOptions) -> None:
    columns = header.columns
    header_cells = [(column.index, c.normalized(column.header)) for column in columns.values()]
    stock_columns = header.stock_columns or (columns["stock_qty"],)
    seen: dict[str, int] = {}
    for position in range(header.data_from, len(rows)):
        line, cells = position + 1, rows[position]
        stocks = [(column, _at(cells, column.index)) for column in stock_columns]

        def cell(name: str, cells: Any = cells, stocks: Stocks = stocks) -> Any:
            if name == "stock_qty" and header.stock_columns:  # summed: the first stock cell with a value
                return next((value for _, value in stocks if c.text_of(value)), None)
            column = columns.get(name)
            return _at(cells, column.index) if column is not None else None

        kind = _not_an_offer(cells, cell, header_cells)
        if kind:
            reading.skipped[kind] += 1
            continue
        part_number = c.text_of(cell("sku"))
        name = cut(c.text_of(cell("name")))
        sku = options.part_numbers.get(part_number_key(part_number)) or _as_our_sku(part_number)
        if not part_number or sku not in options.kinds:
            reading.unmatched.append(Unmatched(line, cut(part_number), name))
            continue
        row, errors = _offer(line, cell, columns, options, reading.vat_included, stocks)
        if sku in seen:
            errors.insert(
                0, _error(line, "sku", columns, cell, gettext_noop("the SKU is already on row %(row)s"), row=seen[sku])
            )
        seen.setdefault(sku, line)
        reading.errors.extend(errors)
        if row is not None and not errors:
            reading.rows.append(
                OfferRow(line=line, sku=sku, kind=options.kinds[sku], supplier_sku=part_number[:100], name=name, **row)
            )


def _at(cells: Any, index: int) -> Any:
    return cells[index] if index < len(cells) else None


def _as_our_sku(part_number: str) -> str:
    """A part number written as one of our SKUs with spaces or underscores for its hyphens ("RTX 3090",
    "rtx_3090" → "rtx-3090"); anything else is matched through the supplier's part numbers."""
    return re.sub(r"[\s_]+", "-", part_number.strip().lower())


def _not_an_offer(cells: Any, cell: Any, header_cells: list[tuple[int, str]]) -> str:
    """Why a row is no offer ("blank", "total", "header", "category"), or ""."""
    filled = [text for text in (c.text_of(value) for value in cells) if text]
    if not filled:
        return "blank"
    if filled[0].casefold().startswith(TOTAL_WORDS):
        return "total"
    if all(c.normalized(c.text_of(cells[index]) if index < len(cells) else "") == said for index, said in header_cells):
        return "header"  # all() stops at the first cell that is no header: one cell for a data row
    no_offer = all(c.text_of(cell(name)) == "" for name in ("purchase_price", "stock_qty"))
    if no_offer and (len(filled) == 1 or c.text_of(cell("sku")) == ""):
        return "category"  # one text ("Видеокарты", often in the part-number column), or no part number
    return ""


def _error(line: int, name: str, columns: Mapping[str, Column], cell: Any, message: str, **params: Any) -> RowError:
    column = columns.get(name)
    return RowError(line, name, column.header if column else "", cut(c.text_of(cell(name))), message, params)


def _offer(
    line: int, cell: Any, columns: Mapping[str, Column], options: ReadOptions, vat_included: bool, stocks: Stocks
) -> tuple[dict[str, Any] | None, list[RowError]]:
    errors: list[RowError] = []
    values: dict[str, Any] = {}

    def bad(name: str, problem: c.CellProblem) -> None:
        errors.append(_error(line, name, columns, cell, problem.message, **problem.params))

    too_long = c.CellProblem(gettext_noop("longer than %(most)s characters"), most=options.limits.max_cell_chars)
    for name in ("sku", "purchase_price", "currency", "lead_time_days", "valid_until"):
        if len(c.text_of(cell(name))) > options.limits.max_cell_chars:
            bad(name, too_long)
    for column, value in stocks:
        if len(c.text_of(value)) > options.limits.max_cell_chars:
            errors.append(_stock_error(line, column, value, too_long))
    if errors:
        return None, errors
    fmt = options.number_format
    price: c.Money | None = None
    try:
        price = (
            c.money(cell("purchase_price"), fmt)
            if c.text_of(cell("purchase_price")) or _in_stock(stocks, fmt)
            else NO_PRICE
        )
        if price.amount is not None and not price.amount > 0:
            raise c.CellProblem(gettext_noop("must be a positive number"))
    except c.CellProblem as problem:
        bad("purchase_price", problem)
    stock = 0
    for column, value in stocks:
        try:
            units = c.stock_qty(value, fmt)
            if not 0 <= units <= MAX_STOCK:
                raise c.CellProblem(gettext_noop("must be between 0 and %(top)s"), top=MAX_STOCK)
            stock += units
        except c.CellProblem as problem:
            errors.append(_stock_error(line, column, value, problem))
    if stock > MAX_STOCK:  # each warehouse within the bound, their sum not
        summed = " + ".join(column.header for column, _ in stocks)
        said = cut(" + ".join(c.text_of(value) for _, value in stocks))
        message = gettext_noop("must be between 0 and %(top)s")
        errors.append(RowError(line, "stock_qty", summed, said, message, {"top": MAX_STOCK}))
    values["stock_qty"] = stock
    try:
        values["lead_time_days"] = c.lead_time_days(cell("lead_time_days"), fmt, today=options.today)
        if not 0 <= values["lead_time_days"] <= MAX_LEAD_TIME_DAYS:
            raise c.CellProblem(gettext_noop("must be between 0 and %(top)s"), top=MAX_LEAD_TIME_DAYS)
    except c.CellProblem as problem:
        bad("lead_time_days", problem)
    try:
        given = cell("valid_until")
        values["valid_until_given"] = bool(c.text_of(given))
        values["valid_until"] = (
            c.date_of(given) if c.text_of(given) else options.today + dt.timedelta(days=options.valid_days)
        )
    except c.CellProblem as problem:
        bad("valid_until", problem)
    currency = _currency(line, cell, columns, options, price, errors)
    if errors or price is None or currency is None:
        return None, errors
    net = price.amount
    if net is not None and vat_included:
        net = net_of_vat(net, options.vat_percent)
    return {**values, "purchase_price": net, "listed_price": price.amount, "currency": currency}, []


NO_PRICE = c.Money(None, "")


def _stock_error(line: int, column: Column, value: Any, problem: c.CellProblem) -> RowError:
    return RowError(line, "stock_qty", column.header, cut(c.text_of(value)), problem.message, problem.params)


def _in_stock(stocks: Stocks, fmt: c.NumberFormat) -> bool:
    """Whether the row's stock cells say some units are in stock (or one cannot be read: the stock's own error
    says so). A row with no price and nothing in stock is an availability without a price, as "по запросу";
    a row in stock without a price is an error of its price."""
    for _, value in stocks:
        try:
            if c.stock_qty(value, fmt) > 0:
                return True
        except c.CellProblem:
            return True
    return False


def _currency(
    line: int,
    cell: Any,
    columns: Mapping[str, Column],
    options: ReadOptions,
    price: c.Money | None,
    errors: list[RowError],
) -> str | None:
    """The row's ISO currency (see the module's docstring); None after adding its error."""
    written = c.text_of(cell("currency"))
    name = "currency" if written else "purchase_price"
    try:
        code = currency_code(written) if written else None
        in_cell = currency_code(price.currency_text) if price is not None and price.currency_text else None
    except UnknownCurrency as exc:
        errors.append(
            _error(line, name, columns, cell, gettext_noop("unknown currency %(currency)s"), currency=cut(exc.text, 20))
        )
        return None
    if code and in_cell and code != in_cell:
        message = gettext_noop("the price is in %(price)s but the currency column says %(currency)s")
        errors.append(_error(line, "purchase_price", columns, cell, message, price=in_cell, currency=code))
        return None
    header = columns["purchase_price"].currency
    found = code or in_cell or header or currency_code(options.default_currency)
    if found != BASE and not options.rates.can_convert(found):
        column = columns.get(name)
        value = written or (price.currency_text if price else "") or found
        message = gettext_noop("no exchange rate for %(currency)s on or before %(day)s")
        params = {"currency": found, "day": f"{options.rates.day:%d.%m.%Y}"}
        errors.append(RowError(line, name, column.header if column else "", cut(value), message, params))
        return None
    return found
