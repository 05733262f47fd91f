"""Plans: everything about a workload that does not depend on the GPU (memory before layout), built once.

- activations: inference compute buffers per engine; training per Korthikanti et al. (arXiv 2205.05198),
  counted tensor by tensor for SwiGLU blocks with flash attention, full recompute with checkpointing;
- training state: mixed-precision AdamW 2 + 2 + 12 bytes/param (ZeRO, Rajbhandari et al. arXiv 1910.02054,
  K = 12), 8-bit AdamW (Dettmers et al. arXiv 2110.02861) 2 + 2 + 4 + 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from configurator.engine import calibration as cal
from configurator.engine.estimate.engines import (
    LLAMACPP_UBATCH,
    VLLM_BATCHED_TOKENS_SMALL,
    VLLM_MAX_NUM_SEQS,
    _check,
    kv_sequence_tokens,
)
from configurator.engine.estimate.kv_cache import kv_bytes_per_token, kv_cache_bytes
from configurator.engine.estimate.server_memory import per_token_coefficients
from configurator.engine.estimate.training import (
    FSDP_REDUCE_BYTES,
    checkpoints_on_gpu,
    lora_dropout_bytes,
    loss_bytes,
    qlora_load_peak,
    selective_kept_elements,
    selective_recompute_share,
    training_state,
    unsharded_bytes,
)
from configurator.engine.estimate.weights import (
    _HF_QUANTIZED,
    GGUF_MXFP4_MOE,
    GIB,
    NF4_BITS,
    _tensor_bits,
    model_tensors,
    weight_bytes,
    weight_profile,
)
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import ModelArch, Workload


@direct_init
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
    host_optimizer: float = 0.0  # paged optimizer states kept in host RAM (torchtune PagedAdamW8bit)
    # server engines: bytes per batched token (estimate.server_memory.per_token_coefficients) and the KV bytes
    # per token of all KV layers (the engine's pool unit)
    server_coefficients: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    kv_per_token: float = 0.0
    load_peak: float = 0.0  # bytes one GPU holds while the model loads (LitGPT QLoRA: the bf16 checkpoint)
    expert_share: float = 0.0  # training: share of the parameters in routed experts (spread over the GPUs)
    attention_bytes: float = 0.0  # inference: the attention projections' bytes (weights.WeightProfile)
    # inference: the attention's share of decode_flops / prefill_flops (projections and scores), which a
    # data-parallel attention rank does alone for its own sequences (estimate.layout.DP_ATTENTION)
    attention_decode_flops: float = 0.0
    attention_prefill_flops: float = 0.0
    # answers that depend on the plan and a GPU only, kept with the plan (built once per workload by `_plan`):
    # estimate.layout's fewest GPUs that fit, asked again for every GPU count of a build. Not compared, not
    # hashed, not copied by `replace` (a plan made from another starts with its own)
    memo: dict[tuple[object, ...], object] = field(
        default_factory=dict, init=False, compare=False, hash=False, repr=False
    )


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
        return 4.0 * q_dim * span * model.kv_layers
    return 4.0 * q_dim * ((model.kv_layers - sliding) * span + sliding * min(span, float(window)))


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
    held = kv_sequence_tokens(w, engine)  # the request's tokens on a paged-KV engine when it states them
    # every sequence's request, and at least one sequence of the whole context (max_model_len must fit)
    kv = max(
        kv_cache_bytes(model, w.kv_cache_precision, held, sequences),
        kv_cache_bytes(model, w.kv_cache_precision, w.context_tokens, 1),
    )
    h, q_dim = model.hidden, model.heads * model.head_dim
    kv_dim = model.kv_heads * model.head_dim
    inter = _active_tokens_intermediate(model)
    notes: list[Phrase] = []
    if w.precision_from_model_id:
        notes.append(
            Phrase(
                "precision %(precision)s read from the model id '%(id)s' (its quantisation suffix; the request gave "
                "no precision)",
                precision=w.precision,
                id=w.precision_from_model_id,
            )
        )
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
    elif engine in ("vllm", "sglang", "tensorrt-llm"):
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
    projections = 2.0 * sum(t.params for t in model_tensors(model) if t.kind.startswith("attn_"))
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
        kv_read_per_seq=kv_cache_bytes(model, w.kv_cache_precision, held, 1),
        decode_flops=2 * compute + _attention_flops(model, w.context_tokens, causal_average=False),
        prefill_flops=2 * compute + _attention_flops(model, w.context_tokens, causal_average=True),
        train_flops=0.0,
        notes=tuple(notes),
        server_coefficients=per_token_coefficients(model),
        kv_per_token=kv_bytes_per_token(model, w.kv_cache_precision),
        attention_bytes=profile.attention_bytes,
        attention_decode_flops=projections + _attention_flops(model, w.context_tokens, causal_average=False),
        attention_prefill_flops=projections + _attention_flops(model, w.context_tokens, causal_average=True),
    )


def _training_activations(w: Workload, tokens: int) -> tuple[float, float]:
    """(stored activations, loss) in bytes for `tokens` = micro-batch × sequence length.

    Korthikanti et al. (arXiv 2205.05198) §4: 34·s·b·h per layer for a GPT block with its GeLU MLP (I = 4h);
    here counted tensor by tensor for a pre-norm SwiGLU block with flash attention, 16-bit: the two norm inputs
    and outputs (4h), Q and the attention output (2·q_dim), K and V (2·kv_dim), gate, up, SiLU(gate) and the
    product (4·I), plus the fp32 softmax statistics (4 B per head). Full recompute keeps only each layer's
    input (2·s·b·h, the paper's figure) and rebuilds one layer at a time; Unsloth offloads those inputs to host
    RAM. The loss term is the framework's (configurator.engine.estimate.training.LOSS_BYTES_PER_LOGIT).

    The peak is the persistent part (the checkpoints, or every layer's activations without checkpointing) plus
    the larger of two transients that never coexist: the loss's logits and their gradient (freed once the
    backward pass leaves the head), and the working set of one layer's backward — its recomputed activations
    and the gradients of its gate and up outputs (2 × 2·I bytes per token), which SwiGLU's backward needs
    together. Returned as (persistent + working set, the part of the loss above the working set).
    """
    model = w.model
    h, q_dim = model.hidden, model.heads * model.head_dim
    kv_dim = model.kv_heads * model.head_dim
    inter = _active_tokens_intermediate(model)
    per_token_layer = 2.0 * (4 * h + 2 * q_dim + 2 * kv_dim + 4 * inter) + 4.0 * model.heads
    if model.is_moe:
        per_token_layer += 4.0 * model.experts  # router logits
    working = tokens * (per_token_layer + 2.0 * 2 * inter)
    mode = w.checkpointing
    if mode == "full":
        kept_layers = model.layers if checkpoints_on_gpu(w.framework) else 1
        stored = tokens * kept_layers * 2.0 * h + working
    elif mode == "selective":
        kept = 2.0 * selective_kept_elements(h, q_dim, kv_dim, inter) + 4.0 * model.heads
        stored = tokens * model.layers * kept + working
    else:
        stored = tokens * (model.layers * per_token_layer + 2.0 * h) + working - tokens * per_token_layer
    if mode != "full" and w.task != "full_finetune":
        stored += tokens * lora_dropout_bytes(w.framework, h, q_dim, inter, model.layers)
    loss = loss_bytes(w.framework, tokens, model.vocab)
    return stored, max(0.0, loss - working)


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
    largest_tensor = max(t.params for t in model_tensors(model))
    trained = training_state(
        framework=w.framework,
        task=task,
        optimizer=w.optimizer,
        fp32=precision == "fp32",
        trainable=trainable,
        largest_tensor_params=largest_tensor,
    )
    tokens = w.batch_size * w.sequence_length
    stored, logits = _training_activations(w, tokens)
    compute = _compute_params(model)
    # 2P forward + 4P backward (activation and weight gradients); LoRA skips the frozen weight gradients;
    # full recompute repeats the forward (Korthikanti et al. §5: 4 × forward with recompute).
    train_flops = (6.0 if task == "full_finetune" else 4.0) * compute
    if w.checkpointing == "full":
        train_flops += 2.0 * compute
    elif w.checkpointing == "selective":
        train_flops += 2.0 * selective_recompute_share(model) * compute
    largest = max(model.vocab * model.hidden, (model.total_params - model.vocab * model.hidden) / model.layers)
    if w.framework in FSDP_REDUCE_BYTES:
        gather = unsharded_bytes(model, w.framework, task == "full_finetune")
    else:
        gather = 2.0 * largest * state  # DeepSpeed stage3 estimator: largest_layer_mem = 4 × largest layer
    load_peak = qlora_load_peak(w.framework, weight_bytes(model, "bf16") + trainable * 2.0) if task == "qlora" else 0.0
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
        gradients=trained.gradients,
        optimizer=trained.optimizer,
        gather=gather,
        trainable_params=int(trainable),
        sequences=w.batch_size,
        read_bytes=0.0,
        routed_bytes=0.0,
        kv_read_per_seq=0.0,
        decode_flops=0.0,
        prefill_flops=0.0,
        train_flops=train_flops,
        notes=tuple(notes),
        host_optimizer=trained.host_optimizer,
        load_peak=load_peak,
        expert_share=sum(t.params for t in model_tensors(model) if t.routed) / model.total_params,
    )


@lru_cache(maxsize=512)
def _plan(workload: Workload) -> _Plan:
    _check(workload)
    if workload.task == "inference":
        return _inference_plan(workload)
    return _training_plan(workload)


@lru_cache(maxsize=512)
def serving_plans(workload: Workload, prompt_tokens: int, output_tokens: int) -> tuple[_Plan, _Plan]:
    """(prompt plan, decode plan) of one request of the workload, each for one sequence: the prompt plan has
    the prompt as its context (its prefill FLOPs average the attention over it), the decode plan the request's
    mean depth while it answers, prompt + output / 2 (its KV bytes and attention FLOPs per decode step).
    estimate.serving runs any number of sequences on them."""
    one = replace(workload, concurrent_users=1, batch_size=1, prompt_tokens=None, output_tokens=None)
    prompt = _plan(replace(one, context_tokens=prompt_tokens))
    return prompt, _plan(replace(one, context_tokens=prompt_tokens + output_tokens // 2))
