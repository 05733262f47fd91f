"""INT4 AWQ/GPTQ (W4A16) on the server engines: the kernel the estimate assumes (calibration.int4_kernel) and its
weight stream (calibration.INT4_KERNEL_STREAM_SHARE): Marlin on NVIDIA Ampere and newer at the dense share
(Frantar et al. 2024), the unfused AWQ/GPTQ kernels elsewhere at 0.77 of it (sgl-project/sglang issue #28:
79 vs 102 tok/s at batch 1, vLLM 0.3.3)."""

from __future__ import annotations

import pytest

from catalog.fixture import CatalogSnapshot
from configurator.engine import calibration as cal
from configurator.engine.estimate import estimate
from configurator.engine.estimate.speed import decode_plan, workload_step_terms
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload


def _int4(engine: str = "vllm", precision: str = "int4") -> Workload:
    return Workload(model_get("llama-3.1-8b"), precision=precision, engine=engine, context_tokens=2048)


@pytest.mark.parametrize(
    ("sku", "kernel"),
    [("h100-sxm", "marlin"), ("a100-80gb-sxm", "marlin"), ("rtx-4090", "marlin"), ("t4", "awq-gemm"),
     ("rtx-2080-ti", "awq-gemm")],
)  # fmt: skip
def test_the_kernel_follows_the_gpu_generation(snapshot: CatalogSnapshot, sku: str, kernel: str) -> None:
    gpu = snapshot.gpus[sku]
    assert cal.int4_kernel("vllm", gpu.vendor, gpu.sku, gpu.name) == kernel
    assert cal.int4_kernel("llama.cpp", gpu.vendor, gpu.sku, gpu.name) is None
    assert cal.int4_kernel("tensorrt-llm", gpu.vendor, gpu.sku, gpu.name) == "trtllm-w4a16"


def test_the_estimate_says_which_kernel_it_assumed(snapshot: CatalogSnapshot) -> None:
    marlin = [str(p) for p in estimate(_int4(), snapshot.gpus["h100-sxm"], 1).assumptions]
    assert any("Marlin kernel" in p for p in marlin)
    fallback = [str(p) for p in estimate(_int4(), snapshot.gpus["t4"], 1).assumptions]
    assert any("without Marlin" in p and "77" in p for p in fallback)
    fp16 = [str(p) for p in estimate(_int4(precision="fp16"), snapshot.gpus["h100-sxm"], 1).assumptions]
    assert not any("Marlin" in p for p in fp16)


def test_without_marlin_the_weights_stream_at_the_kernels_share(
    snapshot: CatalogSnapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unfused kernel adds weights × (1/0.77 − 1) to the bytes a step moves; nothing else changes."""
    gpu = snapshot.gpus["t4"]
    slow = workload_step_terms(_int4(), gpu)
    monkeypatch.setitem(cal.INT4_KERNEL_STREAM_SHARE, "awq-gemm", 1.0)
    ideal = workload_step_terms(_int4(), gpu)
    weights_s = decode_plan(_int4()).read_bytes / (gpu.bandwidth_gbs * 1e9)
    assert slow.bytes_s - ideal.bytes_s == pytest.approx(weights_s * (1 / 0.77 - 1), rel=1e-9)
    assert slow.compute_s == ideal.compute_s


def test_marlin_reads_int4_weights_like_dense_ones(snapshot: CatalogSnapshot) -> None:
    """On an H100 the INT4 step moves the 4.16-bit weights, KV and activations, no kernel surcharge: the bytes
    differ from FP16's by the weights' size only."""
    gpu = snapshot.gpus["h100-sxm"]
    int4, fp16 = _int4(), _int4(precision="fp16")
    moved = {w.precision: workload_step_terms(w, gpu).bytes_s * gpu.bandwidth_gbs * 1e9 for w in (int4, fp16)}
    weights = {w.precision: decode_plan(w).read_bytes for w in (int4, fp16)}
    assert moved["fp16"] - moved["int4"] == pytest.approx(weights["fp16"] - weights["int4"], rel=1e-6)


# NVIDIA TensorRT-Model-Optimizer benchmark.md (H100, TensorRT-LLM v0.9, nvidia-modelopt 0.11, static batches):
# Llama3-8B INT4 AWQ speed-up over FP16 at batch 2 / 32 / 64. The prompt and answer lengths are not published:
# 128 / 128 assumed.
MODELOPT_INT4_OVER_FP16 = {2: 1.61, 32: 1.43, 64: 1.37}


@pytest.mark.parametrize(("batch", "published"), sorted(MODELOPT_INT4_OVER_FP16.items()))
def test_tensorrt_llm_int4_awq_speedup_over_fp16(snapshot: CatalogSnapshot, batch: int, published: float) -> None:
    """Batch 2 is the figure calibration's 0.75 was fitted on (in-sample: within 2 %). Batches 32 and 64 are not
    used by the fit but come from the same publication (ours +3.5 % and +1.5 %, claimed ≤ 6 %); the W4A16 GEMMs
    run at the FP16 rate there, so the speed-up falls with the batch as measured."""
    gpu = snapshot.gpus["h100-sxm"]

    def speed(precision: str) -> float:
        w = Workload(
            model_get("llama-3.1-8b"), precision=precision, engine="tensorrt-llm", context_tokens=256,
            prompt_tokens=128, output_tokens=128, concurrent_users=batch,
        )  # fmt: skip
        throughput = estimate(w, gpu, 1).throughput
        assert throughput is not None
        return float(throughput.decode_tokens_per_s_per_user)

    assert speed("int4") / speed("fp16") == pytest.approx(published, rel=0.02 if batch == 2 else 0.06)
