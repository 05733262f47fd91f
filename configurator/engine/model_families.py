"""config.json fields of the model families added for issue 13: hybrid linear attention (Qwen3-Next, Qwen3.5),
GLM-4.5 (`glm4_moe`) and OLMoE. Pure module; `models_library` calls these while it reads a config.

Sources (transformers model code, the shapes every parameter count below follows):
- Qwen3-Next / Qwen3.5 `Qwen3NextGatedDeltaNet`: in_proj_qkvz h → 2·k_dim + 2·v_dim, in_proj_ba h → 2·n_v,
  depthwise conv1d over 2·k_dim + v_dim channels × kernel, dt_bias and A_log (n_v each), a gated RMSNorm over
  the value head dim, out_proj v_dim → h, where k_dim = linear_num_key_heads × linear_key_head_dim and
  v_dim = linear_num_value_heads × linear_value_head_dim. Its decode state per sequence: the recurrent matrix
  n_v × d_k × d_v and the last kernel − 1 inputs of the convolution. Full-attention layers have gated attention
  (q_proj emits the query and an output gate: 2 × heads × head_dim) with q/k RMSNorm.
  Which layers are linear: `layer_types`, else layer i is full attention when (i + 1) % full_attention_interval
  == 0 (Qwen3NextConfig default interval 4).
- GLM-4.5 `Glm4MoeForCausalLM`: GQA with q/k/v bias (attention_bias), optional q/k norm (use_qk_norm), DeepSeek-
  style MoE: n_routed_experts, n_shared_experts, first_k_dense_replace dense layers, a router with
  e_score_correction_bias. The next-token-prediction layer (num_nextn_predict_layers) is not loaded for plain
  serving and is not counted.
- Plain-MLP decoders (transformers FalconForCausalLM, PhiForCausalLM, GPTJForCausalLM): a two-matrix GELU MLP
  (fc_in h → I, fc_out I → h; I = 4·h unless `ffn_hidden_size` / `n_inner` / `intermediate_size` say otherwise)
  and LayerNorms with a bias. Falcon: fused QKV without biases (`bias` false), multi-query (1 KV head) unless
  `new_decoder_architecture` (then `num_kv_heads` and two LayerNorms per layer, ln_attn and ln_mlp), one
  LayerNorm per layer when `parallel_attn`, tied embeddings. Phi-2: q/k/v/dense and fc biases, one LayerNorm
  per layer (parallel attention and MLP), an untied lm_head with a bias. GPT-J: q/k/v/out without biases, fc
  biases, one LayerNorm per layer, an untied lm_head with a bias; its config.json uses GPT-2 names (n_embd,
  n_layer, n_head, n_positions, n_inner), read through `LEGACY_KEYS`.
- Nemotron-H `NemotronHForCausalLM` (NVIDIA-Nemotron-Nano-9B-v2): `hybrid_override_pattern` names each block —
  `M` a Mamba-2 mixer, `*` attention (GQA, no biases), `-` a plain MLP (up, down; relu²) — one RMSNorm per block,
  untied embeddings. A Mamba-2 mixer (transformers NemotronHMamba2Mixer): in_proj h → 2·d_inner + 2·G·N + H,
  a depthwise conv1d with bias over d_inner + 2·G·N channels × kernel, dt_bias, A_log and D (H each), a gated
  RMSNorm over d_inner, out_proj d_inner → h, where d_inner = H × mamba_head_dim, G = n_groups, N =
  ssm_state_size. Its decode state per sequence: H × head_dim × N SSM values and the last kernel − 1 conv inputs.
  The estimator's layer is attention-or-linear + MLP, so a pattern of L blocks is held as L layers whose non-
  attention blocks are "linear" (no KV cache; the Mamba parameters and state spread evenly over them) and whose
  MLP width is the average over the L blocks (I × MLP blocks / L): totals exact to rounding, per-layer shapes an
  average. MoE blocks (`E`, Nemotron 3) are refused.
- OLMoE `OlmoeForCausalLM`: every layer MoE (num_experts, num_experts_per_tok, intermediate_size per expert),
  q_norm and k_norm over the whole projection width (q_dim and kv_dim), no biases.
"""

from __future__ import annotations

from typing import Any

from configurator.engine.config_fields import check_experts, invalid, read_bool, read_int, read_layer_types
from configurator.engine.phrase import Phrase

PLAIN_MLP_TYPES = ("falcon", "phi", "gptj")
# config.json names of older families → the names the parser reads (transformers' attribute_map of each config)
LEGACY_KEYS: dict[str, dict[str, str]] = {
    "gptj": {
        "n_embd": "hidden_size",
        "n_layer": "num_hidden_layers",
        "n_head": "num_attention_heads",
        "n_positions": "max_position_embeddings",
        "n_inner": "intermediate_size",
    },
    "falcon": {"n_layer": "num_hidden_layers", "n_head": "num_attention_heads", "n_head_kv": "num_kv_heads"},
}
# checkpoints saved before transformers had the class name the family by its RefinedWeb code
_TYPE_ALIASES = {"refinedweb": "falcon", "refinedwebmodel": "falcon"}
# context of the families whose config.json may omit it (FalconConfig / GPTJConfig / PhiConfig default 2048)
DEFAULT_CONTEXT = {"falcon": 2048, "gptj": 2048, "phi": 2048}


def normalise_legacy(config: dict[str, Any], model_type: str) -> tuple[dict[str, Any], str]:
    """The config with its family's legacy names copied to the names the parser reads, and the family's type;
    a name already present wins. The MLP width of the plain-MLP families defaults to 4 × hidden."""
    model_type = _TYPE_ALIASES.get(model_type, model_type)
    aliases = LEGACY_KEYS.get(model_type, {})
    out = dict(config)
    for old, new in aliases.items():
        if out.get(new) is None and out.get(old) is not None:
            out[new] = out[old]
    if model_type == "falcon" and out.get("intermediate_size") is None:
        hidden = read_int(out, "hidden_size")
        out["intermediate_size"] = read_int(out, "ffn_hidden_size", 4 * hidden)
    if model_type == "gptj" and out.get("intermediate_size") is None:
        out["intermediate_size"] = 4 * read_int(out, "hidden_size")
    return out, model_type


def plain_mlp_fields(config: dict[str, Any], model_type: str, heads: int) -> dict[str, Any]:
    """DecoderShape fields of Falcon, Phi-2 and GPT-J (the module docstring says each layout)."""
    fields: dict[str, Any] = {"mlp_matrices": 2, "norm_bias": True}
    if model_type == "falcon":
        new_arch = read_bool(config, "new_decoder_architecture", False)
        if new_arch:
            kv_heads = read_int(config, "num_kv_heads", heads)
        else:
            kv_heads = 1 if read_bool(config, "multi_query", True) else heads
        bias = read_bool(config, "bias", False)
        parallel = read_bool(config, "parallel_attn", True)
        fields.update(
            kv_heads=kv_heads,
            qkv_bias=bias,
            o_bias=bias,
            mlp_bias=bias,
            norms_per_layer=2 if new_arch or not parallel else 1,
        )
    elif model_type == "phi":
        fields.update(qkv_bias=True, o_bias=True, mlp_bias=True, norms_per_layer=1, lm_head_bias=True)
    else:  # gptj
        fields.update(mlp_bias=True, norms_per_layer=1, lm_head_bias=True)
    return fields


NEMOTRON_H_BLOCKS = ("M", "*", "-")


def nemotron_h_fields(config: dict[str, Any], layers: int, hidden: int) -> dict[str, int]:
    """Block counts of a Nemotron-H pattern, the Mamba-2 parameters and state, and the MLP width averaged over
    the layers (the module docstring says how they are held)."""
    pattern = config.get("hybrid_override_pattern")
    if not isinstance(pattern, str) or len(pattern) != layers:
        raise invalid(
            "hybrid_override_pattern",
            Phrase("A string of one character per layer (num_hidden_layers) is required."),
        )
    if any(kind not in NEMOTRON_H_BLOCKS for kind in pattern):
        raise invalid(
            "hybrid_override_pattern",
            Phrase("Each block must be one of: %(kinds)s (MoE blocks are not supported).", kinds="M * -"),
        )
    mamba, attention, mlp = (pattern.count(kind) for kind in NEMOTRON_H_BLOCKS)
    if not attention:
        raise invalid("hybrid_override_pattern", Phrase("At least one block must be attention (*)."))
    heads = read_int(config, "mamba_num_heads")
    head_dim = read_int(config, "mamba_head_dim")
    state = read_int(config, "ssm_state_size")
    groups = read_int(config, "n_groups", 1)
    kernel = read_int(config, "conv_kernel", 4)
    inner = heads * head_dim
    conv_dim = inner + 2 * groups * state
    mixer = hidden * (2 * inner + 2 * groups * state + heads) + conv_dim * kernel + conv_dim + 3 * heads + inner
    mixer += inner * hidden
    linear = layers - attention
    intermediate = read_int(config, "intermediate_size")
    return {
        "mamba_layers": mamba,
        "linear_layers": linear,
        # the Mamba mixers' parameters over all non-attention layers (MLP-only blocks carry none)
        "linear_params": round(mamba * mixer / linear),
        "linear_state": round(mamba * (heads * head_dim * state + conv_dim * (kernel - 1)) / linear),
        "intermediate": max(1, round(intermediate * mlp / layers)),
    }


HYBRID_TYPES = ("qwen3_next", "qwen3_5_moe", "qwen3_5_moe_text", "qwen3_5", "qwen3_5_text")
HYBRID_LAYER_KINDS = ("full_attention", "linear_attention")


def hybrid_fields(config: dict[str, Any], layers: int, hidden: int) -> dict[str, int]:
    """Linear-attention layer count, parameters per linear layer and state values per layer per sequence."""
    kinds = read_layer_types(config, layers)
    if kinds is not None:
        if any(kind not in HYBRID_LAYER_KINDS for kind in kinds):
            raise invalid(
                "layer_types", Phrase("Each entry must be one of: %(kinds)s.", kinds=", ".join(HYBRID_LAYER_KINDS))
            )
        linear = sum(1 for kind in kinds if kind == "linear_attention")
    else:
        interval = read_int(config, "full_attention_interval", 4)
        linear = sum(1 for i in range(layers) if (i + 1) % interval)
    if linear >= layers:
        raise invalid("full_attention_interval", Phrase("At least one layer must be full attention."))
    n_k = read_int(config, "linear_num_key_heads")
    n_v = read_int(config, "linear_num_value_heads")
    d_k = read_int(config, "linear_key_head_dim")
    d_v = read_int(config, "linear_value_head_dim")
    kernel = read_int(config, "linear_conv_kernel_dim", 4)
    k_dim, v_dim = n_k * d_k, n_v * d_v
    conv_dim = 2 * k_dim + v_dim
    params = hidden * (2 * k_dim + 2 * v_dim) + hidden * 2 * n_v + conv_dim * kernel + 2 * n_v + d_v + v_dim * hidden
    state = n_v * d_k * d_v + conv_dim * (kernel - 1)
    return {"linear_layers": linear, "linear_params": params, "linear_state": state}


def qwen_moe_fields(config: dict[str, Any], layers: int, read_int_list: Any) -> dict[str, int]:
    """Qwen3-MoE style routed experts (also Qwen3-Next and Qwen3.5): experts, top-k, sparse layers, shared."""
    experts, active = read_int(config, "num_experts"), read_int(config, "num_experts_per_tok")
    check_experts("num_experts", experts, "num_experts_per_tok", active)
    step = read_int(config, "decoder_sparse_step", 1)
    dense_only = set(read_int_list(config, "mlp_only_layers", low=0, high=layers - 1, max_len=layers))
    sparse = [i for i in range(layers) if i not in dense_only and step > 0 and (i + 1) % step == 0]
    moe_intermediate = read_int(config, "moe_intermediate_size")
    shared = read_int(config, "shared_expert_intermediate_size", 0)
    return {
        "experts": experts,
        "active_experts": active,
        "moe_intermediate": moe_intermediate,
        # a shared expert of another width is counted as that many routed-expert widths (rounded up)
        "shared_experts": -(-shared // moe_intermediate) if shared else 0,
        "dense_layers": layers - len(sparse),
    }


def glm4_moe_fields(config: dict[str, Any], layers: int) -> dict[str, Any]:
    experts = read_int(config, "n_routed_experts")
    active = read_int(config, "num_experts_per_tok")
    check_experts("n_routed_experts", experts, "num_experts_per_tok", active)
    return {
        "experts": experts,
        "active_experts": active,
        "moe_intermediate": read_int(config, "moe_intermediate_size"),
        "shared_experts": read_int(config, "n_shared_experts", 0),
        "dense_layers": min(read_int(config, "first_k_dense_replace", 0), layers),
        "router_bias": True,  # e_score_correction_bias
        "qkv_bias": read_bool(config, "attention_bias", True),
        "qk_norm": read_bool(config, "use_qk_norm", False),
    }


def olmoe_fields(config: dict[str, Any]) -> dict[str, Any]:
    experts, active = read_int(config, "num_experts"), read_int(config, "num_experts_per_tok")
    check_experts("num_experts", experts, "num_experts_per_tok", active)
    return {
        "experts": experts,
        "active_experts": active,
        "moe_intermediate": read_int(config, "intermediate_size"),
        "qk_norm_full": True,
    }


_QUANT_PRECISION = {"fp8": "fp8", "fbgemm_fp8": "fp8", "mxfp4": "mxfp4"}
_SKIP_KEYS = ("modules_to_not_convert", "ignored_layers", "ignore")


def quantized_precision(quant: dict[str, Any]) -> str | None:
    """The storage precision a pasted checkpoint's quantization_config names (fp8, fbgemm_fp8 → fp8; mxfp4)."""
    return _QUANT_PRECISION.get(str(quant.get("quant_method", "")).lower())


def precision_map_from_quant(
    quant: dict[str, Any], layers: int, checkpoint: str
) -> tuple[tuple[str, tuple[str, ...], tuple[int, ...], str], ...]:
    """A pasted checkpoint's precision map from its skip list (`modules_to_not_convert`, vLLM's
    `ignored_layers`, compressed-tensors' `ignore`): attention kept in bf16 when every layer's self_attn is
    listed, whole layers when their mlp is listed. Names are HF module paths (model.layers.N.self_attn.q_proj)."""
    precision = quantized_precision(quant)
    names: list[str] = []
    for key in _SKIP_KEYS:
        value = quant.get(key)
        if isinstance(value, list):
            names.extend(str(name) for name in value[:100_000])
    if precision is None or not names:
        return ()
    attention_layers: set[int] = set()
    mlp_layers: set[int] = set()
    for name in names:
        parts = name.split(".")
        if "layers" not in parts:
            continue
        index = parts.index("layers") + 1
        if index >= len(parts) or not parts[index].isdigit():
            continue
        layer = int(parts[index])
        if "self_attn" in parts:
            attention_layers.add(layer)
        elif "mlp" in parts:
            mlp_layers.add(layer)
    kinds = ("attn",) if layers and len(attention_layers) >= layers else ()
    bf16_layers = tuple(sorted(i for i in mlp_layers if i < layers))
    if not kinds and not bf16_layers:
        return ()
    return ((precision, kinds, bf16_layers, checkpoint or "pasted config.json"),)
