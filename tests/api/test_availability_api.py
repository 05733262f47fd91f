"""Ship dates in the validate and recommendations APIs, from the suppliers' offers in the database."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from catalog.models import CATALOG_MODELS
from configurator.engine.workdays import add_working_days
from procurement.models import Supplier, SupplierOffer
from tests.builds import GOOD_BUILD

pytestmark = pytest.mark.django_db
TEAM_70B = {"model": "llama-3.1-70b", "precision": "q4_k_m", "context_tokens": 8192, "concurrent_users": 5}


@pytest.fixture
def offers(catalog: None, settings: object) -> Supplier:
    """Every part in stock at one supplier (lead time 12 days when not)."""
    supplier = Supplier.objects.create(slug="s", name="S")
    valid_until = timezone.localdate() + dt.timedelta(days=30)
    for kind, model in CATALOG_MODELS.items():
        SupplierOffer.objects.bulk_create(
            SupplierOffer(
                supplier=supplier,
                sku=sku,
                kind=kind,
                purchase_price=Decimal(100),
                stock_qty=50,
                lead_time_days=12,
                valid_until=valid_until,
            )
            for sku in model.objects.values_list("sku", flat=True)
        )
    return supplier


def test_validate_answers_the_ship_date_and_lead_time(api_client: APIClient, offers: Supplier) -> None:
    body = api_client.post("/api/v1/builds/validate", GOOD_BUILD, format="json").json()
    today = timezone.localdate()
    assert body["lead_time_days"] == 2 + 3 + 2  # in stock: stock days, assembly, burn-in
    assert body["ship_date"] == add_working_days(today, 7).isoformat()  # working days (Russian calendar)
    gpu = GOOD_BUILD["gpus"][0]["sku"]
    SupplierOffer.objects.filter(sku=gpu).update(stock_qty=0)
    body = api_client.post("/api/v1/builds/validate", GOOD_BUILD, format="json").json()
    assert body["lead_time_days"] == 12 + 3 + 2
    SupplierOffer.objects.filter(sku=gpu).update(valid_until=today - dt.timedelta(days=1))
    body = api_client.post("/api/v1/builds/validate", GOOD_BUILD, format="json").json()
    assert (body["ship_date"], body["lead_time_days"]) == (None, None)


def test_recommendations_carry_ship_dates_and_deliver_by_moves_off_a_part_out_of_stock(
    api_client: APIClient, offers: Supplier
) -> None:
    today = timezone.localdate()
    plain = api_client.post("/api/v1/recommendations", {"workload": TEAM_70B, "limit": 1}, format="json").json()
    top = plain["candidates"][0]
    assert (top["lead_time_days"], top["ship_date"]) == (7, add_working_days(today, 7).isoformat())
    assert top["verdict"]["ship_date"] == top["ship_date"]
    gpu = top["build"]["gpus"][0]["sku"]
    SupplierOffer.objects.filter(sku=gpu).update(stock_qty=0, lead_time_days=40)
    deliver_by = add_working_days(today, 10).isoformat()  # in stock ships in 7 working days; on order in 40
    body = {"workload": TEAM_70B, "limit": 2, "constraints": {"deliver_by": deliver_by}}
    hurried = api_client.post("/api/v1/recommendations", body, format="json").json()
    assert hurried["candidates"]
    assert all(c["build"]["gpus"][0]["sku"] != gpu for c in hurried["candidates"])
    assert all(c["ship_date"] <= deliver_by for c in hurried["candidates"])
    bad = api_client.post(
        "/api/v1/recommendations", {"workload": TEAM_70B, "constraints": {"deliver_by": "soon"}}, format="json"
    )
    assert bad.status_code == 400
    assert list(bad.json()["error"]["fields"]) == ["constraints.deliver_by"]


def test_apply_fix_answers_the_ship_date_validate_gives_for_the_new_body(
    api_client: APIClient, offers: Supplier
) -> None:
    from tests.builds import TOO_FEW_PSUS

    verdict = api_client.post("/api/v1/builds/validate", TOO_FEW_PSUS, format="json").json()
    fix = next(fix for finding in verdict["findings"] for fix in finding["fixes"])
    answer = api_client.post("/api/v1/builds/apply-fix", {"build": TOO_FEW_PSUS, "fix": fix}, format="json").json()
    again = api_client.post("/api/v1/builds/validate", answer["build"], format="json").json()
    assert answer["verdict"]["lead_time_days"] == again["lead_time_days"] == 2 + 3 + 2
    assert answer["verdict"]["ship_date"] == again["ship_date"] == add_working_days(timezone.localdate(), 7).isoformat()
    # a part of the fixed build without a live offer: no date, as validate says
    added = {line["sku"] for kind in ("psus",) for line in answer["build"][kind]}
    SupplierOffer.objects.filter(sku__in=added).delete()
    answer = api_client.post("/api/v1/builds/apply-fix", {"build": TOO_FEW_PSUS, "fix": fix}, format="json").json()
    assert (answer["verdict"]["ship_date"], answer["verdict"]["lead_time_days"]) == (None, None)
