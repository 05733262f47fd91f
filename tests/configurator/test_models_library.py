"""The model library and the config.json parser: shapes, parameter counts against published totals."""

from __future__ import annotations

import json

import pytest

from configurator.engine.errors import DomainError, UnknownModelError
from configurator.engine.models_library import (
    LLM_MODELS_FIXTURE,
    model_from_hf_config,
    model_get,
    model_library,
    model_search,
)
from tests.model_configs import LLAMA_3_1_8B

ISSUE_SLUGS = [
    "llama-2-7b",
    "llama-3-8b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.3-70b",
    "llama-3.1-405b",
    "llama-3.2-1b",
    "llama-3.2-3b",
    "qwen2.5-7b",
    "qwen2.5-14b",
    "qwen2.5-32b",
    "qwen2.5-72b",
    "qwen3-8b",
    "qwen3-14b",
    "qwen3-32b",
    "qwen3-30b-a3b",
    "qwen3-235b-a22b",
    "mistral-7b",
    "mixtral-8x7b",
    "mixtral-8x22b",
    "deepseek-v3",
    "deepseek-r1",
    "deepseek-r1-distill-qwen-14b",
    "gemma-2-9b",
    "gemma-2-27b",
    "phi-3-mini",
    "phi-4",
    "gpt-oss-20b",
    "gpt-oss-120b",
]


def _entries() -> list[dict]:
    return json.loads(LLM_MODELS_FIXTURE.read_text(encoding="utf-8"))["models"]


def test_library_has_every_model_of_the_issue() -> None:
    assert len(ISSUE_SLUGS) == 29
    assert set(ISSUE_SLUGS) <= set(model_library())


def test_every_entry_names_its_source_and_published_figure() -> None:
    for entry in _entries():
        assert entry["source"], entry["slug"]
        assert entry["published"]["source"], entry["slug"]
        assert entry["hf_id"], entry["slug"]


@pytest.mark.parametrize("entry", _entries(), ids=lambda e: e["slug"])
def test_stored_params_are_the_ones_computed_from_the_config(entry: dict) -> None:
    model = model_from_hf_config(entry["config"], slug=entry["slug"])
    assert (model.total_params, model.active_params) == (entry["total_params"], entry["active_params"])


@pytest.mark.parametrize("entry", _entries(), ids=lambda e: e["slug"])
def test_total_params_agree_with_published_within_1_percent(entry: dict) -> None:
    """Published totals with their sources are in fixtures/llm_models.json `published` (model cards, papers)."""
    published = entry["published"]
    assert entry["total_params"] == pytest.approx(published["total"], rel=0.01)
    if "active" in published:
        active = entry["active_params"]
        if published.get("active_excludes_embedding"):  # OpenAI's gpt-oss count leaves the embedding out
            config = entry["config"]
            active -= config["vocab_size"] * config["hidden_size"]
        if published.get("active_excludes_head"):  # Zhipu's GLM-4.5 count leaves the output head out too
            active -= entry["config"]["vocab_size"] * entry["config"]["hidden_size"]
        # published active counts are rounded to two digits (3.3B, 37B): 2 %
        assert active == pytest.approx(published["active"], rel=0.02)


def test_exact_counts_of_reference_models() -> None:
    """Llama-3.1-8B 8,030,261,248 (thamada/modelQuery, from params.json); Phi-3-mini 3,821,079,552
    (keras-hub phi3_presets.py); DeepSeek-V3 671.03 B without the MTP layer (model-architectures.json)."""
    assert model_get("llama-3.1-8b").total_params == 8_030_261_248
    assert model_get("phi-3-mini").total_params == 3_821_079_552
    assert model_get("deepseek-v3").total_params == 671_026_419_200
    assert model_get("deepseek-v3").active_params == 37_552_297_472
    assert model_get("mixtral-8x7b").active_params == 12_879_925_248


def test_lookup_by_slug_or_hugging_face_id_case_insensitive() -> None:
    assert model_get("LLAMA-3.1-70B").slug == "llama-3.1-70b"
    assert model_get("meta-llama/Llama-3.1-70B").slug == "llama-3.1-70b"
    assert model_get("meta-llama/Meta-Llama-3.1-70B-Instruct").slug == "llama-3.1-70b"
    assert model_get("qwen/qwen3-30b-a3b").slug == "qwen3-30b-a3b"
    assert model_get("Qwen/Qwen2.5-7B-Instruct").slug == "qwen2.5-7b"
    assert model_get("openai/gpt-oss-120b").slug == "gpt-oss-120b"


def test_unknown_model_names_the_field() -> None:
    with pytest.raises(UnknownModelError) as caught:
        model_get("llama-9-1t")
    assert caught.value.code == "unknown_model"
    assert list(caught.value.fields) == ["model"]


def test_sliding_window_and_mla_fields() -> None:
    """Gemma-2 alternates local 4096 / global layers; gpt-oss alternates 128-token windows with full layers;
    Mistral-7B-v0.1 windows every layer at 4096 (anchors §3); DeepSeek-V3 caches a 512 + 64 latent (MLA)."""
    gemma = model_get("gemma-2-9b")
    assert (gemma.sliding_window, gemma.sliding_window_layers, gemma.layers) == (4096, 21, 42)
    oss = model_get("gpt-oss-20b")
    assert (oss.sliding_window, oss.sliding_window_layers, oss.layers) == (128, 12, 24)
    mistral = model_get("mistral-7b")
    assert (mistral.sliding_window, mistral.sliding_window_layers) == (4096, 32)
    assert model_get("qwen2.5-7b").sliding_window_layers == 0
    deepseek = model_get("deepseek-v3")
    assert (deepseek.kv_lora_rank, deepseek.qk_rope_head_dim, deepseek.is_mla) == (512, 64, True)
    assert (deepseek.experts, deepseek.active_experts, deepseek.shared_experts, deepseek.dense_layers) == (
        256,
        8,
        1,
        3,
    )


def test_native_precisions() -> None:
    assert model_get("gpt-oss-20b").native_precision == "mxfp4"
    assert model_get("deepseek-r1").native_precision == "fp8"
    assert model_get("llama-3.1-8b").native_precision == "bf16"


LLAMA_CONFIG = {
    **LLAMA_3_1_8B,
    "_name_or_path": "acme/Llama-3.1-8B-finetune",
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def test_pasted_llama_config_matches_the_library_entry() -> None:
    model = model_from_hf_config(LLAMA_CONFIG)
    library = model_get("llama-3.1-8b")
    assert model.slug == "llama-3.1-8b-finetune"
    assert (model.total_params, model.head_dim, model.kv_heads) == (library.total_params, 128, 8)


def test_pasted_config_missing_a_field_names_it() -> None:
    config = {k: v for k, v in LLAMA_CONFIG.items() if k != "hidden_size"}
    with pytest.raises(DomainError) as caught:
        model_from_hf_config(config)
    assert list(caught.value.fields) == ["model_config.hidden_size"]


def test_pasted_config_without_model_type_names_it() -> None:
    config = {k: v for k, v in LLAMA_CONFIG.items() if k != "model_type"}
    with pytest.raises(DomainError) as caught:
        model_from_hf_config(config)
    assert list(caught.value.fields) == ["model_config.model_type"]


def test_moe_config_missing_experts_names_the_field() -> None:
    config = {**LLAMA_CONFIG, "model_type": "mixtral", "num_experts_per_tok": 2}
    with pytest.raises(DomainError) as caught:
        model_from_hf_config(config)
    assert list(caught.value.fields) == ["model_config.num_local_experts"]


def test_unknown_model_type_is_read_as_a_llama_like_decoder() -> None:
    model = model_from_hf_config({**LLAMA_CONFIG, "model_type": "olmo2"})
    assert model.total_params == 8_030_261_248
    assert model.family == "olmo2"


def test_negative_or_non_integer_fields_are_rejected() -> None:
    with pytest.raises(DomainError) as caught:
        model_from_hf_config({**LLAMA_CONFIG, "num_hidden_layers": -3})
    assert list(caught.value.fields) == ["model_config.num_hidden_layers"]
    with pytest.raises(DomainError) as caught:
        model_from_hf_config({**LLAMA_CONFIG, "hidden_size": "big"})
    assert list(caught.value.fields) == ["model_config.hidden_size"]


def test_search_ranks_the_family_best_first() -> None:
    """Ranked by engine.model_match: the models named by "qwen3" and a size alone first (their whole slug
    covered but the size), then the MoE releases, whose slugs say more (tests/configurator/test_model_match.py)."""
    slugs = [m.slug for m in model_search("qwen3")]
    assert slugs == [
        "qwen3-8b", "qwen3-14b", "qwen3-32b", "qwen3.5-35b-a3b", "qwen3-30b-a3b", "qwen3-235b-a22b",
        "qwen3-next-80b-a3b",
    ]  # fmt: skip
    assert len(model_search("")) == len(model_library()) == 50  # 40 + llama-2-70b + 7 (coverage) + NeMo, QwQ
