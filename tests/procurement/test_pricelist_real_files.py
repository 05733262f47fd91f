"""Price lists as a purchasing manager got them from distributors (issue 35 trial): what the title rows say of
VAT, files that are no spreadsheet, and messages that stay in the reader's language."""

from __future__ import annotations

import io
import re
import zipfile
from decimal import Decimal

import pytest
from django.utils import translation

from procurement.models import Supplier
from procurement.pricelist.read import RowError
from procurement.services import price_list_apply, price_list_preview
from tests.procurement.conftest import VALID, csv_bytes, offer, xlsx_bytes

pytestmark = pytest.mark.django_db


def test_a_title_row_saying_prices_include_vat_stores_them_net(distributor: Supplier) -> None:
    """OCS-style: "Цены указаны с НДС" above the header, a price header that says nothing of VAT, a supplier
    set to net prices: 244 000 with 22 % VAT is 200 000 net, never 244 000."""
    body = csv_bytes(
        [
            "Прайс-лист ООО «Ромашка» на 04.12.2026;;;;",
            "Цены указаны с НДС;;;;",
            "Артикул;Наименование;Цена, руб.;Остаток;Срок поставки",
            "rtx-4090;RTX 4090;244 000,00;>10;5",
        ],
        encoding="cp1251",
    )
    with translation.override("en"):
        price_import = price_list_preview(supplier=distributor, filename="ocs.csv", content=body)
    assert price_import.report["vat"] == {
        "included": True, "percent": "22.00", "day": "2026-12-04", "said_by": "Цены указаны с НДС",
    }  # fmt: skip
    price_list_apply(price_import=price_import)
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")


@pytest.mark.parametrize(
    ("title", "header", "included", "net"),
    [
        ("Все цены указаны без учета НДС", "Цена, руб.", False, "244000.00"),  # over the supplier's "with VAT"
        ("Цены не включают НДС", "Цена, руб.", False, "244000.00"),
        ("Цены указаны с НДС", "Цена без НДС", False, "244000.00"),  # the price header says it for its column
        ("Цены с НДС и без НДС", "Цена", True, "200000.00"),  # the title says both: the supplier's setting
    ],
)
def test_the_price_header_then_the_title_rows_then_the_supplier_say_whether_prices_include_vat(
    distributor: Supplier, title: str, header: str, included: bool, net: str
) -> None:
    distributor.prices_include_vat = True
    distributor.save()
    rows = [
        "Прайс-лист;;;;",
        f"{title};;;;",
        f"Артикул;{header};Остаток;Срок;Действует до",
        f"rtx-4090;244 000;3;5;{VALID}",
    ]
    price_import = price_list_preview(supplier=distributor, filename="t.csv", content=csv_bytes(rows))
    assert price_import.report["errors"] == []
    assert (price_import.report["vat"] or {}).get("included", False) is included
    price_list_apply(price_import=price_import, confirm_held=True)
    assert offer(distributor, "rtx-4090").purchase_price == Decimal(net)


def test_an_xlsx_with_a_merged_title_saying_vat_is_included(distributor: Supplier) -> None:
    body = xlsx_bytes(
        [["Прайс-лист Treolan", None, None, None], ["Цены указаны с НДС 22%"], [],
         ["Артикул", "Цена", "Остаток", "Срок поставки"], ["RTX-4090", 244000, 5, "5 раб. дней"]]
    )  # fmt: skip
    price_import = price_list_preview(supplier=distributor, filename="t.xlsx", content=body)
    assert price_import.report["vat"]["said_by"] == "Цены указаны с НДС 22%"
    price_list_apply(price_import=price_import)
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")


def _utf16_cut_short() -> bytes:
    return b"\xff\xfe\x00\xd8"  # the UTF-16 BOM, then half a surrogate pair


def _zip_without_a_workbook() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("readme.txt", "not a workbook")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("filename", "content", "english", "russian"),
    [
        ("junk.xlsx", b"\x00\x01 random bytes", "it is not an Excel workbook (.xlsx)", "это не книга Excel (.xlsx)"),
        ("zip.xlsx", _zip_without_a_workbook(), "it is not an Excel workbook (.xlsx)", "это не книга Excel (.xlsx)"),
        ("u16.csv", _utf16_cut_short(), "it is marked as UTF-16 but is not", "он помечен как UTF-16, но это не так"),
    ],
)
def test_a_file_that_is_no_price_list_is_refused_in_the_readers_words_never_a_library_message(
    distributor: Supplier, filename: str, content: bytes, english: str, russian: str
) -> None:
    """Before: "файл не читается: File is not a zip file", "…: "There is no item named '[Content_Types].xml' in
    the archive"", "…: not UTF-16: 'utf-16-le' codec can't decode bytes in position 2-3"."""
    price_import = price_list_preview(supplier=distributor, filename=filename, content=content)
    [error] = price_import.report["errors"]
    assert error["line"] == 0 and error["params"] == {}
    with translation.override("en"):
        said = RowError(**{key: error[key] for key in ("line", "field", "column", "value", "message", "params")})
        assert said.text == f"{filename}: cannot read the file: {english}; save it as " + (
            "UTF-8 or Windows-1251" if filename.endswith(".csv") else ".xlsx or CSV"
        )
    with translation.override("ru"):
        assert said.reason.startswith(f"файл не читается: {russian}")
        assert not re.search(r"zip|codec|Content_Types|position", said.reason)


@pytest.mark.parametrize(
    ("thousands", "russian"),
    [
        (" ", "(десятичный разделитель «,», тысячи отделены пробелами)"),
        ("", "(десятичный разделитель «,», без разделителя тысяч)"),
        (".", "(десятичный разделитель «,», тысячи «.»)"),
    ],
)
def test_a_dollar_price_in_a_decimal_comma_list_is_refused_saying_the_separators_in_russian(
    distributor: Supplier, thousands: str, russian: str
) -> None:
    """Before: "…(десятичный разделитель «,», тысячи «space»)", an English word in the Russian sentence."""
    distributor.thousands_separator = thousands
    distributor.save()
    body = csv_bytes(["Part number,Price,Stock,Lead time", 'rtx-4090,"$1,199.00",10+,5'])
    price_import = price_list_preview(supplier=distributor, filename="usd.csv", content=body)
    [error] = price_import.report["errors"]
    said = RowError(**{key: error[key] for key in ("line", "field", "column", "value", "message", "params")})
    with translation.override("ru"):
        assert said.text == (
            f"Строка 2, столбец Price, значение '$1,199.00': не число в записи этого поставщика {russian}"
        )


def test_a_missing_column_and_a_missing_header_are_named_as_price_lists_write_them(distributor: Supplier) -> None:
    """Before: "Строка 1, столбец lead_time_days, значение '': столбца нет" and "…и артикул (sku), и цена
    (purchase_price)": our field names, which no price list writes. A supplier's own mapped header is kept."""
    no_lead_time = csv_bytes(["Артикул;Цена;Остаток", "rtx-4090;1;1"])
    with translation.override("ru"):
        report = price_list_preview(supplier=distributor, filename="a.csv", content=no_lead_time).report
        assert [e["text"] for e in report["errors"]] == [
            "Строка 1, столбец Срок поставки / Lead time, значение '': столбца нет"
        ]
        nothing = price_list_preview(supplier=distributor, filename="b.csv", content=b"a;b\n1;2\n").report
        assert [e["text"] for e in nothing["errors"]] == [
            "в первых 30 строках нет заголовка, где есть и артикул (Артикул / Part number), и цена (Цена / Price)"
        ]
    distributor.column_mapping = {"lead_time_days": "Поставка, дн."}
    distributor.save()
    report = price_list_preview(supplier=distributor, filename="c.csv", content=no_lead_time).report
    assert [e["column"] for e in report["errors"]] == ["Поставка, дн."]


def test_a_part_number_written_as_our_sku_with_spaces_is_ours_and_on_order_rows_are_kept(
    distributor: Supplier,
) -> None:
    """ "RTX 3090" and "rtx_5090" are our rtx-3090 and rtx-5090 without a mapping row; "под заказ" as a lead time
    (on order, no date) is 30 working days and the rest of the file is imported with it."""
    body = csv_bytes(
        ["Артикул;Цена, руб.;Остаток;Срок поставки", "RTX 3090;95 000,00;нет;под заказ", "rtx_5090;310 000;2;5"],
        encoding="cp1251",
    )
    price_import = price_list_preview(supplier=distributor, filename="ocs.csv", content=body)
    assert price_import.report["errors"] == [] and price_import.report["unmatched"] == []
    price_list_apply(price_import=price_import)
    rtx3090 = offer(distributor, "rtx-3090")
    assert (rtx3090.purchase_price, rtx3090.stock_qty, rtx3090.lead_time_days) == (Decimal("95000.00"), 0, 30)
    assert offer(distributor, "rtx-5090").stock_qty == 2
