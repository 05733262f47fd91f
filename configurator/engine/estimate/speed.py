"""Speed: decode is bytes read per step / (η_bw × bandwidth) + per-layer and per-hop time
(configurator.engine.calibration); tensor parallel adds 2 all-reduces per layer (llm-analysis `analysis.py`
@d841e40); capped by compute. Prefill and training run at a share (MFU) of the dense tensor-core peak."""

from __future__ import annotations

import math
from dataclasses import dataclass

from configurator.engine import calibration as cal
from configurator.engine.estimate.engines import LLAMACPP_UBATCH, VLLM_BATCHED_TOKENS_SMALL
from configurator.engine.estimate.layout import _kv_share, _parallelism
from configurator.engine.estimate.plans import _Plan, _plan
from configurator.engine.estimate.training_speed import training_step
from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import GpuSpec, ModelArch, Throughput, Workload

# PCIe payload bandwidth per lane and direction after 128b/130b encoding (PCI-SIG base specs 3.0-6.0)
PCIE_GBS_PER_LANE: dict[int, float] = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def _pcie_gbs(gpu: GpuSpec) -> float:
    return PCIE_GBS_PER_LANE.get(gpu.pcie_gen, 1.969) * gpu.pcie_lanes


def _peak_flops(gpu: GpuSpec, precision: str, engine: str) -> float:
    """Dense tensor-core peak the GEMMs run at: FP8 for W8A8/FP4 checkpoints on engines with FP8 kernels,
    INT8 for W8A8 int8, FP16/BF16 otherwise (GGUF and W4A16 dequantize to fp16).

    The catalog's `fp16_tflops` of GeForce cards is the FP32-accumulate rate, half the FP16-accumulate rate
    (NVIDIA Ada whitepaper App. A, gpus.csv notes); llama.cpp's cuBLAS path accumulates in FP16, so it gets 2×.
    """
    if engine in ("vllm", "tensorrt-llm"):
        if precision in ("fp8", "nvfp4") and gpu.fp8_tflops:
            return gpu.fp8_tflops * 1e12
        if precision == "int8" and gpu.int8_tops:
            return gpu.int8_tops * 1e12
    if engine == "llama.cpp" and gpu.is_consumer and gpu.vendor.lower() == "nvidia":
        return 2.0 * gpu.fp16_tflops * 1e12
    return gpu.fp16_tflops * 1e12


@dataclass(frozen=True, slots=True)
class _Link:
    gbs: float
    floor_s: float
    label: Phrase


def _link(gpu: GpuSpec, link_gbs: float | None) -> _Link:
    if link_gbs:
        label = Phrase("NVLink/NVSwitch %(bandwidth)s GB/s", bandwidth=Num(link_gbs, None))
        return _Link(link_gbs, cal.ALLREDUCE_FLOOR_NVLINK_S, label)
    gbs = _pcie_gbs(gpu)
    label = Phrase(
        "PCIe %(gen)s.0 x%(lanes)s (%(bandwidth)s GB/s)", gen=gpu.pcie_gen, lanes=gpu.pcie_lanes, bandwidth=Num(gbs, 1)
    )
    return _Link(gbs, cal.ALLREDUCE_FLOOR_PCIE_S, label)


def _allreduce_s(model: ModelArch, tokens: int, tp: int, link: _Link) -> float:
    """2 all-reduces per layer of 2·tokens·h·(t−1)/t bf16 elements, each at least the latency floor
    (llm-analysis `analysis.py` @d841e40)."""
    if tp <= 1:
        return 0.0
    size = 2.0 * tokens * model.hidden * (tp - 1) / tp * 2.0
    return 2 * model.layers * max(link.floor_s, size / (link.gbs * 1e9))


def _decode_step_s(plan: _Plan, gpu: GpuSpec, count: int, parallelism: str, link: _Link) -> float:
    model = plan.workload.model
    constants = cal.DECODE_CONSTANTS[(plan.engine, cal.memory_class(gpu.memory_type))]
    sequences = plan.sequences
    weights = plan.read_bytes
    if model.is_moe and plan.routed_bytes:
        top_k = model.active_experts / model.experts
        union = 1.0 - (1.0 - top_k) ** sequences  # share of experts some token of the batch routes to
        weights += plan.routed_bytes * (union - top_k)
    kv = plan.kv_read_per_seq * sequences
    if model.is_moe and plan.routed_bytes:
        # scattered expert reads stream slower than dense GEMV: charge them as extra bytes
        routed_read = plan.routed_bytes * (1.0 - (1.0 - model.active_experts / model.experts) ** sequences)
        weights += routed_read * (1.0 / cal.moe_efficiency(model.experts) - 1.0)
    tp = count if parallelism == "tensor" else 1
    moved = weights / tp + kv * _kv_share(model, tp) if tp > 1 else weights + kv
    memory_s = moved / (constants.eta_bw * gpu.bandwidth_gbs * 1e9)
    compute_s = (
        sequences
        * plan.decode_flops
        / (tp * cal.PREFILL_MFU[plan.engine] * _peak_flops(gpu, plan.weight_precision, plan.engine))
    )
    fixed = model.layers * constants.tau_layer_s + constants.tau_step_s
    if parallelism == "pipeline":
        fixed += (count - 1) * cal.PIPELINE_HOP_S
    return max(memory_s, compute_s) + fixed + _allreduce_s(model, sequences, tp, link)


def _prefill_s(plan: _Plan, gpu: GpuSpec, count: int, parallelism: str, link: _Link) -> float:
    """Time to process one user's prompt: compute-bound FLOPs, or one weight read per ubatch/chunk."""
    w, model = plan.workload, plan.workload.model
    constants = cal.DECODE_CONSTANTS[(plan.engine, cal.memory_class(gpu.memory_type))]
    tp = count if parallelism == "tensor" else 1
    tokens = w.context_tokens
    compute_s = (
        tokens
        * plan.prefill_flops
        / (tp * cal.PREFILL_MFU[plan.engine] * _peak_flops(gpu, plan.weight_precision, plan.engine))
    )
    chunk = LLAMACPP_UBATCH if plan.engine == "llama.cpp" else VLLM_BATCHED_TOKENS_SMALL
    passes = math.ceil(tokens / chunk)
    weights = plan.read_bytes - plan.routed_bytes * (model.active_experts / model.experts if model.is_moe else 1.0)
    weights += plan.routed_bytes
    memory_s = passes * weights / tp / (constants.eta_bw * gpu.bandwidth_gbs * 1e9)
    fixed = passes * (model.layers * constants.tau_layer_s + constants.tau_step_s)
    if parallelism == "pipeline":
        fixed += passes * (count - 1) * cal.PIPELINE_HOP_S
    return max(compute_s, memory_s) + fixed + _allreduce_s(model, tokens, tp, link)


def _throughput(plan: _Plan, gpu: GpuSpec, count: int, parallelism: str, link: _Link) -> Throughput:
    if plan.training:  # estimate.training_speed: the whole build's tokens/s, its own field
        trained = training_step(plan, gpu, count, link.gbs, _pcie_gbs(gpu))
        return Throughput(0.0, 0.0, 0.0, 0.0, training_tokens_per_s=trained.tokens_per_s)
    step = _decode_step_s(plan, gpu, count, parallelism, link)
    prefill = _prefill_s(plan, gpu, count, parallelism, link)
    return Throughput(
        decode_tokens_per_s_per_user=1.0 / step,
        decode_tokens_per_s_total=plan.sequences / step,
        prefill_tokens_per_s=plan.workload.context_tokens / prefill,
        time_to_first_token_s=prefill,
    )


def decode_terms(workload: Workload, gpu: GpuSpec, gpu_count: int = 1) -> tuple[float, int, int]:
    """(bytes read per token / bandwidth in s, layers, pipeline hops) of a single-stream decode — the terms
    `calibration.fit_decode` fits; bench/accuracy.py uses them for its leave-one-out check."""
    plan = _plan(workload)
    parallelism = _parallelism(plan, gpu_count)
    hops = gpu_count - 1 if parallelism == "pipeline" else 0
    moved = plan.read_bytes + plan.kv_read_per_seq
    return moved / (gpu.bandwidth_gbs * 1e9), workload.model.layers, hops
