"""LLM architectures: the library in `fixtures/llm_models.json` and a parser for pasted HF `config.json`.

Pure module (no Django). Every library entry is stored as the subset of its Hugging Face `config.json` that
sizes the model, with the file it was read from in `source`; the parameter counts are computed from that
config by `model_from_hf_config`, so a pasted config and a library entry go through the same code.

Parameter formula (dense, per `../shared/reference/model-architectures.json` `_meta.param_formula_dense`):
``V·h·(1 if tied else 2) + L·(h·qh·hd + 2·h·kvh·hd + qh·hd·h + 3·h·I + norms·h [+ qkv bias] [+ 2·hd qk-norm]) + h``.
MoE layers replace ``3·h·I`` by ``E·3·h·I_moe`` (+ shared experts, + router ``h·E``); active parameters count
``k`` of the ``E`` routed experts (llm-analysis `analysis.py` @d841e40: active MLP = MLP × top_k / E).
MLA attention (DeepSeek-V2/V3) counts the low-rank projections ``q_a, q_b, kv_a, kv_b, o`` and their norms.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from configurator.engine.errors import DomainError, UnknownModelError
from configurator.engine.types import ModelArch

LLM_MODELS_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "llm_models.json"

# model_type values whose config.json layout we know; anything else is read as a Llama-like dense decoder.
SUPPORTED_MODEL_TYPES: tuple[str, ...] = (
    "llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "gemma2", "phi3", "deepseek_v3",
    "deepseek_v2", "gpt_oss",
)  # fmt: skip

_FAMILY_BY_TYPE = {
    "llama": "llama",
    "mistral": "mistral",
    "mixtral": "mixtral",
    "qwen2": "qwen2",
    "qwen3": "qwen3",
    "qwen3_moe": "qwen3",
    "gemma2": "gemma",
    "phi3": "phi",
    "deepseek_v3": "deepseek",
    "deepseek_v2": "deepseek",
    "gpt_oss": "gpt-oss",
}


@dataclass(frozen=True, slots=True)
class _Shape:
    """Everything the parameter count needs, including what ModelArch does not keep (biases, MLA ranks)."""

    layers: int
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    tied: bool
    norms_per_layer: int = 2
    qkv_bias: bool = False
    o_bias: bool = False
    qk_norm: bool = False
    attention_sinks: bool = False
    experts: int = 0
    active_experts: int = 0
    moe_intermediate: int = 0
    shared_experts: int = 0
    dense_layers: int = 0
    router_bias: bool = False
    expert_bias: bool = False
    # MLA (DeepSeek-V2/V3)
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0


def _attention_params(s: _Shape) -> int:
    h = s.hidden
    if s.kv_lora_rank is not None:  # MLA: DeepseekV3Attention in transformers
        qk_head = s.qk_nope_head_dim + s.qk_rope_head_dim
        if s.q_lora_rank:
            q = h * s.q_lora_rank + s.q_lora_rank + s.q_lora_rank * s.heads * qk_head
        else:
            q = h * s.heads * qk_head
        kv = (
            h * (s.kv_lora_rank + s.qk_rope_head_dim)
            + s.kv_lora_rank
            + s.kv_lora_rank * s.heads * (s.qk_nope_head_dim + s.v_head_dim)
        )
        return q + kv + s.heads * s.v_head_dim * h
    q_dim = s.heads * s.head_dim
    kv_dim = s.kv_heads * s.head_dim
    params = h * q_dim + 2 * h * kv_dim + q_dim * h
    if s.qkv_bias:
        params += q_dim + 2 * kv_dim
    if s.o_bias:
        params += h
    if s.qk_norm:
        params += 2 * s.head_dim
    if s.attention_sinks:
        params += s.heads
    return params


def _expert_params(s: _Shape, intermediate: int) -> int:
    """One gated (SwiGLU) MLP: gate, up, down (+ biases for gpt-oss)."""
    params = 3 * s.hidden * intermediate
    if s.expert_bias:
        params += 2 * intermediate + s.hidden
    return params


def _count_params(s: _Shape) -> tuple[int, int]:
    """(total, active) parameters, embeddings and an untied lm_head included."""
    h = s.hidden
    embed = s.vocab * h * (1 if s.tied else 2)
    per_layer_common = _attention_params(s) + s.norms_per_layer * h
    dense_mlp = _expert_params(s, s.intermediate)
    total = embed + h  # final norm
    active = embed + h
    if s.experts == 0:
        total += s.layers * (per_layer_common + dense_mlp)
        return total, total
    moe_layers = s.layers - s.dense_layers
    router = h * s.experts + (s.experts if s.router_bias else 0)
    expert = _expert_params(s, s.moe_intermediate)
    shared = s.shared_experts * _expert_params(s, s.moe_intermediate)
    total += s.dense_layers * (per_layer_common + dense_mlp)
    active += s.dense_layers * (per_layer_common + dense_mlp)
    total += moe_layers * (per_layer_common + router + shared + s.experts * expert)
    active += moe_layers * (per_layer_common + router + shared + s.active_experts * expert)
    return total, active


def _missing(name: str) -> DomainError:
    return DomainError(
        f"The pasted config.json has no `{name}`; it is needed to size the model.",
        fields={f"model_config.{name}": ["This field is required."]},
        code="invalid_model_config",
    )


def _int(config: dict[str, Any], name: str, default: int | None = None) -> int:
    value = config.get(name)
    if value is None:
        if default is None:
            raise _missing(name)
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value or value < 0:
        raise DomainError(
            f"`{name}` in the pasted config.json must be a non-negative integer.",
            fields={f"model_config.{name}": ["A non-negative integer is required."]},
            code="invalid_model_config",
        )
    return int(value)


def _shape_from_config(config: dict[str, Any], model_type: str) -> tuple[_Shape, dict[str, Any]]:
    """Read the fields of one config.json family; returns the shape and the extra ModelArch fields."""
    layers = _int(config, "num_hidden_layers")
    hidden = _int(config, "hidden_size")
    heads = _int(config, "num_attention_heads")
    if layers == 0 or hidden == 0 or heads == 0:
        raise DomainError(
            "num_hidden_layers, hidden_size and num_attention_heads must be positive.",
            fields={"model_config": ["Layer count, hidden size and head count must be positive."]},
            code="invalid_model_config",
        )
    kv_heads = _int(config, "num_key_value_heads", heads)
    vocab = _int(config, "vocab_size")
    head_dim = _int(config, "head_dim", hidden // heads)
    tied_default = model_type == "gemma2"
    tied = bool(config.get("tie_word_embeddings", tied_default))
    extra: dict[str, Any] = {}
    common: dict[str, Any] = {
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "vocab": vocab,
        "tied": tied,
    }
    if model_type in ("deepseek_v3", "deepseek_v2"):
        # MLA + DeepSeekMoE (transformers DeepseekV3Config); head_dim here = qk head (nope + rope)
        nope = _int(config, "qk_nope_head_dim")
        rope = _int(config, "qk_rope_head_dim")
        kv_lora = _int(config, "kv_lora_rank")
        q_lora_raw = config.get("q_lora_rank")
        q_lora = _int(config, "q_lora_rank") if q_lora_raw is not None else None
        v_head = _int(config, "v_head_dim")
        experts = _int(config, "n_routed_experts")
        common.update(
            head_dim=nope + rope,
            intermediate=_int(config, "intermediate_size"),
            q_lora_rank=q_lora,
            kv_lora_rank=kv_lora,
            qk_nope_head_dim=nope,
            qk_rope_head_dim=rope,
            v_head_dim=v_head,
            experts=experts,
            active_experts=_int(config, "num_experts_per_tok"),
            moe_intermediate=_int(config, "moe_intermediate_size"),
            shared_experts=_int(config, "n_shared_experts", 0),
            dense_layers=min(_int(config, "first_k_dense_replace", 0), layers),
            router_bias=model_type == "deepseek_v3",  # e_score_correction_bias
        )
        extra.update(kv_lora_rank=kv_lora, qk_rope_head_dim=rope)
        return _Shape(**common), extra
    intermediate = _int(config, "intermediate_size")
    common["intermediate"] = intermediate
    if model_type == "qwen2":
        common["qkv_bias"] = True
    if model_type in ("qwen3", "qwen3_moe"):
        common["qk_norm"] = True
    if model_type == "gemma2":
        common["norms_per_layer"] = 4  # input, post-attention, pre- and post-feedforward RMSNorm
    if model_type in ("llama", "mistral", "mixtral", "phi3") or model_type not in SUPPORTED_MODEL_TYPES:
        common["qkv_bias"] = bool(config.get("attention_bias", False))
        common["o_bias"] = bool(config.get("attention_bias", False))
    if model_type == "mixtral":
        common.update(
            experts=_int(config, "num_local_experts"),
            active_experts=_int(config, "num_experts_per_tok"),
            moe_intermediate=intermediate,
        )
    if model_type == "qwen3_moe":
        experts = _int(config, "num_experts")
        step = _int(config, "decoder_sparse_step", 1)
        dense_only = config.get("mlp_only_layers") or []
        sparse = [i for i in range(layers) if i not in dense_only and step > 0 and (i + 1) % step == 0]
        common.update(
            experts=experts,
            active_experts=_int(config, "num_experts_per_tok"),
            moe_intermediate=_int(config, "moe_intermediate_size"),
            dense_layers=layers - len(sparse),
        )
    if model_type == "gpt_oss":
        experts = _int(config, "num_local_experts")
        active = config.get("num_experts_per_tok", config.get("experts_per_token"))
        if active is None:
            raise _missing("num_experts_per_tok")
        common.update(
            experts=experts,
            active_experts=int(active),
            moe_intermediate=intermediate,
            qkv_bias=True,
            o_bias=True,
            attention_sinks=True,
            router_bias=True,
            expert_bias=True,
        )
    # sliding-window layers
    window = config.get("sliding_window")
    layer_types = config.get("layer_types")
    if isinstance(layer_types, list) and layer_types:
        sliding = sum(1 for kind in layer_types if kind == "sliding_attention")
    elif model_type == "gemma2":
        sliding = (layers + 1) // 2  # even layers are local (Gemma2DecoderLayer: is_sliding = not layer_idx % 2)
    elif model_type == "gpt_oss":
        sliding = (layers + 1) // 2  # alternating sliding / full, starting with sliding
    elif model_type in ("mistral", "mixtral"):
        sliding = layers if window else 0
    elif model_type in ("qwen2", "qwen3", "qwen3_moe"):
        use = config.get("use_sliding_window", False)
        max_window_layers = _int(config, "max_window_layers", layers)
        sliding = max(0, layers - max_window_layers) if use else 0
    else:
        sliding = 0  # phi3's sliding_window is not honoured by the KV caches of llama.cpp/vLLM
    if window and sliding:
        extra.update(sliding_window=int(window), sliding_window_layers=sliding)
    return _Shape(**common), extra


def model_from_hf_config(config: dict[str, Any], *, slug: str | None = None) -> ModelArch:
    """Parse a Hugging Face `config.json` (Llama, Mistral, Mixtral, Qwen2/3, Qwen3-MoE, Gemma-2, Phi-3,
    DeepSeek-V2/V3, gpt-oss) into a ModelArch with computed parameter counts.

    Unknown `model_type` values are read as a Llama-like dense decoder. A missing field raises DomainError
    naming it as ``model_config.<name>``.
    """
    if not isinstance(config, dict):
        raise DomainError(
            "model_config must be a JSON object (the model's config.json).",
            fields={"model_config": ["Expected a JSON object."]},
            code="invalid_model_config",
        )
    if "text_config" in config and "hidden_size" not in config and isinstance(config["text_config"], dict):
        config = {**config["text_config"], **{k: v for k, v in config.items() if k != "text_config"}}
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise _missing("model_type")
    model_type = model_type.lower()
    shape, extra = _shape_from_config(config, model_type)
    total, active = _count_params(shape)
    name_or_path = str(config.get("_name_or_path") or "")
    resolved_slug = (slug or name_or_path.rsplit("/", 1)[-1] or f"custom-{model_type}").lower()
    max_context = config.get("max_position_embeddings") or config.get("max_sequence_length") or 8192
    native = "bf16"
    quant = config.get("quantization_config")
    if isinstance(quant, dict):
        method = str(quant.get("quant_method", "")).lower()
        if method == "mxfp4":
            native = "mxfp4"
        elif method == "fp8":
            native = "fp8"
    family = _FAMILY_BY_TYPE.get(model_type, model_type)
    return ModelArch(
        slug=resolved_slug,
        name=name_or_path or resolved_slug,
        hf_id=name_or_path,
        family=family,
        layers=shape.layers,
        hidden=shape.hidden,
        intermediate=shape.intermediate,
        heads=shape.heads,
        kv_heads=shape.kv_heads,
        head_dim=shape.head_dim,
        vocab=shape.vocab,
        total_params=total,
        active_params=active,
        tied_embeddings=shape.tied,
        experts=shape.experts,
        active_experts=shape.active_experts,
        moe_intermediate=shape.moe_intermediate,
        shared_experts=shape.shared_experts,
        dense_layers=shape.dense_layers,
        max_context=int(max_context),
        native_precision=native,
        source=f"pasted config.json (model_type {model_type})",
        **extra,
    )


def _read_fixture(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    models: list[dict[str, Any]] = data["models"]
    return models


@lru_cache(maxsize=1)
def _library() -> tuple[dict[str, ModelArch], dict[str, str]]:
    by_slug: dict[str, ModelArch] = {}
    index: dict[str, str] = {}
    for entry in _read_fixture(LLM_MODELS_FIXTURE):
        parsed = model_from_hf_config(entry["config"], slug=entry["slug"])
        model = replace(
            parsed,
            name=entry["name"],
            hf_id=entry["hf_id"],
            family=entry["family"],
            max_context=int(entry["max_context"]),
            native_precision=entry.get("native_precision", "bf16"),
            source=entry["source"],
        )
        by_slug[model.slug] = model
        for key in (model.slug, model.hf_id, *entry.get("aliases", ())):
            index[key.lower()] = model.slug
    return by_slug, index


def model_library() -> dict[str, ModelArch]:
    """Every library model by slug (cached; read once from fixtures/llm_models.json)."""
    return _library()[0]


def model_get(key: str) -> ModelArch:
    """A library model by slug or Hugging Face id, case-insensitive (`-Instruct`/`-it` suffixes ignored)."""
    by_slug, index = _library()
    wanted = (key or "").strip().lower()
    candidates = [wanted]
    for suffix in ("-instruct", "-it", "-chat"):
        if wanted.endswith(suffix):
            candidates.append(wanted[: -len(suffix)])
    for candidate in candidates:
        slug = index.get(candidate)
        if slug is not None:
            return by_slug[slug]
    raise UnknownModelError(
        f"Unknown model '{key}'. Use a slug from GET /api/v1/llm-models/, a Hugging Face id of one of them, "
        "or paste the model's config.json as model_config.",
        fields={"model": [f"Unknown model '{key}'."]},
    )


def model_search(query: str = "") -> list[ModelArch]:
    """Library models whose slug, name, Hugging Face id or family contains `query` (case-insensitive)."""
    wanted = query.strip().lower()
    models = sorted(model_library().values(), key=lambda m: (m.family, m.total_params))
    if not wanted:
        return models
    return [m for m in models if any(wanted in text.lower() for text in (m.slug, m.name, m.hf_id, m.family))]
