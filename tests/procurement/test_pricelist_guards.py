"""What keeps a price list from doing harm (issue 35): a partial list retires nothing; a full list retires
only after confirmation and never offers holding reservations; big price moves are held for a person
(in the admin and in the drop folder's review/); an earlier file is applied again only on purpose."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from procurement.dropbox import price_list_drop_scan
from procurement.models import PriceListImport, Supplier, SupplierOffer
from procurement.services import price_list_apply, price_list_preview
from tests.factories import catalog_staff
from tests.procurement.conftest import csv_bytes, offer

pytestmark = pytest.mark.django_db

HEADER = "Артикул;Цена;Остаток;Срок"


def _snapshot() -> list[tuple[Any, ...]]:
    return list(SupplierOffer.objects.order_by("sku").values_list("sku", "purchase_price", "stock_qty", "valid_until"))


def _report(path: Path) -> dict[str, Any]:
    return json.loads(path.with_name(path.name + ".report.json").read_text(encoding="utf-8"))


def _put(path: Path, body: bytes) -> None:
    """Drop a file as a person would now: the clock is the test's fixed day (conftest.import_day) and the scan
    waits for files younger than the settle time, so the file's time is that day's too, not the machine's."""
    path.write_bytes(body)
    now = time.time()
    os.utime(path, (now, now))


@pytest.fixture
def drop(tmp_path: Path, settings: object, distributor: Supplier) -> Path:
    settings.PROCUREMENT_PRICE_LIST_DROP_DIR = str(tmp_path)  # type: ignore[attr-defined]
    settings.PROCUREMENT_PRICE_LIST_SETTLE_SECONDS = 0  # type: ignore[attr-defined]
    (tmp_path / distributor.slug).mkdir()
    return tmp_path / distributor.slug


def test_a_three_row_partial_list_retires_nothing(distributor: Supplier) -> None:
    body = csv_bytes([HEADER, "rtx-4090;201 000;3;5", "rtx-5090;301 000;3;5", "l40s;901 000;3;5"])
    price_import = price_list_preview(supplier=distributor, filename="part.csv", content=body)
    assert (price_import.scope, price_import.status, price_import.report["gone"]) == ("partial", "previewed", [])
    price_list_apply(price_import=price_import)
    assert not offer(distributor, "h200-nvl").is_stale and offer(distributor, "h200-nvl").stock_qty == 3
    assert not offer(distributor, "a100-80gb-pcie").is_stale


def test_a_full_list_retires_missing_offers_once_confirmed_except_reserved_ones(distributor: Supplier) -> None:
    SupplierOffer.objects.filter(sku="a100-80gb-pcie").update(reserved_qty=2)
    body = csv_bytes([HEADER, "rtx-4090;201 000;3;5", "rtx-5090;301 000;3;5", "l40s;901 000;3;5"])
    price_import = price_list_preview(supplier=distributor, filename="full.csv", content=body, scope="full")
    assert price_import.status == "held"
    assert price_import.report["gone"] == ["h200-nvl"]
    assert price_import.report["gone_reserved"] == ["a100-80gb-pcie"]
    assert price_import.report["needs_confirmation"] == {"held": 0, "gone": 1}
    before = _snapshot()
    refused = price_list_apply(price_import=price_import)  # not confirmed: nothing changes
    assert refused.status == "held" and refused.report["unconfirmed"] == {"held": [], "gone": ["h200-nvl"]}
    assert _snapshot() == before
    applied = price_list_apply(price_import=price_import, confirm_retire=True)
    assert applied.status == "applied"
    h200, a100 = offer(distributor, "h200-nvl"), offer(distributor, "a100-80gb-pcie")
    assert h200.is_stale and h200.stock_qty == 0
    assert not a100.is_stale and (a100.stock_qty, a100.reserved_qty) == (3, 2)  # holds reservations: kept
    assert offer(distributor, "rtx-4090").purchase_price == Decimal(201000)


def test_the_suppliers_setting_makes_its_lists_full(distributor: Supplier) -> None:
    distributor.default_scope = "full"
    distributor.save()
    body = csv_bytes([HEADER, "rtx-4090;201 000;3;5"])
    price_import = price_list_preview(supplier=distributor, filename="full.csv", content=body)
    assert price_import.scope == "full" and len(price_import.report["gone"]) == 4
    assert (
        price_list_preview(supplier=distributor, filename="p.csv", content=body, scope="partial").report["gone"] == []
    )


def test_a_price_move_beyond_the_hold_share_is_applied_only_when_confirmed_as_previewed(distributor: Supplier) -> None:
    body = csv_bytes([HEADER, "rtx-4090;200;3;5", "rtx-5090;302 000;3;5"])  # 200 000 → 200: −99.9 %
    price_import = price_list_preview(supplier=distributor, filename="typo.csv", content=body)
    assert price_import.status == "held"
    assert price_import.report["held"] == [
        {"sku": "rtx-4090", "old": "200000.00", "new": "200", "currency": "RUB", "old_currency": "RUB",
         "percent": "-99.9"}
    ]  # fmt: skip
    before = _snapshot()
    assert price_list_apply(price_import=price_import).status == "held"
    assert _snapshot() == before
    # the offer moved since the preview: what is held now was never shown, so the confirmation does not cover it
    SupplierOffer.objects.filter(sku="rtx-5090").update(purchase_price=Decimal(100000))
    stale = price_list_apply(price_import=price_import, confirm_held=True)
    assert stale.status == "held" and stale.report["unconfirmed"]["held"] == ["rtx-5090"]
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")
    applied = price_list_apply(price_import=stale, confirm_held=True)  # the report now shows both
    assert applied.status == "applied" and offer(distributor, "rtx-4090").purchase_price == Decimal(200)


def test_a_held_move_in_the_drop_folder_waits_in_review_until_a_person_applies_it(
    drop: Path, distributor: Supplier, client: Client
) -> None:
    _put(drop / "typo.csv", csv_bytes([HEADER, "rtx-4090;200;3;5"]))
    [outcome] = price_list_drop_scan()
    assert (outcome.outcome, outcome.moved_to) == ("held", "review")
    assert (drop / "review" / "typo.csv").exists() and not (drop / "typo.csv").exists()
    report = _report(drop / "review" / "typo.csv")
    assert report["outcome"] == "held" and report["status"] == "held"
    assert [move["percent"] for move in report["held"]] == ["-99.9"]
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")
    price_import = PriceListImport.objects.get()
    assert (price_import.status, price_import.source) == ("held", "drop")
    assert price_list_drop_scan() == []  # it waits
    # the same bytes dropped again are a duplicate of the held import
    _put(drop / "again.csv", (drop / "review" / "typo.csv").read_bytes())
    [duplicate] = price_list_drop_scan()
    assert (duplicate.outcome, duplicate.import_id) == ("duplicate", price_import.pk)

    client.force_login(catalog_staff())
    url = reverse("admin:procurement_supplier_price_list", args=[distributor.pk])
    page = client.get(url, {"import": price_import.pk}).content.decode()
    assert "rtx-4090: 200000.00 RUB → 200 RUB (-99.9 %)" in page and 'name="confirm_held"' in page
    client.post(url, {"apply": "1", "import_id": price_import.pk})
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")  # not confirmed
    response = client.post(url, {"apply": "1", "import_id": price_import.pk, "confirm_held": "on"})
    assert response.status_code == 302
    assert offer(distributor, "rtx-4090").purchase_price == Decimal(200)
    [moved] = price_list_drop_scan()
    assert (moved.filename, moved.outcome, moved.moved_to) == ("typo.csv", "applied", "done")
    assert (drop / "done" / "typo.csv").exists() and not (drop / "review" / "typo.csv").exists()
    assert _report(drop / "done" / "typo.csv")["status"] == "applied"


def test_a_discarded_held_file_goes_from_review_to_failed(drop: Path, distributor: Supplier, client: Client) -> None:
    _put(drop / "typo.csv", csv_bytes([HEADER, "rtx-4090;200;3;5"]))
    price_list_drop_scan()
    price_import = PriceListImport.objects.get()
    client.force_login(catalog_staff())
    url = reverse("admin:procurement_supplier_price_list", args=[distributor.pk])
    client.post(url, {"discard": "1", "import_id": price_import.pk})
    assert PriceListImport.objects.get().status == "failed"
    [moved] = price_list_drop_scan()
    assert (moved.outcome, moved.moved_to) == ("discarded", "failed")
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")


def test_an_earlier_file_is_applied_again_only_on_purpose(drop: Path, distributor: Supplier, client: Client) -> None:
    first = csv_bytes([HEADER, "rtx-4090;210 000;3;5"])
    _put(drop / "nov.csv", first)
    price_list_drop_scan()
    SupplierOffer.objects.filter(sku="rtx-4090").update(purchase_price=Decimal(205000))  # a later list
    _put(drop / "nov.csv", first)  # dropped again by accident: a duplicate
    [duplicate] = price_list_drop_scan()
    assert duplicate.outcome == "duplicate" and offer(distributor, "rtx-4090").purchase_price == Decimal(205000)
    (drop / "force").mkdir()
    _put(drop / "force" / "nov.csv", first)  # on purpose
    [forced] = price_list_drop_scan()
    assert (forced.filename, forced.outcome, forced.moved_to) == ("nov.csv", "applied", "done")
    assert offer(distributor, "rtx-4090").purchase_price == Decimal(210000)
    assert list((drop / "force").iterdir()) == []
    assert PriceListImport.objects.filter(forced=True, status="applied").count() == 1

    # in the admin: "apply again" on the earlier import makes a new preview of the same bytes
    SupplierOffer.objects.filter(sku="rtx-4090").update(purchase_price=Decimal(205000))
    earlier = PriceListImport.objects.filter(forced=False, status="applied").get()
    client.force_login(catalog_staff())
    response = client.post(
        reverse("admin:procurement_pricelistimport_changelist"),
        {"action": "apply_again", "_selected_action": [earlier.pk]},
    )
    again = PriceListImport.objects.latest("pk")
    assert response.status_code == 302 and response["Location"].endswith(f"?import={again.pk}")
    assert (again.forced, again.status, bytes(again.content), again.source) == (True, "previewed", first, "admin")
    client.post(reverse("admin:procurement_supplier_price_list", args=[distributor.pk]),
                {"apply": "1", "import_id": again.pk})  # fmt: skip
    assert offer(distributor, "rtx-4090").purchase_price == Decimal(210000)


def test_a_file_over_the_limits_in_the_drop_folder_goes_to_failed_with_its_size(
    drop: Path, settings: object, distributor: Supplier
) -> None:
    settings.PROCUREMENT_PRICE_LIST_MAX_BYTES = 10  # type: ignore[attr-defined]
    body = csv_bytes([HEADER, "rtx-4090;210 000;3;5"])
    _put(drop / "big.csv", body)
    [outcome] = price_list_drop_scan()
    assert (outcome.outcome, outcome.moved_to) == ("failed", "failed")
    [error] = _report(drop / "failed" / "big.csv")["errors"]
    assert str(len(body)) in error["text"] and error["line"] == 0
    assert not PriceListImport.objects.exists()


def test_stock_never_drops_below_reservations_and_valid_until_defaults(distributor: Supplier) -> None:
    SupplierOffer.objects.filter(sku="rtx-4090").update(reserved_qty=2)
    with translation.override("en"):
        price_import = price_list_preview(
            supplier=distributor, filename="a.csv", content=csv_bytes([HEADER, "rtx-4090;200 000;нет;5"])
        )
    assert price_import.report["notes"] == ["1 offer without a valid-until date is valid until 03.01.2027 (30 days)"]
    price_list_apply(price_import=price_import)
    rtx4090 = offer(distributor, "rtx-4090")
    assert (rtx4090.stock_qty, rtx4090.valid_until) == (2, dt.date(2027, 1, 3))
