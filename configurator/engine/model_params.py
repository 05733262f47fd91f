"""Parameter counts of a decoder from its sized shape (the formula in `models_library`'s docstring).

Pure module (no Django); split from `models_library` so each stays under the layout test's 500 lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.frozen import direct_init
from configurator.engine.types import ModelArch


@direct_init
@dataclass(frozen=True, slots=True)
class DecoderShape:
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
    norm_bias: bool = False  # LayerNorm with a bias (Falcon, Phi-2, GPT-J): two vectors of h per norm
    mlp_matrices: int = 3  # 3 = gated (gate, up, down); 2 = plain GELU MLP (fc_in, fc_out: Falcon, Phi-2, GPT-J)
    mlp_bias: bool = False  # fc_in and fc_out biases (Phi-2, GPT-J)
    lm_head_bias: bool = False  # Phi-2, GPT-J
    qkv_bias: bool = False
    o_bias: bool = False
    qk_norm: bool = False
    qk_norm_full: bool = False  # OLMoE: q/k RMSNorm over the whole projection, not per head
    q_gate: bool = False  # Qwen3-Next gated attention: q_proj also emits an output gate
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
    # hybrid linear attention (Qwen3-Next, Qwen3.5): model_families.hybrid_fields
    linear_layers: int = 0
    linear_params: int = 0


def _attention_params(s: DecoderShape) -> int:
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
    if s.qk_norm_full:
        params += q_dim + kv_dim
    if s.q_gate:
        params += h * q_dim
    if s.attention_sinks:
        params += s.heads
    return params


def _expert_params(s: DecoderShape, intermediate: int) -> int:
    """One MLP: gated (SwiGLU: gate, up, down; + biases for gpt-oss) or plain (fc_in, fc_out [+ biases])."""
    params = s.mlp_matrices * s.hidden * intermediate
    if s.expert_bias:
        params += 2 * intermediate + s.hidden
    if s.mlp_bias:
        params += intermediate + s.hidden
    return params


def count_params(s: DecoderShape) -> tuple[int, int]:
    """(total, active) parameters, embeddings and an untied lm_head included."""
    h = s.hidden
    embed = s.vocab * h * (1 if s.tied else 2) + (s.vocab if s.lm_head_bias else 0)
    norm = h * (2 if s.norm_bias else 1)
    # hybrid models: the linear-attention layers' projections replace attention (spread evenly per layer)
    attention = ((s.layers - s.linear_layers) * _attention_params(s) + s.linear_layers * s.linear_params) / s.layers
    per_layer_common = round(attention) + s.norms_per_layer * norm
    dense_mlp = _expert_params(s, s.intermediate)
    total = embed + norm  # final norm
    active = embed + norm
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


PASTED_SOURCE = "pasted config.json"  # the start of a pasted config.json's `source` (models_library)


def model_source(model: ModelArch) -> str:
    """Where the model's shapes come from, as an answer says it: the config.json of its Hugging Face id (the
    library's research note on how that file was read stays in fixtures/llm_models.json; trial tr34 saw "found by
    find_string (… ids …)" in answers), or the pasted config.json."""
    if model.source.startswith(PASTED_SOURCE) or not model.hf_id:
        return model.source
    return f"{model.hf_id} config.json"
