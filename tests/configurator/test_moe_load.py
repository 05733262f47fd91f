"""Grouped-GEMM efficiency by tokens per expert at full load (issue 33, trial t33 row M4;
configurator.engine.estimate.speed.moe_load_efficiency)."""

from __future__ import annotations

import pytest

from catalog.fixture import fixture_snapshot
from configurator.engine.estimate import serving
from configurator.engine.estimate.engines import MOE_GEMM_EFFICIENCY
from configurator.engine.estimate.speed import MOE_REFERENCE_TOKENS_PER_EXPERT, moe_load_efficiency
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload

GPUS = fixture_snapshot().gpus


def test_efficiency_is_the_fitted_one_at_the_reference_and_below_and_rises_above_it() -> None:
    mixtral = model_get("mixtral-8x7b")  # 2 of 8 experts: a quarter of the step's tokens reach each
    reference = MOE_REFERENCE_TOKENS_PER_EXPERT * 4
    assert moe_load_efficiency(mixtral, "vllm", reference) == pytest.approx(MOE_GEMM_EFFICIENCY)
    assert moe_load_efficiency(mixtral, "vllm", 8) == pytest.approx(MOE_GEMM_EFFICIENCY)
    high = moe_load_efficiency(mixtral, "vllm", 8192)
    assert MOE_GEMM_EFFICIENCY < high < 1.0
    assert moe_load_efficiency(mixtral, "vllm", 16384) > high
    assert moe_load_efficiency(mixtral, "llama.cpp", 8192) == 1.0  # no fitted grouped-GEMM share there
    assert moe_load_efficiency(model_get("llama-3.1-8b"), "vllm", 8192) == MOE_GEMM_EFFICIENCY


def test_mixtral_on_8_h200_mlperf_v5_offline() -> None:
    """MLPerf Inference v5.0 closed, NVIDIA, H200-SXM-141GBx8_TRT mixtral-8x7b Offline: 62,629.6 output tokens/s
    (osl 145; isl ~400 UNCONFIRMED; one FP8 instance per GPU assumed). A step of 2,048 sequences carries 8,192
    tokens, 2,048 per expert: we say +1 % (claim ≤ 15 %); at the fitted 0.4 everywhere it was −47 %."""
    workload = Workload(
        model=model_get("mixtral-8x7b"), precision="fp8", kv_cache_precision="fp8", context_tokens=545,
        engine="tensorrt-llm", prompt_tokens=400, output_tokens=145,
    )  # fmt: skip
    served = serving.served_throughput(
        workload, GPUS["h200-sxm"], 1, prompt_tokens=400, output_tokens=145, link_gbs=None
    )
    assert 8 * served.tokens_per_s == pytest.approx(62629.6, rel=0.15)


def test_few_users_keep_the_fitted_efficiency() -> None:
    """The per-user path (few users, d33's area) does not move: 8 users of Mixtral are 16 tokens per expert."""
    workload = Workload(
        model=model_get("mixtral-8x7b"), precision="bf16", context_tokens=160, concurrent_users=8, engine="vllm",
        prompt_tokens=32, output_tokens=128,
    )  # fmt: skip
    gpu = GPUS["h200-sxm"]
    shipped = serving.decode_per_user(workload, gpu, 2, prompt_tokens=32, output_tokens=128, link_gbs=gpu.nvlink_gbs)
    fitted = serving.decode_per_user(
        workload, gpu, 2, prompt_tokens=32, output_tokens=128, link_gbs=gpu.nvlink_gbs,
        moe_efficiency=MOE_GEMM_EFFICIENCY,
    )  # fmt: skip
    assert shipped.tokens_per_s == fitted.tokens_per_s
