"""POST /api/v1/suppliers/<slug>/price-lists (issue 35): preview, apply, held moves and retirements that need
confirmation (409), bad input (400), unknown supplier (404), too large (413), who may call it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.models import User
from procurement.models import PriceListImport, Supplier
from tests.factories import catalog_staff, customer, sales
from tests.procurement.conftest import csv_bytes, offer

pytestmark = pytest.mark.django_db

URL = "/api/v1/suppliers/dist/price-lists"
HEADER = "Артикул;Цена;Остаток;Срок"
GOOD = csv_bytes([HEADER, "rtx-4090;220 000;5;7", "rtx-5090;301 000;3;5", "zt-unknown;1;1;1"])


def _client(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def _post(client: APIClient, body: bytes = GOOD, **fields: Any) -> Any:
    return client.post(URL, {"file": SimpleUploadedFile("dist.csv", body), **fields}, format="multipart")


def test_a_preview_reports_and_changes_nothing(distributor: Supplier) -> None:
    response = _post(_client(catalog_staff()))
    assert response.status_code == 200
    body = response.json()
    assert {key: body[key] for key in ("status", "applied", "filename", "scope", "rows", "new", "changed")} == {
        "status": "previewed", "applied": False, "filename": "dist.csv", "scope": "partial", "rows": 2, "new": [],
        "changed": ["rtx-5090"],
    }  # fmt: skip
    assert body["moved"] == [
        {"sku": "rtx-4090", "old": "200000.00", "old_currency": "RUB", "new": "220000.00", "currency": "RUB",
         "percent": "+10.0"}
    ]  # fmt: skip
    assert body["unmatched"] == [{"line": 4, "part_number": "zt-unknown", "name": ""}]
    assert body["errors"] == [] and body["held"] == [] and body["gone"] == []
    assert body["file"]["header_line"] == 1 and body["skipped"] == {"blank": 0, "category": 0, "total": 0, "header": 0}
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")
    assert PriceListImport.objects.get(pk=body["import_id"]).status == "previewed"


def test_apply_changes_the_offers_and_says_what_changed(distributor: Supplier) -> None:
    response = _post(_client(catalog_staff()), apply="true")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["applied"]) == ("applied", True)
    assert offer(distributor, "rtx-4090").purchase_price == Decimal(220000)


def test_held_moves_and_retirements_are_409_until_confirmed(distributor: Supplier) -> None:
    client = _client(catalog_staff())
    typo = csv_bytes([HEADER, "rtx-4090;200;5;7"])
    refused = _post(client, typo, apply="true", scope="full")
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "confirmation_required"
    assert error["fields"] == {
        "confirm_held": ["1 to confirm: rtx-4090"],
        "confirm_retire": ["4 to confirm: a100-80gb-pcie, h200-nvl, l40s, rtx-5090"],
    }
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")
    half = _post(client, typo, apply="true", scope="full", confirm_held="true")
    assert half.status_code == 409 and list(half.json()["error"]["fields"]) == ["confirm_retire"]
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")
    done = _post(client, typo, apply="true", scope="full", confirm_held="true", confirm_retire="true")
    assert done.status_code == 200 and done.json()["status"] == "applied"
    assert offer(distributor, "rtx-4090").purchase_price == Decimal(200)
    assert offer(distributor, "l40s").is_stale


def test_bad_input_is_400_with_the_field_and_reason(distributor: Supplier) -> None:
    client = _client(catalog_staff())
    missing = client.post(URL, {"scope": "full"}, format="multipart")
    assert missing.status_code == 400 and list(missing.json()["error"]["fields"]) == ["file"]
    scope = _post(client, scope="everything")
    assert scope.status_code == 400 and list(scope.json()["error"]["fields"]) == ["scope"]
    text = client.post(URL, {"file": SimpleUploadedFile("dist.txt", GOOD)}, format="multipart")
    assert text.json()["error"]["fields"] == {"file": ["only .csv and .xlsx files"]}
    bad = _post(client, csv_bytes([HEADER, "rtx-4090;три сотни;5;7"]), apply="true")
    assert bad.status_code == 400
    assert bad.json()["error"]["fields"] == {"file": ["Row 2, column Цена, value 'три сотни': not a number"]}
    preview = _post(client, csv_bytes([HEADER, "rtx-4090;три сотни;5;7"]))  # a preview shows the errors
    assert preview.status_code == 200 and preview.json()["status"] == "failed"
    assert preview.json()["errors"][0]["value"] == "три сотни"
    assert offer(distributor, "rtx-4090").purchase_price == Decimal("200000.00")


def test_an_unknown_supplier_is_404_and_a_file_over_the_limits_413(distributor: Supplier, settings: object) -> None:
    client = _client(catalog_staff())
    response = client.post(
        "/api/v1/suppliers/nobody/price-lists", {"file": SimpleUploadedFile("a.csv", GOOD)}, format="multipart"
    )
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    settings.PROCUREMENT_PRICE_LIST_MAX_ROWS = 1  # type: ignore[attr-defined]
    rows = _post(client)
    assert rows.status_code == 413 and rows.json()["error"]["code"] == "request_too_large"
    assert f"it is {len(GOOD)} bytes" in rows.json()["error"]["message"]
    settings.PROCUREMENT_PRICE_LIST_MAX_BYTES = 10  # type: ignore[attr-defined]
    size = _post(client)
    assert size.status_code == 413
    assert size.json()["error"]["message"] == f"The file is {len(GOOD)} bytes; the limit is 10 bytes."
    assert not PriceListImport.objects.exists()


@pytest.mark.parametrize(("who", "status"), [("anonymous", 401), ("customer", 403), ("sales", 403), ("catalog", 200)])
def test_only_catalog_staff_may_send_price_lists(distributor: Supplier, who: str, status: int) -> None:
    user = {"anonymous": None, "customer": customer, "sales": sales, "catalog": catalog_staff}[who]
    response = _post(_client(user() if user else None), apply="true")
    assert response.status_code == status
    applied = offer(distributor, "rtx-4090").purchase_price == Decimal(220000)
    assert applied == (status == 200)
    assert PriceListImport.objects.exists() == (status == 200)


def test_a_file_over_the_general_body_limit_reaches_the_view(distributor: Supplier) -> None:
    """The API refuses bodies over DATA_UPLOAD_MAX_MEMORY_SIZE (2 MiB) up front, but this view takes price lists
    up to PROCUREMENT_PRICE_LIST_MAX_BYTES (10 MB): a 3 MB list is read (here, empty rows padding it)."""
    padded = GOOD + (";" * 99 + "\n").encode() * 30_000
    assert len(padded) > django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    client = _client(catalog_staff())
    response = _post(client, padded)
    assert response.status_code == 200 and response.json()["rows"] == 2
