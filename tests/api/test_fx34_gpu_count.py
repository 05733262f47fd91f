"""Trial 34 follow-up, U09: the recommendations API takes an exact `gpu_count`; a count no chassis of the
catalog takes, or one above `max_gpus`, is a 400 naming the field."""

from __future__ import annotations

from rest_framework.test import APIClient

URL = "/api/v1/recommendations"
WORKLOAD = {"model": "llama-3.1-8b", "task": "full_finetune", "sequence_length": 4096, "zero_stage": 3}


def test_gpu_count_gives_builds_of_that_many_gpus(catalog: None, api_client: APIClient) -> None:
    response = api_client.post(URL, {"workload": WORKLOAD, "constraints": {"gpu_count": 8}, "limit": 2}, format="json")
    assert response.status_code == 200, response.content
    candidates = response.json()["candidates"]
    assert candidates and all(sum(line["qty"] for line in c["build"]["gpus"]) == 8 for c in candidates)


def test_a_count_no_chassis_takes_is_a_400(catalog: None, api_client: APIClient) -> None:
    response = api_client.post(URL, {"workload": WORKLOAD, "constraints": {"gpu_count": 12}}, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert "no chassis of the catalog takes 12 GPUs" in fields["constraints.gpu_count"][0]
    above = api_client.post(URL, {"workload": WORKLOAD, "constraints": {"gpu_count": 8, "max_gpus": 4}}, format="json")
    assert above.status_code == 400
    assert "above max_gpus 4" in above.json()["error"]["fields"]["constraints.gpu_count"][0]
