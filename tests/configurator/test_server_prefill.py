"""Issue 13, server engines: MoE prefill at full load and the third publication (gpustack performance-lab),
each case against its source's figure within the error claimed for it (its source's leave-one-source-out
error in `make accuracy` with a margin, as in test_speed_acceptance)."""

from __future__ import annotations

import pytest

from catalog.fixture import CatalogSnapshot
from configurator.engine import server_calibration as srv
from configurator.engine.estimate import estimate
from configurator.engine.estimate.serving import served_throughput
from configurator.engine.estimate.speed import _activation_bytes
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload


def test_qwen3_235b_fp8_on_8_h200_prompt_heavy(snapshot: CatalogSnapshot) -> None:
    """NVIDIA/TensorRT-LLM perf-overview.md @00f37686: Qwen3-235B-A22B FP8, H200 TP8, ISL/OSL 2048/128: 3,331
    output tokens/s. We said 6,646 (+99.5 %) when MoE prefill cost only its FLOPs at the dense MFU; its
    all-reduces, the [tokens, k, h] activation round trip and the grouped GEMMs' lower rate bring it within
    the claimed ±25 % (TensorRT-LLM held out: 17 % median, 34 % p90)."""
    gpu = snapshot.gpus["h200-sxm"]
    workload = Workload(
        model=model_get("qwen3-235b-a22b"), precision="fp8", kv_cache_precision="fp8", engine="tensorrt-llm"
    )
    served = served_throughput(workload, gpu, 8, prompt_tokens=2048, output_tokens=128, link_gbs=srv.nvswitch_gbs(gpu))
    assert served.tokens_per_s == pytest.approx(3331, rel=0.25)
    assert served.decode_share < 0.2


def test_gpt_oss_120b_on_one_h100_prompt_heavy(snapshot: CatalogSnapshot) -> None:
    """gpustack/gpustack docs/performance-lab gpt-oss-120b/h100.md @72aee9dd: vLLM v0.10.2 on one H100, 500
    random prompts of 4,000 tokens (134 generated on average): 463.35 output tokens/s. One GPU, so no
    all-reduce: the gap to the dense MFU is the grouped GEMMs' (engines.MOE_GEMM_EFFICIENCY). Claimed ±35 %
    (this publication held out: 29 % median)."""
    gpu = snapshot.gpus["h100-sxm"]
    workload = Workload(model=model_get("gpt-oss-120b"), precision="mxfp4", engine="vllm")
    served = served_throughput(workload, gpu, 1, prompt_tokens=3998, output_tokens=134, max_sequences=500)
    assert served.tokens_per_s == pytest.approx(463.35, rel=0.35)


def test_qwen3_8b_one_user_on_h100(snapshot: CatalogSnapshot) -> None:
    """gpustack/gpustack docs/performance-lab qwen3-8b/h100-latency.md @1dbc3b81: vLLM v0.11.0, one H100 SXM,
    ShareGPT at concurrency 1: mean TPOT 7.28 ms = 137.4 tokens/s per user, a dense model on one GPU (the other
    per-user publications are MoE on 8). Claimed ±15 % (this publication held out: 7.6 % median)."""
    workload = Workload(
        model=model_get("qwen3-8b"), precision="bf16", context_tokens=454, engine="vllm", prompt_tokens=233,
        output_tokens=221,
    )  # fmt: skip
    result = estimate(workload, snapshot.gpus["h100-sxm"], 1)
    assert result.throughput is not None
    assert result.throughput.decode_tokens_per_s_per_user == pytest.approx(137.4, rel=0.15)


def test_a_finite_run_never_runs_more_sequences_than_it_has_requests(snapshot: CatalogSnapshot) -> None:
    gpu = snapshot.gpus["h200-sxm"]
    workload = Workload(model=model_get("llama-3.1-8b"), precision="fp8", engine="sglang")
    free = served_throughput(workload, gpu, 1, prompt_tokens=200, output_tokens=200)
    capped = served_throughput(workload, gpu, 1, prompt_tokens=200, output_tokens=200, max_sequences=100)
    assert free.sequences > 100
    assert capped.sequences == 100
    assert capped.tokens_per_s < free.tokens_per_s


def test_moe_activation_traffic_does_not_shrink_with_tensor_parallelism() -> None:
    """Every tensor-parallel GPU writes and reads back the k expert rows of every token: on Qwen3-235B-A22B
    (k = 8, h = 4096, 94 layers) 2·k·h·2 B ≈ 12 MB of the ~21 MB a token stays whatever the TP degree, so going
    from 1 to 8 GPUs cuts a GPU's FLOPs per token 8× but its traffic by less than a third; per FLOP the MoE
    moves far more than a dense 405B."""
    moe = model_get("qwen3-235b-a22b")
    assert 18e6 < _activation_bytes(moe, 8) < 24e6
    assert _activation_bytes(moe, 8) > 0.6 * _activation_bytes(moe, 1)
    dense = model_get("llama-3.1-405b")
    per_flop_moe = _activation_bytes(moe, 8) / (2 * moe.active_params / 8)
    per_flop_dense = _activation_bytes(dense, 8) / (2 * dense.active_params / 8)
    assert per_flop_moe > 5 * per_flop_dense
