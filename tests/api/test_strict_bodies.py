"""Issue 12: unknown keys in a build body or a workload are a 400 naming the key and the closest valid one,
on every endpoint that takes them; a rack build without psu_redundancy gets the chassis' first mode."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from configurator.models import SavedBuild
from tests.api.test_builds_api import SMALL
from tests.factories import customer

VALIDATE = "/api/v1/builds/validate"
APPLY_FIX = "/api/v1/builds/apply-fix"
BUILDS = "/api/v1/builds/"
RECOMMEND = "/api/v1/recommendations"
RACK = {
    "chassis": "srv-4gpu-2u-epyc",
    "cpus": [{"sku": "epyc-9654", "qty": 2}],
    "gpus": [{"sku": "l40s", "qty": 4}],
    "psus": [{"sku": "psu-crps-2000w", "qty": 4}],
    "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 24}],
}


def error_fields(response: Any) -> dict[str, list[str]]:
    assert response.status_code == 400, response.content
    return dict(response.json()["error"]["fields"])


@pytest.mark.django_db
def test_a_typo_in_a_part_kind_is_named_with_the_valid_key(api_client: APIClient, catalog: None) -> None:
    body = {**{k: v for k, v in SMALL.items() if k != "gpus"}, "gpu": [{"sku": "rtx-5090", "qty": 1}]}
    fields = error_fields(api_client.post(VALIDATE, body, format="json"))
    assert list(fields) == ["gpu"]
    assert "'gpus'" in fields["gpu"][0]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field", "suggestion"),
    [
        ({"gpus": [{"sku": "rtx-5090", "quantity": 1}]}, "gpus[0].quantity", "qty"),
        ({"psu_redundency": "none"}, "psu_redundency", "'psu_redundancy'"),
        ({"workload": {"model": "llama-3.1-8b", "contex_tokens": 4096}}, "workload.contex_tokens", "'context_tokens'"),
    ],
)
def test_unknown_keys_anywhere_in_the_body(
    api_client: APIClient, catalog: None, change: dict[str, Any], field: str, suggestion: str
) -> None:
    fields = error_fields(api_client.post(VALIDATE, {**SMALL, **change}, format="json"))
    assert field in fields, fields
    assert suggestion in fields[field][0]


@pytest.mark.django_db
def test_apply_fix_saved_builds_and_recommendations_refuse_unknown_keys(api_client: APIClient, catalog: None) -> None:
    bad = {**SMALL, "gpu": []}
    fix = {"ops": [{"op": "set", "field": "site_voltage", "value": 230}]}
    assert "build.gpu" in error_fields(api_client.post(APPLY_FIX, {"build": bad, "fix": fix}, format="json"))
    assert "fixx" in error_fields(api_client.post(APPLY_FIX, {"build": SMALL, "fixx": fix}, format="json"))
    user = customer()
    api_client.force_login(user)
    assert "build.gpu" in error_fields(api_client.post(BUILDS, {"name": "x", "build": bad}, format="json"))
    assert not SavedBuild.objects.filter(owner=user).exists()
    workload = {"model": "llama-3.1-8b", "precison": "q4_k_m"}
    fields = error_fields(api_client.post(RECOMMEND, {"workload": workload}, format="json"))
    assert "'precision'" in str(fields)
    fields = error_fields(
        api_client.post(RECOMMEND, {"workload": {"model": "llama-3.1-8b"}, "constraint": {}}, format="json")
    )
    assert "'constraints'" in fields["constraint"][0]


@pytest.mark.django_db
def test_a_rack_without_psu_redundancy_takes_its_first_mode(api_client: APIClient, catalog: None) -> None:
    from catalog.fixture import fixture_snapshot
    from configurator.engine.builds import build_from_payload
    from configurator.engine.validate import validate

    snapshot = fixture_snapshot()
    modes = snapshot.chassis["srv-4gpu-2u-epyc"].psu_redundancy_modes
    body = api_client.post(VALIDATE, RACK, format="json").json()
    assert body["power"]["redundancy"] == modes[0] != "none"
    explicit = validate(build_from_payload({**RACK, "psu_redundancy": modes[0]}, snapshot), snapshot=snapshot)
    assert body["valid"] == explicit.valid is True
    # a tower keeps "none"
    assert api_client.post(VALIDATE, SMALL, format="json").json()["power"]["redundancy"] == "none"
