"""Pasted config.json: every field typed and bounded, Gemma 3 read from `text_config`, unknown types said aloud.

The work an estimate does is bounded by the field bounds: the estimator iterates over layers (≤ MAX_LAYERS,
≤ 8 weight tensors each) and GPU counts, never over experts or tokens; the test below checks the largest config
the bounds admit stays within that many tensor records (no timing: the count is what the 50 ms budget rests on).
"""

from __future__ import annotations

from typing import Any

import pytest

from configurator.engine.config_fields import MAX_EXPERTS, MAX_HIDDEN, MAX_LAYERS
from configurator.engine.errors import DomainError
from configurator.engine.estimate import estimate, kv_cache_bytes, model_tensors
from configurator.engine.models_library import SUPPORTED_MODEL_TYPES, model_from_hf_config
from configurator.engine.types import Workload
from tests.model_configs import GPT_OSS_20B, LLAMA_3_1_8B

LLAMA = {key: value for key, value in LLAMA_3_1_8B.items() if key != "architectures"}
GPT_OSS = GPT_OSS_20B
QWEN3_MOE = {
    "model_type": "qwen3_moe",
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_hidden_layers": 48,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "vocab_size": 151936,
    "num_experts": 128,
    "num_experts_per_tok": 8,
}
MIXTRAL = {**LLAMA, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2}

# google/gemma-3-27b-it config.json (as copied in the tests of several public repos, e.g. the Gemma 3 27B
# fixtures quoting "query_pre_attn_scalar": 168); the language model's sizes sit in text_config.
GEMMA3_27B = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "model_type": "gemma3",
    "text_config": {
        "head_dim": 128,
        "hidden_size": 5376,
        "intermediate_size": 21504,
        "model_type": "gemma3_text",
        "num_attention_heads": 32,
        "num_hidden_layers": 62,
        "num_key_value_heads": 16,
        "query_pre_attn_scalar": 168,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "vision_config": {"hidden_size": 1152, "model_type": "siglip_vision_model"},
}


def _field(config: dict[str, Any]) -> list[str]:
    with pytest.raises(DomainError) as caught:
        model_from_hf_config(config)
    return list(caught.value.fields)


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({**GPT_OSS, "experts_per_token": "four"}, "experts_per_token"),
        ({**LLAMA, "max_position_embeddings": "big"}, "max_position_embeddings"),
        ({**QWEN3_MOE, "mlp_only_layers": 5}, "mlp_only_layers"),
        ({**QWEN3_MOE, "mlp_only_layers": [0, 48]}, "mlp_only_layers"),
        ({**LLAMA, "hidden_size": 1e308}, "hidden_size"),
        ({**LLAMA, "hidden_size": MAX_HIDDEN * 2}, "hidden_size"),
        ({**LLAMA, "num_hidden_layers": 400_000}, "num_hidden_layers"),
        ({**LLAMA, "num_hidden_layers": 0}, "num_hidden_layers"),
        ({**LLAMA, "num_key_value_heads": 0}, "num_key_value_heads"),
        ({**LLAMA, "num_key_value_heads": 5}, "num_key_value_heads"),  # 5 does not divide 32
        ({**LLAMA, "num_key_value_heads": 64}, "num_key_value_heads"),
        ({**LLAMA, "num_attention_heads": 24}, "num_attention_heads"),  # 4096 / 24 is not whole
        ({**MIXTRAL, "num_local_experts": 0}, "num_local_experts"),
        ({**MIXTRAL, "num_experts_per_tok": 9}, "num_experts_per_tok"),
        ({**QWEN3_MOE, "num_experts": 0}, "num_experts"),
        ({**QWEN3_MOE, "num_experts": MAX_EXPERTS + 1}, "num_experts"),
        ({**LLAMA, "vocab_size": 10**9}, "vocab_size"),
        ({**LLAMA, "tie_word_embeddings": "yes"}, "tie_word_embeddings"),
        ({**LLAMA, "sliding_window": -1}, "sliding_window"),
        ({**LLAMA, "layer_types": ["full_attention"]}, "layer_types"),
        ({**LLAMA, "quantization_config": "fp8"}, "quantization_config"),
        ({**LLAMA, "model_type": ["llama"]}, "model_type"),
    ],
)
def test_a_bad_field_is_refused_by_name(config: dict[str, Any], field: str) -> None:
    assert _field(config) == [f"model_config.{field}"]


def test_integral_floats_are_read_as_integers() -> None:
    model = model_from_hf_config({**LLAMA, "hidden_size": 4096.0})
    assert model.hidden == 4096


def test_explicit_head_dim_need_not_split_hidden() -> None:
    """Qwen3-32B: 64 heads × head_dim 128 = 8192 ≠ hidden 5120 (Qwen/Qwen3-32B config.json)."""
    model = model_from_hf_config({**LLAMA, "hidden_size": 5120, "num_attention_heads": 64, "head_dim": 128})
    assert model.head_dim == 128


def test_gemma3_is_read_from_text_config_with_five_of_six_layers_sliding() -> None:
    """Gemma 3 27B: 62 layers, a global layer every 6th (Gemma3TextConfig sliding_window_pattern 6), window
    1,024; Gemma 3 technical report (arXiv 2503.19786) Table 1: 1,416 M embedding + 25,600 M non-embedding
    parameters = 27.0 B in the language model (the 417 M vision encoder is not counted)."""
    model = model_from_hf_config(GEMMA3_27B)
    assert (model.layers, model.sliding_window, model.sliding_window_layers) == (62, 1024, 52)
    assert model.vocab == 262_208
    assert model.tied_embeddings is True
    assert model.total_params / 27.016e9 == pytest.approx(1, abs=0.01)
    # KV at 32k tokens: 10 global layers × 32,768 + 52 sliding × 1,024 positions, 16 KV heads × 128 × 2 (K, V) × 2 B
    expected = (10 * 32768 + 52 * 1024) * 16 * 128 * 2 * 2
    assert kv_cache_bytes(model, "bf16", 32768) == expected
    llama_like = 62 * 32768 * 16 * 128 * 2 * 2
    assert llama_like / expected == pytest.approx(5.33, abs=0.01)  # the "KV 5.3x too high"


def test_unknown_dense_type_is_sized_by_the_generic_rule_and_says_so() -> None:
    model = model_from_hf_config({**LLAMA, "model_type": "olmo2"})
    assert model.generic_layout is True
    assert model.total_params == 8_030_261_248
    result = estimate(Workload(model=model, precision="bf16", engine="vllm"))
    assert any("generic rule" in str(text) and "olmo2" in str(text) for text in result.assumptions)


def test_known_types_do_not_claim_the_generic_rule() -> None:
    assert model_from_hf_config(LLAMA).generic_layout is False
    result = estimate(Workload(model=model_from_hf_config(LLAMA), precision="bf16", engine="vllm"))
    assert not any("generic rule" in str(text) for text in result.assumptions)


@pytest.mark.parametrize(
    "extra",
    [
        {"num_experts": 64, "num_experts_per_tok": 8},  # OLMoE
        {"n_routed_experts": 160, "kv_lora_rank": 512},  # GLM/DeepSeek-like
        {"full_attention_interval": 4, "linear_num_value_heads": 32},  # Qwen3-Next linear attention
        {"layer_types": ["linear_attention"] * 32},
    ],
)
def test_unknown_type_with_a_layout_the_generic_rule_cannot_size_is_refused(extra: dict[str, Any]) -> None:
    with pytest.raises(DomainError) as caught:
        model_from_hf_config({**LLAMA, "model_type": "someday_moe", **extra})
    assert list(caught.value.fields) == ["model_config.model_type"]
    message = caught.value.fields["model_config.model_type"][0]
    assert all(kind in message for kind in SUPPORTED_MODEL_TYPES)


def test_the_largest_config_the_bounds_admit_is_bounded_work() -> None:
    """Work per estimate ∝ weight tensors (≤ 8 per layer + embeddings, head, remainder), not experts or tokens."""
    config = {
        **QWEN3_MOE,
        "num_hidden_layers": MAX_LAYERS,
        "hidden_size": MAX_HIDDEN,
        "num_attention_heads": 1024,
        "num_key_value_heads": 1024,
        "head_dim": 1024,
        "num_experts": MAX_EXPERTS,
        "num_experts_per_tok": MAX_EXPERTS,
        "mlp_only_layers": list(range(MAX_LAYERS)),
    }
    model = model_from_hf_config(config)
    assert len(model_tensors(model)) <= 8 * MAX_LAYERS + 3
    moe = model_from_hf_config({**config, "mlp_only_layers": []})
    assert len(model_tensors(moe)) <= 8 * MAX_LAYERS + 3
    result = estimate(Workload(model=moe, precision="bf16", engine="vllm", context_tokens=2_097_152))
    assert result.memory.total > 0
