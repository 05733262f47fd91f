"""Supplier price lists: read (CSV or XLSX through the supplier's column mapping), check every row,
compare with the supplier's current offers, and apply.

Reading never writes. Each bad cell is reported as a `RowError` with the file's line number (the header
is line 1), our field, the supplier's column header and the value found; a file with any error is never
applied. `price_list_diff` says what applying would change: new SKUs, price moves beyond the threshold,
other changes, offers gone (in the current offers, absent from the file), unchanged.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import zipfile
from dataclasses import asdict, dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import gettext, gettext_noop
from openpyxl import load_workbook
from openpyxl.utils.exceptions import InvalidFileException

from catalog.services import cell_error

REQUIRED = ("sku", "purchase_price", "stock_qty", "lead_time_days", "valid_until")
MAX_LEAD_TIME_DAYS = 365
MAX_ROWS = 20_000


@dataclass(frozen=True)
class RowError:
    """One bad cell: the file's row (`line`; the header is row 1), our field, the supplier's column header, the
    value found and the reason: `message` is an English msgid with `params`; `reason` and `text` say it in the
    active language ("Row 3, column price, value 'abc': not a number")."""

    line: int
    field: str
    column: str
    value: str
    message: str
    params: dict[str, Any] = dataclasses.field(default_factory=dict)  # `field` is also a column here

    @property
    def reason(self) -> str:
        return gettext(self.message) % self.params if self.params else gettext(self.message)

    @property
    def text(self) -> str:
        return cell_error(self.line, self.column, self.value, self.reason)


@dataclass(frozen=True)
class OfferRow:
    line: int
    sku: str
    kind: str
    purchase_price: Decimal
    currency: str
    stock_qty: int
    lead_time_days: int
    valid_until: dt.date


@dataclass
class Diff:
    new: list[str] = field(default_factory=list)
    moved: list[dict[str, str]] = field(default_factory=list)  # beyond the threshold
    changed: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    unchanged: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _table(content: bytes, filename: str) -> list[list[Any]]:
    """Rows of cells, the header first."""
    if filename.lower().endswith(".xlsx"):
        book = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
        sheet = book.worksheets[0]
        return [list(row) for row in sheet.iter_rows(values_only=True, max_row=MAX_ROWS + 1)]
    text = content.decode("utf-8-sig")
    dialect = csv.Sniffer().sniff(text.splitlines()[0] if text else ",", delimiters=",;\t")
    return [list(row) for row in csv.reader(io.StringIO(text), dialect)][: MAX_ROWS + 1]


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _decimal(value: Any) -> Decimal:
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    return Decimal(_text(value).replace(" ", "").replace("\u00a0", "").replace(",", "."))


def _int(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    return int(_text(value))


def _date(value: Any) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = _text(value)
    for fmt in ("%Y-%m-%d", "%d.%m.%Y"):
        try:
            return dt.datetime.strptime(text, fmt).date()  # noqa: DTZ007 - a calendar date, no time
        except ValueError:
            continue
    raise ValueError(text)


def price_list_read(
    *, content: bytes, filename: str, mapping: dict[str, str], kinds: dict[str, str], default_currency: str
) -> tuple[list[OfferRow], list[RowError]]:
    """Parse and check a price list. `kinds` maps every catalog SKU to its kind; unknown SKUs are errors."""
    try:
        table = _table(content, filename)
    except (
        UnicodeDecodeError,
        csv.Error,
        OSError,
        KeyError,
        ValueError,
        zipfile.BadZipFile,
        InvalidFileException,
    ) as exc:
        return [], [
            RowError(0, "", "", filename, gettext_noop("cannot read the file: %(problem)s"), {"problem": str(exc)})
        ]
    if not table:
        return [], [RowError(1, "", "", "", gettext_noop("the file is empty"))]
    header = [_text(cell) for cell in table[0]]
    index = {name: position for position, name in enumerate(header)}
    errors: list[RowError] = [
        RowError(1, name, mapping[name], "", gettext_noop("the column is missing"))
        for name in REQUIRED
        if mapping[name] not in index
    ]
    if errors:
        return [], errors
    rows: list[OfferRow] = []
    seen: dict[str, int] = {}
    for line, cells in enumerate(table[1:], start=2):
        if all(_text(cell) == "" for cell in cells):
            continue
        row, row_errors = _check_row(line, cells, index, mapping, kinds, seen, default_currency)
        errors.extend(row_errors)
        if row is not None:
            rows.append(row)
    return rows, errors


def _check_row(
    line: int,
    cells: list[Any],
    index: dict[str, int],
    mapping: dict[str, str],
    kinds: dict[str, str],
    seen: dict[str, int],
    default_currency: str,
) -> tuple[OfferRow | None, list[RowError]]:
    def cell(name: str) -> Any:
        position = index.get(mapping[name])
        return cells[position] if position is not None and position < len(cells) else None

    row_errors: list[RowError] = []

    def bad(name: str, message: str, **params: Any) -> None:
        row_errors.append(RowError(line, name, mapping[name], _text(cell(name)), message, params))

    sku = _text(cell("sku")).lower()
    if sku not in kinds:
        bad("sku", gettext_noop("unknown SKU"))
    elif sku in seen:
        bad("sku", gettext_noop("the SKU is already on row %(row)s"), row=seen[sku])
    seen.setdefault(sku, line)
    values: dict[str, Any] = {}
    try:
        values["purchase_price"] = _decimal(cell("purchase_price"))
        if not values["purchase_price"].is_finite() or values["purchase_price"] <= 0:
            bad("purchase_price", gettext_noop("must be a positive number"))
    except (InvalidOperation, ValueError):
        bad("purchase_price", gettext_noop("not a number"))
    for name, top in (("stock_qty", 1_000_000), ("lead_time_days", MAX_LEAD_TIME_DAYS)):
        try:
            values[name] = _int(cell(name))
            if not 0 <= values[name] <= top:
                bad(name, gettext_noop("must be between 0 and %(top)s"), top=top)
        except (TypeError, ValueError):
            bad(name, gettext_noop("not a whole number"))
    try:
        values["valid_until"] = _date(cell("valid_until"))
    except ValueError:
        bad("valid_until", gettext_noop("not a date (YYYY-MM-DD or DD.MM.YYYY)"))
    currency = _text(cell("currency")).upper() or default_currency
    if len(currency) != 3 or not currency.isalpha():
        bad("currency", gettext_noop("not a 3-letter currency code"))
    if row_errors:
        return None, row_errors
    return OfferRow(line=line, sku=sku, kind=kinds[sku], currency=currency, **values), []


def price_list_diff(rows: list[OfferRow], current: dict[str, Any], *, threshold_percent: Decimal) -> Diff:
    """What applying `rows` would change; `current` maps SKU → the supplier's offer (model or alike)."""
    diff = Diff()
    for row in rows:
        offer = current.get(row.sku)
        if offer is None:
            diff.new.append(row.sku)
            continue
        old = Decimal(offer.purchase_price)
        if old != row.purchase_price:
            move = (row.purchase_price - old) / old * 100
            if abs(move) > threshold_percent:
                diff.moved.append(
                    {"sku": row.sku, "old": str(old), "new": str(row.purchase_price), "percent": f"{move:+.1f}"}
                )
            else:
                diff.changed.append(row.sku)
        elif (offer.currency, offer.stock_qty, offer.lead_time_days, offer.valid_until) != (
            row.currency,
            row.stock_qty,
            row.lead_time_days,
            row.valid_until,
        ):
            diff.changed.append(row.sku)
        else:
            diff.unchanged += 1
    listed = {row.sku for row in rows}
    diff.gone = sorted(sku for sku in current if sku not in listed)
    return diff
