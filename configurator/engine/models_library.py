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
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from configurator.engine.config_fields import (
    check_experts,
    check_heads,
    invalid,
    missing,
    read_bool,
    read_int,
    read_int_list,
    read_layer_types,
    read_text,
)
from configurator.engine.errors import DomainError, UnknownModelError
from configurator.engine.model_families import (
    DEFAULT_CONTEXT,
    HYBRID_TYPES,
    PLAIN_MLP_TYPES,
    glm4_moe_fields,
    hybrid_fields,
    nemotron_h_fields,
    normalise_legacy,
    olmoe_fields,
    plain_mlp_fields,
    precision_map_from_quant,
    quantized_precision,
    qwen_moe_fields,
)
from configurator.engine.model_match import ModelMatches, match_models
from configurator.engine.model_params import PASTED_SOURCE, DecoderShape, count_params
from configurator.engine.phrase import Phrase
from configurator.engine.types import ModelArch

LLM_MODELS_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "llm_models.json"

# model_type values whose config.json layout we know. Any other type is sized by the generic rule (a Llama-like
# dense decoder, said in the assumptions) unless its config shows experts, MLA or linear attention: then refused.
SUPPORTED_MODEL_TYPES: tuple[str, ...] = (
    "llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "gemma2", "phi3", "deepseek_v3",
    "deepseek_v2", "gpt_oss", "gemma3", "gemma3_text", "qwen3_next", "qwen3_5_moe", "qwen3_5_moe_text",
    "qwen3_5", "qwen3_5_text", "glm4_moe", "olmoe", "falcon", "phi", "gptj", "nemotron_h",
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
    "gemma3": "gemma",
    "gemma3_text": "gemma",
    "qwen3_next": "qwen3",
    "qwen3_5_moe": "qwen3",
    "qwen3_5_moe_text": "qwen3",
    "qwen3_5": "qwen3",
    "qwen3_5_text": "qwen3",
    "glm4_moe": "glm",
    "olmoe": "olmoe",
    "falcon": "falcon",
    "phi": "phi",
    "gptj": "gpt-j",
    "nemotron_h": "nemotron",
}


def _int(config: dict[str, Any], name: str, default: int | None = None) -> int:
    return read_int(config, name, default)


# Keys that mean a layout the generic (Llama-like) rule cannot size: routed experts, MLA, linear attention.
_NON_GENERIC_KEYS = (
    "num_local_experts", "num_experts", "n_routed_experts", "kv_lora_rank", "linear_num_value_heads",
    "full_attention_interval", "attn_type_list",
)  # fmt: skip
GENERIC_LAYER_KINDS = ("full_attention", "sliding_attention")


def _refuse_unknown(model_type: str, key: str) -> DomainError:
    supported = ", ".join(SUPPORTED_MODEL_TYPES)
    return invalid(
        "model_type",
        Phrase(
            "model_type '%(model_type)s' is not supported and its `%(key)s` shows a layout the generic dense rule "
            "cannot size. Supported types: %(supported)s.",
            model_type=model_type,
            key=key,
            supported=supported,
        ),
    )


def _sliding_layers(config: dict[str, Any], model_type: str, layers: int, window: int | None) -> int:
    layer_types = read_layer_types(config, layers)
    if layer_types is not None:
        return sum(1 for kind in layer_types if kind == "sliding_attention")
    if model_type == "gemma2":
        return (layers + 1) // 2  # even layers are local (Gemma2DecoderLayer: is_sliding = not layer_idx % 2)
    if model_type in ("gemma3", "gemma3_text"):
        # transformers Gemma3TextConfig: layer i is global when (i + 1) % sliding_window_pattern == 0 (default 6)
        pattern = _int(config, "sliding_window_pattern", 6)
        return sum(1 for i in range(layers) if (i + 1) % pattern)
    if model_type == "gpt_oss":
        return (layers + 1) // 2  # alternating sliding / full, starting with sliding
    if model_type in ("mistral", "mixtral"):
        return layers if window else 0
    if model_type in ("qwen2", "qwen3", "qwen3_moe"):
        use = read_bool(config, "use_sliding_window", False)
        max_window_layers = _int(config, "max_window_layers", layers)
        return max(0, layers - max_window_layers) if use else 0
    return 0  # phi3's sliding_window is not honoured by the KV caches of llama.cpp/vLLM


def _shape_from_config(config: dict[str, Any], model_type: str) -> tuple[DecoderShape, dict[str, Any]]:
    """Read the fields of one config.json family; returns the shape and the extra ModelArch fields.

    Every field is typed and bounded (configurator.engine.config_fields); a bad one raises DomainError naming it.
    """
    layers = _int(config, "num_hidden_layers")
    hidden = _int(config, "hidden_size")
    heads = _int(config, "num_attention_heads")
    kv_heads = _int(config, "num_key_value_heads", heads)
    gemma3 = model_type in ("gemma3", "gemma3_text")
    # Gemma3TextConfig defaults (transformers configuration_gemma3.py): vocab 262,208, head_dim 256
    vocab = _int(config, "vocab_size", 262_208 if gemma3 else None)
    head_dim_given = config.get("head_dim") is not None or gemma3
    head_dim = _int(config, "head_dim", 256 if gemma3 else hidden // heads)
    plain = plain_mlp_fields(config, model_type, heads) if model_type in PLAIN_MLP_TYPES else {}
    kv_heads = plain.pop("kv_heads", kv_heads)
    if model_type not in ("deepseek_v3", "deepseek_v2"):
        check_heads(hidden, heads, kv_heads, head_dim_given)
    tied = read_bool(config, "tie_word_embeddings", model_type in ("gemma2", "gemma3", "gemma3_text", "falcon"))
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
        q_lora = _int(config, "q_lora_rank") if config.get("q_lora_rank") is not None else None
        experts = _int(config, "n_routed_experts")
        active = _int(config, "num_experts_per_tok")
        check_experts("n_routed_experts", experts, "num_experts_per_tok", active)
        if nope + rope < 1:
            raise invalid("qk_nope_head_dim", Phrase("qk_nope_head_dim + qk_rope_head_dim must be positive."))
        common.update(
            head_dim=nope + rope,
            intermediate=_int(config, "intermediate_size"),
            q_lora_rank=q_lora,
            kv_lora_rank=kv_lora,
            qk_nope_head_dim=nope,
            qk_rope_head_dim=rope,
            v_head_dim=_int(config, "v_head_dim"),
            experts=experts,
            active_experts=active,
            moe_intermediate=_int(config, "moe_intermediate_size"),
            shared_experts=_int(config, "n_shared_experts", 0),
            dense_layers=min(_int(config, "first_k_dense_replace", 0), layers),
            router_bias=model_type == "deepseek_v3",  # e_score_correction_bias
        )
        extra.update(kv_lora_rank=kv_lora, qk_rope_head_dim=rope)
        return DecoderShape(**common), extra
    intermediate = _int(config, "intermediate_size")
    common["intermediate"] = intermediate
    if model_type == "qwen2":
        common["qkv_bias"] = True
    if model_type in ("qwen3", "qwen3_moe") or gemma3:
        common["qk_norm"] = True  # q_norm / k_norm RMSNorm over head_dim
    if model_type == "gemma2" or gemma3:
        common["norms_per_layer"] = 4  # input, post-attention, pre- and post-feedforward RMSNorm
    if model_type in ("llama", "mistral", "mixtral", "phi3") or model_type not in SUPPORTED_MODEL_TYPES:
        bias = read_bool(config, "attention_bias", False)
        common["qkv_bias"] = bias
        common["o_bias"] = bias
    if model_type == "mixtral":
        experts, active = _int(config, "num_local_experts"), _int(config, "num_experts_per_tok")
        check_experts("num_local_experts", experts, "num_experts_per_tok", active)
        common.update(experts=experts, active_experts=active, moe_intermediate=intermediate)
    if model_type == "qwen3_moe":
        experts, active = _int(config, "num_experts"), _int(config, "num_experts_per_tok")
        check_experts("num_experts", experts, "num_experts_per_tok", active)
        step = _int(config, "decoder_sparse_step", 1)
        dense_only = set(read_int_list(config, "mlp_only_layers", low=0, high=layers - 1, max_len=layers))
        sparse = [i for i in range(layers) if i not in dense_only and step > 0 and (i + 1) % step == 0]
        common.update(
            experts=experts,
            active_experts=active,
            moe_intermediate=_int(config, "moe_intermediate_size"),
            dense_layers=layers - len(sparse),
        )
    if model_type in HYBRID_TYPES:
        hybrid = hybrid_fields(config, layers, hidden)
        common.update(linear_layers=hybrid["linear_layers"], linear_params=hybrid["linear_params"], qk_norm=True)
        common["q_gate"] = read_bool(config, "attn_output_gate", True)
        if config.get("num_experts") not in (None, 0):
            common.update(qwen_moe_fields(config, layers, read_int_list))
        extra.update(linear_attention_layers=hybrid["linear_layers"], linear_state_elements=hybrid["linear_state"])
    common.update(plain)
    if model_type == "nemotron_h":
        nemotron = nemotron_h_fields(config, layers, hidden)
        common.update(
            intermediate=nemotron["intermediate"],
            linear_layers=nemotron["linear_layers"],
            linear_params=nemotron["linear_params"],
            mlp_matrices=2,
            norms_per_layer=1,
        )
        extra.update(
            linear_attention_layers=nemotron["linear_layers"],
            linear_state_elements=nemotron["linear_state"],
            mamba_layers=nemotron["mamba_layers"],
        )
    if model_type == "glm4_moe":
        common.update(glm4_moe_fields(config, layers))
    if model_type == "olmoe":
        common.update(olmoe_fields(config))
    if model_type == "gpt_oss":
        experts = _int(config, "num_local_experts")
        active_field = "num_experts_per_tok" if config.get("num_experts_per_tok") is not None else "experts_per_token"
        active = _int(config, active_field)
        check_experts("num_local_experts", experts, active_field, active)
        common.update(
            experts=experts,
            active_experts=active,
            moe_intermediate=intermediate,
            qkv_bias=True,
            o_bias=True,
            attention_sinks=True,
            router_bias=True,
            expert_bias=True,
        )
    if model_type not in SUPPORTED_MODEL_TYPES:
        for key in _NON_GENERIC_KEYS:
            if config.get(key) not in (None, 0, False):
                raise _refuse_unknown(model_type, key)
        kinds = read_layer_types(config, layers) or []
        if any(kind not in GENERIC_LAYER_KINDS for kind in kinds):
            raise _refuse_unknown(model_type, "layer_types")
        extra["generic_layout"] = True
    window = _int(config, "sliding_window", 0) or None
    sliding = _sliding_layers(config, model_type, layers, window)
    if window and sliding:
        extra.update(sliding_window=window, sliding_window_layers=sliding)
    return DecoderShape(**common), extra


def model_from_hf_config(config: dict[str, Any], *, slug: str | None = None) -> ModelArch:
    """Parse a Hugging Face `config.json` (Llama, Mistral, Mixtral, Qwen2/3, Qwen3-MoE, Gemma-2, Phi-3,
    DeepSeek-V2/V3, gpt-oss, Falcon, Phi-2, GPT-J) into a ModelArch with computed parameter counts.

    Gemma 3 (`gemma3`, `gemma3_text`) and other multimodal wrappers are read from their `text_config` (the
    vision tower is not counted). An unknown `model_type` is sized as a Llama-like dense decoder (gated MLP, full
    attention unless `layer_types`/`sliding_window` say otherwise) and flagged `generic_layout` so the
    assumptions say so; one whose config names experts, MLA or linear attention is refused with the supported
    types. A missing, mistyped or out-of-range field raises DomainError naming it as ``model_config.<name>``.
    """
    if not isinstance(config, dict):
        raise DomainError(
            Phrase("model_config must be a JSON object (the model's config.json)."),
            fields={"model_config": [Phrase("Expected a JSON object.")]},
            code="invalid_model_config",
        )
    text_config = config.get("text_config")
    if isinstance(text_config, dict) and "hidden_size" not in config:
        # multimodal wrappers (Gemma 3, Llama 4, Mistral 3): the language model's sizes are in text_config
        config = {**text_config, **{k: v for k, v in config.items() if k != "text_config"}}
    model_type = config.get("model_type")
    if model_type is None or model_type == "":
        raise missing("model_type")
    config, model_type = normalise_legacy(config, read_text(config, "model_type", 64).lower())
    shape, extra = _shape_from_config(config, model_type)
    total, active = count_params(shape)
    name_or_path = read_text(config, "_name_or_path")
    resolved_slug = (slug or name_or_path.rsplit("/", 1)[-1] or f"custom-{model_type}").lower()
    # without a repo name the architecture the pasted config names (MistralForCausalLM), not our slug for it
    architectures = config.get("architectures")
    given = architectures[0][:64] if isinstance(architectures, list) and architectures else ""
    given = given if isinstance(given, str) else ""
    positions = "max_position_embeddings" if config.get("max_position_embeddings") else "max_sequence_length"
    max_context = read_int(config, positions, DEFAULT_CONTEXT.get(model_type, 8192))
    native = "bf16"
    quant = config.get("quantization_config")
    if quant is not None and not isinstance(quant, dict):
        raise invalid("quantization_config", Phrase("A JSON object is required."))
    maps: tuple[tuple[str, tuple[str, ...], tuple[int, ...], str], ...] = ()
    if isinstance(quant, dict):
        native = quantized_precision(quant) or native
        maps = precision_map_from_quant(quant, shape.layers, name_or_path)
    family = _FAMILY_BY_TYPE.get(model_type, model_type)
    return ModelArch(
        slug=resolved_slug,
        name=name_or_path or given or resolved_slug,
        hf_id=name_or_path,
        family=family,
        layers=shape.layers,
        hidden=shape.hidden,
        # a plain two-matrix MLP is kept as the gated width of the same weight volume (3·h·I' = 2·h·I), the layout
        # the speed, weight and activation models assume
        intermediate=round(shape.intermediate * shape.mlp_matrices / 3),
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
        max_context=max_context,
        native_precision=native,
        source=f"{PASTED_SOURCE} (model_type {model_type})",
        precision_maps=maps,
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
            precision_maps=tuple(
                (m["precision"], tuple(m["bf16_kinds"]), tuple(m["bf16_layers"]), m["checkpoint"])
                for m in entry.get("precision_maps", ())
            ),
        )
        by_slug[model.slug] = model
        for key in (model.slug, model.hf_id, *entry.get("aliases", ())):
            index[key.lower()] = model.slug
    return by_slug, index


@lru_cache(maxsize=1)
def _instruct_ids() -> dict[str, str]:
    ids: dict[str, str] = {}
    for entry in _read_fixture(LLM_MODELS_FIXTURE):
        names = (entry["hf_id"], *entry.get("aliases", ()))
        tuned = [name for name in names if name.lower().endswith(("-instruct", "-it", "-chat"))]
        if tuned:
            ids[entry["slug"]] = min(tuned, key=len)
    return ids


def model_instruct_id(slug: str) -> str | None:
    """The Hugging Face id of the model's chat-tuned release (`…-Instruct`) where the library lists one (the
    same weights' shapes, what people deploy and search for); None otherwise."""
    return _instruct_ids().get(slug)


def model_library() -> dict[str, ModelArch]:
    """Every library model by slug (cached; read once from fixtures/llm_models.json)."""
    return _library()[0]


# Suffixes of quantised releases' Hugging Face ids and the precision their weights hold, as publishers name them:
# Qwen/Qwen2.5-32B-Instruct-AWQ and -GPTQ-Int4/-Int8 (Qwen's model cards), neuralmagic/RedHatAI ...-FP8 and
# -FP8-dynamic, nvidia ...-NVFP4, and -GGUF repos (several files; Q4_K_M is ollama's default tag for them); AMD's
# Quark releases amd/Llama-3.1-70B-Instruct-FP8-KV (FP8 weights and KV cache, the ids AMD's ROCm vLLM performance
# results page names) and NVIDIA's ModelOpt nvidia/Llama-3.3-70B-Instruct-FP4 (NVFP4 weights; the FP4 models listed
# by TensorRT-LLM's docs/source/performance/perf-overview.md)
QUANTISED_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("-gptq-int4", "int4"), ("-gptq-int8", "int8"), ("-gptq", "int4"), ("-awq", "int4"), ("-fp8-dynamic", "fp8"),
    ("-fp8-kv", "fp8"), ("-fp8", "fp8"), ("-nvfp4", "nvfp4"), ("-fp4", "nvfp4"), ("-awq-int4", "int4"),
    ("-int4", "int4"), ("-int8", "int8"), ("-gguf", "q4_k_m"),
    # RedHatAI (neuralmagic) llm-compressor releases: RedHatAI/Llama-3.1-8B-Instruct-quantized.w4a16 (INT4 weights),
    # -quantized.w8a8 (INT8 weights and activations), -quantized.w8a16 (INT8 weights)
    ("-quantized.w4a16", "int4"), ("-quantized.w8a8", "int8"), ("-quantized.w8a16", "int8"),
)  # fmt: skip


def model_id_precision(key: str) -> str | None:
    """The precision a pasted Hugging Face id's quantisation suffix names ("…-AWQ": int4), None without one."""
    wanted = (key or "").strip().lower()
    return next((precision for suffix, precision in QUANTISED_SUFFIXES if wanted.endswith(suffix)), None)


def model_by_name(key: str) -> tuple[ModelArch, bool]:
    """`model_get`, and else the one library model a typed name matches ("llama 3.1 8b", "qwen 2.5 72b": the
    model search, engine.model_match, ranks a single model first); True when the name was matched so. A name
    whose best matches tie ("llama 8b": Llama 3.1 8B and Llama 3 8B) is an UnknownModelError listing them."""
    try:
        return model_get(key), False
    except UnknownModelError as unknown:
        found = model_matches(key).matches
        if found and (len(found) == 1 or found[0].score > found[1].score):
            return found[0].model, True
        tied = [match.model.slug for match in found if match.score == found[0].score] if found else []
        if len(tied) < 2:
            raise
        message = Phrase(
            "Unknown model '%(key)s': the name matches several library models. Did you mean: %(slugs)s?",
            key=key,
            slugs=", ".join(tied),
        )
        raise UnknownModelError(message, fields={"model": [message]}) from unknown


def model_get(key: str) -> ModelArch:
    """A library model by slug or Hugging Face id, case-insensitive, as people paste it: a quantised release's
    suffix (`QUANTISED_SUFFIXES`) and then `-Instruct`/`-it`/`-Chat` ignored."""
    by_slug, index = _library()
    wanted = (key or "").strip().lower()
    base = next((wanted[: -len(suffix)] for suffix, _ in QUANTISED_SUFFIXES if wanted.endswith(suffix)), wanted)
    candidates = [wanted, base]
    for suffix in ("-instruct", "-it", "-chat"):
        if base.endswith(suffix):
            candidates.append(base[: -len(suffix)])
    # a re-publisher's copy (RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic): the repo name without its owner
    candidates += [candidate.rsplit("/", 1)[-1] for candidate in candidates if "/" in candidate]
    # Meta's first names of its repos, kept by re-publishers (neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8)
    candidates += [name.removeprefix("meta-") for name in candidates if name.startswith("meta-llama-")]
    for candidate in candidates:
        slug = index.get(candidate)
        if slug is not None:
            return by_slug[slug]
    message = Phrase(
        "Unknown model '%(key)s'. Use a slug from GET /api/v1/llm-models/, a Hugging Face id of one of them, "
        "or paste the model's config.json as model_config.",
        key=key,
    )
    field = Phrase("Unknown model '%(key)s'.", key=key)
    found = model_matches(key)
    closest = [m.slug for m in found.models[:3]] or [m.slug for m in found.did_you_mean]
    if closest:  # "llama 8b" is a phrase, not an id: say which ids it most likely means
        hint = Phrase("Did you mean: %(slugs)s?", slugs=", ".join(closest))
        message = Phrase("%(message)s %(hint)s", message=message, hint=hint)
        field = Phrase("%(message)s %(hint)s", message=field, hint=hint)
    raise UnknownModelError(message, fields={"model": [field]})


@lru_cache(maxsize=1)
def model_aliases() -> dict[str, tuple[str, ...]]:
    """The fixture's `aliases` of each library model by slug (other Hugging Face ids, common spellings)."""
    return {entry["slug"]: tuple(entry.get("aliases", ())) for entry in _read_fixture(LLM_MODELS_FIXTURE)}


def model_matches(query: str) -> ModelMatches:
    """The library's models for what a person typed, best first, or "did you mean" (engine.model_match)."""
    return match_models(model_library(), query, aliases=model_aliases())


def model_search(query: str = "") -> list[ModelArch]:
    """Library models for `query` ranked by `model_matches` ("llama 8b", "llama3", "r1"); all of them, by
    family and size, when nothing is typed."""
    if not query.strip():
        return sorted(model_library().values(), key=lambda m: (m.family, m.total_params))
    return model_matches(query).models
