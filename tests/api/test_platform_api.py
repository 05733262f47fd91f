"""Issue 34 through the API: the noise input (workload.noise, constraints.noise), multi-node, and the generation
and RAM findings of a hand build."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

URL = "/api/v1/recommendations"
TEAM_70B = {"model": "llama-3.1-70b", "precision": "q4_k_m", "context_tokens": 8192, "concurrent_users": 5}
HGX = {
    "chassis": "srv-hgx-h200-5u",
    "cpus": [{"sku": "epyc-9554", "qty": 2}],
    "gpus": [{"sku": "h200-sxm", "qty": 8}],
    "psus": [{"sku": "psu-crps-3000w", "qty": 6}],
    "memory": [{"sku": "ddr5-rdimm-96gb", "qty": 24}],
    "storage": [{"sku": "nvme-1tb", "qty": 2}, {"sku": "nvme-4tb", "qty": 2}],
    "nics": [{"sku": "nic-25g", "qty": 1}],
    "psu_redundancy": "n+1",
}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"workload": {**TEAM_70B, "noise": "library"}}, "workload.noise"),
        ({"workload": TEAM_70B, "constraints": {"noise": "quiet"}}, "constraints.noise"),
        ({"workload": {**TEAM_70B, "multi_node": "several"}}, "workload.multi_node"),
    ],
)
def test_bad_noise_or_multi_node_is_a_400_naming_the_field(
    api_client: APIClient, catalog: None, payload: dict[str, object], field: str
) -> None:
    response = api_client.post(URL, payload, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert field in fields, fields
    if field.endswith("noise"):
        assert "office" in " ".join(fields[field]) or "valid choice" in " ".join(fields[field])


@pytest.mark.django_db
def test_noise_is_read_as_people_write_it(api_client: APIClient, catalog: None) -> None:
    body = api_client.post(URL, {"workload": {**TEAM_70B, "noise": " Office "}, "limit": 2}, format="json").json()
    assert {c["build"]["chassis"] for c in body["candidates"]} <= {"ws-tower-am5", "ws-tower-trx50"}
    response = api_client.post(URL, {"workload": TEAM_70B, "constraints": {"noise": "Server-Room"}}, format="json")
    assert response.status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("where", ["workload", "constraints"])
def test_noise_office_returns_towers_only(api_client: APIClient, catalog: None, where: str) -> None:
    payload: dict[str, object] = (
        {"workload": {**TEAM_70B, "noise": "office"}}
        if where == "workload"
        else {"workload": TEAM_70B, "constraints": {"noise": "office"}}
    )
    body = api_client.post(URL, {**payload, "limit": 5}, format="json").json()
    assert body["candidates"]
    assert {c["build"]["chassis"] for c in body["candidates"]} <= {"ws-tower-am5", "ws-tower-trx50"}


@pytest.mark.django_db
def test_hgx_with_a100_sxm4_and_too_little_ram(api_client: APIClient, catalog: None) -> None:
    body = api_client.post(
        "/api/v1/builds/validate",
        {**HGX, "gpus": [{"sku": "a100-80gb-sxm", "qty": 8}], "memory": [{"sku": "ddr5-rdimm-16gb", "qty": 24}]},
        format="json",
    ).json()
    assert body["valid"] is False
    found = {f["code"]: f for f in body["findings"]}
    assert found["fit.gpu_generation"]["severity"] == "error"
    assert "SXM4" in found["fit.gpu_generation"]["message"] and "SXM5" in found["fit.gpu_generation"]["message"]
    # 384 GB for 640 GB of A100 memory: below 1 ×
    assert (found["memory.ram_below_vram"]["severity"], found["memory.ram_below_vram"]["measured"]) == ("error", 384)


@pytest.mark.django_db
def test_multi_node_gives_the_hgx_a_fabric_adapter_per_gpu(api_client: APIClient, catalog: None) -> None:
    workload = {"model": "llama-3.1-70b", "precision": "bf16", "engine": "vllm", "multi_node": True}
    body = api_client.post(
        URL, {"workload": workload, "constraints": {"chassis": ["srv-hgx-h200-5u"]}, "limit": 1}, format="json"
    ).json()
    assert body["candidates"], body["suggestions"]
    nics = {line["sku"]: line["qty"] for line in body["candidates"][0]["build"]["nics"]}
    gpus = sum(line["qty"] for line in body["candidates"][0]["build"]["gpus"])
    assert nics == {"nic-25g": 1, "nic-200g": gpus}
