"""Purchase lists as files Russian Excel opens as they are (issue 35): CSV in UTF-8 with a BOM, `;` between
cells and decimal commas (Excel's list separator and decimal symbol in the Russian locale); XLSX with money,
quantity, rate and date formats. Both have the same columns — the part's name in the reader's language, the
unit price in the offer's currency, the rate and its date, the rouble amounts, line totals — and a totals row
in roubles. Text from suppliers and staff that a spreadsheet could run as a formula (a cell starting with
`=`, `+`, `-`, `@`, a tab or a carriage return) is kept as text: prefixed with `'` in the CSV, a text cell
in the XLSX (OWASP, "CSV Injection").
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal
from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from openpyxl import Workbook
from openpyxl.styles import Font

from config.spreadsheets import formula_safe
from orders.models import PurchaseLine
from orders.selectors import PurchaseRow, PurchaseTable, purchase_rates, purchase_table

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
BOM = "\ufeff"
MONEY_FORMAT = "#,##0.00"
RATE_FORMAT = "#,##0.0000"
QTY_FORMAT = "0"
DATE_FORMAT = "DD.MM.YYYY"

#: Column kinds, in order: how a value is written to each file.
TEXT, QTY, MONEY, RATE, DATE = "text", "qty", "money", "rate", "date"
KINDS = (TEXT, TEXT, TEXT, TEXT, TEXT, QTY, MONEY, TEXT, RATE, DATE, MONEY, MONEY, MONEY, TEXT)


def header() -> list[str]:
    """The column titles in the active language."""
    return [
        pgettext("purchase list", "Order"), pgettext("purchase list", "Supplier"), pgettext("purchase list", "SKU"),
        pgettext("purchase list", "Supplier's SKU"), pgettext("purchase list", "Name"),
        pgettext("purchase list", "Qty"), pgettext("purchase list", "Unit price"),
        pgettext("purchase list", "Currency"), pgettext("purchase list", "Rate, RUB per unit"),
        pgettext("purchase list", "Rate date"), pgettext("purchase list", "Unit price, RUB"),
        pgettext("purchase list", "Line total"), pgettext("purchase list", "Line total, RUB"),
        pgettext("purchase list", "Source"),
    ]  # fmt: skip


def _row(supplier: str, row: PurchaseRow) -> list[Any]:
    line = row.line
    return [
        line.order.number,
        supplier,
        line.sku,
        line.offer.supplier_sku if line.offer else "",
        row.name,
        line.qty,
        line.unit_price,
        line.currency,
        row.rate.rub_per_unit if row.rate else None,
        row.rate.date if row.rate else None,
        row.unit_price_rub,
        row.line_total,
        row.line_total_rub,
        _("from stock") if line.from_stock else _("back order"),
    ]


def _totals(table: PurchaseTable) -> list[Any]:
    label = pgettext("purchase list", "Total, RUB")
    if table.without_rate:
        label = pgettext(
            "purchase list", "Total, RUB (without %(count)s lines in currencies with no exchange rate)"
        ) % {"count": table.without_rate}
    cells: list[Any] = [None] * len(KINDS)
    cells[0] = label
    cells[5] = sum(row.line.qty for row in table.rows)
    cells[12] = table.total_rub
    return cells


def safe_text(value: str) -> str:
    """`value`, with a `'` in front when a spreadsheet would read it as a formula (config/spreadsheets.py)."""
    return str(formula_safe(value))


def _csv_cell(kind: str, value: Any) -> str:
    if value is None:
        return ""
    if kind == MONEY:
        return f"{Decimal(value):.2f}".replace(".", ",")
    if kind == RATE:
        return format(Decimal(value).normalize(), "f").replace(".", ",")
    if kind == DATE and isinstance(value, dt.date):
        return value.strftime("%d.%m.%Y")
    if kind == QTY:
        return str(int(value))
    return safe_text(str(value))


def purchase_list_csv(*, supplier: str, table: PurchaseTable) -> bytes:
    """One supplier's purchase rows (of one order or several: each row names its order) and the totals row,
    as UTF-8 CSV with a BOM, `;`-separated, decimal commas, dates DD.MM.YYYY."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    writer.writerow([safe_text(title) for title in header()])
    for row in (*(_row(supplier, row) for row in table.rows), _totals(table)):
        writer.writerow([_csv_cell(kind, value) for kind, value in zip(KINDS, row, strict=True)])
    return (BOM + buffer.getvalue()).encode("utf-8")


def purchase_list_xlsx(*, supplier: str, table: PurchaseTable) -> bytes:
    """The CSV's rows in one sheet: quantities whole numbers, money `#,##0.00`, rates with four places, rate
    dates as dates, every text a text cell (never a formula); the totals row in bold."""
    book = Workbook()
    sheet = book.worksheets[0]
    sheet.title = supplier[:31]  # Excel's limit on a sheet name
    rows = [header(), *(_row(supplier, row) for row in table.rows), _totals(table)]
    xlsx_write_rows(sheet, rows, KINDS)
    for cell in sheet[len(rows)]:
        cell.font = Font(bold=True)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def xlsx_write_rows(sheet: Any, rows: list[list[Any]], kinds: tuple[str, ...], *, first_row: int = 1) -> None:
    """`rows` into `sheet` from row `first_row`, each column written as its kind says: quantities whole numbers, money
    `#,##0.00`, rates with four places, dates as dates, every text a text cell (never a formula)."""
    for row_number, values in enumerate(rows, start=first_row):
        for column, (kind, value) in enumerate(zip(kinds, values, strict=True), start=1):
            if value is None:
                continue
            cell = sheet.cell(row=row_number, column=column)
            if isinstance(value, str):
                cell.value = safe_text(value)
                cell.data_type = "s"  # openpyxl would store a text starting with "=" as a formula
            elif kind == MONEY:
                cell.value, cell.number_format = Decimal(value), MONEY_FORMAT
            elif kind == RATE:
                cell.value, cell.number_format = Decimal(value), RATE_FORMAT
            elif kind == DATE:
                cell.value, cell.number_format = value, DATE_FORMAT
            else:
                cell.value, cell.number_format = int(value), QTY_FORMAT


def purchase_list_download(*, lines: list[PurchaseLine], supplier: str, name: str, fmt: str) -> HttpResponse:
    """One supplier's purchase list as a `csv` or `xlsx` attachment `<name>.<fmt>`, at today's rates (the page's
    and the API's downloads alike)."""
    table = purchase_table(lines=lines, rates=purchase_rates(lines=lines))
    if fmt == "csv":
        response = HttpResponse(purchase_list_csv(supplier=supplier, table=table), content_type=CSV_CONTENT_TYPE)
    else:
        response = HttpResponse(purchase_list_xlsx(supplier=supplier, table=table), content_type=XLSX_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response
