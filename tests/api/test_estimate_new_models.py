"""Issue 33 item 5: POST /api/v1/estimate answers for every model added to the library and on every GPU added to
the catalog, on hardware that fits, and its memory figures are the ones computed by hand from the config.json."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

URL = "/api/v1/estimate"
GIB = 2**30

# (model, precision, engine, gpu, count): what a buyer would run each on
CASES = [
    ("llama-2-13b", "bf16", "vllm", "l20", 1),
    ("qwen2.5-3b", "q4_k_m", "llama.cpp", "rtx-2080-ti", 1),
    ("falcon-7b", "bf16", "vllm", "rtx-4090", 1),
    ("falcon-180b", "fp8", "vllm", "b300-sxm", 2),
    ("phi-2", "q8_0", "llama.cpp", "rtx-4070", 1),
    ("gpt-j-6b", "bf16", "vllm", "rtx-4090", 1),
    ("nemotron-nano-9b-v2", "bf16", "vllm", "l20", 1),
    ("llama-3.1-8b", "q4_k_m", "llama.cpp", "rtx-4070", 1),  # the new GPUs with a library model of the issue
    ("llama-3.1-70b", "fp8", "vllm", "b300-sxm", 1),
]


def _post(client: APIClient, body: dict[str, Any]) -> Any:
    return client.post(URL, body, format="json")


@pytest.mark.parametrize(("model", "precision", "engine", "gpu", "count"), CASES, ids=[c[0] for c in CASES])
def test_every_new_model_is_estimated_and_fits(
    catalog: None, api_client: APIClient, model: str, precision: str, engine: str, gpu: str, count: int
) -> None:
    response = _post(
        api_client,
        {"model": model, "precision": precision, "engine": engine, "gpu": gpu, "gpu_count": count,
         "context_tokens": 2048},
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["model"]["slug"] == model
    assert body["gpu"]["fits"] is True, body["memory_gib"]
    assert body["throughput"]["decode_tokens_per_s_per_user"] > 1


# Hand computation from the config.json (fixtures/llm_models.json):
# Llama-2-13B, BF16: 13,015,864,320 params × 2 B = 24.24 GiB of weights; KV per token (F16) = 2 (K, V) × 40
#   layers × 40 KV heads × 128 head dim × 2 B = 819,200 B, × 4,096 tokens = 3.125 GiB.
# Falcon-7B, BF16: 6,921,720,704 × 2 B = 12.89 GiB; multi-query KV = 2 × 32 layers × 1 head × 64 × 2 B =
#   8,192 B a token, × 2,048 tokens = 16 MiB (0.02 GiB): 32× less than Llama-2-7B's MHA cache at the same length.
HAND = [
    ("llama-2-13b", 4096, "l40s", 13_015_864_320 * 2 / GIB, 2 * 40 * 40 * 128 * 2 * 4096 / GIB),
    ("falcon-7b", 2048, "rtx-4090", 6_921_720_704 * 2 / GIB, 2 * 32 * 1 * 64 * 2 * 2048 / GIB),
]


@pytest.mark.parametrize(("model", "context", "gpu", "weights", "kv"), HAND, ids=[h[0] for h in HAND])
def test_memory_is_the_hand_computed_figure(
    catalog: None, api_client: APIClient, model: str, context: int, gpu: str, weights: float, kv: float
) -> None:
    response = _post(
        api_client,
        {"model": model, "precision": "bf16", "kv_cache_precision": "f16", "engine": "llama.cpp", "gpu": gpu,
         "context_tokens": context},
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    memory = response.json()["memory_gib"]
    assert memory["weights"] == pytest.approx(weights, abs=0.01)
    assert memory["kv_cache"] == pytest.approx(kv, abs=0.01)
    assert memory["weights"] + memory["kv_cache"] <= memory["total"] < weights + kv + 3  # + activations, runtime
