"""Three gaps the issue-35 trial left: a list with a stock column per warehouse (the first was read, the others
dropped), a CSV saved by a Mac in Mac Cyrillic (read as Windows-1251: "no header"), and two files in one API
request (the last was taken)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation
from rest_framework.test import APIClient

from procurement.models import PriceListImport, Supplier
from procurement.pricelist.files import decoded
from procurement.services import price_list_apply, price_list_preview
from tests.factories import catalog_staff
from tests.procurement.conftest import csv_bytes, offer, xlsx_bytes

pytestmark = pytest.mark.django_db


# --------------------------------------------------------------------------- several stock columns


def test_stock_columns_per_warehouse_are_summed_by_the_stock_rules_and_named(distributor: Supplier) -> None:
    """Before: "Склад Москва" was read, "Склад СПб" dropped (rtx-4090 had 5, not 5 + 10)."""
    body = csv_bytes(
        [
            "Артикул;Цена;Склад Москва;Склад СПб;Срок",
            "rtx-4090;200 000;5;>10;5",
            "rtx-5090;300 000;много;;5",  # много: STOCK_MANY (10); blank: 0
            "l40s;900 000;нет;2;5",
        ]
    )
    price_import = price_list_preview(supplier=distributor, filename="two.csv", content=body)
    report = price_import.report
    assert report["errors"] == []
    assert report["file"]["columns"]["stock_qty"] == "Склад Москва + Склад СПб"
    assert "остатки сложены из 2 столбцов: Склад Москва, Склад СПб" in report["notes"]  # Russian by default
    price_list_apply(price_import=price_import)
    stocks = [offer(distributor, sku).stock_qty for sku in ("rtx-4090", "rtx-5090", "l40s")]
    assert stocks == [15, 10, 2]


def test_three_stock_columns_in_a_workbook_and_a_bad_cell_names_its_own_column(distributor: Supplier) -> None:
    header = ["Артикул", "Цена", "Остаток МСК", "Остаток СПб", "Stock EU", "Срок"]
    good = xlsx_bytes([header, ["rtx-4090", 200000, 1, "10+", 3, 5]])
    with translation.override("en"):
        price_import = price_list_preview(supplier=distributor, filename="three.xlsx", content=good)
    assert price_import.report["errors"] == []
    assert "3 stock columns are summed: Остаток МСК, Остаток СПб, Stock EU" in price_import.report["notes"]
    price_list_apply(price_import=price_import)
    assert offer(distributor, "rtx-4090").stock_qty == 14

    bad = xlsx_bytes([header, ["rtx-4090", 200000, 1, "уточняйте", 3, 5]])
    [error] = price_list_preview(supplier=distributor, filename="bad.xlsx", content=bad).report["errors"]
    assert (error["line"], error["column"], error["value"]) == (2, "Остаток СПб", "уточняйте")


def test_warehouses_within_the_stock_bound_each_but_not_together_are_an_error_of_their_sum(
    distributor: Supplier,
) -> None:
    body = csv_bytes(["Артикул;Цена;Склад Москва;Склад СПб;Срок", "rtx-4090;200 000;600 000;500 000;5"])
    [error] = price_list_preview(supplier=distributor, filename="sum.csv", content=body).report["errors"]
    assert (error["line"], error["column"], error["value"], error["params"]) == (
        2, "Склад Москва + Склад СПб", "600 000 + 500 000", {"top": 1_000_000}
    )  # fmt: skip


def test_a_total_stock_column_beside_per_warehouse_ones_is_read_alone(distributor: Supplier) -> None:
    """The total, "Остаток" (an exact name), beside "Остаток МСК" and "Остаток СПб" (its parts): summing them
    all would count each unit twice."""
    body = csv_bytes(["Артикул;Цена;Остаток;Остаток МСК;Остаток СПб;Срок", "rtx-4090;200 000;7;3;4;5"])
    price_import = price_list_preview(supplier=distributor, filename="total.csv", content=body)
    assert price_import.report["errors"] == [] and price_import.report["file"]["columns"]["stock_qty"] == "Остаток"
    assert not any("столб" in note for note in price_import.report["notes"])
    price_list_apply(price_import=price_import)
    assert offer(distributor, "rtx-4090").stock_qty == 7


def test_two_columns_each_named_a_stock_word_are_one_stock_said_twice_the_first_read(distributor: Supplier) -> None:
    """A "Наличие" column (есть/нет) beside "Количество" (units): the same stock twice, never 1 + 4."""
    body = csv_bytes(["Артикул;Цена;Наличие;Количество;Срок", "rtx-4090;200 000;есть;4;5"])
    price_import = price_list_preview(supplier=distributor, filename="twice.csv", content=body)
    assert "несколько столбцов остатка (Наличие, Количество): читается Наличие" in price_import.report["notes"]
    price_list_apply(price_import=price_import)
    assert offer(distributor, "rtx-4090").stock_qty == 1


def test_a_stock_in_transit_column_is_not_added_to_the_stock(distributor: Supplier) -> None:
    body = csv_bytes(["Артикул;Цена;Склад Москва;Склад в пути;Срок", "rtx-4090;200 000;2;40;5"])
    price_import = price_list_preview(supplier=distributor, filename="transit.csv", content=body)
    assert price_import.report["errors"] == []
    price_list_apply(price_import=price_import)
    assert offer(distributor, "rtx-4090").stock_qty == 2


# --------------------------------------------------------------------------- Mac Cyrillic

MAC_LIST = (
    "Прайс-лист ООО «Шина» на 04.12.2026\r\n"
    "Артикул;Наименование;Цена, руб.;Остаток;Срок поставки\r\n"
    'rtx-4090;Видеокарта NVIDIA GeForce RTX 4090;"215 500,00";>10;"2-3 нед."\r\n'
    "rtx-5090;Шасси не нужно, только карта;312 000,00;много;5 раб. дней\r\n"
)


def test_a_mac_cyrillic_csv_is_read_as_mac_cyrillic(distributor: Supplier) -> None:
    """Before: decoded as Windows-1251 the capitals came out as "Ђртикул", "no header in the first 30 rows"."""
    content = MAC_LIST.encode("mac_cyrillic")
    assert decoded(content) == (MAC_LIST, "Mac Cyrillic")
    price_import = price_list_preview(supplier=distributor, filename="mac.csv", content=content)
    assert price_import.report["errors"] == [] and price_import.report["file"]["encoding"] == "Mac Cyrillic"
    price_list_apply(price_import=price_import)
    assert (offer(distributor, "rtx-4090").stock_qty, offer(distributor, "rtx-5090").stock_qty) == (10, 10)


LISTS = [
    MAC_LIST,
    "Артикул;Цена;Остаток;Срок\nrtx-4090;215 500;5;7\n",
    "Part number;Описание;Price;Склад Москва;Срок\nRTX-4090;Видеокарта игровая, всё включено;1 850,50;>10;2-3 нед.\n",
    "Код;Товар;Цена с НДС;Наличие;Поставка\nl40s;Ускоритель — для ЦОД, «под заказ»;900 000;есть;под заказ\n",
    "АРТИКУЛ;ЦЕНА;ОСТАТОК;СРОК\nh200-nvl;3 000 000;нет;6 недель\n",
    "Прайс на декабрь\nартикул;цена;наличие;срок\nrtx-5090;312 000;много;5 раб. дней\n",
]


@pytest.mark.parametrize("text", LISTS)
@pytest.mark.parametrize(("codec", "name"), [("mac_cyrillic", "Mac Cyrillic"), ("cp1251", "Windows-1251")])
def test_mac_cyrillic_and_windows_1251_are_told_apart(text: str, codec: str, name: str) -> None:
    """The same lists in both code pages: each is read back as written (a Windows-1251 list is never taken for a
    Mac one: the capitals, "я" and "ё" sit at different bytes, and only the right code page makes words of
    them)."""
    assert decoded(text.encode(codec)) == (text, name)


# --------------------------------------------------------------------------- one file per request

URL = "/api/v1/suppliers/dist/price-lists"
HEADER = "Артикул;Цена;Остаток;Срок"


@pytest.mark.parametrize("second_field", ["file", "file2"])
def test_two_files_in_one_request_are_400_and_nothing_is_stored(distributor: Supplier, second_field: str) -> None:
    """Before: the last `file` was previewed and applied, the first dropped without a word."""
    client = APIClient()
    client.force_authenticate(catalog_staff())
    first = SimpleUploadedFile("a.csv", csv_bytes([HEADER, "rtx-4090;220 000;5;7"]))
    second = SimpleUploadedFile("b.csv", csv_bytes([HEADER, "rtx-4090;230 000;5;7"]))
    data: dict[str, Any] = (
        {"file": [first, second]} if second_field == "file" else {"file": first, second_field: second}
    )
    response = client.post(URL, {**data, "apply": "true"}, format="multipart")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["fields"] == {"file": ["one file per request (2 files were sent)"]}
    assert not PriceListImport.objects.exists()
    assert str(offer(distributor, "rtx-4090").purchase_price) == "200000.00"
