"""Typed, bounded reading of a pasted Hugging Face `config.json` (pure module, no Django).

Every field the estimator reads goes through `read_int` / `read_bool` / `read_int_list` with the bounds below;
a value of the wrong type or out of range is a DomainError naming `model_config.<field>`, which the API answers
with 400. The bounds keep every estimate's work bounded: the estimator's loops run over layers (at most
`MAX_LAYERS`, ≤ 8 weight tensors each, `estimate.weights.model_tensors`) and never over experts or tokens, so
the largest config the bounds admit costs a few thousand tensor records (tests/configurator/test_config_bounds.py).

Why these limits: the largest published decoders are far inside them — Llama-3.1-405B (126 layers, hidden
16,384, 128 heads, FFN 53,248), DeepSeek-V3 (61 layers, 256 routed experts, vocab 129,280), Gemma 3 (vocab
262,208), Llama 4 Scout (10M-token context). They are 8× or more above each of those, so no real model is refused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from configurator.engine.errors import DomainError
from configurator.engine.phrase import Num, Phrase

MAX_LAYERS = 1_000
MAX_HIDDEN = 65_536
MAX_INTERMEDIATE = 524_288
MAX_HEADS = 1_024
MAX_HEAD_DIM = 1_024
MAX_VOCAB = 2_097_152
MAX_EXPERTS = 1_024
MAX_POSITIONS = 134_217_728  # 2^27 tokens
MAX_LORA_RANK = 65_536

# field → (minimum, maximum); fields not listed here are not read as integers.
FIELD_BOUNDS: dict[str, tuple[int, int]] = {
    "num_hidden_layers": (1, MAX_LAYERS),
    "hidden_size": (1, MAX_HIDDEN),
    "intermediate_size": (1, MAX_INTERMEDIATE),
    "moe_intermediate_size": (1, MAX_INTERMEDIATE),
    "num_attention_heads": (1, MAX_HEADS),
    "num_key_value_heads": (1, MAX_HEADS),
    "head_dim": (1, MAX_HEAD_DIM),
    "vocab_size": (1, MAX_VOCAB),
    "num_local_experts": (0, MAX_EXPERTS),
    "num_experts": (0, MAX_EXPERTS),
    "n_routed_experts": (0, MAX_EXPERTS),
    "num_experts_per_tok": (0, MAX_EXPERTS),
    "experts_per_token": (0, MAX_EXPERTS),
    "n_shared_experts": (0, 64),
    "first_k_dense_replace": (0, MAX_LAYERS),
    "decoder_sparse_step": (0, MAX_LAYERS),
    "max_window_layers": (0, MAX_LAYERS),
    "sliding_window": (1, MAX_POSITIONS),
    "sliding_window_pattern": (1, MAX_LAYERS),
    "max_position_embeddings": (1, MAX_POSITIONS),
    "max_sequence_length": (1, MAX_POSITIONS),
    "kv_lora_rank": (1, MAX_LORA_RANK),
    "q_lora_rank": (1, MAX_LORA_RANK),
    "qk_nope_head_dim": (0, MAX_HEAD_DIM),
    "qk_rope_head_dim": (0, MAX_HEAD_DIM),
    "v_head_dim": (1, MAX_HEAD_DIM),
    # hybrid linear attention (Qwen3-Next, Qwen3.5) and shared experts of their own width
    "full_attention_interval": (1, MAX_LAYERS),
    "linear_num_key_heads": (1, MAX_HEADS),
    "linear_num_value_heads": (1, MAX_HEADS),
    "linear_key_head_dim": (1, MAX_HEAD_DIM),
    "linear_value_head_dim": (1, MAX_HEAD_DIM),
    "linear_conv_kernel_dim": (1, 64),
    "shared_expert_intermediate_size": (0, MAX_INTERMEDIATE),
    # Falcon (FalconConfig): KV heads of the new decoder architecture, MLP width when not 4 × hidden
    "num_kv_heads": (1, MAX_HEADS),
    "ffn_hidden_size": (1, MAX_INTERMEDIATE),
    # Nemotron-H Mamba-2 mixers (transformers NemotronHConfig)
    "mamba_num_heads": (1, MAX_HEADS),
    "mamba_head_dim": (1, MAX_HEAD_DIM),
    "ssm_state_size": (1, MAX_HEAD_DIM),
    "n_groups": (1, MAX_HEADS),
    "conv_kernel": (1, 64),
}


def invalid(name: str, reason: str, message: str | None = None) -> DomainError:
    """The error for one bad field of the pasted config (400 `invalid_model_config` naming it). `reason` and
    `message` are Phrases where they are said to people, so a Russian page says them in Russian."""
    return DomainError(
        message or Phrase("`%(name)s` in the pasted config.json is not usable: %(reason)s", name=name, reason=reason),
        fields={f"model_config.{name}": [reason]},
        code="invalid_model_config",
    )


def missing(name: str) -> DomainError:
    return DomainError(
        Phrase("The pasted config.json has no `%(name)s`; it is needed to size the model.", name=name),
        fields={f"model_config.{name}": [Phrase("This field is required.")]},
        code="invalid_model_config",
    )


def _as_int(value: Any) -> int | None:
    """`value` as an int when it is an integral JSON number (4 or 4.0), else None (bools, strings, 1e308 pass
    through only as far as the range check)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def read_int(config: Mapping[str, Any], name: str, default: int | None = None) -> int:
    """An integer field within FIELD_BOUNDS[name]; `default` when absent or null (missing → error if None)."""
    value = config.get(name)
    if value is None:
        if default is None:
            raise missing(name)
        return default
    low, high = FIELD_BOUNDS[name]
    number = _as_int(value)
    if number is None or not low <= number <= high:
        raise invalid(name, Phrase("An integer from %(low)s to %(high)s is required.", low=Num(low), high=Num(high)))
    return number


def read_bool(config: Mapping[str, Any], name: str, default: bool) -> bool:
    value = config.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise invalid(name, Phrase("true or false is required."))
    return value


def read_int_list(config: Mapping[str, Any], name: str, *, low: int, high: int, max_len: int) -> list[int]:
    """A list of integers in [low, high], at most `max_len` long (e.g. Qwen3-MoE `mlp_only_layers`)."""
    value = config.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > max_len:
        raise invalid(name, Phrase("A list of at most %(most)s layer indexes is required.", most=Num(max_len)))
    numbers = [_as_int(item) for item in value]
    if any(n is None or not low <= n <= high for n in numbers):
        raise invalid(
            name, Phrase("Every entry must be an integer from %(low)s to %(high)s.", low=Num(low), high=Num(high))
        )
    return [n for n in numbers if n is not None]


def read_layer_types(config: Mapping[str, Any], layers: int) -> list[str] | None:
    """`layer_types` (one string per layer, transformers ≥ 4.53) or None when absent."""
    value = config.get("layer_types")
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != layers or not all(isinstance(kind, str) for kind in value):
        raise invalid(
            "layer_types", Phrase("A list of %(layers)s strings (one per layer) is required.", layers=Num(layers))
        )
    return value


def check_heads(hidden: int, heads: int, kv_heads: int, head_dim_given: bool) -> None:
    """Grouped-query attention needs whole groups: 1 ≤ kv_heads ≤ heads and kv_heads divides heads
    (transformers `repeat_kv`); without an explicit `head_dim` the heads split `hidden_size` evenly
    (head_dim = hidden // heads in every HF decoder config)."""
    if kv_heads > heads or heads % kv_heads:
        raise invalid(
            "num_key_value_heads",
            Phrase("Must divide num_attention_heads (%(heads)s); got %(kv_heads)s.", heads=heads, kv_heads=kv_heads),
        )
    if not head_dim_given and hidden % heads:
        raise invalid(
            "num_attention_heads",
            Phrase(
                "Must divide hidden_size (%(hidden)s) when head_dim is not given; got %(heads)s.",
                hidden=hidden,
                heads=heads,
            ),
        )


def check_experts(experts_field: str, experts: int, active_field: str, active: int) -> None:
    """A mixture of experts routes each token to 1..E of its E ≥ 1 experts."""
    if experts < 1:
        raise invalid(experts_field, Phrase("An MoE model needs at least one routed expert."))
    if not 1 <= active <= experts:
        raise invalid(
            active_field,
            Phrase(
                "Must be from 1 to the number of experts (%(experts)s); got %(active)s.", experts=experts, active=active
            ),
        )


def read_text(config: Mapping[str, Any], name: str, max_len: int = 200) -> str:
    value = config.get(name)
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > max_len:
        raise invalid(name, Phrase("A string of at most %(most)s characters is required.", most=max_len))
    return value
