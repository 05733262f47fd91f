"""Training memory by framework: what each framework keeps on the GPU per parameter and per logit.

Three frameworks (`Workload.framework`, default `hf_trainer`):

- **hf_trainer** — Hugging Face Trainer + PEFT with `bf16=True` (autocast mixed precision). Full fine-tune keeps
  bf16 weights and grads and an fp32 master copy with AdamW's m and v: 2 + 2 + 12 = 16 B/param (ZeRO, arXiv
  1910.02054, K = 12); bitsandbytes 8-bit AdamW: 2 + 2 + 4 + 2 = 10 (arXiv 2110.02861). LoRA adapters are
  trained the same way. The loss upcasts the whole logits tensor: transformers `ForCausalLMLoss` calls
  `logits.float()` and `F.cross_entropy` saves its fp32 log-softmax for backward, next to the model output's
  bf16 logits: 2 + 4 + 4 = 10 bytes per vocabulary entry per token.
- **torchtune** — pure bf16 (recipes' `dtype: bf16`): no fp32 master; torch AdamW keeps m and v in the
  parameters' dtype (2 + 2 B); the full fine-tune recipes fuse the optimizer step into backward
  (`optimizer_in_bwd: True`, recipes/configs/llama3_1/8B_full_single_device.yaml), so only one parameter's
  gradient lives at a time; their 8-bit optimizer is bitsandbytes `PagedAdamW8bit`, whose states are paged
  unified memory that moves to host RAM under pressure, so it is not counted in VRAM. The loss is
  `LinearCrossEntropyLoss` (8 chunks, compiled in the README's runs): the bf16 logits of every chunk are kept
  for backward (2 B) and one chunk at a time is upcast (6 B / 8) = 2.75 B per entry per token. Distributed
  recipes shard with FSDP2 (`fully_shard`): on several GPUs the weights, gradients and optimizer are sharded.
  Source: pytorch/torchtune README.md and recipes/configs @bd2a0fc7, torchtune/modules/loss/cross_entropy_loss.py.
- **unsloth** — PEFT with Unsloth's kernels: the same state as hf_trainer, but `use_gradient_checkpointing=
  "unsloth"` offloads every layer's checkpointed input to host RAM (only the layer being recomputed is on the GPU)
  and the fused Triton cross-entropy writes the gradient into the bf16 logits in place (2 B per entry per token).
  Source: unslothai/unsloth `unsloth/kernels/cross_entropy_loss.py`, `unsloth_gradient_checkpointing`.
- **litgpt** — LitGPT's `litgpt finetune` with `precision: bf16-true` (config_hub/finetune/*.yaml): weights,
  gradients and AdamW's m and v all bf16 (2 + 2 + 4 B per trainable parameter, no fp32 master); the head runs
  in chunks of 128 tokens (`lm_head_chunk_size=128`) whose bf16 logits are kept for the chunked cross entropy
  (2 B per entry per token). QLoRA (`quantize: bnb.nf4`) materialises the checkpoint in bf16 on the GPU before
  bitsandbytes quantises it, so the load peak is the whole bf16 model (qlora_load_peak): the config hub's
  QLoRA rows peak at the bf16 size of the model (13.68 GB for Llama 2 7B, 13.5 GB of bf16 weights).
- **torchtitan** — FSDP2 with `MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)`: sharded fp32
  parameters, fp32 gradients, AdamW m and v (16 B per parameter, sharded); the loss upcasts the logits
  (`cross_entropy_loss`: `pred.float()`), as the HF Trainer's does. Source: pytorch/torchtitan
  torchtitan/parallelisms/parallelize_llama.py, torchtitan/components/loss.py.
- **megatron** — Megatron-LM / NeMo: bf16 parameters, fp32 main gradients (4 B) and the distributed
  optimizer's fp32 master, m and v (12 B, sharded over data parallel ranks as ZeRO-1); the fused vocab-parallel
  cross entropy keeps the bf16 logits and their fp32 exponentials (6 B).

Activation checkpointing (Workload.checkpointing): `none` keeps every tensor the backward pass needs; `full`
keeps each layer's input and recomputes the layer; `selective` is torchtitan's op-level policy
(torchtitan/models/llama3/infra/parallelize.py `_save_list`): the outputs of matmuls (but every second one) and
of flash attention are kept, every elementwise op and the other matmuls are recomputed
(selective_kept_elements, selective_recompute_share). Megatron's "selective" recomputes only the core attention,
which flash attention already does not store, so for Megatron it is `none`.

Buffers that do not shard (unsharded_bytes): FSDP keeps two transformer blocks gathered in bf16 (the one
computing and the one prefetched) and the root unit — input embedding, final norm and output head, which FSDP2
does not reshard after forward because backward needs it at once — gathered for the whole step; before the
root's reduce-scatter its gradients exist unsharded in the reduce dtype (fp32 in torchtitan, bf16 in
torchtune). At 128 GPUs these are most of what a GPU holds besides activations. DeepSpeed ZeRO-3 (HF Trainer,
Unsloth) keeps its own estimator's 4 × the largest layer; ZeRO-1/2 keep a reduce and an all-gather bucket
(zero_bucket_bytes). DeepSpeed's optimizer step, once backward has freed the activations, adds an fp32
copy of the rank's gradient partition and torch AdamW's temporary (deepspeed_step_bytes). The caching
allocator's reserve above the allocated peak is not added: torchtitan's rows, which report reserved memory,
match the allocated estimate within 5 %.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.frozen import direct_init
from configurator.engine.types import ModelArch

# bytes per vocabulary entry per trained token held for the loss
LOSS_BYTES_PER_LOGIT: dict[str, float] = {
    # bf16 logits + fp32 copy + fp32 log-softmax saved for backward, then in backward the fp32 gradient and its
    # bf16 cast: 2 + 4 + 4 + 4 + 2. The Unsloth benchmark's "Hugging Face + FA2" column grows 2.47 MB per token
    # on Llama 3.1 8B (fixtures/training_memory.csv), 16 B × 128,256 + the checkpoints = 2.31 MB.
    "hf_trainer": 2.0 + 4.0 + 4.0 + 4.0 + 2.0,
    "torchtune": 2.0 + (2.0 + 4.0) / 8,  # bf16 logits of all 8 chunks + one chunk's bf16 and fp32 temporaries
    # Cut Cross-Entropy (Wijmans et al. arXiv 2411.09009; Unsloth since Nov 2024): log-sum-exp in SRAM blocks,
    # the logits are never written to memory. Unsloth before it (2024) kept bf16 logits (2 B).
    "unsloth": 0.0,
    "litgpt": 2.0,  # every 128-token chunk's bf16 logits, kept for the chunked cross entropy
    "torchtitan": 2.0 + 4.0 + 4.0 + 4.0 + 2.0,  # `pred.float()`, then as the HF Trainer's loss
    "megatron": 2.0 + 4.0,  # bf16 logits and the fp32 exponentials the fused cross entropy saves
}
# frameworks that shard with FSDP (root unit gathered for the step) and the bytes of their gradient reduce
FSDP_REDUCE_BYTES: dict[str, float] = {"torchtitan": 4.0, "torchtune": 2.0, "litgpt": 2.0}
TORCHTUNE_CE_CHUNKS = 8
# (optimizer, fp32 training) → optimizer bytes per parameter outside torchtune: AdamW m and v (fp32 4 + 4 or
# 8-bit 1 + 1) plus the fp32 master copy that bf16 mixed precision keeps (4)
_MIXED_STATE_BYTES: dict[tuple[str, bool], float] = {
    ("adamw", False): 12.0,
    ("adamw", True): 8.0,
    ("adamw_8bit", False): 6.0,
    ("adamw_8bit", True): 2.0,
}


@direct_init
@dataclass(frozen=True, slots=True)
class TrainingState:
    """Bytes on the GPUs (before sharding) and in host RAM for the trainable state of one replica."""

    gradients: float
    optimizer: float
    host_optimizer: float  # paged optimizer states (torchtune PagedAdamW8bit) that live in host RAM
    master_weights: bool  # an fp32 master copy is kept (mixed precision)
    optimizer_in_backward: bool


def training_state(
    *,
    framework: str,
    task: str,
    optimizer: str,
    fp32: bool,
    trainable: int,
    largest_tensor_params: int,
) -> TrainingState:
    """Gradient and optimizer bytes for `trainable` parameters under `framework`'s rules (module docstring)."""
    if framework == "litgpt":
        element = 4.0 if fp32 else 2.0  # bf16-true: weights, gradients, m and v in the training dtype
        per_param = 2.0 if optimizer == "adamw_8bit" else 2 * element
        return TrainingState(trainable * element, trainable * per_param, 0.0, False, False)
    if framework == "megatron" and not fp32:
        # fp32 main gradients (4 B) in place of bf16 ones; master, m and v as mixed precision
        return TrainingState(trainable * 4.0, trainable * _MIXED_STATE_BYTES[(optimizer, False)], 0.0, True, False)
    if framework == "torchtune":
        element = 4.0 if fp32 else 2.0  # params, grads and AdamW m, v share the training dtype
        in_backward = task == "full_finetune"
        gradients = (largest_tensor_params if in_backward else trainable) * element
        if optimizer == "adamw_8bit":
            return TrainingState(gradients, 0.0, trainable * 2.0, False, in_backward)
        return TrainingState(gradients, trainable * 2 * element, 0.0, False, in_backward)
    state = 4.0 if fp32 else 2.0
    # 8-bit m and v, or fp32 m and v; + the fp32 master copy when mixed
    per_param = _MIXED_STATE_BYTES[(optimizer, fp32)]
    return TrainingState(trainable * state, trainable * per_param, 0.0, not fp32, False)


def loss_bytes(framework: str, tokens: int, vocab: int) -> float:
    """Bytes the loss holds at its peak for `tokens` trained tokens (module docstring)."""
    return LOSS_BYTES_PER_LOGIT[framework] * tokens * vocab


def checkpoints_on_gpu(framework: str) -> bool:
    """Whether gradient checkpointing keeps the layer inputs on the GPU (Unsloth offloads them to host RAM)."""
    return framework != "unsloth"


def sharded_stage(framework: str, zero_stage: int, gpu_count: int) -> int:
    """ZeRO stage in effect: torchtune's distributed recipes always shard fully (FSDP2), others as asked."""
    if gpu_count <= 1:
        return 0
    if framework in FSDP_REDUCE_BYTES:
        return 3
    if framework == "megatron":
        return max(zero_stage, 1)  # NeMo/Megatron recipes run the distributed optimizer (ZeRO-1)
    return zero_stage


def selective_kept_elements(hidden: int, q_dim: int, kv_dim: int, inter: int) -> int:
    """Elements per token per layer the selective policy keeps: the layer's input, the outputs of the first,
    third, fifth and seventh matmul of a SwiGLU block (wq, wv, w1, w2: q_dim, kv_dim, I, h) and flash
    attention's output (q_dim); its log-sum-exp is counted with the heads."""
    return hidden + q_dim + kv_dim + inter + hidden + q_dim


def _active_inter(model: ModelArch) -> int:
    if not model.is_moe:
        return model.intermediate
    return (model.active_experts + model.shared_experts) * model.moe_intermediate


def selective_recompute_share(model: ModelArch) -> float:
    """Share of a layer's forward matmul FLOPs the selective policy recomputes: every second matmul of
    wq, wk, wv, wo, w1, w3, w2 (wk, wo and w3)."""
    h, q, kv, inter = model.hidden, model.heads * model.head_dim, model.kv_heads * model.head_dim, _active_inter(model)
    recomputed = h * kv + q * h + h * inter
    return recomputed / (h * (q + 2 * kv) + q * h + 3 * h * inter)


def elementwise_bytes(model: ModelArch, fp8: bool) -> float:
    """Bytes the memory-bound kernels of one forward read and write per token, all layers: two RMSNorms
    (read and write h each), two residual adds (3h each), RoPE on q and k, the SwiGLU product (read 2·I, write I),
    MoE token permutation and its inverse (h in, top-k copies out and back) and, with FP8, the casts of every
    linear layer's input (read bf16, write fp8: 3 B an element)."""
    h, q, kv, inter = model.hidden, model.heads * model.head_dim, model.kv_heads * model.head_dim, _active_inter(model)
    elements = 10 * h + 2 * (q + kv) + 3 * inter
    mlp_in = h
    if model.is_moe:
        elements += 2 * h * (1 + model.active_experts)
        mlp_in = h * model.active_experts
    per_layer = 2.0 * elements
    if fp8:
        per_layer += 3.0 * (h + q + mlp_in + inter)
    return per_layer * model.layers


def unsharded_bytes(model: ModelArch, framework: str, full_finetune: bool) -> float:
    """Bytes per GPU that fully sharded training cannot shard (module docstring), FSDP frameworks."""
    embed_head = model.vocab * model.hidden * (1 if model.tied_embeddings else 2)
    block = (model.total_params - embed_head) / model.layers
    gathered = 2.0 * (2 * block + embed_head)
    reduce = embed_head * FSDP_REDUCE_BYTES.get(framework, 2.0) if full_finetune else 0.0
    return gathered + reduce


# LitGPT's LoRA layers apply dropout (lora_dropout 0.05 in every config_hub/finetune config) to their input before
# lora_A, and autograd keeps the dropped-out bf16 copy and its bool mask: 3 B per input element of every adapted
# linear layer. PEFT, torchtune, Unsloth and LLaMA-Factory default to lora_dropout 0 (no copy).
LORA_DROPOUT_FRAMEWORKS = frozenset({"litgpt"})


def lora_dropout_bytes(framework: str, hidden: int, q_dim: int, inter: int, layers: int) -> float:
    """Bytes per token the LoRA dropout copies hold without checkpointing: the inputs of the fused qkv (h), the
    attention projection (q_dim), the MLP's two input projections (h each) and its output projection (I) in
    every layer, and the head's (h)."""
    if framework not in LORA_DROPOUT_FRAMEWORKS:
        return 0.0
    return 3.0 * ((3 * hidden + q_dim + inter) * layers + hidden)


# DeepSpeed ZeRO stages 1-2 keep a reduce bucket and an all-gather bucket of 5e8 elements each in the training
# dtype (deepspeed.runtime.zero.config: reduce_bucket_size and allgather_bucket_size default 500,000,000; DeepSpeed
# docs "ZeRO optimizations" config), whole on every GPU. Megatron's distributed optimizer buckets its gradient
# buffer instead (counted in its fp32 gradients).
DEEPSPEED_BUCKET_ELEMENTS = 500_000_000
DEEPSPEED_FRAMEWORKS = frozenset({"hf_trainer", "unsloth"})


def zero_bucket_bytes(framework: str, trainable: int) -> float:
    """Bytes of DeepSpeed's ZeRO-1/2 reduce and all-gather buckets (bf16), at most the trainable parameters."""
    if framework not in DEEPSPEED_FRAMEWORKS:
        return 0.0
    return 2 * 2.0 * min(DEEPSPEED_BUCKET_ELEMENTS, trainable)


# DeepSpeed's ZeRO optimizers step on an fp32 copy of this rank's gradient partition: stage 1/2 make it for each
# parameter group (`single_partition_of_fp32_groups[i].grad`, deepspeed/runtime/zero/stage_1_and_2.py `step`),
# stage 3 for each sub-group of at most `sub_group_size` elements (`_prepare_fp32_grad_for_sub_group`,
# deepspeed/runtime/zero/stage3.py; default 1e9, deepspeed.ai/docs/config-json "sub_group_size"), so a step holds
# 2 (bf16/fp16 weights) + 2 (grads) + 12 (master, m, v) + 4 = 20 B per parameter of the partition. torch AdamW,
# which the HF Trainer builds when the DeepSpeed config names no optimizer (LLaMA-Factory's ds_z*_config.json do
# not), runs its multi-tensor step with an fp32 temporary of the same size (`exp_avg_sq.sqrt()` in
# torch/optim/adamw.py). hiyouga/LlamaFactory issue #1221 shows both: ZeRO-2, Llama 7B on 8 × V100 32 GB fails in
# `denom = (exp_avg_sq.sqrt() / ...)` "Tried to allocate 3.14 GiB" (6.74e9 / 8 × 4 B) with "28.28 GiB already
# allocated" (bf16 weights 12.6 + grads 1.6 + fp32 states 9.4 + fp32 grad 3.1 + two 5e8-element buckets 1.9 = 28.6).
DEEPSPEED_SUB_GROUP_ELEMENTS = 1_000_000_000


def deepspeed_step_bytes(
    framework: str, optimizer: str, stage: int, trainable: float, count: int, *, fp32: bool = False
) -> float:
    """Bytes a DeepSpeed ZeRO optimizer step holds besides the states (module constants above): the fp32 gradient
    of the rank's partition (stage 3: of one sub-group) and, with torch AdamW, its fp32 temporary; 0 outside
    DeepSpeed ZeRO or in fp32 training (the gradients are fp32 already)."""
    if framework not in DEEPSPEED_FRAMEWORKS or stage < 1 or fp32:
        return 0.0
    partition = trainable / count
    if stage >= 3:
        partition = min(partition, DEEPSPEED_SUB_GROUP_ELEMENTS)
    copies = 2 if optimizer == "adamw" else 1  # bitsandbytes' 8-bit AdamW is one fused kernel: no temporary
    return copies * 4.0 * partition


def qlora_load_peak(framework: str, bf16_weights: float) -> float:
    """Bytes a QLoRA run holds while it loads: LitGPT materialises the bf16 checkpoint before bitsandbytes
    quantises it (module docstring); the others quantise tensor by tensor or load pre-quantised weights."""
    return bf16_weights if framework == "litgpt" else 0.0
