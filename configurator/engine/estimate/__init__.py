"""Workload → Estimate: memory, layout on GPUs and speed of an LLM workload (pure functions, no Django).

Formulas and their sources (../shared/reference/estimator-anchors.md):
- weights: tensor by tensor at the storage precision (GGUF mixes per llama.cpp `llama_tensor_get_type`);
- KV cache: 2 × layers × kv_heads × head_dim × bytes × tokens × sequences; MLA caches kv_lora_rank + rope dims;
  sliding-window layers hold at most the window;
- activations: inference compute buffers per engine; training per Korthikanti et al. (arXiv 2205.05198),
  counted tensor by tensor for SwiGLU blocks with flash attention, full recompute with checkpointing;
- training state: mixed-precision AdamW 2 + 2 + 12 bytes/param (ZeRO, Rajbhandari et al. arXiv 1910.02054,
  K = 12), 8-bit AdamW (Dettmers et al. arXiv 2110.02861) 2 + 2 + 4 + 2; ZeRO stages shard over the GPUs;
- decode: bytes read per step / (η_bw × bandwidth) + per-layer and per-hop time (configurator.engine.calibration),
  tensor parallel adds 2 all-reduces per layer (llm-analysis `analysis.py` @d841e40); capped by compute.

The package, one module per step: `weights` (bits and bytes per tensor), `kv_cache`, `engines` (what an engine
reserves; workload checks), `plans` (memory before layout, training included), `layout` (parallelism, per-GPU
memory, `min_gpus_to_fit`), `speed` (decode, prefill and training throughput), `assumptions` (the sentences);
`estimate` below puts them together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from configurator.engine import calibration as cal
from configurator.engine.errors import DomainError
from configurator.engine.estimate.engines import (
    GPU_CONTEXT_GIB,
    GPU_MEMORY_UTILIZATION,
    LLAMACPP_UBATCH,
    VLLM_BATCHED_TOKENS_SMALL,
    VLLM_MAX_NUM_SEQS,
    _check,
    default_engine,
    workload_problems,
)
from configurator.engine.estimate.kv_cache import (
    KV_BYTES_PER_ELEMENT,
    kv_bytes_per_layer_token,
    kv_bytes_per_token,
    kv_cache_bytes,
)
from configurator.engine.estimate.weights import (
    _HF_QUANTIZED,
    GGML_TYPE_BITS,
    GGUF_DEFAULT_TYPE,
    GGUF_MXFP4_MOE,
    GGUF_PUBLISHED_BPW,
    GIB,
    HF_LINEAR_BITS,
    NF4_BITS,
    Tensor,
    WeightProfile,
    _tensor_bits,
    bits_per_weight,
    model_tensors,
    tensor_bits,
    weight_bytes,
    weight_profile,
)
from configurator.engine.phrase import LazyTexts, Num, Phrase
from configurator.engine.types import (
    GGUF_PRECISIONS,
    Estimate,
    GpuLayout,
    GpuSpec,
    MemoryBreakdown,
    ModelArch,
    Throughput,
    Workload,
)

__all__ = [
    "GGML_TYPE_BITS",
    "GGUF_DEFAULT_TYPE",
    "GGUF_MXFP4_MOE",
    "GGUF_PUBLISHED_BPW",
    "GIB",
    "GPU_CONTEXT_GIB",
    "GPU_MEMORY_UTILIZATION",
    "HF_LINEAR_BITS",
    "KV_BYTES_PER_ELEMENT",
    "LLAMACPP_UBATCH",
    "NF4_BITS",
    "PCIE_GBS_PER_LANE",
    "VLLM_BATCHED_TOKENS_SMALL",
    "VLLM_MAX_NUM_SEQS",
    "Tensor",
    "WeightProfile",
    "bits_per_weight",
    "decode_terms",
    "default_engine",
    "estimate",
    "kv_bytes_per_layer_token",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "min_gpus_to_fit",
    "model_tensors",
    "tensor_bits",
    "weight_bytes",
    "weight_profile",
    "workload_problems",
]

# --------------------------------------------------------------------------- engines and checks

# PCIe payload bandwidth per lane and direction after 128b/130b encoding (PCI-SIG base specs 3.0-6.0)
PCIE_GBS_PER_LANE: dict[int, float] = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}

# --------------------------------------------------------------------------- plans (memory before layout)


@dataclass(frozen=True, slots=True)
class _Plan:
    """Everything about a workload that does not depend on the GPU; built once per workload."""

    workload: Workload
    engine: str
    training: bool
    weight_precision: str  # the storage precision actually sized (training coerces GGUF to bf16, QLoRA NF4)
    weights: float  # bytes, whole checkpoint
    weights_vram: float  # bytes resident on GPUs (llama.cpp keeps token_embd in system RAM)
    layer_bytes: float  # part of weights_vram that a layer split divides
    head_bytes: float  # output head: on the last GPU of a layer split
    embed_gpu_bytes: float  # input embedding on the first GPU of a layer split
    kv: float  # all sequences
    scratch: float  # per-GPU compute buffer (inference) or stored activations (training)
    logits: float  # on one GPU (the last of a layer split, rank 0 of tensor parallel)
    gradients: float
    optimizer: float
    gather: float  # ZeRO-3 gathered-parameter buffers (only with ≥ 2 GPUs)
    trainable_params: int
    sequences: int
    read_bytes: float  # weights read per decode step by one sequence
    routed_bytes: float  # routed-expert bytes (MoE): more of them are read as the batch grows
    kv_read_per_seq: float  # KV bytes read per decode step per sequence at the context
    decode_flops: float  # per generated token
    prefill_flops: float  # per prompt token, averaged over the prompt
    train_flops: float  # per trained token (forward + backward + recompute)
    notes: tuple[Phrase, ...]


def _active_tokens_intermediate(model: ModelArch) -> int:
    """Width of the MLP a token passes through: routed top-k plus shared experts for MoE."""
    if not model.is_moe:
        return model.intermediate
    moe = (model.active_experts + model.shared_experts) * model.moe_intermediate
    return max(moe, model.intermediate if model.dense_layers else 0)


def _compute_params(model: ModelArch) -> float:
    """Parameters multiplied per token: active, without the input embedding lookup."""
    embed = 0 if model.tied_embeddings else model.vocab * model.hidden
    return float(model.active_params - embed)


def _attention_flops(model: ModelArch, context: int, causal_average: bool) -> float:
    """QKᵀ and PV: 4 × q_dim × attended tokens per layer (half the context on average over a prompt)."""
    q_dim = model.heads * model.head_dim
    span = context / 2 if causal_average else float(context)
    window = model.sliding_window
    sliding = model.sliding_window_layers if window else 0
    if window is None or not sliding:
        return 4.0 * q_dim * span * model.layers
    return 4.0 * q_dim * ((model.layers - sliding) * span + sliding * min(span, float(window)))


def _lora_params(model: ModelArch, rank: int) -> int:
    """r·(d_in + d_out) for every linear layer of the decoder blocks (PEFT target_modules="all-linear")."""
    total = 0
    for tensor in model_tensors(model):
        if tensor.layer < 0 or tensor.kind in ("ffn_gate_inp", "other"):
            continue
        d_in = tensor.row
        if tensor.routed:
            d_out = tensor.params // (model.experts * d_in)
            total += model.experts * rank * (d_in + d_out)
        else:
            total += rank * (d_in + tensor.params // d_in)
    return total


def _inference_plan(w: Workload) -> _Plan:
    model, engine = w.model, cal.engine_family(w.engine)
    stored = GGUF_MXFP4_MOE if engine == "llama.cpp" and w.precision == "mxfp4" and model.is_moe else w.precision
    profile = weight_profile(model, stored)
    sequences = w.concurrent_users * w.batch_size
    kv = kv_cache_bytes(model, w.kv_cache_precision, w.context_tokens, sequences)
    h, q_dim = model.hidden, model.heads * model.head_dim
    kv_dim = model.kv_heads * model.head_dim
    inter = _active_tokens_intermediate(model)
    notes: list[Phrase] = []
    if engine == "llama.cpp":
        # compute buffer (flash attention on, so no ctx × heads score matrix): one layer's f32 temporaries for a
        # 512-token ubatch, and the f32 logits of the ubatch on the GPU with the output layer (ollama
        # `GraphSize` llama branch: 4·batch·(h + V)).
        scratch = 4.0 * LLAMACPP_UBATCH * (2 * h + q_dim + 2 * kv_dim + 3 * inter)
        logits = 4.0 * LLAMACPP_UBATCH * (h + model.vocab)
        weights_vram = profile.total_bytes - profile.embed_bytes
        embed_gpu = 0.0
        if profile.embed_bytes:
            notes.append(
                Phrase(
                    "llama.cpp keeps token_embd (%(size)s GiB) in system RAM, not in VRAM",
                    size=Num(profile.embed_bytes / GIB, 2),
                )
            )
    elif engine in ("vllm", "tensorrt-llm"):
        tokens = VLLM_BATCHED_TOKENS_SMALL
        scratch = 2.0 * tokens * (3 * h + q_dim + 2 * kv_dim + 3 * inter)
        logits = 4.0 * 2 * VLLM_MAX_NUM_SEQS * model.vocab
        weights_vram = profile.total_bytes
        embed_gpu = profile.embed_bytes
    else:  # transformers: the whole prompt of every sequence in one forward pass (sdpa, no score matrix)
        scratch = 2.0 * sequences * w.context_tokens * (3 * h + q_dim + 2 * kv_dim + 3 * inter)
        logits = 4.0 * sequences * model.vocab
        weights_vram = profile.total_bytes
        embed_gpu = profile.embed_bytes
    compute = _compute_params(model)
    return _Plan(
        workload=w,
        engine=engine,
        training=False,
        weight_precision=w.precision,
        weights=profile.total_bytes,
        weights_vram=weights_vram,
        layer_bytes=profile.layer_bytes,
        head_bytes=profile.head_bytes,
        embed_gpu_bytes=embed_gpu,
        kv=kv,
        scratch=scratch,
        logits=logits,
        gradients=0.0,
        optimizer=0.0,
        gather=0.0,
        trainable_params=0,
        sequences=sequences,
        read_bytes=profile.read_bytes_per_token,
        routed_bytes=profile.routed_bytes,
        kv_read_per_seq=kv_cache_bytes(model, w.kv_cache_precision, w.context_tokens, 1),
        decode_flops=2 * compute + _attention_flops(model, w.context_tokens, causal_average=False),
        prefill_flops=2 * compute + _attention_flops(model, w.context_tokens, causal_average=True),
        train_flops=0.0,
        notes=tuple(notes),
    )


def _training_activations(model: ModelArch, tokens: int, checkpointing: bool) -> tuple[float, float]:
    """(stored activations, logits) in bytes for `tokens` = micro-batch × sequence length.

    Korthikanti et al. (arXiv 2205.05198) §4: 34·s·b·h per layer for a GPT block with its GeLU MLP (I = 4h);
    here counted tensor by tensor for a pre-norm SwiGLU block with flash attention, 16-bit: the two norm inputs
    and outputs (4h), Q and the attention output (2·q_dim), K and V (2·kv_dim), gate, up, SiLU(gate) and the
    product (4·I), plus the fp32 softmax statistics (4 B per head). Full recompute keeps only each layer's
    input (2·s·b·h, the paper's figure) and rebuilds one layer at a time. Logits: bf16 plus the fp32 copy the
    cross-entropy takes (2 + 4 bytes per vocabulary entry, §4.1 output layer).
    """
    h, q_dim = model.hidden, model.heads * model.head_dim
    kv_dim = model.kv_heads * model.head_dim
    inter = _active_tokens_intermediate(model)
    per_token_layer = 2.0 * (4 * h + 2 * q_dim + 2 * kv_dim + 4 * inter) + 4.0 * model.heads
    if model.is_moe:
        per_token_layer += 4.0 * model.experts  # router logits
    if checkpointing:
        stored = tokens * (model.layers * 2.0 * h + per_token_layer)
    else:
        stored = tokens * (model.layers * per_token_layer + 2.0 * h)
    return stored, 6.0 * tokens * model.vocab


def _training_plan(w: Workload) -> _Plan:
    model, task = w.model, w.task
    notes: list[Phrase] = []
    precision = w.precision
    if task == "qlora":
        tensors, bits = model_tensors(model), _tensor_bits(model, "bf16")
        weights = 0.0
        for tensor, b in zip(tensors, bits, strict=True):
            quantized = tensor.layer >= 0 and tensor.kind not in ("other", "ffn_gate_inp")
            weights += tensor.params * (NF4_BITS if quantized else b) / 8
        precision = "nf4"
    else:
        if precision not in ("fp32", "bf16", "fp16") and not (task == "lora" and precision in _HF_QUANTIZED):
            notes.append(Phrase("%(precision)s weights cannot be trained; sized as bf16", precision=w.precision))
            precision = "bf16"
        weights = weight_bytes(model, precision)
    state = 4.0 if precision == "fp32" else 2.0
    if task == "full_finetune":
        trainable = model.total_params
    else:
        trainable = _lora_params(model, w.lora_rank)
        weights += trainable * 2.0  # bf16 adapters
    gradients = trainable * state
    if w.optimizer == "adamw_8bit":
        per_param = 2.0 if precision == "fp32" else 6.0  # 8-bit m and v (+ fp32 master copy when mixed)
    else:
        per_param = 8.0 if precision == "fp32" else 12.0  # fp32 m and v (+ fp32 master copy when mixed)
    optimizer = trainable * per_param
    tokens = w.batch_size * w.sequence_length
    stored, logits = _training_activations(model, tokens, w.gradient_checkpointing)
    compute = _compute_params(model)
    # 2P forward + 4P backward (activation and weight gradients); LoRA skips the frozen weight gradients;
    # full recompute repeats the forward (Korthikanti et al. §5: 4 × forward with recompute).
    train_flops = (6.0 if task == "full_finetune" else 4.0) * compute
    if w.gradient_checkpointing:
        train_flops += 2.0 * compute
    largest = max(model.vocab * model.hidden, (model.total_params - model.vocab * model.hidden) / model.layers)
    return _Plan(
        workload=w,
        engine="training",
        training=True,
        weight_precision=precision,
        weights=weights,
        weights_vram=weights,
        layer_bytes=weights,
        head_bytes=0.0,
        embed_gpu_bytes=0.0,
        kv=0.0,
        scratch=stored,
        logits=logits,
        gradients=gradients,
        optimizer=optimizer,
        gather=2.0 * largest * state,  # DeepSpeed stage3 estimator: largest_layer_mem = 4 × largest layer
        trainable_params=int(trainable),
        sequences=w.batch_size,
        read_bytes=0.0,
        routed_bytes=0.0,
        kv_read_per_seq=0.0,
        decode_flops=0.0,
        prefill_flops=0.0,
        train_flops=train_flops,
        notes=tuple(notes),
    )


@lru_cache(maxsize=512)
def _plan(workload: Workload) -> _Plan:
    _check(workload)
    if workload.task == "inference":
        return _inference_plan(workload)
    return _training_plan(workload)


# --------------------------------------------------------------------------- layout on GPUs


def _parallelism(plan: _Plan, count: int) -> str:
    if count <= 1:
        return "single"
    if plan.training:
        return "data"
    model = plan.workload.model
    if plan.engine in ("vllm", "tensorrt-llm"):
        kv_ok = model.is_mla or model.kv_heads % count == 0 or count % model.kv_heads == 0
        if model.heads % count == 0 and kv_ok:
            return "tensor"
    return "pipeline"


def _kv_share(model: ModelArch, tp: int) -> float:
    """Share of the KV cache each tensor-parallel GPU holds: heads split, replicated when kv_heads < t;
    the MLA latent is shared by all heads, so every GPU keeps all of it (vLLM MLA backends)."""
    if model.is_mla:
        return 1.0
    return max(1.0 / tp, 1.0 / model.kv_heads)


def _per_gpu_bytes(plan: _Plan, parallelism: str, count: int) -> float:
    overhead = GPU_CONTEXT_GIB * GIB
    if plan.training:
        stage = plan.workload.zero_stage if count > 1 else 0
        weights = plan.weights / count if stage >= 3 else plan.weights
        gradients = plan.gradients / count if stage >= 2 else plan.gradients
        optimizer = plan.optimizer / count if stage >= 1 else plan.optimizer
        gather = plan.gather if stage >= 3 else 0.0
        return weights + gradients + optimizer + gather + plan.scratch + plan.logits + overhead
    if parallelism == "single":
        return plan.weights_vram + plan.kv + plan.scratch + plan.logits + overhead
    if parallelism == "tensor":
        share = _kv_share(plan.workload.model, count)
        return plan.weights_vram / count + plan.kv * share + plan.scratch / count + plan.logits + overhead
    layers = plan.workload.model.layers
    body = math.ceil(layers / count) / layers * (plan.layer_bytes + plan.kv) + plan.scratch + overhead
    return max(body + plan.embed_gpu_bytes, body + plan.head_bytes + plan.logits)


def _usable_gib(plan: _Plan, gpu: GpuSpec) -> float:
    return gpu.vram_gib * GPU_MEMORY_UTILIZATION.get(plan.engine, 1.0)


def _min_gpus(plan: _Plan, gpu: GpuSpec, max_gpus: int) -> int | None:
    usable = _usable_gib(plan, gpu) * GIB
    for count in range(1, max(1, max_gpus) + 1):
        if _per_gpu_bytes(plan, _parallelism(plan, count), count) <= usable:
            return count
    return None


def min_gpus_to_fit(
    workload: Workload, gpu: GpuSpec, *, max_gpus: int = 16, link_gbs: float | None = None
) -> int | None:
    """Smallest count of `gpu` (1..max_gpus) whose per-GPU memory fits, None when none does.

    Memory does not depend on the interconnect; `link_gbs` is accepted for symmetry with `estimate`.
    """
    del link_gbs
    return _min_gpus(_plan(workload), gpu, max_gpus)


# --------------------------------------------------------------------------- speed


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
    if plan.training:
        peak = gpu.fp16_tflops * 1e12 * count
        tokens_per_s = cal.TRAINING_MFU * peak / plan.train_flops
        return Throughput(0.0, 0.0, tokens_per_s, 0.0)
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


# --------------------------------------------------------------------------- the estimate


def _precision_words(plan: _Plan) -> Phrase:
    model = plan.workload.model
    bpw = Num(plan.weights * 8 / model.total_params, 2)
    precision = plan.weight_precision
    if precision in GGUF_PRECISIONS:
        return Phrase(
            "%(precision)s = %(bpw)s bits/weight on this model (llama.cpp llama_tensor_get_type mix; "
            "%(published)s on Llama-3.1-8B, llama.cpp tools/quantize/README.md @311c2c9)",
            precision=precision.upper(),
            bpw=bpw,
            published=Num(GGUF_PUBLISHED_BPW[precision], 2),
        )
    if precision == "nf4":
        return Phrase(
            "QLoRA NF4 base = %(bits)s bits/weight with double quantization (arXiv 2305.14314 §3)",
            bits=Num(NF4_BITS, 3),
        )
    experts = Num(GGML_TYPE_BITS["MXFP4"], 2)
    if precision == "mxfp4" and plan.engine == "llama.cpp" and model.is_moe:
        return Phrase(
            "GGUF MXFP4_MOE: experts at %(experts)s bits/weight, other tensors Q8_0 = %(bpw)s bits/weight overall "
            "(llama.cpp llama_tensor_get_type)",
            experts=experts,
            bpw=bpw,
        )
    if precision == "mxfp4" and model.native_precision == "mxfp4":
        return Phrase(
            "MXFP4 experts at %(experts)s bits/weight, attention and embeddings in bf16 = %(bpw)s bits/weight "
            "overall (OpenAI gpt-oss checkpoint layout)",
            experts=experts,
            bpw=bpw,
        )
    if precision in _HF_QUANTIZED or precision == "mxfp4":
        return Phrase(
            "%(precision)s linear layers at %(linear)s bits/weight, embeddings/lm_head in 16 bits "
            "= %(bpw)s bits/weight overall",
            precision=precision,
            linear=Num(HF_LINEAR_BITS[precision], 2),
            bpw=bpw,
        )
    return Phrase("%(precision)s = %(bits)s bits/weight", precision=precision, bits=Num(HF_LINEAR_BITS[precision]))


def _kv_assumptions(plan: _Plan) -> list[Phrase]:
    w, model = plan.workload, plan.workload.model
    per_token = kv_bytes_per_token(model, w.kv_cache_precision)
    element = Num(KV_BYTES_PER_ELEMENT[w.kv_cache_precision], None)
    if model.is_mla:
        shape = Phrase(
            "MLA latent %(layers)s layers × %(width)s × %(element)s B",
            layers=model.layers,
            width=(model.kv_lora_rank or 0) + (model.qk_rope_head_dim or 0),
            element=element,
        )
    else:
        shape = Phrase(
            "2 × %(layers)s layers × %(kv_heads)s KV heads × %(head_dim)s × %(element)s B",
            layers=model.layers,
            kv_heads=model.kv_heads,
            head_dim=model.head_dim,
            element=element,
        )
    words = [
        Phrase(
            "KV cache %(precision)s: %(shape)s = %(per_token)s KiB per token; "
            "%(tokens)s tokens × %(sequences)s sequence(s)",
            precision=w.kv_cache_precision,
            shape=shape,
            per_token=Num(per_token / 1024, 1),
            tokens=Num(w.context_tokens),
            sequences=plan.sequences,
        )
    ]
    if model.sliding_window and model.sliding_window_layers:
        words.append(
            Phrase(
                "%(sliding)s of %(layers)s layers use a %(window)s-token sliding window: "
                "their KV cache stops growing there",
                sliding=model.sliding_window_layers,
                layers=model.layers,
                window=Num(model.sliding_window),
            )
        )
    if w.context_tokens > model.max_context:
        words.append(
            Phrase(
                "context %(tokens)s exceeds the model's %(window)s-token window: quality is not guaranteed past it",
                tokens=Num(w.context_tokens),
                window=Num(model.max_context),
            )
        )
    if plan.engine == "llama.cpp":
        words.append(
            Phrase(
                "llama.cpp compute buffer for a %(ubatch)s-token ubatch with flash attention "
                "(%(size)s GiB incl. f32 logits)",
                ubatch=LLAMACPP_UBATCH,
                size=Num((plan.scratch + plan.logits) / GIB, 2),
            )
        )
    elif plan.engine in ("vllm", "tensorrt-llm"):
        words.append(
            Phrase(
                "%(engine)s activation peak for %(tokens)s batched tokens and %(sequences)s sampled sequences "
                "(%(size)s GiB)",
                engine=w.engine,
                tokens=VLLM_BATCHED_TOKENS_SMALL,
                sequences=VLLM_MAX_NUM_SEQS,
                size=Num((plan.scratch + plan.logits) / GIB, 2),
            )
        )
    else:
        words.append(
            Phrase(
                "transformers prefill of the whole prompt at once (%(size)s GiB)",
                size=Num(plan.scratch / GIB, 2),
            )
        )
    return words


def _training_assumptions(plan: _Plan) -> list[Phrase]:
    w = plan.workload
    words: list[Phrase] = []
    if w.optimizer == "adamw_8bit":
        optimizer = Phrase(
            "8-bit AdamW: bf16 weights 2 + bf16 grads 2 + fp32 master 4 + 8-bit m, v 2 B/param "
            "(bitsandbytes, arXiv 2110.02861)"
        )
        optimizer_name = Phrase("8-bit AdamW")
    else:
        optimizer = Phrase(
            "mixed-precision AdamW: bf16 weights 2 + bf16 grads 2 + fp32 master, m, v 12 = 16 B/param "
            "(ZeRO arXiv 1910.02054 K=12; DeepSpeed's code counts 20 with fp32 grads)"
        )
        optimizer_name = Phrase("mixed-precision AdamW")
    if w.task == "full_finetune":
        words.append(optimizer)
    else:
        words.append(
            Phrase(
                "LoRA rank %(rank)s on every linear layer: %(trainable)s M trainable parameters "
                "(r·(d_in + d_out) each) with %(optimizer)s",
                rank=w.lora_rank,
                trainable=Num(plan.trainable_params / 1e6, 1),
                optimizer=optimizer_name,
            )
        )
    if w.gradient_checkpointing:
        words.append(
            Phrase(
                "activations for %(batch)s × %(tokens)s tokens with gradient checkpointing (layer inputs 2·s·b·h "
                "kept, one layer recomputed), per tensor for SwiGLU + flash attention "
                "(Korthikanti et al. arXiv 2205.05198)",
                batch=w.batch_size,
                tokens=Num(w.sequence_length),
            )
        )
    else:
        words.append(
            Phrase(
                "activations for %(batch)s × %(tokens)s tokens without checkpointing, per tensor for SwiGLU + "
                "flash attention (Korthikanti et al. arXiv 2205.05198)",
                batch=w.batch_size,
                tokens=Num(w.sequence_length),
            )
        )
    return words


def _memory_assumptions(plan: _Plan) -> list[Phrase]:
    model = plan.workload.model
    total = Num(model.total_params / 1e9, 2)
    if model.is_moe:
        params = Phrase(
            "%(model)s: %(total)s B parameters, %(active)s B active per token (MoE) (%(source)s)",
            model=model.name,
            total=total,
            active=Num(model.active_params / 1e9, 2),
            source=model.source,
        )
    else:
        params = Phrase(
            "%(model)s: %(total)s B parameters (%(source)s)", model=model.name, total=total, source=model.source
        )
    words = [params, Phrase("Weights: %(words)s", words=_precision_words(plan))]
    words.extend(_training_assumptions(plan) if plan.training else _kv_assumptions(plan))
    words.append(
        Phrase(
            "CUDA context and runtime reserve %(reserve)s GiB per GPU (ollama reserves 457 MiB)",
            reserve=Num(GPU_CONTEXT_GIB, None),
        )
    )
    words.extend(plan.notes)
    return words


_ZERO_SHARDED: dict[int, Phrase] = {
    0: Phrase("nothing sharded (DDP replicas)"),
    1: Phrase("optimizer states sharded"),
    2: Phrase("optimizer states and gradients sharded"),
    3: Phrase("weights, gradients and optimizer sharded"),
}


def _layout_assumptions(
    plan: _Plan, gpu: GpuSpec, count: int, parallelism: str, link: _Link, throughput: Throughput
) -> list[Phrase]:
    w, model = plan.workload, plan.workload.model
    words: list[Phrase] = []
    vram = Num(gpu.vram_gib, None)
    util = GPU_MEMORY_UTILIZATION.get(plan.engine)
    if util is not None:
        words.append(
            Phrase(
                "%(engine)s gpu_memory_utilization %(util)s: usable = %(util)s × %(vram)s GiB per GPU",
                engine=w.engine,
                util=Num(util, 2),
                vram=vram,
            )
        )
    else:
        words.append(Phrase("usable = all %(vram)s GiB per GPU; the reserve is counted in the per-GPU need", vram=vram))
    if plan.training:
        if count > 1:
            stage = w.zero_stage
            words.append(
                Phrase(
                    "data parallel over %(count)s GPUs, ZeRO stage %(stage)s: %(sharded)s",
                    count=count,
                    stage=stage,
                    sharded=_ZERO_SHARDED[stage],
                )
            )
        words.append(
            Phrase(
                "training speed at %(mfu)s%% of %(tflops)s dense BF16 TFLOPS per GPU; decode figures do not apply",
                mfu=Num(cal.TRAINING_MFU * 100),
                tflops=Num(gpu.fp16_tflops, None),
            )
        )
        return words
    if parallelism == "tensor":
        if model.is_mla:
            kv = Phrase("MLA latent cache replicated on every GPU")
        elif model.kv_heads < count:
            kv = Phrase("%(kv_heads)s KV heads split (replicated: fewer heads than GPUs)", kv_heads=model.kv_heads)
        else:
            kv = Phrase("%(kv_heads)s KV heads split", kv_heads=model.kv_heads)
        words.append(
            Phrase(
                "tensor parallel over %(count)s GPUs via %(link)s: weights split, %(kv)s; "
                "2 all-reduces per layer, ≥ %(floor)s µs each",
                count=count,
                link=link.label,
                kv=kv,
                floor=Num(link.floor_s * 1e6),
            )
        )
    elif parallelism == "pipeline":
        words.append(
            Phrase(
                "layer split over %(count)s GPUs: capacity adds up, single-stream speed does not "
                "(+%(hop)s ms per GPU hand-over)",
                count=count,
                hop=Num(cal.PIPELINE_HOP_S * 1e3, 2),
            )
        )
    constants = cal.DECODE_CONSTANTS[(plan.engine, cal.memory_class(gpu.memory_type))]
    moved = plan.read_bytes + plan.kv_read_per_seq
    effective = moved * throughput.decode_tokens_per_s_per_user / (gpu.bandwidth_gbs * 1e9)
    if parallelism == "tensor":
        effective /= count
    words.append(
        Phrase(
            "decode: η_bw = %(eta)s of %(bandwidth)s GB/s + %(tau)s µs per layer per step (%(engine)s, "
            "%(memory)s; %(source)s) → effective η = %(effective)s on %(moved)s GB read per token",
            eta=Num(constants.eta_bw, 2),
            bandwidth=Num(gpu.bandwidth_gbs, None),
            tau=Num(constants.tau_layer_s * 1e6),
            engine=w.engine,
            memory=cal.memory_class(gpu.memory_type).upper(),
            source=constants.source,
            effective=Num(effective, 2),
            moved=Num(moved / 1e9, 2),
        )
    )
    if model.is_moe:
        words.append(
            Phrase(
                "MoE: memory holds all %(experts)s experts; each token reads %(active)s of them; "
                "a batch of %(sequences)s reads the union of the experts its tokens pick",
                experts=model.experts,
                active=model.active_experts,
                sequences=plan.sequences,
            )
        )
    words.append(
        Phrase(
            "prefill at %(mfu)s%% of %(peak)s dense TFLOPS (2 × %(params)s B active params + attention FLOPs "
            "per token); TTFT = one prompt of context_tokens",
            mfu=Num(cal.PREFILL_MFU[plan.engine] * 100),
            peak=Num(_peak_flops(gpu, plan.weight_precision, plan.engine) / 1e12, None),
            params=Num(_compute_params(model) / 1e9, 2),
        )
    )
    return words


def estimate(
    workload: Workload,
    gpu: GpuSpec | None = None,
    gpu_count: int = 1,
    *,
    link_gbs: float | None = None,
    max_gpus: int = 16,
) -> Estimate:
    """Memory, layout on `gpu_count` × `gpu` and speed of a workload.

    `link_gbs` is the GPU-to-GPU bandwidth when the GPUs are joined by NVLink/NVSwitch; None means PCIe
    (from the GPU's generation and lanes). Raises DomainError (fields named) for workloads that cannot run.
    """
    if gpu_count < 1:
        raise DomainError("gpu_count must be at least 1.", fields={"gpu_count": ["Must be at least 1."]})
    plan = _plan(workload)
    count = gpu_count if gpu is not None else 1
    overhead = GPU_CONTEXT_GIB * count
    memory = MemoryBreakdown(
        weights=plan.weights / GIB,
        kv_cache=plan.kv / GIB,
        activations=(plan.scratch + plan.logits) / GIB,
        gradients=plan.gradients / GIB,
        optimizer=plan.optimizer / GIB,
        overhead=overhead,
    )
    layout: GpuLayout | None = None
    throughput: Throughput | None = None
    if gpu is not None:
        parallelism = _parallelism(plan, count)
        per_gpu = _per_gpu_bytes(plan, parallelism, count) / GIB
        usable = _usable_gib(plan, gpu)
        layout = GpuLayout(
            sku=gpu.sku,
            count=count,
            parallelism=parallelism,
            per_gpu_gib=per_gpu,
            usable_gib=usable,
            fits=per_gpu <= usable,
            min_gpus_to_fit=_min_gpus(plan, gpu, max_gpus),
        )
        link = _link(gpu, link_gbs)
        throughput = _throughput(plan, gpu, count, parallelism, link)

    def explain() -> list[Phrase]:
        words = _memory_assumptions(plan)
        if gpu is not None and throughput is not None:
            words.extend(_layout_assumptions(plan, gpu, count, parallelism, link, throughput))
        return words

    return Estimate(
        model_slug=workload.model.slug,
        total_params=workload.model.total_params,
        active_params=workload.model.active_params,
        memory=memory,
        layout=layout,
        throughput=throughput,
        assumptions=LazyTexts(explain),  # the recommender makes thousands of estimates and reads few of these
    )
