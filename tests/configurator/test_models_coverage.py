"""Issue 33 item 5: the models the fresh measurement rows asked for, and the plain-MLP families they need
(Falcon, Phi-2, GPT-J: two-matrix GELU MLP, LayerNorms with biases)."""

from __future__ import annotations

import pytest

from configurator.engine.errors import DomainError
from configurator.engine.models_library import model_from_hf_config, model_get

NEW_SLUGS = ["llama-2-13b", "qwen2.5-3b", "falcon-7b", "falcon-180b", "phi-2", "gpt-j-6b", "nemotron-nano-9b-v2"]


def test_every_new_model_is_in_the_library_with_a_config_json_source() -> None:
    for slug in NEW_SLUGS:
        model = model_get(slug)
        assert "config.json" in model.source, slug
        assert "huggingface.co/" in model.source, slug


def test_falcon_7b_counts_by_hand() -> None:
    """Embedding 65,024 × 4,544 (tied) + 32 × (fused QKV 4,544 × (4,544 + 2 × 64) + dense 4,544² + MLP
    2 × 4,544 × 18,176 + one LayerNorm 2 × 4,544) + ln_f 2 × 4,544 = 6,921,720,704."""
    model = model_get("falcon-7b")
    per_layer = 4544 * (4544 + 2 * 64) + 4544 * 4544 + 2 * 4544 * 18176 + 2 * 4544
    assert model.total_params == 65024 * 4544 + 32 * per_layer + 2 * 4544 == 6_921_720_704
    assert (model.kv_heads, model.head_dim) == (1, 64)  # multi-query: one KV head
    assert model.intermediate == 12117  # the gated width of the same weight volume: 2 × 18,176 / 3


def test_falcon_180b_new_decoder_architecture_has_8_kv_heads_and_two_norms() -> None:
    model = model_get("falcon-180b")
    per_layer = 14848 * (14848 + 2 * 8 * 64) + 14848 * 14848 + 2 * 14848 * 4 * 14848 + 2 * 2 * 14848
    assert model.total_params == 65024 * 14848 + 80 * per_layer + 2 * 14848
    assert (model.kv_heads, model.head_dim, model.layers) == (8, 64, 80)


def test_phi_2_and_gpt_j_biases_and_untied_heads() -> None:
    phi = model_get("phi-2")
    phi_layer = 3 * (2560 * 2560 + 2560) + 2560 * 2560 + 2560 + 2 * 2560 * 10240 + 10240 + 2560 + 2 * 2560
    assert phi.total_params == 2 * 51200 * 2560 + 51200 + 32 * phi_layer + 2 * 2560 == 2_779_683_840
    gptj = model_get("gpt-j-6b")
    gptj_layer = 4 * 4096 * 4096 + 2 * 4096 * 16384 + 16384 + 4096 + 2 * 4096
    assert gptj.total_params == 2 * 50400 * 4096 + 50400 + 28 * gptj_layer + 2 * 4096 == 6_050_882_784
    assert gptj.head_dim == 256 and gptj.family == "gpt-j"


def test_llama_2_13b_and_qwen_2_5_3b() -> None:
    assert model_get("llama-2-13b").total_params == 13_015_864_320
    qwen = model_get("qwen2.5-3b")
    assert (qwen.kv_heads, qwen.tied_embeddings, qwen.max_context) == (2, True, 32768)
    assert qwen.total_params == pytest.approx(3.09e9, rel=0.01)


def test_legacy_refinedweb_falcon_config_is_read_by_its_old_names() -> None:
    """Falcon-7B's first config.json: model_type RefinedWebModel, n_layer / n_head, no max_position."""
    pasted = {
        "model_type": "RefinedWebModel",
        "n_layer": 32,
        "n_head": 71,
        "hidden_size": 4544,
        "multi_query": True,
        "parallel_attn": True,
        "bias": False,
        "vocab_size": 65024,
    }
    model = model_from_hf_config(pasted)
    assert model.total_params == model_get("falcon-7b").total_params
    assert (model.family, model.max_context, model.generic_layout) == ("falcon", 2048, False)


def test_gpt_j_bad_legacy_field_names_the_field() -> None:
    with pytest.raises(DomainError) as caught:
        model_from_hf_config({"model_type": "gptj", "n_embd": -1, "n_layer": 28, "n_head": 16, "vocab_size": 50400})
    assert list(caught.value.fields) == ["model_config.hidden_size"]


def test_nemotron_nano_9b_v2_hybrid_mamba_counts_by_hand() -> None:
    """27 Mamba-2 mixers (in_proj 4,480 × (2·10,240 + 2·8·128 + 128), conv (10,240 + 2,048) × 4 + bias, dt_bias,
    A_log, D, gated norm 10,240, out_proj 10,240 × 4,480), 4 GQA attention blocks, 25 relu² MLPs (2 × 4,480 ×
    15,680), one RMSNorm per block, untied 131,072-token embeddings: 8,888,227,328 (8.89 B published)."""
    model = model_get("nemotron-nano-9b-v2")
    inner, conv = 128 * 80, 128 * 80 + 2 * 8 * 128
    mamba = 4480 * (2 * inner + 2 * 8 * 128 + 128) + conv * 4 + conv + 3 * 128 + inner + inner * 4480
    attention = 4480 * 40 * 128 * 2 + 2 * 4480 * 8 * 128
    mlp = 2 * 4480 * 15680
    by_hand = 2 * 131072 * 4480 + 27 * mamba + 4 * attention + 25 * mlp + 56 * 4480 + 4480
    assert by_hand == 8_888_227_328
    assert model.total_params == pytest.approx(by_hand, abs=56)  # the Mamba share is averaged over 52 layers
    assert (model.kv_layers, model.mamba_layers, model.linear_attention_layers) == (4, 27, 52)
    state = 27 * (128 * 80 * 128 + conv * 3)  # SSM state and conv window of every Mamba block, per sequence
    assert model.linear_attention_layers * model.linear_state_elements == pytest.approx(state, abs=52)


def test_nemotron_h_moe_blocks_are_refused_naming_the_pattern() -> None:
    config = {
        "model_type": "nemotron_h", "num_hidden_layers": 3, "hidden_size": 64, "num_attention_heads": 4,
        "intermediate_size": 128, "vocab_size": 100, "hybrid_override_pattern": "ME*",
        "mamba_num_heads": 4, "mamba_head_dim": 16, "ssm_state_size": 16,
    }  # fmt: skip
    with pytest.raises(DomainError) as caught:
        model_from_hf_config(config)
    assert list(caught.value.fields) == ["model_config.hybrid_override_pattern"]
