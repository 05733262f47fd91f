"""POST /api/v1/builds/validate and saved builds /api/v1/builds/ (ARCHITECTURE.md §HTTP API)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.specs import catalog_snapshot_clear
from configurator.models import SavedBuild
from tests.builds import ARCHITECTURE_EXAMPLE
from tests.factories import catalog_staff, customer, sales

VALIDATE = "/api/v1/builds/validate"
BUILDS = "/api/v1/builds/"
EXAMPLE = ARCHITECTURE_EXAMPLE
SMALL = {
    "chassis": "ws-tower-am5",
    "cpus": [{"sku": "ryzen-9-9950x", "qty": 1}],
    "gpus": [{"sku": "rtx-5090", "qty": 1}],
    "psus": [{"sku": "psu-atx-1300w", "qty": 1}],
    "memory": [{"sku": "ddr5-udimm-48gb", "qty": 2}],
}
LARGE = {  # every part kind, several lines each
    "chassis": "srv-8gpu-6u-epyc",
    "cpus": [{"sku": "epyc-9845", "qty": 2}],
    "gpus": [{"sku": "rtx-pro-6000-blackwell-server", "qty": 4}, {"sku": "rtx-pro-6000-blackwell", "qty": 4}],
    "psus": [{"sku": "psu-crps-3000w", "qty": 2}, {"sku": "psu-crps-3300w", "qty": 2}],
    "memory": [{"sku": "ddr5-rdimm-128gb", "qty": 12}, {"sku": "ddr5-rdimm-96gb", "qty": 12}],
    "storage": [{"sku": "nvme-4tb", "qty": 2}, {"sku": "nvme-8tb", "qty": 4}],
    "nics": [{"sku": "nic-200g", "qty": 1}, {"sku": "nic-100g", "qty": 1}],
    "bridges": [{"sku": "nvlink-bridge-h200-2way", "qty": 1}],
    "psu_redundancy": "n+1",
    "workload": {"model": "llama-3.1-70b", "precision": "fp8", "concurrent_users": 16, "require_ecc": True},
}


def post(client: APIClient, body: Any, url: str = VALIDATE) -> Any:
    return client.post(url, body, format="json")


# --------------------------------------------------------------------------- validate


def test_routes() -> None:
    assert reverse("builds-validate") == VALIDATE
    assert reverse("builds-list") == BUILDS
    assert reverse("builds-detail", kwargs={"pk": 7}) == "/api/v1/builds/7/"


def test_validate_contract_example(catalog: None, api_client: APIClient) -> None:
    response = post(api_client, EXAMPLE)
    assert response.status_code == 200
    body = response.json()
    assert list(body) == [
        "valid",
        "findings",
        "power",
        "pcie",
        "slots",
        "vram",
        "estimate",
        "price",
        "ship_date",
        "lead_time_days",
    ]
    assert body["valid"] is True
    assert body["power"] == {
        "load_w": 6723.2,  # (8 × 600 + 2 × 360 + 24 × 8 + 400) × 1.1
        "capacity_w": 9000.0,
        "installed_w": 12000.0,
        "redundancy": "n+1",
        "site_voltage": 230,
        "utilization": 0.747,
    }
    assert body["pcie"] == {"lanes_needed": 64, "lanes_available": 128, "topology": "switched"}
    assert body["slots"] == {
        "gpus": 8, "gpu_bays": 8, "max_gpus": 8, "dimms": 24, "dimm_slots": 24, "psus": 4, "psu_bays": 4
    }  # fmt: skip
    assert body["vram"] == {"total_gib": 1128.0, "needed_per_gpu_gib": None, "usable_per_gpu_gib": None}
    assert body["estimate"] is None
    assert set(body["price"]) == {"currency", "net", "vat", "gross"}
    assert body["price"]["currency"] == "RUB"
    assert all(isinstance(body["price"][key], str) for key in ("net", "vat", "gross"))
    finding = body["findings"][0]
    assert list(finding) == [
        "code",
        "severity",
        "message",
        "measured",
        "limit",
        "unit",
        "components",
        "fixes",
        "no_fix",
        "fixes_unchecked",
    ]
    # issue 34: a data-centre GPU server with 1,536 GB for 1,128 GB (1.36 ×), no drives and no network card
    assert sorted((f["code"], f["severity"]) for f in body["findings"]) == [
        ("memory.ram_below_1_5x_vram", "warning"),
        ("pcie.p2p_acs", "info"),
        ("platform.boot_mirror", "warning"),
        ("platform.network", "warning"),
    ]


def test_validate_errors_and_fixes(catalog: None, api_client: APIClient) -> None:
    response = post(api_client, {**EXAMPLE, "psus": [{"sku": "psu-crps-1600w", "qty": 2}]})
    assert response.status_code == 200
    body = response.json()
    assert body["valid"] is False
    capacity = body["findings"][0]
    assert (capacity["code"], capacity["severity"], capacity["limit"], capacity["unit"]) == (
        "power.psu_capacity",
        "error",
        1600.0,
        "W",
    )
    assert capacity["fixes"][0] == {
        "ops": [{"op": "replace", "kind": "psus", "sku": "psu-crps-3000w", "qty": 4}],
        "text": "replace psus with 4× psu-crps-3000w",
    }


def test_validate_with_a_workload(catalog: None, api_client: APIClient) -> None:
    body = {**SMALL, "workload": {"model": "llama-3.1-8b", "precision": "bf16", "target_tokens_per_s": 10}}
    response = post(api_client, body)
    assert response.status_code == 200
    data = response.json()
    assert data["estimate"]["gpu"]["sku"] == "rtx-5090"
    assert data["vram"]["needed_per_gpu_gib"] == data["estimate"]["gpu"]["per_gpu_gib"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"gpus": [{"sku": "rtx-9999", "qty": 1}]}, "gpus[0].sku"),
        ({"gpus": [{"sku": "rtx-5090", "qty": 0}]}, "gpus[0].qty"),
        ({"memory": [{"sku": "ddr5-udimm-48gb", "qty": 65}]}, "memory[0].qty"),
        ({"psu_redundancy": "2n"}, "psu_redundancy"),
        ({"site_voltage": 110}, "site_voltage"),
        ({"chassis": "srv-nope"}, "chassis"),
        ({"chassis": None}, "chassis"),
        ({"workload": {"model": "no-such-model"}}, "workload.model"),
        ({"workload": {"model": "llama-3.1-8b", "precision": "q4_k_m", "engine": "tensorrt-llm"}}, "workload.engine"),
        ({"workload": {"model": "llama-3.1-8b", "context_tokens": 0}}, "workload.context_tokens"),
        ({"workload": {"model": "llama-3.1-8b", "task": "pretraining"}}, "workload.task"),
        ({"workload": {"modle": "llama-3.1-8b"}}, "workload.modle"),
        ({"workload": {"model": "llama-3.1-8b", "model_config": {"model_type": "llama"}}}, "workload.model"),
        ({"gpus": [{"sku": "rtx-5090", "qty": 40}, {"sku": "rtx-5090", "qty": 40}]}, "gpus"),
    ],
)
def test_validate_bad_input_names_the_field(
    catalog: None, api_client: APIClient, change: dict[str, Any], field: str
) -> None:
    response = post(api_client, {**SMALL, **change})
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert field in error["fields"], error


@pytest.mark.parametrize("body", [[], "build", {"gpus": "rtx-5090"}])
def test_validate_malformed_body_is_400(catalog: None, api_client: APIClient, body: Any) -> None:
    response = post(api_client, body)
    assert response.status_code == 400
    assert "error" in response.json()


def test_validate_query_count_is_constant(
    catalog: None, api_client: APIClient, django_assert_max_num_queries: Any
) -> None:
    """Specs come from the cached CatalogSnapshot: one version-stamp query per request, whatever the size,
    one for the suppliers' offers (the ship date) and one for the VAT rate of the day (tests read all three on
    every request: CATALOG_SNAPSHOT_TTL_S = 0)."""
    catalog_snapshot_clear()
    with CaptureQueriesContext(connection) as cold_small:
        assert post(api_client, SMALL).status_code == 200
    catalog_snapshot_clear()
    with CaptureQueriesContext(connection) as cold_large:
        assert post(api_client, LARGE).status_code == 200
    assert len(cold_small) == len(cold_large)  # rebuilding the snapshot: one query per catalog table
    for body in (SMALL, LARGE, SMALL):
        with django_assert_max_num_queries(3):
            assert post(api_client, body).status_code == 200


# --------------------------------------------------------------------------- saved builds


def saved_body(name: str = "Inference box") -> dict[str, Any]:
    return {"name": name, "notes": "for the lab", "build": SMALL}


def login(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.django_db
def test_anonymous_cannot_touch_saved_builds(catalog: None, api_client: APIClient) -> None:
    owner = customer()
    saved = SavedBuild.objects.create(owner=owner, name="mine", payload=SMALL)
    for method, url, body in [
        ("get", BUILDS, None),
        ("post", BUILDS, saved_body()),
        ("get", f"{BUILDS}{saved.pk}/", None),
        ("patch", f"{BUILDS}{saved.pk}/", {"name": "changed"}),
        ("put", f"{BUILDS}{saved.pk}/", saved_body("changed")),
        ("delete", f"{BUILDS}{saved.pk}/", None),
    ]:
        response = getattr(api_client, method)(url, body, format="json")
        assert response.status_code in (401, 403), (method, url)
    assert list(SavedBuild.objects.values_list("name", flat=True)) == ["mine"]


@pytest.mark.django_db
def test_customer_creates_lists_updates_and_deletes(catalog: None) -> None:
    owner = customer()
    client = login(owner)
    created = post(client, saved_body(), BUILDS)
    assert created.status_code == 201, created.content
    data = created.json()
    assert list(data) == ["id", "name", "notes", "owner", "build", "valid", "verdict", "created", "updated"]
    assert (data["name"], data["notes"], data["owner"], data["valid"]) == (
        "Inference box",
        "for the lab",
        owner.username,
        True,
    )
    assert data["build"]["chassis"] == "ws-tower-am5"
    assert data["build"]["psu_redundancy"] == "none"  # normalised: defaults filled
    assert data["verdict"]["power"]["load_w"] == 947.1  # (575 + 170 + 2 × 8 + 100) × 1.1
    saved = SavedBuild.objects.get()
    assert (saved.owner, saved.valid) == (owner, True)

    listing = client.get(BUILDS).json()
    assert (listing["count"], [row["id"] for row in listing["results"]]) == (1, [saved.pk])

    renamed = client.patch(f"{BUILDS}{saved.pk}/", {"name": "Renamed"}, format="json")
    assert renamed.status_code == 200
    assert (renamed.json()["name"], renamed.json()["notes"]) == ("Renamed", "for the lab")

    broken = {**SMALL, "gpus": [{"sku": "h200-nvl", "qty": 1}]}
    changed = client.put(f"{BUILDS}{saved.pk}/", {"name": "Passive", "build": broken}, format="json")
    assert changed.status_code == 200
    assert changed.json()["valid"] is False
    assert "cooling.passive_airflow" in [f["code"] for f in changed.json()["verdict"]["findings"]]
    saved.refresh_from_db()
    assert (saved.name, saved.valid, saved.notes) == ("Passive", False, "")

    assert client.delete(f"{BUILDS}{saved.pk}/").status_code == 204
    assert not SavedBuild.objects.exists()


@pytest.mark.django_db
def test_bad_build_is_400_and_nothing_is_written(catalog: None) -> None:
    client = login(customer())
    bad_sku = {**saved_body(), "build": {**SMALL, "gpus": [{"sku": "rtx-9999", "qty": 1}]}}
    response = post(client, bad_sku, BUILDS)
    assert response.status_code == 400
    assert "build.gpus[0].sku" in response.json()["error"]["fields"]
    bad_qty = {**saved_body(), "build": {**SMALL, "gpus": [{"sku": "rtx-5090", "qty": 0}]}}
    response = post(client, bad_qty, BUILDS)
    assert response.status_code == 400
    assert "build.gpus[0].qty" in response.json()["error"]["fields"]
    assert not SavedBuild.objects.exists()


@pytest.mark.django_db
def test_ownership_matrix(catalog: None) -> None:
    owner, other, engineer, staff = customer(), customer(), sales(), catalog_staff()
    mine = post(login(owner), saved_body("mine"), BUILDS).json()["id"]
    theirs = post(login(other), saved_body("theirs"), BUILDS).json()["id"]
    url = f"{BUILDS}{mine}/"

    # another customer: 404, not 403, and nothing changes
    intruder = login(other)
    assert intruder.get(url).status_code == 404
    assert intruder.patch(url, {"name": "hijacked"}, format="json").status_code == 404
    assert intruder.delete(url).status_code == 404
    assert SavedBuild.objects.get(pk=mine).name == "mine"
    assert [row["id"] for row in intruder.get(BUILDS).json()["results"]] == [theirs]

    # catalog staff are not sales: only their own (none)
    assert login(staff).get(BUILDS).json()["count"] == 0
    assert login(staff).get(url).status_code == 404

    # sales engineers see and may edit every build
    seller = login(engineer)
    assert sorted(row["id"] for row in seller.get(BUILDS).json()["results"]) == sorted([mine, theirs])
    assert seller.get(url).status_code == 200
    assert seller.patch(url, {"notes": "checked by sales"}, format="json").status_code == 200
    assert SavedBuild.objects.get(pk=mine).notes == "checked by sales"
