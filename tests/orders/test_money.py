"""Money across currencies (issue 35 items 1 and 8): the purchase plan and list prices compare offers in roubles
at the day's CBR rate (USD 78.2235 on 03.12.2026, finance/fixtures/cbr_daily_sample.xml); purchase lines keep
the offer's own currency; the "to buy" page, CSV and XLSX show the original amount and its roubles with the
rate's date, every total in roubles; the files open in Russian Excel (BOM, `;`, decimal commas) and never
carry a formula."""

from __future__ import annotations

import csv
import datetime as dt
import io
import logging
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from openpyxl import load_workbook

from accounts.models import User
from catalog.models import Gpu
from orders.exports import safe_text
from orders.models import Order, OrderEvent, PurchaseLine
from procurement.models import ListPriceChange, Supplier, SupplierOffer
from procurement.services import list_prices_follow_offers
from quotes.models import Quote
from tests import factories
from tests.orders.conftest import GOOD_SKUS, offer
from tests.orders.test_order_pages import browser
from tests.orders.test_orders_api import GPU, client_for

pytestmark = pytest.mark.django_db
NAME = "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"


def _suppliers(usd_price: str) -> dict[str, Supplier]:
    """Every part at "r" for 1,000.00 RUB (plenty in stock) and its GPU at 799,999.50 RUB (5 in stock); the GPU
    at "u" for `usd_price` USD (5 in stock) and at "g" for 100.00 GBP (no GBP rate is stored)."""
    made = {slug: Supplier.objects.create(slug=slug, name=f"Supplier {slug.upper()}", currency=currency)
            for slug, currency in (("r", "RUB"), ("u", "USD"), ("g", "GBP"))}  # fmt: skip
    for sku, (_, qty) in GOOD_SKUS.items():
        if sku != GPU:
            offer(made["r"], sku, "1000.00", qty * 10, 10)
    offer(made["r"], GPU, "799999.50", 5, 10)
    for slug, price in (("u", usd_price), ("g", "100.00")):
        made_offer = offer(made[slug], GPU, price, 5, 10)
        made_offer.currency = made[slug].currency
        made_offer.save()
    return made


def _order(accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User) -> Order:
    response = place(client_for(customer_user), accepted().number)
    assert response.status_code == 201, response.content
    return Order.objects.get(number=response.json()["number"])


def test_the_plan_takes_799999_50_roubles_in_stock_over_12000_dollars(
    rates_day: dt.date, accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User
) -> None:
    """12,000 USD × 78.2235 = 938,682.00 RUB > 799,999.50 RUB; 100 GBP has no rate and is not read as 100 RUB."""
    _suppliers("12000.00")
    order = _order(accepted, place, customer_user)
    gpus = PurchaseLine.objects.filter(order=order, sku=GPU)
    assert [(p.supplier.slug, p.qty, p.unit_price, p.currency, p.from_stock) for p in gpus] == [
        ("r", 2, Decimal("799999.50"), "RUB", True)
    ]
    planned = OrderEvent.objects.get(order=order, type="planned").data
    assert planned["not_compared"] == [{"sku": GPU, "supplier": "g", "currency": "GBP", "reason": "no_rate"}]
    assert (planned["late"], planned["short"], planned["rates_on"]) == ([], [], "2026-12-03")
    page = browser(factories.sales(username="s"), "ru").get(f"/orders/{order.number}").content.decode()
    assert f"Предложение g на {GPU} — в GBP, для которой нет курса: не сравнивалось" in page  # staff see why
    assert "data-not-compared" not in browser(customer_user, "ru").get(f"/orders/{order.number}").content.decode()
    assert dict(SupplierOffer.objects.filter(sku=GPU).values_list("supplier__slug", "reserved_qty")) == {
        "r": 2, "u": 0, "g": 0,
    }  # fmt: skip


def test_the_plan_takes_dollars_when_cheaper_in_roubles_and_the_to_buy_page_shows_both(
    rates_day: dt.date, accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User
) -> None:
    """9,000 USD × 78.2235 = 704,011.50 RUB < 799,999.50 RUB: the purchase line keeps 9,000.00 USD; the page
    says its roubles at the CBR rate of 03.12.2026 and totals in roubles: 2 × 704,011.50 = 1,408,023.00 at "u",
    13 parts × 1,000.00 = 13,000.00 at "r", 1,421,023.00 in all."""
    _suppliers("9000.00")
    order = _order(accepted, place, customer_user)
    gpus = PurchaseLine.objects.filter(order=order, sku=GPU)
    assert [(p.supplier.slug, p.qty, p.unit_price, p.currency) for p in gpus] == [("u", 2, Decimal("9000.00"), "USD")]
    page = browser(factories.sales(username="s"), "ru").get("/orders/purchasing").content.decode()
    assert "9\xa0000,00\xa0USD ≈ 704\xa0011,50\xa0₽ по курсу ЦБ на 03.12.2026" in page
    assert "18\xa0000,00\xa0USD ≈ 1\xa0408\xa0023,00\xa0₽ по курсу ЦБ на 03.12.2026" in page  # the line total
    assert "<dd data-total-rub>1\xa0408\xa0023,00\xa0₽</dd>" in page
    assert "<dd data-total-rub>13\xa0000,00\xa0₽</dd>" in page
    assert "<dd data-grand-total-rub>1\xa0421\xa0023,00\xa0₽</dd>" in page
    assert 'data-rates-on="2026-12-03"' in page
    detail = browser(factories.sales(username="s2"), "ru").get(f"/orders/{order.number}").content.decode()
    assert "9\xa0000,00\xa0USD ≈ 704\xa0011,50\xa0₽ по курсу ЦБ на 03.12.2026" in detail
    lists = client_for(factories.sales(username="s3")).get(f"/api/v1/orders/{order.number}/purchase-lists/").json()
    dollars = next(entry for entry in lists if entry["supplier"] == "u")
    assert (dollars["total_rub"], dollars["rates_on"]) == ("1408023.00", "2026-12-03")
    assert {k: dollars["lines"][0][k] for k in ("unit_price", "currency", "unit_price_rub", "rate", "rate_date")} == {
        "unit_price": "9000.00", "currency": "USD", "unit_price_rub": "704011.50", "rate": "78.22350000",
        "rate_date": "2026-12-03",
    }  # fmt: skip


def test_the_csv_opens_in_russian_excel_with_names_roubles_rate_date_and_totals(
    rates_day: dt.date, accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User
) -> None:
    """UTF-8 with a BOM, `;` between cells, decimal commas, DD.MM.YYYY; the part's Russian name when the catalog
    has one; a formula-looking supplier SKU neutralised with `'`; a totals row in roubles."""
    _suppliers("9000.00")
    SupplierOffer.objects.filter(supplier__slug="u").update(supplier_sku='=HYPERLINK("http://x","y")')
    order = _order(accepted, place, customer_user)
    staff = browser(factories.catalog_staff(username="cat"), "ru")
    for url in ("/orders/purchasing/u.csv", f"/orders/{order.number}/purchases/u.csv"):
        response = staff.get(url)
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        assert response.content.startswith(b"\xef\xbb\xbf")
        rows = list(csv.reader(io.StringIO(response.content.decode("utf-8")[1:]), delimiter=";"))
        assert rows == [
            ["Заказ", "Поставщик", "Артикул", "Артикул поставщика", "Наименование", "Кол-во", "Цена за ед.",
             "Валюта", "Курс, ₽ за ед.", "Дата курса", "Цена за ед., ₽", "Сумма", "Сумма, ₽", "Откуда"],
            [order.number, "u", GPU, "'=HYPERLINK(\"http://x\",\"y\")", NAME, "2", "9000,00", "USD", "78,2235",
             "03.12.2026", "704011,50", "18000,00", "1408023,00", "со склада"],
            ["Итого, ₽", "", "", "", "", "2", "", "", "", "", "", "", "1408023,00", ""],
        ], url  # fmt: skip
    rows = list(
        csv.reader(io.StringIO(staff.get("/orders/purchasing/r.csv").content.decode("utf-8-sig")), delimiter=";")
    )
    names = {row[2]: row[4] for row in rows[1:-1]}
    assert names["ddr5-rdimm-64gb"] == "Модуль памяти DDR5-5600 RDIMM 64 ГБ ECC"  # the Russian name
    assert rows[-1] == ["Итого, ₽", "", "", "", "", "13", "", "", "", "", "", "", "13000,00", ""]
    assert [row[7] for row in rows[1:-1]] == ["RUB"] * 5 and {row[8] for row in rows[1:-1]} == {""}


def test_the_xlsx_has_number_formats_the_rate_date_a_totals_row_and_no_formula(
    rates_day: dt.date, accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User
) -> None:
    _suppliers("9000.00")
    SupplierOffer.objects.filter(supplier__slug="u").update(supplier_sku="=1+2")
    order = _order(accepted, place, customer_user)
    staff = browser(factories.catalog_staff(username="cat"), "ru")
    for url in ("/orders/purchasing/u.xlsx", f"/orders/{order.number}/purchases/u.xlsx"):
        sheet = load_workbook(io.BytesIO(staff.get(url).content)).worksheets[0]
        header, line, totals = (list(row) for row in sheet.iter_rows())
        assert header[0].value == "Заказ" and len(header) == 14
        values = [cell.value for cell in line]
        assert values[9].date() == dt.date(2026, 12, 3)  # a date cell (openpyxl reads dates back as datetimes)
        assert values[:9] + values[10:] == [
            order.number, "u", GPU, "'=1+2", NAME, 2, 9000, "USD", 78.2235, 704011.5, 18000, 1408023, "со склада",
        ]  # fmt: skip
        assert line[3].data_type == "s"  # text, not a formula
        assert line[5].number_format == "0"
        assert {line[i].number_format for i in (6, 10, 11, 12)} == {"#,##0.00"}
        assert (line[8].number_format, line[9].number_format) == ("#,##0.0000", "DD.MM.YYYY")
        assert [totals[0].value, totals[5].value, totals[12].value] == ["Итого, ₽", 2, 1408023]
        assert totals[12].number_format == "#,##0.00" and totals[0].font.bold


def test_cells_a_spreadsheet_would_run_are_prefixed() -> None:
    for text in ("=SUM(A1)", "+7 495", "-1", "@cmd", "\tx", "\rx"):
        assert safe_text(text) == f"'{text}"
    for text in ("rtx-4090", "O-2026-000001", "Поставщик", ""):
        assert safe_text(text) == text


def test_list_prices_follow_the_cheapest_offer_in_roubles_at_the_days_rate(
    rates_day: dt.date, catalog: None, caplog: pytest.LogCaptureFixture
) -> None:
    """rtx-4090: 2,000 USD × 78.2235 = 156,447.00 RUB beats 200,000.00 RUB; + 18 % = 184,607.46. 1.00 GBP has
    no rate: skipped with a logged reason, never 1 RUB. rtx-5090 has only dollars: 3,000 USD = 234,670.50 RUB,
    + 18 % = 276,911.19."""
    made = {slug: Supplier.objects.create(slug=slug, name=slug, currency=currency)
            for slug, currency in (("r", "RUB"), ("u", "USD"), ("g", "GBP"))}  # fmt: skip
    for slug, sku, price in (("r", "rtx-4090", "200000.00"), ("u", "rtx-4090", "2000.00"),
                             ("g", "rtx-4090", "1.00"), ("u", "rtx-5090", "3000.00")):  # fmt: skip
        created = offer(made[slug], sku, price, 1, 5)
        created.currency = made[slug].currency
        created.save()
    with caplog.at_level(logging.WARNING, logger="procurement.services"):
        changes = list_prices_follow_offers()
    assert [(c.sku, c.new_price, c.offer.supplier.slug if c.offer else None) for c in changes] == [
        ("rtx-4090", Decimal("184607.46"), "u"),
        ("rtx-5090", Decimal("276911.19"), "u"),
    ]
    assert Gpu.objects.get(sku="rtx-4090").list_price == Decimal("184607.46")
    assert any("rtx-4090" in message and "no_rate" in message for message in caplog.messages)
    assert ListPriceChange.objects.count() == 2
    assert list_prices_follow_offers() == []
