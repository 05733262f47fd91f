"""POST /api/v1/builds/apply-fix: every fix the validator offers on the shared test builds round-trips."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests import builds

VALIDATE = "/api/v1/builds/validate"
APPLY = "/api/v1/builds/apply-fix"
NAMED_BUILDS = {name: body for name, body in vars(builds).items() if name.isupper() and isinstance(body, dict)}
# more fixes to try: a build that breaks many rules at once (no CPU, no memory, no PSU, a 4-way bridge pair
# on 2 GPUs in a tower, a consumer board with a server GPU)
BROKEN: dict[str, Any] = {
    "chassis": "ws-tower-am5",
    "cpus": [],
    "gpus": [{"sku": "h200-nvl", "qty": 3}],
    "psus": [],
    "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 6}],
    "bridges": [{"sku": "nvlink-bridge-h200-4way", "qty": 1}],
    "psu_redundancy": "n+n",
    "site_voltage": 120,
}


def post(client: APIClient, url: str, body: Any) -> Any:
    response = client.post(url, body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_the_shared_builds_offer_fixes() -> None:
    assert {"WARNING_BUILD", "ERROR_BUILD", "TOO_FEW_PSUS"} <= set(NAMED_BUILDS)


@pytest.mark.parametrize("name", [*sorted(NAMED_BUILDS), "BROKEN"])
def test_every_offered_fix_round_trips(catalog: None, api_client: APIClient, name: str) -> None:
    body = NAMED_BUILDS.get(name, BROKEN)
    verdict = post(api_client, VALIDATE, body)
    fixes = [fix for finding in verdict["findings"] for fix in finding["fixes"]]
    if name in ("ERROR_BUILD", "TOO_FEW_PSUS", "BROKEN"):
        assert fixes, f"{name} has errors with fixes"
    for fix in fixes:
        assert set(fix) == {"ops", "text"} and fix["ops"] and fix["text"]
        if any(op["op"] == "change_workload" for op in fix["ops"]):
            response = api_client.post(APPLY, {"build": body, "fix": fix}, format="json")
            assert response.status_code == 400
            assert response.json()["error"]["code"] == "fix_not_applicable"
            continue
        answer = post(api_client, APPLY, {"build": body, "fix": fix})
        assert set(answer) == {"build", "verdict"}
        assert answer["build"] != {**body, "workload": None}, fix["text"]
        # the verdict is the one validate gives for the new body, and the new body is a valid request again
        assert answer["verdict"] == post(api_client, VALIDATE, answer["build"])


def test_the_fix_is_made_as_its_steps_say(catalog: None, api_client: APIClient) -> None:
    verdict = post(api_client, VALIDATE, builds.TOO_FEW_PSUS)
    capacity = next(f for f in verdict["findings"] if f["code"] == "power.psu_capacity")
    fix = capacity["fixes"][0]
    assert fix["ops"] == [{"op": "add", "kind": "psus", "sku": "psu-crps-3000w", "qty": 2}]
    answer = post(api_client, APPLY, {"build": builds.TOO_FEW_PSUS, "fix": fix})
    assert answer["build"]["psus"] == [{"sku": "psu-crps-3000w", "qty": 4}]
    assert "power.psu_capacity" not in {f["code"] for f in answer["verdict"]["findings"]}
    assert answer["verdict"]["valid"] is True


def test_the_workload_is_kept(catalog: None, api_client: APIClient) -> None:
    body = {**builds.TOO_FEW_PSUS, "workload": {"model": "llama-3.1-8b", "precision": "bf16"}}
    fix = {"ops": [{"op": "add", "kind": "psus", "sku": "psu-crps-3000w", "qty": 2}]}
    answer = post(api_client, APPLY, {"build": body, "fix": fix})
    assert answer["build"]["workload"] == body["workload"]
    assert answer["verdict"]["estimate"]["model"]["slug"] == "llama-3.1-8b"


@pytest.mark.parametrize(
    ("request_body", "field"),
    [
        ({"fix": {"ops": [{"op": "add", "kind": "psus", "sku": "psu-crps-3000w"}]}}, "build"),
        ({"build": builds.TOO_FEW_PSUS}, "fix"),
        ({"build": builds.TOO_FEW_PSUS, "fix": {"ops": [{"op": "warp"}]}}, "fix.ops[0].op"),
        ({"build": builds.TOO_FEW_PSUS, "fix": {"ops": [{"op": "add", "kind": "gpus", "sku": "nope"}]}}, "fix.ops"),
        ({"build": builds.TOO_FEW_PSUS, "fix": {"ops": [{"op": "remove", "kind": "gpus", "sku": "l4"}]}}, "fix.ops"),
        (
            {
                "build": {**builds.TOO_FEW_PSUS, "chassis": "nope"},
                "fix": {"ops": [{"op": "set", "field": "site_voltage", "value": 230}]},
            },
            "build.chassis",
        ),
    ],
)
def test_bad_requests_name_the_field(
    catalog: None, api_client: APIClient, request_body: dict[str, Any], field: str
) -> None:
    response = api_client.post(APPLY, request_body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"], response.json()


def test_a_workload_change_cannot_be_made_on_a_build(catalog: None, api_client: APIClient) -> None:
    fix = {"ops": [{"op": "change_workload"}], "text": "use vLLM"}
    response = api_client.post(APPLY, {"build": builds.GOOD_BUILD, "fix": fix}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "fix_not_applicable"
    assert error["fields"] == {"fix": ["changes the workload, not the build"]}


@pytest.mark.django_db
def test_a_fix_that_cannot_be_made_is_refused_in_the_callers_language(catalog: None, api_client: APIClient) -> None:
    fix = {"ops": [{"op": "remove", "kind": "gpus", "sku": "rtx-4090", "qty": 1}]}
    body = {"build": builds.GOOD_BUILD, "fix": fix}
    russian = api_client.post(APPLY, body, format="json", HTTP_ACCEPT_LANGUAGE="ru")
    english = api_client.post(APPLY, body, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert russian.status_code == english.status_code == 400
    assert russian.json()["error"]["message"] == "в сборке нет rtx-4090"
    assert russian.json()["error"]["fields"] == {"fix.ops": ["в сборке нет rtx-4090"]}
    assert english.json()["error"]["fields"] == {"fix.ops": ["the build has no rtx-4090"]}
