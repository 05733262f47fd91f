"""KV cache: 2 × layers × kv_heads × head_dim × bytes × tokens × sequences; MLA caches kv_lora_rank + rope
dims; sliding-window layers hold at most the window; hybrid linear-attention models (Qwen3-Next, Qwen3.5) cache
K and V in their full-attention layers only and keep a fixed state per sequence in each linear layer."""

from __future__ import annotations

from configurator.engine.errors import DomainError
from configurator.engine.phrase import Phrase
from configurator.engine.types import KV_PRECISIONS, ModelArch

# Bytes per cached element: f16/bf16 2; vLLM `kv_cache_dtype=fp8` 1; llama.cpp `--cache-type-k/v q8_0 | q4_0`
# store GGML blocks of 32 values with an fp16 scale: 34/32 = 1.0625 and 18/32 = 0.5625 bytes (anchors §3).
# Gated DeltaNet state (recurrent num_v_heads × k_dim × v_dim + causal-conv (kernel − 1) × conv_dim) is held in the
# model's dtype whatever the KV cache dtype: vLLM `mamba_cache_dtype` / `mamba_ssm_cache_dtype` default "auto" =
# the model dtype (vllm/config/cache.py), bf16 for these checkpoints.
LINEAR_STATE_BYTES = 2.0
KV_BYTES_PER_ELEMENT: dict[str, float] = {
    "f16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "q8_0": 34 / 32,
    "q4_0": 18 / 32,
}


def _kv_element_bytes(kv_precision: str) -> float:
    try:
        return KV_BYTES_PER_ELEMENT[kv_precision]
    except KeyError:
        raise DomainError(
            Phrase("Unknown KV cache precision '%(kv)s'.", kv=kv_precision),
            fields={"kv_cache_precision": [Phrase("Must be one of: %(choices)s.", choices=", ".join(KV_PRECISIONS))]},
            code="invalid_precision",
        ) from None


def kv_bytes_per_layer_token(model: ModelArch, kv_precision: str) -> float:
    """One layer, one token: K and V of every KV head, or the MLA latent (kv_lora_rank + rope dims)."""
    element = _kv_element_bytes(kv_precision)
    if model.is_mla:
        return ((model.kv_lora_rank or 0) + (model.qk_rope_head_dim or 0)) * element
    return 2 * model.kv_heads * model.head_dim * element


def kv_bytes_per_token(model: ModelArch, kv_precision: str, context_tokens: int | None = None) -> float:
    """KV bytes per token of one sequence over all layers.

    Without `context_tokens` every layer counts in full. With it, sliding-window layers hold at most
    `sliding_window` tokens, so the figure is the average per token of a `context_tokens`-long sequence:
    ``kv_bytes_per_token(m, p, n) × n`` is the cache of that sequence.
    """
    per_layer = kv_bytes_per_layer_token(model, kv_precision)
    window = model.sliding_window
    sliding = model.sliding_window_layers if window else 0
    layers = model.kv_layers
    if context_tokens is None or not sliding or window is None or context_tokens <= window:
        return per_layer * layers
    return per_layer * ((layers - sliding) + sliding * window / context_tokens)


def linear_state_bytes(model: ModelArch) -> float:
    """Fixed state of one sequence over all linear-attention layers (0 for pure attention models)."""
    return model.linear_attention_layers * model.linear_state_elements * LINEAR_STATE_BYTES


def kv_cache_bytes(model: ModelArch, kv_precision: str, context_tokens: int, sequences: int = 1) -> float:
    """K/V of `sequences` sequences of `context_tokens` tokens, plus each sequence's linear-attention state."""
    per_sequence = kv_bytes_per_token(model, kv_precision, context_tokens) * context_tokens
    return (per_sequence + linear_state_bytes(model)) * sequences
