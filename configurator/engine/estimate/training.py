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
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.frozen import direct_init

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
}
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
    if framework == "torchtune":
        return 3
    return zero_stage
