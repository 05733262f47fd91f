"""Speed: decode is bytes read per step / (η_bw × bandwidth) + per-layer and per-hop time
(configurator.engine.calibration); tensor parallel adds 2 all-reduces per layer (llm-analysis `analysis.py`
@d841e40); capped by compute. Prefill and training run at a share (MFU) of the dense tensor-core peak."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from configurator.engine import calibration as cal
from configurator.engine.estimate.engines import (
    LLAMACPP_UBATCH,
    MOE_GEMM_EFFICIENCY,
    VLLM_BATCHED_TOKENS_SMALL,
    request_tokens,
)
from configurator.engine.estimate.layout import DP_ATTENTION, _kv_share, _parallelism, rank_sequences, split_ways
from configurator.engine.estimate.plans import _Plan, serving_plans
from configurator.engine.estimate.server_memory import server_batch
from configurator.engine.estimate.topology import NETWORK, RingBound, Topology, tp_bound
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import GpuSpec, ModelArch, Workload

# PCIe payload bandwidth per lane and direction after 128b/130b encoding (PCI-SIG base specs 3.0-6.0)
PCIE_GBS_PER_LANE: dict[int, float] = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def _pcie_gbs(gpu: GpuSpec) -> float:
    return PCIE_GBS_PER_LANE.get(gpu.pcie_gen, 1.969) * gpu.pcie_lanes


# NVIDIA Blackwell GPUs (B200/B300, GB200/GB300, RTX PRO Blackwell, GeForce RTX 50): 5th-generation tensor cores
# with FP4, at twice their FP8 rate (NVIDIA Blackwell architecture technical brief: B200 9 PFLOPS dense FP4 against
# 4.5 FP8, the HGX B200 per-GPU table's 18 / 9 PFLOPS with sparsity halved, at the HGX B200's 1000 W; the RTX
# Blackwell whitepaper doubles FP8 for FP4 likewise). That rate is reached by GEMMs of thousands of rows (prefill);
# at the rows of a decode batch an NVFP4 GEMM runs no faster than an FP8 one: on a B200, Llama-3.1-8B's N=6144
# K=4096 GEMM with M = 128 / 256 / 512 rows does 454 / 880 / 1,569 TFLOP/s in NVFP4 with its activation
# quantization (vllm-project/vllm PR #20646, CUTLASS NVFP4) against 1,046 / 1,386 / 1,891 in FP8 (PR #19566,
# CUTLASS FP8), and 2,613 at 2,048 rows, below FP8's own trend there (×1.33-1.36 per doubling of M: ≈ 3,400): no
# measured M up to 2,048 shows NVFP4 ahead of FP8. A GEMM of M rows therefore runs NVFP4 at the FP8 rate up to
# FP8_RATE_MAX_ROWS rows and at the FP4 rate above (`_peak_flops`' `rows`), one rule for every GEMM: a decode
# step's GEMMs (M = its sequences), a prompt chunk's dense GEMMs (M = thousands of tokens) and the routed experts'
# grouped GEMMs (M = tokens per expert, step tokens × k / E: 512 for Qwen3-30B-A3B's 8,192-token step over 128
# experts of which 8 are active, where NVFP4 measured 0.83 × FP8).
# With decode at the FP4 rate MLPerf v4.1's 1 × B200 Llama-2-70B Offline (FP4, 11,264 tokens/s) was estimated
# +48 % and TensorRT-LLM's B200 FP4 rows (perf-overview.md @00f37686) Llama-3.3-70B 1000/1000 +41 %, Llama-3.1-405B
# TP4 1000/1000 +53 % and 128/2048 +83 %; at the FP8 rate −3 %, +23 %, +11 % and +8 %. Their prompt-heavy rows
# (2048/128, 5000/500: prefill at the FP4 rate) are +5 … +27 % either way (fixtures/server_speed.csv).
# The largest M of vLLM PR #20646's table (NVFP4 2,613 TFLOP/s, no faster than FP8's trend there)
FP8_RATE_MAX_ROWS = 2048
_BLACKWELL = re.compile(r"blackwell|\bg?b[23]00\b|geforce rtx 50\d0", re.IGNORECASE)


def has_fp4_tensor_cores(gpu: GpuSpec) -> bool:
    return gpu.vendor.strip().lower() == "nvidia" and bool(_BLACKWELL.search(f"{gpu.sku} {gpu.name}"))


def _peak_flops(gpu: GpuSpec, precision: str, engine: str, *, rows: float | None = None) -> float:
    """Dense tensor-core peak the GEMMs run at: FP8 for W8A8 checkpoints on engines with FP8 kernels, FP4 (twice
    FP8) for NVFP4 on Blackwell (the FP8 rate for GEMMs of FP8_RATE_MAX_ROWS `rows` or fewer; None: a prompt
    chunk's thousands: _BLACKWELL's note), INT8 for W8A8 int8,
    FP16/BF16 otherwise (GGUF and W4A16 dequantize to fp16; so does NVFP4 before Blackwell: vLLM runs it through
    its Marlin W4A16 kernel there, FP4 weights and BF16 activations).

    The catalog's `fp16_tflops` of GeForce cards is the FP32-accumulate rate, half the FP16-accumulate rate
    (NVIDIA Ada whitepaper App. A, gpus.csv notes); llama.cpp's cuBLAS path accumulates in FP16, so it gets 2×.
    """
    if engine in cal.SERVER_ENGINES:
        if precision == "nvfp4" and gpu.fp8_tflops and has_fp4_tensor_cores(gpu):
            return (2.0 if rows is None or rows > FP8_RATE_MAX_ROWS else 1.0) * gpu.fp8_tflops * 1e12
        if precision == "fp8" and gpu.fp8_tflops:
            return gpu.fp8_tflops * 1e12
        if precision == "int8" and gpu.int8_tops:
            return gpu.int8_tops * 1e12
    if engine == "llama.cpp" and gpu.is_consumer and gpu.vendor.lower() == "nvidia":
        return 2.0 * gpu.fp16_tflops * 1e12
    return gpu.fp16_tflops * 1e12


def quantized_gemms(gpu: GpuSpec, precision: str, engine: str) -> bool:
    """Whether a server engine's GEMMs quantize their activations for this precision and GPU (FP8, NVFP4 on FP4
    tensor cores, INT8 W8A8: a peak above the FP16 one), which calibration.ENGINE_MFU_FACTOR stands for; BF16
    and weight-only formats (W4A16 INT4, MXFP4 on Hopper) run through other kernels."""
    return engine in cal.SERVER_ENGINES and _peak_flops(gpu, precision, engine) > _peak_flops(gpu, "bf16", engine)


def routed_rate(gpu: GpuSpec, plan: _Plan, rows: float | None, step_tokens: float | None = None) -> float:
    """Dense GEMMs' peak (at `rows` rows; None: a prompt chunk's thousands) over the routed experts' one, whose
    grouped GEMMs get step_tokens × k / E rows each (uniform routing; default `rows`, else the engine's
    batched-token budget, `server_memory.server_batch`): an NVFP4 grouped GEMM of FP8_RATE_MAX_ROWS rows or fewer per
    expert runs at the FP8 rate (_BLACKWELL's note). 1 for dense models and every other format."""
    model = plan.workload.model
    if not model.is_moe:
        return 1.0
    dense = _peak_flops(gpu, plan.weight_precision, plan.engine, rows=rows)
    per_expert = (step_tokens or rows or server_batch(gpu)[0]) * model.active_experts / model.experts
    return dense / _peak_flops(gpu, plan.weight_precision, plan.engine, rows=per_expert)


@direct_init
@dataclass(frozen=True, slots=True)
class _Link:
    gbs: float
    floor_s: float
    gpu: GpuSpec | None = None  # PCIe: the GPU whose slot it is (for the label); None for NVLink/NVSwitch
    bound: RingBound | None = None  # from the build's link graph: which link bounds the ring, and why

    @property
    def label(self) -> Phrase:
        """Said only by the assumptions, so made when they are read (estimate() makes a link per call)."""
        if self.bound is not None:
            return self.bound.label
        if self.gpu is None:
            return Phrase("NVLink/NVSwitch %(bandwidth)s GB/s", bandwidth=Num(self.gbs, None))
        gpu = self.gpu
        return Phrase(
            "PCIe %(gen)s.0 x%(lanes)s (%(bandwidth)s GB/s)",
            gen=gpu.pcie_gen,
            lanes=gpu.pcie_lanes,
            bandwidth=Num(self.gbs, 1),
        )


# what the estimator is told of the GPUs' links: a bandwidth every GPU reaches every other at (NVSwitch), the
# build's link graph (estimate.topology), or None (PCIe from the GPU's generation and lanes)
LinkArg = float | Topology | None


def _link(gpu: GpuSpec, link_gbs: LinkArg, tp: int | None = None) -> _Link:
    """The link a ring of `tp` GPUs (default: all of the graph's) runs its all-reduces at."""
    if isinstance(link_gbs, Topology):
        bound = tp_bound(link_gbs, tp or link_gbs.count)
        floor = cal.ALLREDUCE_FLOOR_NVLINK_S if bound.nvlink else cal.ALLREDUCE_FLOOR_PCIE_S
        if bound.kind == NETWORK:
            floor = cal.ALLREDUCE_FLOOR_NETWORK_S
        return _Link(bound.gbs, floor, None if bound.nvlink else gpu, bound)
    if link_gbs:
        return _Link(link_gbs, cal.ALLREDUCE_FLOOR_NVLINK_S)
    return _Link(_pcie_gbs(gpu), cal.ALLREDUCE_FLOOR_PCIE_S, gpu)


def _allreduce_s(model: ModelArch, tokens: int, tp: int, link: _Link) -> float:
    """2 all-reduces per layer of 2·tokens·h·(t−1)/t bf16 elements, each at least the latency floor
    (llm-analysis `analysis.py` @d841e40)."""
    if tp <= 1:
        return 0.0
    size = 2.0 * tokens * model.hidden * (tp - 1) / tp * 2.0
    return 2 * model.layers * max(link.floor_s, size / (link.gbs * 1e9))


def _gather_scatter_s(model: ModelArch, tokens: int, tp: int, link: _Link) -> float:
    """DP attention (estimate.layout.DP_ATTENTION): per layer, an all-gather of the `tokens` hidden states of all
    ranks before the MoE/MLP and a reduce-scatter of its partial sums after it (decode: SGLang pads every rank
    to the fullest one's tokens, `dp_padding_mode` max_len for small batches): each half the bytes of one ring
    all-reduce of those tokens (a ring all-reduce is a reduce-scatter and an all-gather), each at least the
    latency floor; TP does 2 all-reduces instead."""
    if tp <= 1:
        return 0.0
    size = 2.0 * tokens * model.hidden * (tp - 1) / tp * 2.0
    return 2 * model.layers * max(link.floor_s, size / 2 / (link.gbs * 1e9))


ACT_BYTES = 2  # bf16 activations between kernels


def _activation_bytes(model: ModelArch, tp: int) -> float:
    """HBM bytes one GPU moves per token, over all layers, in the memory-bound kernels between the GEMMs.

    Per layer: two fused residual-add + RMSNorm kernels (read x and residual, write both: 8h values); RoPE on
    the q/k heads of this GPU; the gated activation of the MLP (`silu_and_mul`: read 2I/t, write I/t). An MoE
    layer runs it on the top-k expert rows (k·I/t each), and its second grouped GEMM writes a [tokens, k, h]
    tensor that `moe_sum` reads back and reduces to h (vLLM `fused_experts_impl`, vllm-project/vllm
    vllm/model_executor/layers/fused_moe/fused_moe.py @000d1458: intermediate_cache1/2/3 then ops.moe_sum;
    SGLang's fused_moe_triton the same). Under tensor parallelism every GPU does this for every token while
    doing only 1/t of the FLOPs, and k·h does not shrink with t: on Qwen3-235B-A22B at TP8 it is ~21 MB a
    token, whose moving takes about as long as the token's FLOPs at the prefill MFU; on a dense 405B ~8 % of
    it. Not counted: FP8 activation-quantization kernels and the attention kernels' own reads."""
    h, k = model.hidden, model.active_experts
    rope = 2 * (model.heads + model.kv_heads) * model.head_dim / tp
    moe_layers = model.layers - model.dense_layers if model.is_moe else 0
    dense = (8 * h + rope + 3 * model.intermediate / tp) * (model.layers - moe_layers)
    shared = model.shared_experts * model.moe_intermediate
    moe = (8 * h + rope + 3 * (k * model.moe_intermediate + shared) / tp + 2 * k * h + h) * moe_layers
    return (dense + moe) * ACT_BYTES


def int4_stream_share(engine: str, gpu: GpuSpec) -> float:
    """Share of the dense η_bw an INT4 W4A16 checkpoint's weights stream at on this GPU: its kernel's
    (calibration.int4_kernel, INT4_KERNEL_STREAM_SHARE); 1 where no server-engine kernel applies."""
    kernel = cal.int4_kernel(engine, gpu.vendor, gpu.sku, gpu.name)
    return cal.INT4_KERNEL_STREAM_SHARE[kernel] if kernel else 1.0


def plan_activation_bytes(plan: _Plan, tp: int) -> float:
    """`_activation_bytes` of the plan's model at `tp`, kept in the plan's memo (the full-load search asks it for
    every batch it tries)."""
    key = ("activation_bytes", tp)
    found = plan.memo.get(key)
    if found is None:
        found = plan.memo[key] = _activation_bytes(plan.workload.model, tp)
    return found  # type: ignore[return-value]


def _routed_flops(model: ModelArch) -> float:
    """FLOPs per token of the routed experts (k SwiGLU experts: gate, up and down projections, h × I each)."""
    if not model.is_moe:
        return 0.0
    return 2.0 * 3 * model.active_experts * model.hidden * model.moe_intermediate * (model.layers - model.dense_layers)


def _moe_extra_flops(model: ModelArch, efficiency: float, rate: float = 1.0) -> float:
    """FLOPs to add per token so that the routed experts' FLOPs run at `efficiency` of the dense GEMMs' rate
    (engines.MOE_GEMM_EFFICIENCY), on a peak `rate` times lower than the dense GEMMs' (`routed_rate`)."""
    return _routed_flops(model) * (rate / efficiency - 1.0)


@direct_init
@dataclass(frozen=True, slots=True)
class StepTerms:
    """One decode step of `sequences` sequences on one GPU, split into the terms the constants multiply:
    t = max(bytes_s / η_bw, compute_s / MFU) + layers·τ_layer + moe_layers·τ_moe + mla_layers·τ_mla + τ_step
    + hops·τ_hop + allreduce_s. `calibration.fit_*` fit the constants on these same terms
    (bench/accuracy.py, bench/accuracy_server.py)."""

    bytes_s: float  # bytes one GPU reads per step / its datasheet bandwidth
    compute_s: float  # FLOPs one GPU does per step / its dense peak
    layers: int
    moe_layers: int
    hops: int
    allreduce_s: float
    kquant_bytes_s: float = 0.0  # the weight part of bytes_s when the weights are GGUF K-quants
    vendor: str = ""  # the GPU's vendor: AMD GPUs pay their own K-quant dequant cost
    mla_layers: int = 0  # layers of multi-head latent attention (absorbed MLA kernels: DeepSeek-V2/V3 family)


def _routed_union(model: ModelArch, tokens: int) -> float:
    """Share of the routed experts some token of a step picks (uniform routing): 1 − (1 − k/E)^tokens."""
    return 1.0 - (1.0 - model.active_experts / model.experts) ** tokens


def _moe_efficiency(engine: str, override: float | None = None) -> float:
    return override or (MOE_GEMM_EFFICIENCY if engine in cal.SERVER_ENGINES else 1.0)


# Tokens per expert at which engines.MOE_GEMM_EFFICIENCY holds: the full-load rows it is fitted on are mostly
# prefill-bound steps of an 8,192-token budget over 128 experts of which 4-8 are active (256-512 tokens each).
MOE_REFERENCE_TOKENS_PER_EXPERT = 256


def moe_load_efficiency(model: ModelArch, engine: str, step_tokens: float, reference: float | None = None) -> float:
    """Efficiency of the routed experts' GEMMs in a full-load step of `step_tokens` tokens (decode and prefill
    tokens of a mixed step alike) on a server engine: a grouped GEMM whose experts get M tokens each runs at
    M / (M + M½) of the dense rate — a tile of rows is filled, and its weight tile loaded and dequantised, once
    per M rows (MARLIN, Frantar et al. PPoPP 2025: W4A16 speedups fade from batch 16-32 to 64-128; the
    DeepSeek-V3 report arXiv 2412.19437 §3.4 sizes expert batches for the same reason) — with M½ set so that
    the fitted efficiency (engines.MOE_GEMM_EFFICIENCY, or `reference`) holds at
    MOE_REFERENCE_TOKENS_PER_EXPERT (uniform routing: M = step_tokens × k / E). Never below the fitted value:
    fewer tokens per expert leave the GEMMs bound by the experts' weight reads, which the step's bytes already
    count (and a few users' steps — the per-user path — keep the fitted value)."""
    fitted = _moe_efficiency(engine, reference)
    if not model.is_moe or fitted >= 1.0:
        return fitted
    half = MOE_REFERENCE_TOKENS_PER_EXPERT * (1.0 / fitted - 1.0)
    per_expert = step_tokens * model.active_experts / model.experts
    return max(fitted, per_expert / (per_expert + half))


def loaded_step_tokens(sequences: int, prompt_tokens: int, output_tokens: int, gpu: GpuSpec) -> float:
    """Tokens of a mixed step while `sequences` run in steady state: each its decode token and the prompt tokens
    that keep it fed (prompt / output per output token), within the engine's batched-token budget
    (max_num_batched_tokens / max_num_tokens: `server_memory.server_batch`), never below the decode tokens."""
    budget = server_batch(gpu)[0]
    return min(sequences * (1.0 + prompt_tokens / max(1, output_tokens)), max(sequences, budget))


def step_terms(
    plan: _Plan,
    gpu: GpuSpec,
    count: int,
    parallelism: str,
    link: _Link,
    moe_efficiency: float | None = None,
    *,
    sequences: int | None = None,
) -> StepTerms:
    """Bytes, FLOPs and fixed costs of one decode step of `sequences` sequences (default `plan.sequences`),
    each reading the plan's KV cache of one sequence.

    MoE: a step reads the dense weights once and every expert some token of the batch routes to (the union);
    under tensor parallelism each GPU holds 1/t of every expert, under expert parallelism 1/t of the experts:
    either way one GPU reads 1/t of the union on average. llama.cpp's scattered per-expert mat-vecs
    (MUL_MAT_ID) stream slower than dense mat-vec (`calibration.moe_efficiency`, llmfit's calibration): charged
    as extra bytes, so the fitted η_bw stays the dense share. The server engines' fused-MoE kernels read each
    routed expert's slice as one tile of a grouped GEMM (at TP8 a DeepSeek-V3 expert's gate/up slice is
    7168 × 512, 3.7 MB in FP8): no penalty, the fitted η_bw. MLA layers (`mla_layers`) pay a fixed time of
    their own (`calibration.SERVER_TAU_MLA_LAYER_S`, whose note says what else was tried in its place).
    """
    model = plan.workload.model
    sequences = sequences or plan.sequences
    weights = plan.read_bytes
    moe_layers = 0
    if model.is_moe and plan.routed_bytes:
        top_k = model.active_experts / model.experts
        union = _routed_union(model, sequences)
        weights += plan.routed_bytes * (union - top_k)
        moe_layers = model.layers - model.dense_layers
        if plan.engine not in cal.SERVER_ENGINES:
            weights += plan.routed_bytes * union * (1.0 / cal.moe_efficiency(model.experts) - 1.0)
    kv = plan.kv_read_per_seq * sequences
    tp = split_ways(parallelism, count)
    rate = routed_rate(gpu, plan, sequences)
    flops = plan.decode_flops + _moe_extra_flops(model, _moe_efficiency(plan.engine, moe_efficiency), rate)
    if parallelism == DP_ATTENTION:
        # the fullest rank: the whole attention projections and its own sequences' latent cache and attention
        # FLOPs; 1/t of the MoE/MLP weights read for, and of the FLOPs of, the gathered tokens of all ranks
        own = rank_sequences(sequences, count)
        streamed = (weights - plan.attention_bytes) / tp + plan.attention_bytes
        moved = streamed + plan.kv_read_per_seq * own
        work = own * plan.attention_decode_flops + sequences * (flops - plan.attention_decode_flops) / tp
        collectives = _gather_scatter_s(model, own * count, tp, link)
    else:
        streamed = weights / tp
        moved = streamed + kv * _kv_share(model, tp) if tp > 1 else weights + kv
        work = sequences * flops / tp
        collectives = _allreduce_s(model, sequences, tp, link)
    moved += sequences * plan_activation_bytes(plan, tp)
    if plan.weight_precision == "int4":  # W4A16: the kernel's weight stream (calibration.INT4_KERNEL_STREAM_SHARE)
        moved += streamed * (1.0 / int4_stream_share(plan.engine, gpu) - 1.0)
    if parallelism == "pipeline" and plan.engine in cal.SERVER_ENGINES:
        # the server engines keep a micro-batch in every stage (vLLM's virtual engines, TensorRT-LLM's in-flight
        # batching per stage): all the stages compute at once on their share of the batch, so a step's FLOPs go
        # over up to `count` GPUs; each micro-batch still reads its stage's weights (the bytes stay). llama.cpp
        # runs its layer split one stage at a time (trial tr33: TensorRT-LLM PP2/4/8 on RTX PRO 6000 at full load
        # were -38/-58/-68 % as one stage at a time)
        work /= min(count, sequences)
    compute = work / _peak_flops(gpu, plan.weight_precision, plan.engine, rows=sequences)
    kquant = streamed if "_k" in plan.weight_precision else 0.0
    return StepTerms(
        bytes_s=moved / (gpu.bandwidth_gbs * 1e9),
        compute_s=compute,
        layers=model.layers,
        moe_layers=moe_layers,
        hops=count - 1 if parallelism == "pipeline" else 0,
        allreduce_s=collectives,
        kquant_bytes_s=kquant / (gpu.bandwidth_gbs * 1e9),
        vendor=gpu.vendor,
        mla_layers=model.layers if model.is_mla else 0,
    )


def step_seconds(terms: StepTerms, constants: cal.DecodeConstants, mfu: float) -> float:
    memory_s = terms.bytes_s / constants.eta_bw + terms.kquant_bytes_s * constants.kquant_extra_for(terms.vendor)
    fixed = terms.layers * constants.tau_layer_s + terms.moe_layers * constants.tau_moe_layer_s
    fixed += terms.mla_layers * constants.tau_mla_layer_s
    fixed += constants.tau_step_s + terms.hops * cal.PIPELINE_HOP_S
    return max(memory_s, terms.compute_s / mfu) + fixed + terms.allreduce_s


def _prefill_s(plan: _Plan, gpu: GpuSpec, count: int, parallelism: str, link: _Link) -> float:
    """Time to process one user's prompt: compute-bound FLOPs, or one weight read per ubatch/chunk."""
    w, model = plan.workload, plan.workload.model
    constants = cal.DECODE_CONSTANTS[(plan.engine, cal.memory_class(gpu.memory_type))]
    tp = split_ways(parallelism, count)
    tokens = w.context_tokens
    flops = plan.prefill_flops + _moe_extra_flops(model, _moe_efficiency(plan.engine), routed_rate(gpu, plan, None))
    if parallelism == DP_ATTENTION:  # one rank does the prompt's attention alone, the MoE/MLP is split
        flops = plan.attention_prefill_flops * tp + flops - plan.attention_prefill_flops
    quantized = quantized_gemms(gpu, plan.weight_precision, plan.engine)
    mfu = cal.prefill_mfu(plan.engine, quantized=quantized) * cal.server_mfu_scale(plan.engine, gpu.vendor)
    compute_s = tokens * flops / (tp * mfu * _peak_flops(gpu, plan.weight_precision, plan.engine))
    chunk = LLAMACPP_UBATCH if plan.engine == "llama.cpp" else VLLM_BATCHED_TOKENS_SMALL
    passes = math.ceil(tokens / chunk)
    weights = plan.read_bytes - plan.routed_bytes * (model.active_experts / model.experts if model.is_moe else 1.0)
    weights += plan.routed_bytes
    if plan.weight_precision == "int4":
        weights /= int4_stream_share(plan.engine, gpu)
    per_gpu = weights / tp
    collectives = _allreduce_s(model, tokens, tp, link)
    if parallelism == DP_ATTENTION:
        per_gpu += plan.attention_bytes * (1.0 - 1.0 / tp)
        collectives = _gather_scatter_s(model, tokens, tp, link)
    memory_s = passes * per_gpu / (constants.eta_bw * gpu.bandwidth_gbs * 1e9)
    fixed = passes * (model.layers * constants.tau_layer_s + constants.tau_step_s)
    if parallelism == "pipeline":
        fixed += passes * (count - 1) * cal.PIPELINE_HOP_S
    activations_s = tokens * plan_activation_bytes(plan, tp) / (constants.eta_bw * gpu.bandwidth_gbs * 1e9)
    return max(compute_s, memory_s) + activations_s + fixed + collectives


def decode_plan(workload: Workload) -> _Plan:
    """The plan a decode step of the workload reads: one sequence's KV cache at the request's mean depth,
    prompt + output / 2 (estimate.serving)."""
    return serving_plans(workload, *request_tokens(workload))[1]


def decode_terms(workload: Workload, gpu: GpuSpec, gpu_count: int = 1) -> tuple[float, int, int]:
    """(bytes read per token / bandwidth in s, layers, pipeline hops) of a single-stream decode — the terms
    `calibration.fit_decode` fits; bench/accuracy.py uses them for its leave-one-out check."""
    plan = decode_plan(workload)
    parallelism = _parallelism(plan, gpu_count)
    hops = gpu_count - 1 if parallelism == "pipeline" else 0
    moved = plan.read_bytes + plan.kv_read_per_seq
    return moved / (gpu.bandwidth_gbs * 1e9), workload.model.layers, hops


def workload_step_terms(workload: Workload, gpu: GpuSpec, gpu_count: int = 1, link_gbs: LinkArg = None) -> StepTerms:
    """The decode-step terms of a workload as estimate() lays it out: its users' sequences, each at the mean depth
    of its request (bench/accuracy.py fits on them)."""
    plan = decode_plan(workload)
    sequences = workload.concurrent_users * workload.batch_size
    return step_terms(plan, gpu, gpu_count, _parallelism(plan, gpu_count), _link(gpu, link_gbs), sequences=sequences)
