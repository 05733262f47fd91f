"""POST /api/v1/recommendations: body shape, validity of every candidate, errors naming the field."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

URL = "/api/v1/recommendations"
TEAM_70B = {"model": "llama-3.1-70b", "precision": "q4_k_m", "context_tokens": 8192, "concurrent_users": 5}


@pytest.mark.django_db
def test_recommendations_body_and_every_candidate_validates(api_client: APIClient, catalog: None) -> None:
    response = api_client.post(URL, {"workload": TEAM_70B, "limit": 3}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"estimate", "candidates", "considered", "elapsed_ms", "suggestions"}
    assert body["estimate"]["model"]["slug"] == "llama-3.1-70b"
    assert body["estimate"]["gpu"] is None
    assert len(body["candidates"]) == 3  # the catalog has at least three distinct answers for this workload
    assert body["considered"] >= len(body["candidates"])
    assert body["elapsed_ms"] > 0
    assert body["suggestions"] == []
    grosses = [Decimal(c["price"]["gross"]) for c in body["candidates"]]
    assert grosses[0] == min(grosses)
    for candidate in body["candidates"]:
        assert candidate["verdict"]["valid"] is True
        assert candidate["verdict"]["estimate"]["gpu"]["fits"] is True
        assert candidate["why"]
        # the build body round-trips through the validate endpoint with the same verdict and price
        again = api_client.post(
            "/api/v1/builds/validate", {**candidate["build"], "workload": TEAM_70B}, format="json"
        ).json()
        assert again["valid"] is True
        assert again["price"] == candidate["price"]
        assert Decimal(candidate["price"]["gross"]) == Decimal(candidate["price"]["net"]) + Decimal(
            candidate["price"]["vat"]
        )


@pytest.mark.django_db
def test_constraints_are_applied(api_client: APIClient, catalog: None) -> None:
    body = api_client.post(
        URL,
        {"workload": TEAM_70B, "constraints": {"form_factor": "rack", "require_ecc": True, "max_gpus": 4}},
        format="json",
    ).json()
    assert body["candidates"]
    for candidate in body["candidates"]:
        assert not candidate["build"]["chassis"].startswith("ws-tower")
        assert sum(line["qty"] for line in candidate["build"]["gpus"]) <= 4
        assert "ecc.gpu_required" not in {f["code"] for f in candidate["verdict"]["findings"]}


@pytest.mark.django_db
def test_nothing_fits_lists_suggestions(api_client: APIClient, catalog: None) -> None:
    body = api_client.post(
        URL,
        {
            "workload": {"model": "llama-3.1-405b", "precision": "bf16"},
            "constraints": {"max_price": "1000000", "form_factor": "workstation"},
        },
        format="json",
    ).json()
    assert body["candidates"] == []
    assert any(tip.startswith("raise the budget to") for tip in body["suggestions"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "workload"),
        ({"workload": {"model": "no-such-model"}}, "workload.model"),
        ({"workload": {**TEAM_70B, "context_tokens": 0}}, "workload.context_tokens"),
        ({"workload": TEAM_70B, "constraints": {"chassis": ["nope"]}}, "constraints.chassis[0]"),
        ({"workload": TEAM_70B, "constraints": {"form_factor": "desk"}}, "constraints.form_factor"),
        ({"workload": TEAM_70B, "constraints": {"max_price": "-5"}}, "constraints.max_price"),
        ({"workload": TEAM_70B, "limit": 50}, "limit"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(
    api_client: APIClient, catalog: None, payload: dict[str, object], field: str
) -> None:
    response = api_client.post(URL, payload, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"], response.json()


@pytest.mark.django_db
def test_recommend_command_prints_a_table(catalog: None) -> None:
    out = StringIO()
    call_command(
        "recommend", "--model", "llama-3.1-8b", "--precision", "q4_k_m", "--context", "4096", "--limit", "2",
        stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    assert "rtx-3060-12gb" in text
    assert "tok/s/user" in text
    assert text.splitlines()[0].startswith("2 build(s)")


@pytest.mark.django_db
def test_each_candidate_says_its_class_of_machine(api_client: APIClient, catalog: None) -> None:
    response = api_client.post(
        "/api/v1/recommendations",
        {"workload": {"model": "llama-3.1-8b", "precision": "q4_k_m"}, "limit": 2},
        format="json",
    )
    assert response.status_code == 200, response.json()
    candidates = response.json()["candidates"]
    assert candidates
    for candidate in candidates:
        assert candidate["class"] in ("desktop-workstation", "rack-workstation", "gpu-server", "hgx-server")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("where", "key", "closest"), [("workload", "users", "concurrent_users"), ("constraints", "budget", "max_price")]
)
def test_unknown_keys_are_a_400_naming_the_key_and_the_closest(
    api_client: APIClient, catalog: None, where: str, key: str, closest: str
) -> None:
    """Issue 14: `"users": 50` and `"budget": 100000` were dropped silently and the default answer came back."""
    body: dict[str, object] = {"workload": dict(TEAM_70B)}
    if where == "workload":
        body["workload"] = {**TEAM_70B, key: 50}
    else:
        body["constraints"] = {key: 100000}
    response = api_client.post(URL, body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    named = [field for field in error["fields"] if field.endswith(key)]
    assert named == [f"{where}.{key}"], error
    text = " ".join(error["fields"][named[0]])
    assert f"did you mean '{closest}'" in text  # the closest valid key is named


@pytest.mark.django_db
def test_a_context_beyond_the_models_window_is_a_400_unless_rope_scaling_is_asked(
    api_client: APIClient, catalog: None
) -> None:
    from configurator.engine.models_library import model_get

    window = model_get("qwen2.5-32b").max_context
    workload = {"model": "qwen2.5-32b", "precision": "q4_k_m", "context_tokens": window * 2}
    response = api_client.post(URL, {"workload": workload, "limit": 1}, format="json")
    assert response.status_code == 400, response.content
    message = " ".join(response.json()["error"]["fields"]["workload.context_tokens"])
    assert f"{window:,}" in message  # the model's window is named
    at_window = api_client.post(URL, {"workload": {**workload, "context_tokens": window}, "limit": 1}, format="json")
    assert at_window.status_code == 200
    stretched = api_client.post(URL, {"workload": {**workload, "rope_scaling": True}, "limit": 1}, format="json")
    assert stretched.status_code == 200
    assumptions = " ".join(stretched.json()["estimate"]["assumptions"])
    assert "exceeds the model's" in assumptions  # the assumptions state it
    training = {"model": "llama-3.1-8b", "task": "lora", "sequence_length": model_get("llama-3.1-8b").max_context + 1}
    response = api_client.post(URL, {"workload": training, "limit": 1}, format="json")
    assert "workload.sequence_length" in response.json()["error"]["fields"]
