"""POST /api/v1/clusters/recommendations: the cluster for a workload one server cannot hold; bad input 400."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from catalog.services import cluster_catalog_load_fixture

URL = "/api/v1/clusters/recommendations"
LLAMA_405B = {"model": "llama-3.1-405b", "precision": "bf16", "concurrent_users": 200}


@pytest.fixture
def cluster_parts(catalog: None) -> None:
    cluster_catalog_load_fixture()


def post(body: dict[str, Any]) -> Any:
    return APIClient().post(URL, body, format="json")


def test_405b_for_200_users_gets_a_cluster(cluster_parts: None) -> None:
    response = post({"workload": LLAMA_405B})
    assert response.status_code == 200, response.content
    best = response.json()["options"][0]
    assert best["valid"] and best["nodes"] >= 2
    assert best["fabric"]["rails"] == 8
    assert best["serving"]["parallelism"].startswith("TP8")
    assert {line["section"] for line in best["bom"]} >= {"nodes", "compute fabric", "racks and power", "cables"}
    for rack in best["racks"]:
        assert rack["load_kw"] <= 40
        assert sum(d["height_u"] for d in rack["devices"]) == rack["used_u"]


def test_oversubscribed_fabric_has_fewer_spines(cluster_parts: None) -> None:
    """64 nodes on QM9700: non-blocking 16 leaves of 32 + 32 → 8 spines; 3:1 gives ⌊64·3/4⌋ = 48 down, 16 up."""
    body = {"workload": {"model": "llama-3.1-70b", "task": "full_finetune"}, "nodes": 64, "compute_switch": "ib-qm9700"}
    flat = post(body).json()["options"][0]["fabric"]
    thin = post({**body, "oversubscription": 3}).json()["options"][0]["fabric"]
    assert (flat["leaves"], flat["spines"], flat["downlinks_per_leaf"]) == (16, 8, 32)
    assert thin["downlinks_per_leaf"] == 48
    assert thin["leaves"] == 8 * 2 and thin["spines"] < flat["spines"]


def test_32_node_training_cluster_on_ethernet(cluster_parts: None) -> None:
    body = {
        "workload": {"model": "llama-3.1-70b", "task": "full_finetune"},
        "nodes": 32,
        "compute_switch": "eth-sn5600",
    }
    best = post(body).json()["options"][0]
    assert (best["fabric"]["leaves"], best["fabric"]["spines"]) == (4, 2)
    assert best["training"]["tokens_per_s"] > 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"workload": LLAMA_405B, "nodes": 0}, "nodes"),
        ({"workload": LLAMA_405B, "oversubscription": 0.5}, "oversubscription"),
        ({"workload": LLAMA_405B, "rack_kw_limit": 1}, "rack_kw_limit"),
        ({"workload": LLAMA_405B, "site_voltage_v": 230}, "site_voltage_v"),
        ({"workload": LLAMA_405B, "compute_switch": "no-such-switch"}, "compute_switch"),
        ({"workload": LLAMA_405B, "compute_switch": "eth-sn2201"}, "compute_switch"),
        ({"workload": LLAMA_405B, "nodes": 300, "compute_switch": "ib-qm9700"}, "nodes"),
        ({"workload": {"model": "no-such-model"}}, "workload.model"),
    ],
)
def test_bad_input_is_400_naming_the_field(cluster_parts: None, body: dict[str, Any], field: str) -> None:
    response = post(body)
    assert response.status_code == 400, response.content
    assert field in response.content.decode()


def test_the_answer_says_the_speed_target_and_the_miss(cluster_parts: None) -> None:
    met = post({"workload": {**LLAMA_405B, "target_tokens_per_s": 10}}).json()
    assert met["target_tokens_per_s"] == 10 and met["speed_miss"] is None
    assert met["options"][0]["valid"] and met["options"][0]["serving"]["decode_tokens_per_s_per_user"] >= 10
    missed = post({"workload": {**LLAMA_405B, "target_tokens_per_s": 500}}).json()
    miss = missed["speed_miss"]
    assert miss is not None and miss["target_tokens_per_s"] == 500
    fastest = max(o["serving"]["decode_tokens_per_s_per_user"] for o in missed["options"])
    assert miss["tokens_per_s"] == pytest.approx(fastest, abs=0.01)
    assert miss["miss_percent"] == pytest.approx((1 - miss["tokens_per_s"] / 500) * 100, abs=0.1)
    assert not any(o["valid"] for o in missed["options"])
