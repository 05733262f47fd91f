"""Weights: tensor by tensor at the storage precision (GGUF mixes per llama.cpp `llama_tensor_get_type`).

The bits of every GGML block type, GGUF file type and Hugging Face storage format, each with its source;
`model_tensors` lists a model's tensors as llama.cpp names them and `weight_profile` splits their bytes the way
memory and speed need them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from configurator.engine.errors import DomainError
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Phrase
from configurator.engine.types import GGUF_PRECISIONS, PRECISIONS, ModelArch

GIB = float(2**30)
# GGML block types: bits per weight = 8 × type_size / block_size
# (gguf-py/gguf/constants.py GGML_QUANT_SIZES; ../shared/reference/estimator-anchors.md §1.8).
GGML_TYPE_BITS: dict[str, float] = {
    "F32": 32.0, "F16": 16.0, "BF16": 16.0, "Q8_0": 8.5, "Q6_K": 6.5625, "Q5_K": 5.5, "Q4_K": 4.5,
    "Q3_K": 3.4375, "Q2_K": 2.625, "Q4_0": 4.5, "Q4_1": 5.0, "Q5_0": 5.5, "Q5_1": 6.0, "IQ4_XS": 4.25,
    "IQ4_NL": 4.5, "MXFP4": 4.25,
}  # fmt: skip
_SUPER_BLOCK_TYPES = frozenset({"Q6_K", "Q5_K", "Q4_K", "Q3_K", "Q2_K", "IQ4_XS"})  # QK_K = 256 weights
# llama-quant.cpp: a tensor whose rows are not a multiple of 256 falls back to a 32-block type.
_FALLBACK = {
    "Q2_K": "IQ4_NL",
    "Q3_K": "IQ4_NL",
    "IQ4_XS": "IQ4_NL",
    "Q4_K": "Q5_0",
    "Q5_K": "Q5_1",
    "Q6_K": "Q8_0",
}
# llama_model_quantize_impl: the default block type of each file type (ftype)
GGUF_DEFAULT_TYPE: dict[str, str] = {
    "q8_0": "Q8_0", "q6_k": "Q6_K", "q5_k_m": "Q5_K", "q5_k_s": "Q5_K", "q4_k_m": "Q4_K", "q4_k_s": "Q4_K",
    "q4_0": "Q4_0", "iq4_xs": "IQ4_XS", "q3_k_m": "Q3_K", "q2_k": "Q2_K",
}  # fmt: skip

# Published effective bits per weight of whole GGUF files (Llama-3.1-8B, tools/quantize/README.md @311c2c9;
# Q4_0 and Q3_K_M from the quantize.cpp type table "4.34G" / "3.74G" GiB on Llama-3-8B, 8.03 B params).
GGUF_PUBLISHED_BPW: dict[str, float] = {
    "q8_0": 8.5008, "q6_k": 6.5633, "q5_k_m": 5.7036, "q5_k_s": 5.5704, "q4_k_m": 4.8944, "q4_k_s": 4.6672,
    "iq4_xs": 4.4597, "q2_k": 3.1593, "q4_0": 4.34 * 2**30 * 8 / 8.03e9, "q3_k_m": 3.74 * 2**30 * 8 / 8.03e9,
}  # fmt: skip

# Hugging Face storage formats, bits per weight of a quantized linear layer.
HF_LINEAR_BITS: dict[str, float] = {
    "fp32": 32.0,
    "bf16": 16.0,
    "fp16": 16.0,
    "fp8": 8.0,  # E4M3, per-tensor/channel or 128×128 block fp32 scales (+0.002 bpw, DeepSeek-V3) ignored
    "int8": 8.0,  # W8A8/W8A16 with per-channel scales
    "int4": 4.0 + 20 / 128,  # GPTQ/AWQ W4 group 128: fp16 scale + 4-bit zero per group (AutoAWQ packing)
    "nvfp4": 4.5,  # 16-element blocks with an FP8 E4M3 scale (NVIDIA ModelOpt NVFP4; anchors §1.8: 64,36)
    "mxfp4": 4.25,  # 32-element blocks with an E8M0 scale (OCP Microscaling spec v1.0; gpt-oss experts)
}

# QLoRA NF4 with double quantization: 4 bits + 8-bit absmax per 64 + fp32 per 256 blocks
# (Dettmers et al., QLoRA, arXiv 2305.14314 §3: 0.127 bits of constants per parameter).
NF4_BITS = 4 + 8 / 64 + 32 / (64 * 256)

# Hugging Face quantized checkpoints: llama.cpp does not load them; LoRA trains on them as they are.
_HF_QUANTIZED = frozenset({"fp8", "int8", "int4", "nvfp4"})


def bits_per_weight(precision: str) -> float:
    """Headline bits per weight of a precision.

    GGUF types: the published whole-file average on Llama-3.1-8B (Q4_K_M = 4.8944, tools/quantize/README.md
    @311c2c9), which includes the Q6_K output head and the higher-bit `attn_v`/`ffn_down` tensors of the "_M"
    mixes. `weight_bytes` recomputes the mix for each model. Other formats: the bits of a quantized linear layer.
    """
    if precision in GGUF_PUBLISHED_BPW:
        return GGUF_PUBLISHED_BPW[precision]
    if precision in HF_LINEAR_BITS:
        return HF_LINEAR_BITS[precision]
    raise DomainError(
        Phrase("Unknown precision '%(precision)s'.", precision=precision),
        fields={"precision": [Phrase("Must be one of: %(choices)s.", choices=", ".join(PRECISIONS))]},
        code="invalid_precision",
    )


@direct_init
@dataclass(frozen=True, slots=True)
class Tensor:
    kind: str  # token_embd | output | attn_q | attn_k | attn_v | attn_output | attn_qkv | attn_mla | ffn_* | other
    layer: int  # -1 for tensors outside the blocks
    params: int
    row: int  # ne[0]: elements per row (input features)
    routed: bool = False  # a routed-expert tensor: k of E experts are read per token


def _linear_layer_ids(model: ModelArch) -> frozenset[int]:
    """Linear-attention layers of a hybrid model: three of every four, the fourth full attention
    (transformers Qwen3NextConfig `layer_types`: full when (i + 1) % full_attention_interval == 0)."""
    if not model.linear_attention_layers:
        return frozenset()
    interval = max(1, model.layers // max(1, model.kv_layers))
    full = [i for i in range(model.layers) if (i + 1) % interval == 0][: model.kv_layers]
    return frozenset(i for i in range(model.layers) if i not in set(full))


def _use_more_bits(i_layer: int, n_layers: int) -> bool:
    """llama-quant.cpp `use_more_bits`: first and last eighth, and every third layer in between."""
    return i_layer < n_layers // 8 or i_layer >= 7 * n_layers // 8 or (i_layer - n_layers // 8) % 3 == 2


@lru_cache(maxsize=256)
def model_tensors(model: ModelArch) -> tuple[Tensor, ...]:
    """The weight tensors of a model, grouped as llama.cpp names them.

    Attention of GQA models is exact from the shape; MLA attention (and biases, norms, sinks) is what remains of
    `total_params` after embeddings, head and MLPs, so the tensors always add up to the model's parameter count.
    """
    h, layers = model.hidden, model.layers
    embed = model.vocab * h
    tensors: list[Tensor] = [Tensor("token_embd", -1, embed, h)]
    if not model.tied_embeddings:
        tensors.append(Tensor("output", -1, embed, h))
    q_dim = model.heads * model.head_dim
    kv_dim = model.kv_heads * model.head_dim
    fused = model.family == "phi"  # Phi-3 GGUF: attn_qkv and a fused ffn_up (gate+up)
    explicit = sum(t.params for t in tensors)
    per_layer: list[Tensor] = []
    linear_layers = _linear_layer_ids(model)
    for i in range(layers):
        if not model.is_mla and i not in linear_layers:
            if fused:
                per_layer.append(Tensor("attn_qkv", i, h * (q_dim + 2 * kv_dim), h))
            else:
                per_layer.append(Tensor("attn_q", i, h * q_dim, h))
                per_layer.append(Tensor("attn_k", i, h * kv_dim, h))
                per_layer.append(Tensor("attn_v", i, h * kv_dim, h))
            per_layer.append(Tensor("attn_output", i, q_dim * h, q_dim))
        is_moe_layer = model.is_moe and i >= model.dense_layers
        if not is_moe_layer:
            inter = model.intermediate
            if fused:
                per_layer.append(Tensor("ffn_up", i, 2 * h * inter, h))
            else:
                per_layer.append(Tensor("ffn_gate", i, h * inter, h))
                per_layer.append(Tensor("ffn_up", i, h * inter, h))
            per_layer.append(Tensor("ffn_down", i, inter * h, inter))
            continue
        inter = model.moe_intermediate
        experts = model.experts
        per_layer.append(Tensor("ffn_gate_exps", i, experts * h * inter, h, routed=True))
        per_layer.append(Tensor("ffn_up_exps", i, experts * h * inter, h, routed=True))
        per_layer.append(Tensor("ffn_down_exps", i, experts * inter * h, inter, routed=True))
        per_layer.append(Tensor("ffn_gate_inp", i, h * experts, h))
        if model.shared_experts:
            shared = model.shared_experts * inter
            per_layer.append(Tensor("ffn_gate_shexp", i, h * shared, h))
            per_layer.append(Tensor("ffn_up_shexp", i, h * shared, h))
            per_layer.append(Tensor("ffn_down_shexp", i, shared * h, shared))
    explicit += sum(t.params for t in per_layer)
    remainder = max(0, model.total_params - explicit)
    tensors.extend(per_layer)
    if model.is_mla:
        # MLA projections (q_a, q_b, kv_a_mqa, kv_b, output): spread the remainder over the layers
        share = remainder // layers
        tensors.extend(Tensor("attn_mla", i, share, h) for i in range(layers))
        remainder -= share * layers
    elif linear_layers:
        # Gated DeltaNet projections (in_proj_qkvz, in_proj_ba, conv1d, out_proj) and the output gate of the
        # full-attention q_proj: spread the remainder over the linear-attention layers
        share = remainder // len(linear_layers)
        tensors.extend(Tensor("attn_linear", i, share, h) for i in sorted(linear_layers))
        remainder -= share * len(linear_layers)
    if remainder:
        tensors.append(Tensor("other", -1, remainder, 1))  # norms, biases, sinks: stored in F32 by GGUF
    return tuple(tensors)


def _gguf_type(precision: str, tensor: Tensor, model: ModelArch, counts: dict[str, int]) -> str:
    """Block type llama.cpp gives a tensor under a file type (llama-quant.cpp `llama_tensor_get_type`)."""
    kind = tensor.kind
    default = GGUF_DEFAULT_TYPE[precision]
    if kind == "other":
        return "F32"
    if kind == "ffn_gate_inp":
        return "F32"  # routers are never quantized (llama-quant.cpp: quantize &= no "ffn_gate_inp.weight")
    if kind == "output" or (kind == "token_embd" and model.tied_embeddings):
        return default if default == "Q8_0" else "Q6_K"
    if kind == "token_embd":
        return default
    n_gqa = model.heads // max(1, model.kv_heads)
    eight_experts = model.experts == 8
    new = default
    if kind == "attn_v":
        i, n = counts["attn_v"], model.layers
        counts["attn_v"] += 1
        if precision == "q2_k":
            new = "Q4_K" if n_gqa >= 4 else "Q3_K"
        elif precision == "q3_k_m":
            new = "Q5_K" if i < 2 else "Q4_K"
        elif precision == "iq4_xs" and n_gqa >= 4:
            new = "Q5_K"
        elif precision in ("q4_k_m", "q5_k_m") and _use_more_bits(i, n):
            new = "Q6_K"
        elif precision == "q4_k_s" and i < 4:
            new = "Q5_K"
        if model.layers == 80 and model.kv_heads < model.heads and new in ("Q3_K", "Q4_K"):
            new = "Q5_K"  # LLM_TYPE_70B: attn_v is 8× smaller than attn_q, so it gets more bits
        if eight_experts:
            new = "Q8_0"
    elif kind == "attn_k":
        if eight_experts:
            new = "Q8_0"
    elif kind.startswith("ffn_down"):
        i, n = tensor.layer, counts["n_ffn_down"] if model.is_moe else model.layers
        if precision == "q2_k":
            new = "Q3_K"
        elif precision == "q3_k_m":
            new = "Q5_K" if i < n // 16 else "Q4_K"
        elif precision in ("q4_k_m", "q5_k_m") and _use_more_bits(i, n):
            new = "Q6_K"
        elif (precision == "iq4_xs" and i < n // 8) or (precision == "q4_k_s" and i < n // 8):
            new = "Q5_K"
    elif kind == "attn_output":
        if eight_experts:
            if precision in ("q2_k", "q3_k_m", "q4_k_s", "q4_k_m", "iq4_xs"):
                new = "Q5_K"
        elif precision == "q2_k":
            new = "Q3_K"
        elif precision == "q3_k_m":
            new = "Q4_K"
    elif kind == "attn_qkv":
        if precision == "q3_k_m":
            new = "Q4_K"
        elif precision == "q4_k_m":
            new = "Q5_K"
        elif precision == "q5_k_m":
            new = "Q6_K"
    if new in _SUPER_BLOCK_TYPES and tensor.row % 256:
        new = _FALLBACK[new]
        if tensor.row % 32:
            new = "F16"
    return new


def tensor_bits(model: ModelArch, precision: str) -> tuple[float, ...]:
    """Bits per weight of each tensor of `model_tensors(model)` at a storage precision."""
    return _tensor_bits(model, precision)


# llama.cpp's MXFP4_MOE file type (gpt-oss GGUFs): 3-D expert tensors in MXFP4, every other tensor in Q8_0
# (llama-quant.cpp `llama_tensor_get_type`, LLAMA_FTYPE_MOSTLY_MXFP4_MOE branch).
GGUF_MXFP4_MOE = "mxfp4_moe"


@lru_cache(maxsize=1024)
def _tensor_bits(model: ModelArch, precision: str) -> tuple[float, ...]:
    tensors = model_tensors(model)
    if precision == GGUF_MXFP4_MOE:
        return tuple(
            GGML_TYPE_BITS["F32"] if t.kind in ("other", "ffn_gate_inp")
            else GGML_TYPE_BITS["MXFP4"] if t.routed
            else GGML_TYPE_BITS["Q8_0"]
            for t in tensors
        )  # fmt: skip
    if precision in GGUF_PRECISIONS:
        moe_layers = model.layers - model.dense_layers if model.is_moe else 0
        counts = {
            "attn_v": 0,
            "n_ffn_down": (model.layers - moe_layers) + moe_layers * (2 if model.shared_experts else 1),
        }
        return tuple(GGML_TYPE_BITS[_gguf_type(precision, t, model, counts)] for t in tensors)
    linear = bits_per_weight(precision)
    wide = 32.0 if precision == "fp32" else 16.0
    experts_only = precision == "mxfp4" and model.native_precision == "mxfp4"
    # the published checkpoint's map (model.precision_maps): tensor kinds and whole layers it leaves in bf16
    mapped = model.precision_map(precision)
    wide_kinds, wide_layers = (mapped[0], frozenset(mapped[1])) if mapped else ((), frozenset())
    bits: list[float] = []
    for t in tensors:
        if t.kind in ("token_embd", "output", "other", "ffn_gate_inp") or (experts_only and not t.routed):
            bits.append(wide)
        elif t.layer in wide_layers or t.kind.startswith(wide_kinds):
            bits.append(16.0)
        else:
            bits.append(linear)
    return tuple(bits)


@direct_init
@dataclass(frozen=True, slots=True)
class WeightProfile:
    """Bytes of a model's weights at one precision, split the way memory and speed need them."""

    total_bytes: float
    embed_bytes: float  # the input embedding table when it is not also the output head
    head_bytes: float  # output head (the embedding itself when tied)
    routed_bytes: float  # all routed experts (MoE)
    read_bytes_per_token: float  # decode, one sequence: input embedding not read, k of E experts
    # the attention projections (every `attn_*` tensor: q/k/v/output, MLA's q_a/q_b/kv_a/kv_b/output): what a
    # data-parallel attention rank holds whole (estimate.layout, "dp_attention")
    attention_bytes: float = 0.0

    @property
    def layer_bytes(self) -> float:
        return self.total_bytes - self.embed_bytes - self.head_bytes


@lru_cache(maxsize=1024)
def weight_profile(model: ModelArch, precision: str) -> WeightProfile:
    tensors = model_tensors(model)
    bits = _tensor_bits(model, precision)
    total = embed = head = routed = attention = 0.0
    for tensor, b in zip(tensors, bits, strict=True):
        size = tensor.params * b / 8
        total += size
        if tensor.kind.startswith("attn_"):
            attention += size
        if tensor.kind == "token_embd" and not model.tied_embeddings:
            embed += size
        elif tensor.kind in ("output", "token_embd"):
            head += size
        elif tensor.routed:
            routed += size
    fraction = model.active_experts / model.experts if model.is_moe else 1.0
    read = total - embed - routed + routed * fraction
    return WeightProfile(total, embed, head, routed, read, attention)


def weight_bytes(model: ModelArch, precision: str) -> float:
    """Bytes of the model's weights stored at `precision` (the file / checkpoint size, all tensors)."""
    return weight_profile(model, precision).total_bytes
