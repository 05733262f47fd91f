"""Issue 33 (helper r33): TensorRT-LLM's MFU factor only where its GEMMs quantize activations, and one rule for the
NVFP4 rate by the rows of a GEMM, dense or grouped (configurator.engine.estimate.speed)."""

from __future__ import annotations

import pytest

from catalog.fixture import fixture_snapshot
from configurator.engine import calibration as cal
from configurator.engine.estimate import serving
from configurator.engine.estimate.plans import serving_plans
from configurator.engine.estimate.speed import FP8_RATE_MAX_ROWS, _peak_flops, quantized_gemms, routed_rate
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload

GPUS = fixture_snapshot().gpus


def test_the_tensorrt_llm_factor_is_for_quantized_activation_gemms_only() -> None:
    """TensorRT-LLM runs gpt-oss on Hopper with BF16 activations (TRITON MoE backend, its GPT-OSS deployment
    guide): MXFP4 there takes the pooled MFU; FP8 takes the factor; so do NVFP4 rows on Blackwell."""
    h200, b200 = GPUS["h200-sxm"], GPUS["b200-sxm"]
    assert quantized_gemms(h200, "fp8", "tensorrt-llm")
    assert quantized_gemms(b200, "nvfp4", "tensorrt-llm")
    assert not quantized_gemms(h200, "mxfp4", "tensorrt-llm")
    assert not quantized_gemms(h200, "bf16", "tensorrt-llm")
    assert not quantized_gemms(h200, "int4", "tensorrt-llm")
    assert cal.engine_mfu("tensorrt-llm", 0.5, quantized=False) == 0.5
    assert cal.engine_mfu("tensorrt-llm", 0.5) == pytest.approx(0.5 * cal.ENGINE_MFU_FACTOR["tensorrt-llm"])
    assert cal.prefill_mfu("tensorrt-llm", quantized=False) == cal.SERVER_MFU
    # the estimate: gpt-oss-120b MXFP4 on one H200 is the same under TensorRT-LLM's MFU and the pooled one
    workload = Workload(model=model_get("gpt-oss-120b"), precision="mxfp4", engine="tensorrt-llm")
    shipped = serving.served_throughput(workload, h200, 1, prompt_tokens=1000, output_tokens=1000).tokens_per_s
    pooled = serving.served_throughput(
        workload, h200, 1, prompt_tokens=1000, output_tokens=1000, mfu=cal.SERVER_MFU
    ).tokens_per_s
    assert shipped == pytest.approx(pooled)


def test_nvfp4_runs_at_the_fp8_rate_up_to_2048_rows_dense_or_grouped() -> None:
    """vLLM PRs #20646/#19566 on a B200: NVFP4 no faster than FP8 at M ≤ 2,048 rows. Qwen3-30B-A3B's experts get
    8,192 × 8 / 128 = 512 rows of a full step: its grouped GEMMs run at the FP8 rate while its dense prompt
    GEMMs run at FP4's (twice); Mixtral's experts get 8,192 × 2 / 8 = 2,048: FP8 too; a dense model has no
    routed GEMMs. Hopper has no FP4 tensor cores: no FP4 rate to lose."""
    b200 = GPUS["b200-sxm"]
    fp8 = _peak_flops(b200, "fp8", "tensorrt-llm")
    assert _peak_flops(b200, "nvfp4", "tensorrt-llm", rows=FP8_RATE_MAX_ROWS) == fp8
    assert _peak_flops(b200, "nvfp4", "tensorrt-llm", rows=FP8_RATE_MAX_ROWS + 1) == 2 * fp8
    assert _peak_flops(b200, "nvfp4", "tensorrt-llm") == 2 * fp8

    def rate(slug: str, precision: str, gpu: str = "b200-sxm") -> float:
        plan = serving_plans(Workload(model=model_get(slug), precision=precision, engine="tensorrt-llm"), 1000, 1000)
        return routed_rate(GPUS[gpu], plan[0], None, 8192)

    assert rate("qwen3-30b-a3b", "nvfp4") == 2.0
    assert rate("mixtral-8x7b", "nvfp4") == 2.0
    assert rate("qwen3-30b-a3b", "fp8") == 1.0
    assert rate("llama-3.3-70b", "nvfp4") == 1.0
    assert rate("qwen3-30b-a3b", "nvfp4", "h200-sxm") == 1.0
