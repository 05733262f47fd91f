"""A server engine's pipeline parallelism keeps a micro-batch in every stage (vLLM's virtual engines, TensorRT-LLM's
in-flight batching): at full load every stage computes at once, where llama.cpp's layer split runs one stage at a
time (engine.estimate.speed.step_terms). Held-out rows (trial tr33, never fitted): NVIDIA/TensorRT-LLM
docs/source/performance/perf-overview.md @00f37686, Llama-3.3-70B-Instruct-FP4 on RTX PRO 6000 Blackwell Server
Edition, ISL/OSL 1000/1000, every request queued: PP2 3,707 output tokens/s, PP8 8,166. As one stage at a time the
estimate said 2,289 and 2,643 (-38 %, -68 %)."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from tests.api.estimating import estimated

RUN = {
    "model": "nvidia/Llama-3.3-70B-Instruct-FP4", "precision": "FP4", "engine": "TensorRT-LLM",
    "gpu": "RTX 6000 Pro Blackwell Server Edition", "concurrent_users": 1024, "prompt_tokens": 1000,
    "output_tokens": 1000, "tensor_parallel_size": 1,
}  # fmt: skip


def _full_load(client: APIClient, **body: Any) -> dict[str, Any]:
    return estimated(client, {**RUN, **body})["throughput"]


def test_server_pipeline_stages_compute_at_once_at_full_load(catalog: None, api_client: APIClient) -> None:
    """Claimed: PP2 within 25 % of 3,707 (ours -14 %); PP8 still low, above 0.55 × 8,166 (ours -41 %: each
    micro-batch reads its stage's weights again, and the published build's batching is not known)."""
    pp2 = _full_load(api_client, gpu_count=2, pipeline_parallel_size=2)["served_output_tokens_per_s"]
    pp8 = _full_load(api_client, gpu_count=8, pipeline_parallel_size=8)["served_output_tokens_per_s"]
    assert abs(pp2 / 3707 - 1) < 0.25
    assert 0.55 * 8166 < pp8 < 8166
    assert pp8 > 1.4 * pp2  # more stages, more of the batch computed at once


def test_one_stream_through_the_stages_is_not_faster(catalog: None, api_client: APIClient) -> None:
    """One sequence has no micro-batch to overlap: it goes through the stages one after another."""
    one = {"concurrent_users": 1, "prompt_tokens": 128, "output_tokens": 128}
    pp2 = _full_load(api_client, gpu_count=2, pipeline_parallel_size=2, **one)["decode_tokens_per_s_per_user"]
    pp8 = _full_load(api_client, gpu_count=8, pipeline_parallel_size=8, **one)["decode_tokens_per_s_per_user"]
    assert pp8 <= pp2
