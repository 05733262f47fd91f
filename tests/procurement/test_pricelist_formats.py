"""Price lists as distributors send them (issue 35): encodings, delimiters, title rows above the header,
category and totals rows, part numbers we do not know or map, cells as people write them, numbers by
the supplier's separators, currencies at the CBR's rate, VAT-inclusive prices, size limits."""

from __future__ import annotations

import datetime as dt
import io
import re
import time
import zipfile
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation

from configurator.engine.availability import part_availability
from procurement.models import PriceListImport, Supplier, SupplierOffer, SupplierPartNumber
from procurement.planning import plan_line
from procurement.pricelist.files import PriceListTooLarge
from procurement.selectors import offer_book
from procurement.services import list_prices_follow_offers, price_list_apply, price_list_preview
from tests.factories import catalog_staff
from tests.procurement.conftest import VALID, csv_bytes, offer, xlsx_bytes

pytestmark = pytest.mark.django_db


def _errors(price_import: PriceListImport) -> list[tuple[int, str, str, str]]:
    return [(e["line"], e["column"], e["value"], e["reason"]) for e in price_import.report["errors"]]


def test_a_windows_1251_csv_with_semicolons_decimal_commas_and_a_comma_in_the_header(distributor: Supplier) -> None:
    body = csv_bytes(
        [
            '"Прайс-лист ООО ""Дистрибьютор""";;;;;',
            '"на 04.12.2026";;;;;',
            '"Артикул";"Наименование";"Цена, руб.";"Остаток";"Срок поставки";"Действует до"',
            f'RTX-4090;"Видеокарта RTX 4090";"215 500,50";>10;"2-3 нед.";{VALID}',
            f'rtx-5090;"Видеокарта RTX 5090";"312 000,00";есть;"5 р.д.";{VALID}',
        ],
        encoding="cp1251",
    )
    price_import = price_list_preview(supplier=distributor, filename="dist.csv", content=body)
    report = price_import.report
    assert report["errors"] == []
    assert report["file"] == {
        "encoding": "Windows-1251", "delimiter": ";", "header_line": 3,
        "columns": {"sku": "Артикул", "name": "Наименование", "purchase_price": "Цена, руб.", "stock_qty": "Остаток",
                    "lead_time_days": "Срок поставки", "valid_until": "Действует до"},
    }  # fmt: skip
    price_list_apply(price_import=price_import)
    rtx4090, rtx5090 = offer(distributor, "rtx-4090"), offer(distributor, "rtx-5090")
    assert (rtx4090.purchase_price, rtx4090.stock_qty, rtx4090.lead_time_days) == (Decimal("215500.50"), 10, 15)
    assert rtx4090.valid_until == dt.date(2026, 12, 31) and rtx4090.supplier_sku == "RTX-4090"
    assert (rtx5090.purchase_price, rtx5090.stock_qty, rtx5090.lead_time_days) == (Decimal(312000), 1, 5)


def test_an_xlsx_with_title_rows_categories_totals_and_a_part_number_we_do_not_know(distributor: Supplier) -> None:
    body = xlsx_bytes(
        [
            ["ООО «Дистрибьютор», Москва"],
            ["Прайс-лист на 04.12.2026", None, None, "тел. +7 495 000-00-00"],
            [],
            ["P/N", "Наименование", "Цена, руб.", "Наличие", "Срок"],
            ["Видеокарты"],
            ["rtx-4090", "GeForce RTX 4090 24GB", 205000, "много", "в наличии"],
            ["ZT-D40900J-10P", "Zotac RTX 4090 Trinity", 199000, 2, 3],
            [],
            ["Серверные ускорители"],
            ["l40s", "NVIDIA L40S 48GB", 890000, 0, "3 нед."],
            ["Итого", None, 1294000],
        ]
    )
    price_import = price_list_preview(supplier=distributor, filename="dist.xlsx", content=body)
    report = price_import.report
    assert report["errors"] == [] and report["rows"] == 2
    assert report["file"]["header_line"] == 4
    assert report["skipped"] == {"blank": 1, "category": 2, "total": 1, "header": 0}
    assert report["unmatched"] == [{"line": 7, "part_number": "ZT-D40900J-10P", "name": "Zotac RTX 4090 Trinity"}]
    assert price_import.status == "previewed"
    price_list_apply(price_import=price_import)
    assert (offer(distributor, "rtx-4090").stock_qty, offer(distributor, "rtx-4090").lead_time_days) == (10, 0)
    assert offer(distributor, "l40s").lead_time_days == 15

    # the same part number mapped to our SKU (case and spaces ignored) is imported as that SKU, and the
    # offer keeps the supplier's part number
    SupplierPartNumber.objects.create(supplier=distributor, part_number="zt-d4090 0j-10p", sku="rtx-5090")
    again = price_list_preview(supplier=distributor, filename="dist-2.xlsx", content=body)
    assert again.report["unmatched"] == [] and again.report["rows"] == 3 and again.report["errors"] == []
    assert [move["sku"] for move in again.report["held"]] == ["rtx-5090"]  # 300 000 → 199 000: −33.7 %
    price_list_apply(price_import=again, confirm_held=True)
    rtx5090 = offer(distributor, "rtx-5090")
    assert (rtx5090.purchase_price, rtx5090.supplier_sku, rtx5090.stock_qty) == (Decimal(199000), "ZT-D40900J-10P", 2)


def test_a_price_on_request_gives_availability_but_never_a_price(distributor: Supplier) -> None:
    body = csv_bytes(["Артикул;Цена;Остаток;Срок", "rtx-4090;по запросу;>10;2-3 нед.", "rtx-5090;310 000;0;5"])
    price_import = price_list_preview(supplier=distributor, filename="dist.csv", content=body)
    assert price_import.report["errors"] == []
    assert price_import.report["without_price"] == ["rtx-4090"]
    assert price_import.report["changed"] == ["rtx-4090", "rtx-5090"]
    price_list_apply(price_import=price_import)
    rtx4090 = offer(distributor, "rtx-4090")
    assert (rtx4090.purchase_price, rtx4090.stock_qty, rtx4090.lead_time_days) == (None, 10, 15)
    # availability counts it; pricing and purchase plans never do
    infos = offer_book()["rtx-4090"]
    assert [info.unit_price for info in infos] == [None]
    assert part_availability(infos, "rtx-4090", 2, stock_days=2).in_stock_qty == 10
    planned = plan_line("rtx-4090", 2, infos, allowed_days=30, stock_days=2)
    assert planned.allocations == () and planned.short_qty == 2
    assert [(e.supplier, e.reason) for e in planned.excluded] == [("dist", "price_on_request")]
    changed = {change.sku for change in list_prices_follow_offers()}
    assert "rtx-4090" not in changed and "rtx-5090" in changed


def test_215_500_is_an_error_in_a_decimal_comma_list_and_215500_in_a_us_style_list(distributor: Supplier) -> None:
    body = csv_bytes(["Артикул;Цена;Остаток;Срок", "rtx-4090;215,500;1;5", "rtx-5090;310 000,00;1;5"])
    with translation.override("en"):
        refused = price_list_preview(supplier=distributor, filename="ru.csv", content=body)
    assert refused.status == "failed"
    assert _errors(refused) == [
        (2, "Цена", "215,500", "ambiguous: three digits after the decimal separator ',' look like a thousands group")
    ]
    assert refused.report["errors"][0]["text"] == (
        "Row 2, column Цена, value '215,500': ambiguous: three digits after the decimal separator ',' look like "
        "a thousands group"
    )
    distributor.decimal_separator, distributor.thousands_separator = ".", ","
    distributor.save()
    us = csv_bytes(["Part number,Price,Stock,Lead time", 'rtx-4090,"215,500",1,5', "rtx-5090,310000.00,1,5"])
    price_import = price_list_preview(supplier=distributor, filename="us.csv", content=us)
    assert price_import.report["errors"] == [] and price_import.report["file"]["delimiter"] == ","
    price_list_apply(price_import=price_import, confirm_held=True)
    assert offer(distributor, "rtx-4090").purchase_price == Decimal(215500)


def test_a_usd_list_keeps_dollars_and_reports_roubles_at_the_cbr_rate(distributor: Supplier, cbr_rates: None) -> None:
    body = csv_bytes(
        ["Part number;Price;Currency;Stock;Lead time", "rtx-4090;2 500,00;USD;3;5", "rtx-5090;3 900;$;1;5"]
    )
    price_import = price_list_preview(supplier=distributor, filename="usd.csv", content=body)
    report = price_import.report
    assert report["errors"] == []
    assert report["currencies"] == [
        {"currency": "USD", "rows": 2, "rate": "78.22350000", "rate_date": "2026-12-03", "source": "cbr"}
    ]
    assert report["converted"] == [
        {"line": 2, "sku": "rtx-4090", "price": "2500.00", "currency": "USD", "rub": "195558.75"},
        {"line": 3, "sku": "rtx-5090", "price": "3900", "currency": "USD", "rub": "305071.65"},
    ]
    with translation.override("en"):
        assert (
            "USD prices: 1 USD = 78.2235 RUB, the rate of 03.12.2026; offers keep USD"
            in price_list_preview(supplier=distributor, filename="usd.csv", content=body).report["notes"]
        )
    # compared in roubles: 200 000 RUB → 195 558.75 RUB is −2.2 %, not a −98.75 % move
    assert report["held"] == [] and report["changed"] == ["rtx-4090", "rtx-5090"]
    price_list_apply(price_import=price_import)
    rtx4090 = offer(distributor, "rtx-4090")
    assert (rtx4090.purchase_price, rtx4090.currency) == (Decimal("2500.00"), "USD")


def test_a_currency_without_a_rate_or_unknown_is_an_error_of_its_row(distributor: Supplier) -> None:
    body = csv_bytes(["Артикул;Цена;Валюта;Остаток;Срок", "rtx-4090;2 500;USD;3;5", "rtx-5090;1;тугрики;1;5"])
    with translation.override("en"):
        price_import = price_list_preview(supplier=distributor, filename="usd.csv", content=body)
    assert price_import.status == "failed"
    assert _errors(price_import) == [
        (2, "Валюта", "USD", "no exchange rate for USD on or before 04.12.2026"),
        (3, "Валюта", "тугрики", "unknown currency тугрики"),
    ]
    assert price_list_apply(price_import=PriceListImport.objects.create(
        supplier=distributor, filename="usd.csv", content=body, status="previewed", report={}
    )).status == "failed"  # fmt: skip


def test_rur_and_rub_words_are_roubles(distributor: Supplier) -> None:
    body = csv_bytes(["Артикул;Цена;Валюта;Остаток;Срок", "rtx-4090;201 000;RUR;3;5", "rtx-5090;12 000 руб.;руб;1;5"])
    price_import = price_list_preview(supplier=distributor, filename="rub.csv", content=body)
    assert price_import.report["errors"] == [] and price_import.report["currencies"] == [
        {"currency": "RUB", "rows": 2, "rate": None, "rate_date": None, "source": None}
    ]
    price_list_apply(price_import=price_import, confirm_held=True)
    assert {o.currency for o in SupplierOffer.objects.filter(sku__in=["rtx-4090", "rtx-5090"])} == {"RUB"}
    assert offer(distributor, "rtx-5090").purchase_price == Decimal(12000)


def test_a_vat_inclusive_list_is_stored_net(distributor: Supplier) -> None:
    distributor.prices_include_vat = True
    distributor.save()
    body = csv_bytes(["Артикул;Цена;Остаток;Срок", "rtx-4090;244 000;3;5"])
    with translation.override("en"):
        price_import = price_list_preview(supplier=distributor, filename="vat.csv", content=body)
    assert price_import.report["vat"] == {"included": True, "percent": "22.00", "day": "2026-12-04",
                                          "said_by": "the supplier's setting"}  # fmt: skip
    assert (
        "prices include VAT (the supplier's setting): stored net of 22 % VAT, the rate in force on 04.12.2026"
        in price_import.report["notes"]
    )
    price_list_apply(price_import=price_import)
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")
    # a price column headed "with VAT" says it for its file, whatever the supplier's setting
    distributor.prices_include_vat = False
    distributor.save()
    headed = csv_bytes(["Артикул;Цена с НДС, руб.;Остаток;Срок", "rtx-5090;122 000;3;5"])
    price_import = price_list_preview(supplier=distributor, filename="vat-2.csv", content=headed)
    assert price_import.report["vat"]["said_by"] == "Цена с НДС, руб."
    price_list_apply(price_import=price_import, confirm_held=True)
    assert offer(distributor, "rtx-5090").purchase_price == Decimal("100000.00")


def test_a_file_over_the_row_limit_is_refused_with_its_size(
    distributor: Supplier, settings: object, client: Client
) -> None:
    settings.PROCUREMENT_PRICE_LIST_MAX_ROWS = 5  # type: ignore[attr-defined]
    body = csv_bytes(["Артикул;Цена;Остаток;Срок", *(f"rtx-4090;{n};1;5" for n in range(1, 8))])
    with translation.override("en"), pytest.raises(PriceListTooLarge) as caught:
        price_list_preview(supplier=distributor, filename="big.csv", content=body)
    assert str(caught.value) == f"the file has more than 5 rows (the limit); it is {len(body)} bytes"
    assert not PriceListImport.objects.exists()
    client.force_login(catalog_staff())
    url = reverse("admin:procurement_supplier_price_list", args=[distributor.pk])
    page = client.post(url, {"preview": "1", "file": SimpleUploadedFile("big.csv", body)}).content.decode()
    assert f"в файле больше 5 строк (это предел); его размер {len(body)} байт" in page
    settings.PROCUREMENT_PRICE_LIST_MAX_BYTES = 100  # type: ignore[attr-defined]
    page = client.post(url, {"preview": "1", "file": SimpleUploadedFile("big.csv", body)}).content.decode()
    assert f"Файл весит {len(body)} байт; предел — 100 байт." in page
    assert not PriceListImport.objects.exists()


def test_an_xlsx_declaring_a_huge_dimension_with_few_rows_is_read_fast(distributor: Supplier) -> None:
    body = xlsx_bytes([["Артикул", "Цена", "Остаток", "Срок"], *(["rtx-4090", 201000 + n, 1, 5] for n in range(1))])
    with zipfile.ZipFile(io.BytesIO(body)) as source:
        parts = {item.filename: source.read(item.filename) for item in source.infolist()}
    sheet = "xl/worksheets/sheet1.xml"
    parts[sheet] = re.sub(rb'<dimension ref="[^"]+"\s*/>', b'<dimension ref="A1:XFD20001"/>', parts[sheet])
    assert b'ref="A1:XFD20001"' in parts[sheet]
    patched = io.BytesIO()
    with zipfile.ZipFile(patched, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in parts.items():
            target.writestr(name, data)
    started = time.monotonic()
    price_import = price_list_preview(supplier=distributor, filename="huge.xlsx", content=patched.getvalue())
    assert time.monotonic() - started < 3
    assert price_import.report["errors"] == [] and price_import.report["rows"] == 1


def test_part_numbers_are_kept_on_the_suppliers_page(distributor: Supplier, client: Client) -> None:
    from tests.security.admin_forms import form_data

    client.force_login(catalog_staff())
    url = reverse("admin:procurement_supplier_change", args=[distributor.pk])
    data = form_data(client, url)
    prefix = "part_numbers"
    data |= {f"{prefix}-0-part_number": "ZT-D40900J-10P", f"{prefix}-0-sku": "RTX-4090 "}
    assert client.post(url, data).status_code == 302
    mapped = SupplierPartNumber.objects.get(supplier=distributor)
    assert (mapped.part_number, mapped.key, mapped.sku) == ("ZT-D40900J-10P", "zt-d40900j-10p", "rtx-4090")
    again = form_data(client, url)
    again |= {f"{prefix}-1-part_number": "zt-d40900j-10p ", f"{prefix}-1-sku": "no-such-part"}
    page = client.post(url, again).content.decode()
    assert "Этот артикул поставщика уже сопоставлен." in page and "В каталоге нет позиции с таким артикулом." in page
    assert SupplierPartNumber.objects.count() == 1
