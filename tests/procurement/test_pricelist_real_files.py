"""Price lists as a purchasing manager got them from distributors (issue 35 trial): what the title rows say of
VAT, files that are no spreadsheet, and messages that stay in the reader's language."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import translation

from procurement.models import Supplier
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
