"""KV cache: 2 × layers × kv_heads × head_dim × bytes × tokens × sequences; MLA caches kv_lora_rank + rope
dims; sliding-window layers hold at most the window."""

from __future__ import annotations

from configurator.engine.errors import DomainError
from configurator.engine.types import KV_PRECISIONS, ModelArch

# Bytes per cached element: f16/bf16 2; vLLM `kv_cache_dtype=fp8` 1; llama.cpp `--cache-type-k/v q8_0 | q4_0`
# store GGML blocks of 32 values with an fp16 scale: 34/32 = 1.0625 and 18/32 = 0.5625 bytes (anchors §3).
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
            f"Unknown KV cache precision '{kv_precision}'.",
            fields={"kv_cache_precision": [f"Must be one of: {', '.join(KV_PRECISIONS)}."]},
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
    if context_tokens is None or not sliding or window is None or context_tokens <= window:
        return per_layer * model.layers
    return per_layer * ((model.layers - sliding) + sliding * window / context_tokens)


def kv_cache_bytes(model: ModelArch, kv_precision: str, context_tokens: int, sequences: int = 1) -> float:
    return kv_bytes_per_token(model, kv_precision, context_tokens) * context_tokens * sequences
