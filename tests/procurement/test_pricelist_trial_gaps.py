"""Three gaps the issue-35 trial left: a list with a stock column per warehouse (the first was read, the others
dropped), a CSV saved by a Mac in Mac Cyrillic (read as Windows-1251: "no header"), and two files in one API
request (the last was taken)."""

from __future__ import annotations

import pytest

from procurement.models import Supplier
from procurement.pricelist.files import decoded
from procurement.services import price_list_apply, price_list_preview
from tests.procurement.conftest import offer

pytestmark = pytest.mark.django_db


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
