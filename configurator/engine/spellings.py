"""Precision and engine names as people write them ("AWQ", "w4a16", "Q4_1", "trtllm", "ollama") → the values
the estimator models, and the sentence that says so when the reading is not the same thing under another name.

Pure module (no Django). `canonical_precision` / `canonical_engine` / `canonical_kv` map a spelling to a modelled
value (None: not one the API knows); `spelling_notes` gives the assumptions for what was read differently.

GGUF file types the estimator does not model (Q4_1, Q5_0, IQ3_XXS, …) are read as the modelled GGUF type of
nearest bits per weight. Their bits per weight: llama.cpp `tools/quantize/quantize.cpp` QUANT_OPTIONS (the
`llama-quantize --help` list): the legacy and K types as file sizes of Llama-3-8B (8.03 B parameters, "G" = GiB),
the IQ types as the bits per weight it states.
"""

from __future__ import annotations

from configurator.engine.estimate.weights import GGUF_PUBLISHED_BPW
from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import ENGINES, KV_PRECISIONS, PRECISIONS

_LLAMA3_8B_PARAMS = 8.03e9


def _file_bpw(gib: float) -> float:
    """Bits per weight of a Llama-3-8B GGUF file of `gib` GiB (quantize.cpp QUANT_OPTIONS)."""
    return gib * 2**30 * 8 / _LLAMA3_8B_PARAMS


# GGUF file types outside PRECISIONS, bits per weight (llama.cpp tools/quantize/quantize.cpp QUANT_OPTIONS)
UNMODELLED_GGUF_BPW: dict[str, float] = {
    "q4_1": _file_bpw(4.78), "q5_0": _file_bpw(5.21), "q5_1": _file_bpw(5.65), "q2_k_s": _file_bpw(2.96),
    "q3_k_s": _file_bpw(3.41), "q3_k_l": _file_bpw(4.03), "iq4_nl": 4.50, "iq3_m": 3.66, "iq3_s": 3.44,
    "iq3_xs": 3.3, "iq3_xxs": 3.06, "iq2_m": 2.7, "iq2_s": 2.5, "iq2_xs": 2.31, "iq2_xxs": 2.06, "iq1_m": 1.75,
    "iq1_s": 1.56,
}  # fmt: skip
# quantize.cpp's own aliases: "Q4_K: alias for Q4_K_M", "Q3_K: alias for Q3_K_M", "Q5_K: alias for Q5_K_M"
_GGUF_ALIASES = {"q4_k": "q4_k_m", "q3_k": "q3_k_m", "q5_k": "q5_k_m"}

# Other names of a modelled precision: the same storage under another name (no assumption is said)
_SAME_PRECISION: dict[str, str] = {
    "bfloat16": "bf16", "float16": "fp16", "half": "fp16", "f16": "fp16", "float32": "fp32", "f32": "fp32",
    "fp8_e4m3": "fp8", "e4m3": "fp8", "float8": "fp8", "fp8_dynamic": "fp8", "w8a8_fp8": "fp8", "f8": "fp8",
    "w8a8": "int8", "w8a16": "int8", "int8_w8a8": "int8", "w8a8_int8": "int8", "smoothquant": "int8",
    **_GGUF_ALIASES,
}  # fmt: skip
# Formats read as a modelled precision that is close but not the same (the assumption says which)
_NEAR_PRECISION: dict[str, str] = {
    # GPTQ/AWQ W4A16 with group-128 scales: the `int4` storage (weights.HF_LINEAR_BITS) and its kernels
    "awq": "int4", "gptq": "int4", "w4a16": "int4", "int4_awq": "int4", "int4_gptq": "int4", "awq_int4": "int4",
    "gptq_int4": "int4", "awq_marlin": "int4", "gptq_marlin": "int4", "marlin": "int4", "w4a8": "int4",
    # bitsandbytes: 4-bit NF4/FP4 (QLoRA's storage, arXiv 2305.14314) and LLM.int8()
    "nf4": "int4", "bnb_4bit": "int4", "bnb4": "int4", "bnb_nf4": "int4", "bitsandbytes_4bit": "int4",
    "bnb_8bit": "int8", "bnb8": "int8", "llm_int8": "int8", "bitsandbytes_8bit": "int8",
    # "FP4" alone: NVIDIA's NVFP4 (16-element blocks, FP8 scales), the FP4 of TensorRT-LLM and Blackwell
    "fp4": "nvfp4",
}  # fmt: skip
_BNB_4BIT = frozenset({"nf4", "bnb_4bit", "bnb4", "bnb_nf4", "bitsandbytes_4bit"})
_BNB_8BIT = frozenset({"bnb_8bit", "bnb8", "llm_int8", "bitsandbytes_8bit"})

_SAME_ENGINE: dict[str, str] = {
    "trtllm": "tensorrt-llm", "trt_llm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm", "tensorrt": "tensorrt-llm",
    "trt": "tensorrt-llm", "llamacpp": "llama.cpp", "llama_cpp": "llama.cpp", "llama_server": "llama.cpp",
    "llama_bench": "llama.cpp", "llama_cli": "llama.cpp", "hf": "transformers", "huggingface": "transformers",
    "hf_transformers": "transformers", "sg_lang": "sglang",
    # the engines' own commands and versions as benchmark pages write them: TensorRT-LLM's trtllm-serve and
    # trtllm-bench CLIs (docs/source/performance/perf-overview.md), vLLM's V1/V0 engine (`vllm serve`)
    "trtllm_serve": "tensorrt-llm", "trtllm_bench": "tensorrt-llm", "vllm_v1": "vllm", "vllm_v0": "vllm",
    "vllm_serve": "vllm",
}  # fmt: skip
_NIM = ("nim", "nvidia_nim")  # NVIDIA NIM as people write it (`engine_note` says which backend it is read as)
# Engines built on a modelled one, or not modelled and read as the nearest (the assumption says which)
_NEAR_ENGINE: dict[str, str] = {
    "ollama": "llama.cpp",  # ollama serves GGUF models through llama.cpp (its `llm/` runner)
    "lm_studio": "llama.cpp",  # LM Studio's GPU runtime on Windows/Linux is llama.cpp
    "lmstudio": "llama.cpp",
    "tgi": "vllm",  # text-generation-inference: continuous batching over a paged KV cache, as vLLM
    "text_generation_inference": "vllm",
    "lmdeploy": "vllm",  # LMDeploy TurboMind: continuous batching over a paged (blocked) KV cache, as vLLM
    # NVIDIA NIM 1.x serves its optimised profiles through TensorRT-LLM ("The optimized TensorRT-LLM profiles are
    # preferred over vLLM when available", docs.nvidia.com/nim/large-language-models/latest/optimization.html);
    # NIM 2.0 ships vLLM as its sole backend (NIM LLM 2.0.1 release notes)
    **dict.fromkeys(_NIM, "tensorrt-llm"),
}
_SAME_KV: dict[str, str] = {
    "fp16": "f16", "float16": "f16", "half": "f16", "bfloat16": "bf16", "fp8_e4m3": "fp8", "fp8_e5m2": "fp8",
    "float8": "fp8", "q8": "q8_0", "q4": "q4_0", "int8": "q8_0",
    # vLLM/SGLang/TensorRT-LLM --kv-cache-dtype auto: the model's dtype, 16-bit for the library's models (bf16 and
    # f16 hold the same bytes)
    "auto": "bf16",
}  # fmt: skip


def _key(text: str) -> str:
    """'Q4_K_M', 'bnb-4bit', 'TRT LLM' → 'q4_k_m', 'bnb_4bit', 'trt_llm' (dots kept: 'llama.cpp')."""
    return "_".join(text.strip().lower().replace("-", " ").replace("_", " ").split())


def nearest_gguf(bpw: float) -> str:
    """The modelled GGUF type whose published bits per weight (weights.GGUF_PUBLISHED_BPW) are nearest."""
    return min(GGUF_PUBLISHED_BPW, key=lambda name: (abs(GGUF_PUBLISHED_BPW[name] - bpw), name))


def canonical_precision(text: str) -> str | None:
    key = _key(text)
    if key in PRECISIONS:
        return key
    if key in UNMODELLED_GGUF_BPW:
        return nearest_gguf(UNMODELLED_GGUF_BPW[key])
    found = _SAME_PRECISION.get(key) or _NEAR_PRECISION.get(key)
    if found is None and "(" in text:  # as tables write it: "FP8 (W8A8)", "INT4 (AWQ)": the name, else its gloss
        outside, _, inside = text.partition("(")
        found = canonical_precision(outside) or canonical_precision(inside.replace(")", " "))
    return found


def canonical_engine(text: str) -> str | None:
    key = _key(text)
    if key in ENGINES:
        return key
    return _SAME_ENGINE.get(key) or _NEAR_ENGINE.get(key) or _SAME_ENGINE.get(key.replace(".", "_"))


def canonical_kv(text: str) -> str | None:
    key = _key(text)
    return key if key in KV_PRECISIONS else _SAME_KV.get(key)


def precision_note(said: str, task: str) -> Phrase | None:
    """The assumption for a precision read as another (None: the same storage under another name)."""
    key = _key(said)
    if key in UNMODELLED_GGUF_BPW:
        used = nearest_gguf(UNMODELLED_GGUF_BPW[key])
        return Phrase(
            "precision %(said)s is a GGUF type the estimator does not model: sized and timed as %(used)s, the "
            "modelled GGUF type of nearest bits per weight (%(bpw)s vs %(used_bpw)s; llama.cpp tools/quantize)",
            said=said,
            used=used.upper(),
            bpw=Num(UNMODELLED_GGUF_BPW[key], 2),
            used_bpw=Num(GGUF_PUBLISHED_BPW[used], 2),
        )
    if key in _BNB_4BIT:
        if task == "qlora":
            return Phrase("precision %(said)s: QLoRA stores the base weights in NF4 whatever the precision", said=said)
        return Phrase(
            "precision %(said)s (bitsandbytes 4-bit) sized and timed as int4 W4A16 (AWQ/GPTQ, group 128: 4.16 "
            "bits per weight against NF4's 4.13); bitsandbytes dequantises in its own kernels, usually slower",
            said=said,
        )
    if key in _BNB_8BIT:
        return Phrase(
            "precision %(said)s (bitsandbytes LLM.int8()) sized and timed as int8; its outlier decomposition "
            "makes it slower than int8 kernels",
            said=said,
        )
    if key == "fp4":
        return Phrase(
            "precision %(said)s read as NVFP4 (16-element blocks with FP8 scales); say mxfp4 for the OCP MX format",
            said=said,
        )
    if key in _NEAR_PRECISION:
        return Phrase(
            "precision %(said)s read as int4 (4-bit weights, 16-bit activations, group-128 scales as AWQ/GPTQ)",
            said=said,
        )
    return None


def engine_note(said: str) -> Phrase | None:
    """The assumption for an engine read as another (None: the same engine under another name)."""
    key = _key(said)
    used = _NEAR_ENGINE.get(key)
    if key in _NIM:
        return Phrase(
            "engine %(said)s read as tensorrt-llm, the backend of NIM 1.x's optimised profiles; NIM 2.x serves "
            "through vLLM: say vllm for it",
            said=said,
        )
    if used == "llama.cpp":
        return Phrase("engine %(said)s runs models through llama.cpp: estimated as llama.cpp", said=said)
    if used is not None:
        return Phrase(
            "engine %(said)s is not modelled: estimated as %(used)s, the modelled engine of the same kind "
            "(continuous batching over a paged KV cache); its own kernels may be faster or slower",
            said=said,
            used=used,
        )
    return None


def spelling_notes(raw: object, task: str) -> list[Phrase]:
    """The assumptions for the precision and engine of a request body `raw` as the person wrote them."""
    if not isinstance(raw, dict):
        return []
    notes: list[Phrase] = []
    precision, engine = raw.get("precision"), raw.get("engine")
    if isinstance(precision, str):
        note = precision_note(precision, task)
        if note is not None:
            notes.append(note)
    if isinstance(engine, str):
        note = engine_note(engine)
        if note is not None:
            notes.append(note)
    return notes


# An amount as people write it: "6 000 000", "6 000 000,00 ₽", "1,500,000", "2 500 000 руб."
_AMOUNT_MARKS = ("₽", "руб.", "руб", "rub", "р.")
_GROUPING = (" ", "\u00a0", "\u202f", "\u2009", "_", "'")


def plain_amount(text: str) -> str:
    """`text` as a plain decimal ("6000000", "1500.50"): digit-group spaces (also no-break and thin), `_` and `'`
    dropped, a currency mark at the end (₽, руб., RUB) dropped, a decimal comma ("1 500,50") read as the point and
    comma thousands separators ("1,500,000") dropped. Anything else is left for the number field to refuse."""
    plain = text.strip()
    lowered = plain.lower()
    for mark in _AMOUNT_MARKS:
        if lowered.endswith(mark):
            plain = plain[: -len(mark)]
            break
    for mark in _GROUPING:
        plain = plain.replace(mark, "")
    if "," in plain and "." not in plain:
        whole, _, tail = plain.rpartition(",")
        if plain.count(",") == 1 and 1 <= len(tail) <= 2:
            plain = f"{whole}.{tail}"
        elif all(len(group) == 3 for group in plain.split(",")[1:]):
            plain = plain.replace(",", "")
    return plain


def model_id_kv(key: str) -> str | None:
    """The KV cache precision a release's id names: AMD's "…-FP8-KV" checkpoints (amd/Llama-3.1-70B-Instruct-FP8-KV,
    Quark: FP8 weights, activations and KV cache, as their model cards say) run an FP8 cache; None otherwise."""
    return "fp8" if (key or "").strip().lower().endswith("-fp8-kv") else None
