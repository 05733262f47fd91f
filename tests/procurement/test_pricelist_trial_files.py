"""Files from the user trial of issue 35 that the readers got wrong: a workbook whose first sheet is a
hidden service sheet, and a CSV saved as UTF-16 without its byte-order mark."""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from decimal import Decimal

import pytest
from openpyxl import Workbook

from procurement.models import Supplier
from procurement.pricelist.files import NOT_A_TABLE, UnreadableFile, decoded
from procurement.services import price_list_apply, price_list_preview
from tests.procurement.conftest import offer

pytestmark = pytest.mark.django_db


def _workbook_with_a_hidden_first_sheet() -> bytes:
    book = Workbook()
    service = book.active
    assert service is not None
    service.title = "Служебный"
    service.sheet_state = "hidden"
    service.append(["macro settings", 1, 2])
    sheet = book.create_sheet("Прайс")
    sheet.append(["ООО «Трелан» — прайс-лист на 04.12.2026"])
    sheet.merge_cells("A1:E1")
    sheet.append(["Артикул", "Наименование", "Цена, руб.", "Наличие", "Срок"])
    sheet.append(["rtx-4090", "RTX 4090", "215 500,00", ">10", "2-3 нед."])
    book.create_sheet("Скрытый итог").sheet_state = "veryHidden"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_a_workbook_is_read_from_its_first_visible_sheet_not_a_hidden_service_sheet(distributor: Supplier) -> None:
    """Before: the hidden first sheet was read, "no header in the first 30 rows"."""
    price_import = price_list_preview(
        supplier=distributor, filename="treolan.xlsx", content=_workbook_with_a_hidden_first_sheet()
    )
    assert price_import.report["errors"] == []
    assert price_import.report["file"]["header_line"] == 2 and price_import.report["rows"] == 1
    price_list_apply(price_import=price_import)
    rtx4090 = offer(distributor, "rtx-4090")
    assert (rtx4090.purchase_price, rtx4090.stock_qty, rtx4090.lead_time_days) == (Decimal("215500.00"), 10, 15)


TEXT = 'Артикул;Наименование;Цена, руб.;Остаток;Срок поставки\r\nrtx-4090;Видеокарта;"215 500,00";5;"2-3 нед."\r\n'


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_its_byte_order_mark_is_read(encoding: str) -> None:
    """Before: the bytes decoded as UTF-8 with a NUL in every other place, "no header in the first 30 rows"."""
    assert decoded(TEXT.encode(encoding)) == (TEXT, "UTF-16")


def test_utf16_without_its_mark_is_applied_as_a_price_list(distributor: Supplier) -> None:
    price_import = price_list_preview(supplier=distributor, filename="excel.csv", content=TEXT.encode("utf-16-le"))
    assert price_import.report["errors"] == [] and price_import.report["file"]["encoding"] == "UTF-16"
    price_list_apply(price_import=price_import)
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("215500.00")


@pytest.mark.parametrize(
    "content",
    [
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(range(256)) * 4,  # an old .xls (OLE2) renamed .csv
        b"%PDF-1.7\n\x00\x00\x00binary\x00",
        "Артикул;Цена\nrtx-4090;1\x00\n".encode("cp1251"),  # odd length: no UTF-16
    ],
)
def test_other_bytes_with_nuls_are_no_csv_table(content: bytes) -> None:
    with pytest.raises(UnreadableFile) as refused:
        decoded(content)
    assert refused.value.message == NOT_A_TABLE


def test_a_blank_price_of_what_is_not_in_stock_is_an_offer_without_a_price(distributor: Supplier) -> None:
    """Distributors leave the price of what they do not have blank: before, "not a number" with the value ''
    refused the whole file. A blank price with units in stock is still an error of its cell."""
    header = "Артикул;Наименование;Цена, руб.;Наличие;Срок"
    body = (
        f'{header}\nrtx-4090;RTX 4090;"215 500,00";>10;5\nrtx-5090;RTX 5090;;нет;под заказ\nl40s;L40S;;0;"2-3 нед."\n'
    )
    price_import = price_list_preview(supplier=distributor, filename="ocs.csv", content=body.encode("cp1251"))
    assert price_import.report["errors"] == []
    assert price_import.report["without_price"] == ["rtx-5090", "l40s"]
    price_list_apply(price_import=price_import)
    rtx5090 = offer(distributor, "rtx-5090")
    assert (rtx5090.purchase_price, rtx5090.stock_qty, rtx5090.lead_time_days) == (None, 0, 30)

    in_stock = f"{header}\nrtx-4090;RTX 4090;;5;5\n".encode()
    refused = price_list_preview(supplier=distributor, filename="ocs2.csv", content=in_stock)
    [error] = refused.report["errors"]
    assert (error["line"], error["column"], error["value"], error["message"]) == (2, "Цена, руб.", "", "not a number")


def test_an_english_list_from_a_mac_with_an_eta_column_is_read(distributor: Supplier, cbr_rates: None) -> None:
    """Mac Roman bytes are no UTF-8: read as a single-byte code page (names with ™ come out garbled, the numbers
    and part numbers are ASCII); "ETA" is the lead time (before: "the column is missing")."""
    text = (
        "Price list - Acme Distribution\u2122\r\nPart number;Description;Price, USD;Qty;ETA\r\n"
        "RTX-4090;GeForce RTX\u2122 4090;1 850,50;>10;2-3 weeks\r\nrtx-5090;RTX 5090;2 500,00;none;on order\r\n"
    )
    price_import = price_list_preview(supplier=distributor, filename="acme.csv", content=text.encode("mac_roman"))
    assert price_import.report["errors"] == [] and price_import.report["file"]["columns"]["lead_time_days"] == "ETA"
    price_list_apply(price_import=price_import, confirm_held=True)  # 300 000 RUB → 2 500 USD: −34.8 %, held
    rtx4090, rtx5090 = offer(distributor, "rtx-4090"), offer(distributor, "rtx-5090")
    assert (rtx4090.purchase_price, rtx4090.currency, rtx4090.stock_qty, rtx4090.lead_time_days) == (
        Decimal("1850.50"), "USD", 10, 15
    )  # fmt: skip
    assert (rtx5090.stock_qty, rtx5090.lead_time_days) == (0, 30)


def test_an_expected_day_written_as_a_spreadsheet_date_is_the_working_days_until_it(distributor: Supplier) -> None:
    """The import day is Friday 04.12.2026 (tests/procurement/conftest.py): Tuesday 15.12 is working day 7 (Mon
    07 – Fri 11, Mon 14, Tue 15); Sunday 10.01.2027 is there on Monday 11.01, working day 19 (December 07-30
    less 31.12: 18)."""
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Артикул", "Цена, руб.", "Наличие", "Дата поступления"])
    sheet.append(["rtx-4090", 215500, 0, dt.date(2026, 12, 15)])
    sheet.append(["rtx-5090", 312000, 0, dt.datetime(2027, 1, 10)])  # noqa: DTZ001 - a spreadsheet's date has no zone
    buffer = io.BytesIO()
    book.save(buffer)
    price_import = price_list_preview(supplier=distributor, filename="eta.xlsx", content=buffer.getvalue())
    assert price_import.report["errors"] == []
    price_list_apply(price_import=price_import)
    assert (offer(distributor, "rtx-4090").lead_time_days, offer(distributor, "rtx-5090").lead_time_days) == (7, 19)


def _workbook_with_a_formula_price(*, saved_value: str | None) -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Артикул", "Цена, руб.", "Наличие", "Срок"])
    sheet.append(["rtx-4090", "=215000+500", 5, 5])
    buffer = io.BytesIO()
    book.save(buffer)
    if saved_value is None:  # as openpyxl and other programs write it: the formula, no value
        return buffer.getvalue()
    out = io.BytesIO()  # as Excel saves it: the formula and its value
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"<f>215000+500</f><v></v>", b"<f>215000+500</f>").replace(
                    b"<f>215000+500</f>", f"<f>215000+500</f><v>{saved_value}</v>".encode()
                )
            target.writestr(item, data)
    return out.getvalue()


def test_a_formula_price_reads_its_saved_value_and_without_one_is_named_by_its_formula(
    distributor: Supplier,
) -> None:
    """Before: a formula without a saved value was an empty cell, "Row 2, column Цена, руб., value '': not a
    number", which said nothing of why."""
    saved = price_list_preview(
        supplier=distributor, filename="excel.xlsx", content=_workbook_with_a_formula_price(saved_value="215500")
    )
    assert saved.report["errors"] == [] and saved.report["rows"] == 1
    unsaved = price_list_preview(
        supplier=distributor, filename="program.xlsx", content=_workbook_with_a_formula_price(saved_value=None)
    )
    [error] = unsaved.report["errors"]
    assert (error["line"], error["column"], error["value"]) == (2, "Цена, руб.", "=215000+500")
