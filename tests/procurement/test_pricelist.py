"""Supplier price lists through the admin: preview, errors with line/column/value, apply, history."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from openpyxl import Workbook

from procurement.models import PriceListImport, Supplier, SupplierOffer
from procurement.services import price_list_apply, price_list_preview
from tests.factories import catalog_staff, sales

pytestmark = pytest.mark.django_db

VALID = (timezone.localdate() + dt.timedelta(days=30)).isoformat()


@pytest.fixture
def supplier(catalog: None) -> Supplier:
    supplier = Supplier.objects.create(
        slug="acme",
        name="Acme",
        column_mapping={"sku": "Артикул", "purchase_price": "Цена", "stock_qty": "Остаток", "lead_time_days": "Срок"},
    )
    for sku, price in (("rtx-4090", "200000.00"), ("rtx-5090", "300000.00"), ("l40s", "900000.00")):
        SupplierOffer.objects.create(
            supplier=supplier, sku=sku, kind="gpus", purchase_price=Decimal(price), stock_qty=3,
            lead_time_days=10, valid_until=timezone.localdate() + dt.timedelta(days=10),
        )  # fmt: skip
    return supplier


def _csv(rows: list[str]) -> bytes:
    return ("Артикул;Цена;Остаток;Срок;valid_until\n" + "\n".join(rows) + "\n").encode()


def _snapshot() -> list[tuple[str, Decimal | None, int, int]]:
    return list(
        SupplierOffer.objects.order_by("sku").values_list("sku", "purchase_price", "stock_qty", "lead_time_days")
    )


def test_a_bad_row_changes_nothing_and_names_line_column_and_value(client: Client, supplier: Supplier) -> None:
    before = _snapshot()
    client.force_login(catalog_staff())
    url = reverse("admin:procurement_supplier_price_list", args=[supplier.pk])
    body = _csv([f"rtx-4090;210000;5;7;{VALID}", f"rtx-5090;три сотни;5;7;{VALID}", f"h200-nvl;3000000;1;20;{VALID}"])
    response = client.post(url, {"preview": "1", "file": SimpleUploadedFile("acme.csv", body)})
    assert response.status_code == 200
    page = response.content.decode()
    assert "1 ошибка в acme.csv" in page  # the admin speaks Russian
    assert "Строка 3, столбец Цена, значение &#x27;три сотни&#x27;: не число" in page
    price_import = PriceListImport.objects.get()
    assert price_import.status == "failed"
    assert price_import.report["errors"] == [
        {
            "line": 3,
            "field": "purchase_price",
            "column": "Цена",
            "value": "три сотни",
            "message": "not a number",
            "params": {},
            "reason": "не число",
            "text": "Строка 3, столбец Цена, значение 'три сотни': не число",
        }
    ]
    assert 'name="apply"' not in page
    response = client.post(url, {"apply": "1", "import_id": price_import.pk})
    assert _snapshot() == before
    assert SupplierOffer.history.filter(history_type="~").count() == 0


def test_unknown_sku_duplicate_and_missing_column_are_reported(supplier: Supplier) -> None:
    """Issue 35 changed this test: a part number we do not know is listed as unmatched, not an error (the file
    is still applied); `sku` and `price` headers are synonyms of the mapped ones; valid_until is optional."""
    body = _csv([f"no-such-part;1;1;1;{VALID}", f"rtx-4090;1;1;1;{VALID}", "rtx-4090;2;1;400;01.13.2026"])
    with translation.override("en"):
        report = price_list_preview(supplier=supplier, filename="a.csv", content=body).report
    assert [(e["line"], e["column"], e["value"], e["reason"]) for e in report["errors"]] == [
        (4, "Артикул", "rtx-4090", "the SKU is already on row 3"),
        (4, "Срок", "400", "must be between 0 and 365"),
        (4, "valid_until", "01.13.2026", "not a date (YYYY-MM-DD or DD.MM.YYYY)"),
    ]
    assert report["unmatched"] == [{"line": 2, "part_number": "no-such-part", "name": ""}]
    missing = price_list_preview(supplier=supplier, filename="b.csv", content=b"sku;price\nrtx-4090;1\n").report
    assert [(e["line"], e["column"], e["message"]) for e in missing["errors"]] == [
        (1, "Остаток", "the column is missing"),
        (1, "Срок", "the column is missing"),
    ]
    nothing = price_list_preview(supplier=supplier, filename="c.csv", content=b"a;b\n1;2\n").report
    assert [(e["line"], e["message"]) for e in nothing["errors"]] == [
        (0, "no header in the first %(rows)s rows names both a part number (%(sku)s) and a price (%(price)s)")
    ]


def test_a_bad_price_is_named_by_row_column_and_value_in_english_and_russian(supplier: Supplier) -> None:
    """Issue 16: the first data row is row 2 as in the file; the second data row with a bad price is row 3."""
    supplier.column_mapping = {**supplier.mapping(), "purchase_price": "price"}
    supplier.save()
    body = f"Артикул;price;Остаток;Срок;valid_until\nrtx-4090;210000;5;7;{VALID}\nrtx-5090;abc;5;7;{VALID}\n".encode()
    with translation.override("en"):
        english = price_list_preview(supplier=supplier, filename="a.csv", content=body).report["errors"]
    with translation.override("ru"):
        russian = price_list_preview(supplier=supplier, filename="a.csv", content=body).report["errors"]
    assert [error["text"] for error in english] == ["Row 3, column price, value 'abc': not a number"]
    assert [error["text"] for error in russian] == ["Строка 3, столбец price, значение 'abc': не число"]


def test_a_good_list_previews_then_applies_and_logs_each_price_change(client: Client, supplier: Supplier) -> None:
    """Issue 35 changed this test: the list is uploaded as a full one (a partial list, the default, retires
    nothing), and its retirement is applied only once confirmed."""
    client.force_login(catalog_staff())
    url = reverse("admin:procurement_supplier_price_list", args=[supplier.pk])
    body = _csv([f"rtx-4090;220000,00;5;7;{VALID}", f"rtx-5090;303000;0;21;{VALID}", f"h200-nvl;3000000;1;20;{VALID}"])
    response = client.post(url, {"preview": "1", "scope": "full", "file": SimpleUploadedFile("acme.csv", body)})
    page = response.content.decode()
    assert "Проверка acme.csv: 3 строки" in page
    assert "rtx-4090: 200000.00 → 220000.00 (+10.0 %)" in page
    assert "Исчезнувшие предложения: 1 предложения нет в этом полном списке" in page
    assert SupplierOffer.objects.get(sku="rtx-4090").purchase_price == Decimal("200000.00")  # preview only
    price_import = PriceListImport.objects.get()
    assert price_import.report["new"] == ["h200-nvl"]
    assert price_import.report["changed"] == ["rtx-5090"]  # +1 %: within the 5 % threshold
    assert price_import.report["gone"] == ["l40s"]
    assert price_import.status == "held"

    response = client.post(url, {"apply": "1", "import_id": price_import.pk})  # the retirement not confirmed
    assert response.status_code == 200
    assert SupplierOffer.objects.get(sku="rtx-4090").purchase_price == Decimal("200000.00")
    assert PriceListImport.objects.get().status == "held"
    response = client.post(url, {"apply": "1", "import_id": price_import.pk, "confirm_retire": "on"})
    assert response.status_code == 302
    offers = {o.sku: o for o in SupplierOffer.objects.filter(supplier=supplier)}
    assert (offers["rtx-4090"].purchase_price, offers["rtx-4090"].stock_qty, offers["rtx-4090"].lead_time_days) == (
        Decimal("220000.00"), 5, 7,
    )  # fmt: skip
    assert offers["h200-nvl"].kind == "gpus"
    assert offers["l40s"].is_stale and offers["l40s"].stock_qty == 0
    history = offers["rtx-4090"].history.order_by("history_date")
    assert [h.purchase_price for h in history] == [Decimal("200000.00"), Decimal("220000.00")]
    assert PriceListImport.objects.get().status == "applied"
    with pytest.raises(ValueError, match="applied, not previewed"):
        price_list_apply(price_import=PriceListImport.objects.get())


def test_xlsx_lists_read_through_the_mapping(supplier: Supplier) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Артикул", "Цена", "Остаток", "Срок", "valid_until"])
    sheet.append(["RTX-4090", 199000.5, 2, 5, dt.datetime(2099, 1, 31)])  # noqa: DTZ001
    buffer = io.BytesIO()
    book.save(buffer)
    price_import = price_list_preview(supplier=supplier, filename="acme.xlsx", content=buffer.getvalue())
    assert price_import.report["errors"] == []
    price_list_apply(price_import=price_import)
    offer = SupplierOffer.objects.get(supplier=supplier, sku="rtx-4090")
    assert (offer.purchase_price, offer.stock_qty, offer.valid_until) == (Decimal("199000.50"), 2, dt.date(2099, 1, 31))


def test_stale_offers_are_flagged_in_the_admin(client: Client, supplier: Supplier) -> None:
    SupplierOffer.objects.filter(sku="l40s").update(valid_until=timezone.localdate() - dt.timedelta(days=1))
    client.force_login(catalog_staff())
    page = client.get(reverse("admin:procurement_supplieroffer_changelist") + "?stale=yes").content.decode()
    assert "l40s" in page and "rtx-4090" not in page
    assert SupplierOffer.objects.get(sku="l40s").is_stale and not SupplierOffer.objects.get(sku="rtx-4090").is_stale


def test_sales_cannot_upload_a_price_list(client: Client, supplier: Supplier) -> None:
    client.force_login(sales())
    url = reverse("admin:procurement_supplier_price_list", args=[supplier.pk])
    body = _csv([f"rtx-4090;1;1;1;{VALID}"])
    response = client.post(url, {"preview": "1", "file": SimpleUploadedFile("acme.csv", body)})
    assert response.status_code == 403
    assert not PriceListImport.objects.exists()
