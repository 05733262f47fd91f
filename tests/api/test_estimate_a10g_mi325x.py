"""POST /api/v1/estimate on the GPUs published runs name that the catalog lacked: AWS's A10G (EC2 G5, cloud only:
estimable, never offered) and AMD's MI325X (the MI300X's CDNA3 die with 256 GB HBM3E). Each answer is checked in
its body: the SKU read from the names people write, and tokens/s between bounds with their sources."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

URL = "/api/v1/estimate"


def _post(client: APIClient, body: dict[str, Any]) -> Any:
    response = client.post(URL, body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


LLAMA_8B = {"model": "llama-3.1-8b", "precision": "fp16", "engine": "vllm", "gpu_count": 1, "concurrent_users": 1}
MLPERF_70B = {
    "model": "llama-2-70b", "precision": "fp8", "kv_cache_precision": "fp8", "engine": "vllm", "gpu_count": 8,
    "concurrent_users": 1024, "prompt_tokens": 200, "output_tokens": 297,
}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "sku"),
    [
        ("A10G", "a10g"), ("a10g", "a10g"), ("NVIDIA A10G 24GB", "a10g"), ("g5 A10G", "a10g"),
        ("AWS g5 A10G", "a10g"), ("A10", "a10"), ("NVIDIA A10", "a10"), ("MI325X", "mi325x"),
        ("AMD Instinct MI325X", "mi325x"), ("MI300X", "mi300x"),
    ],
)  # fmt: skip
def test_gpu_names_resolve(catalog: None, api_client: APIClient, text: str, sku: str) -> None:
    body = _post(api_client, {**LLAMA_8B, "gpu": text})
    assert body["gpu"]["sku"] == sku
    assert not any("read as the" in a for a in body["assumptions"])  # one card, not a family's variant


def test_llama_3_1_8b_fp16_on_one_a10g(catalog: None, api_client: APIClient) -> None:
    """One user decodes at most 600 GB/s (Baseten: the A10G's bandwidth, the A10's) over 16.06 GB of FP16 weights:
    37.4 tokens/s; it is memory-bound, so the A10G decodes as the A10 (Baseten: 'interchangeable for most model
    inference tasks'), while its prompt takes longer: 70 TF of FP16 tensor compute against the A10's 125."""
    a10g = _post(api_client, {**LLAMA_8B, "gpu": "A10G"})
    a10 = _post(api_client, {**LLAMA_8B, "gpu": "a10"})
    assert a10g["gpu"]["fits"] is True
    speed, ref = a10g["throughput"], a10["throughput"]
    assert 0.6 * 37.4 < speed["decode_tokens_per_s_per_user"] < 37.4
    assert speed["decode_tokens_per_s_per_user"] == pytest.approx(ref["decode_tokens_per_s_per_user"], rel=0.05)
    assert speed["time_to_first_token_s"] > 1.3 * ref["time_to_first_token_s"]


def test_llama_2_70b_fp8_on_8_mi325x_against_mlperf_v5_0(catalog: None, api_client: APIClient) -> None:
    """MLPerf Inference v5.0 AMD closed, 8xMI325X_2xEPYC_9575F, llama2-70b-99.9 Offline: 33,928.1 output tokens/s
    (one model per GPU; fixtures/server_speed.csv, held out: never fitted). Ours is ~25 % low (the row's error in
    `make accuracy`): it is the MI300X's measured share of the MFU (same CDNA3 die) with more bandwidth, while the
    v5.0 software outran v4.1's MI300X (23,514.8) by more than the hardware did. Claimed: 0.70-1.10 × the
    measurement, at least the 8 × MI300X estimate, and the MI300X's measured-share label."""
    mi325x = _post(api_client, {**MLPERF_70B, "gpu": "AMD Instinct MI325X"})
    mi300x = _post(api_client, {**MLPERF_70B, "gpu": "mi300x"})
    assert mi325x["gpu"]["sku"] == "mi325x"
    served = mi325x["throughput"]["served_output_tokens_per_s"]
    assert 0.70 * 33928.1 < served < 1.10 * 33928.1
    assert served >= mi300x["throughput"]["served_output_tokens_per_s"]  # compute-bound: the same die, more memory
    assert any("MLPerf Inference v4.1, AMD's MI300X results" in a for a in mi325x["assumptions"])
    assert not any("unvalidated" in a for a in mi325x["assumptions"])
