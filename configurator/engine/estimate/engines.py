"""Inference engines: the memory each reserves and the batches it sizes its buffers for, the engine a
precision defaults to, and the checks a workload passes before it is estimated."""

from __future__ import annotations

from configurator.engine.errors import DomainError
from configurator.engine.estimate.weights import _HF_QUANTIZED
from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import (
    CHECKPOINTING_MODES,
    ENGINES,
    FRAMEWORKS,
    GGUF_PRECISIONS,
    KV_PRECISIONS,
    OFFLOADS,
    OPTIMIZERS,
    PRECISIONS,
    TASKS,
    TRAINING_PRECISIONS,
    Workload,
)

# Per-GPU memory the engine cannot use for the model: CUDA/ROCm context, cuBLAS workspace, allocator slack.
# ollama reserves 457 MiB per CUDA GPU (`llm/memory.go` MinimumMemory, @f560bd0^); gpu_poor adds 650 MB.
GPU_CONTEXT_GIB = 0.5
# vLLM pre-allocates gpu_memory_utilization × total memory per GPU (EngineArgs default 0.90; newer CacheConfig
# 0.92, vllm commit 002f10e — anchors §1.7); TensorRT-LLM's KV pool takes 0.90 of the free memory, modelled alike.
# SGLang reserves `mem_fraction_static` of the GPU for weights and KV pool (ServerArgs picks it by GPU memory,
# ≈ 0.88 on 80–141 GB cards; prior from memory of server_args.py, not re-read).
GPU_MEMORY_UTILIZATION: dict[str, float] = {"vllm": 0.90, "sglang": 0.88, "tensorrt-llm": 0.90}
LLAMACPP_UBATCH = 512  # llama.cpp `n_ubatch` default: tokens per compute-graph pass
# vLLM profiles activations with max_num_batched_tokens (vllm/engine/arg_utils.py default for the OpenAI server
# 2048; 8192 on ≥ 70 GiB GPUs other than A100, where max_num_seqs is 1024 instead of 256: re-read in
# vllm/engine/arg_utils.py get_batch_defaults, find_string 'default_max_num_seqs = {' hit id 25872476;
# server_memory.server_batch) and samples up to 256 sequences on the smaller GPUs.
VLLM_BATCHED_TOKENS_SMALL = 2048
VLLM_MAX_NUM_SEQS = 256
# Share of the dense GEMMs' tensor-core rate that the routed experts' grouped GEMMs reach on the server engines
# (applied to their FLOPs in prefill and batched decode; estimate.speed._moe_extra_flops). MoE prefill runs at
# 22–27 % MFU on Qwen3-235B-A22B in the strongest distributed baselines of arXiv 2605.02960 (MoE-Prefill:
# 29.8–36.2 % for their system, 1.35–1.37× the baselines) against ~40 % for dense models here; the value is
# fitted with the prefill MFU by bench/accuracy_server.py (`fit_server_prefill`: 0.3 on the 64 judged NVIDIA
# non-FP4 full-load rows, 0.3–0.4 with any one publication left out; 0.4 on the 30 rows before issue 33), judged
# leave-one-source-out.
MOE_GEMM_EFFICIENCY = 0.3


# The answer a request asks for when the workload does not say (`request_tokens`): 512 tokens, or a quarter of
# a short context. Published serving benchmarks answer 128-2,048 tokens (TensorRT-LLM perf-overview: 128, 500,
# 1,000, 2,048; ShareGPT ~200 on average: fixtures/server_speed.csv); 512 is a long chat answer, and a quarter
# keeps a short context mostly prompt, as the benchmarks' 2048/128 and 5000/500 shapes are.
DEFAULT_OUTPUT_TOKENS = 512


def request_tokens(workload: Workload) -> tuple[int, int]:
    """(prompt, output) tokens of the request each user sends: as the workload states them, else a request
    that fills the context (`context_tokens` is what the KV cache is sized for, so the speed is for the same
    request as the memory; a shorter prompt only goes faster): output = min(512, context / 4) and the prompt
    the rest. With only one stated, the other fills the context (an unstated output at most the default).
    At least one token each, whatever the context."""
    context, prompt, output = workload.context_tokens, workload.prompt_tokens, workload.output_tokens
    if output is None:
        default = max(1, min(DEFAULT_OUTPUT_TOKENS, context // 4))
        output = default if prompt is None else max(1, min(default, context - prompt))
    if prompt is None:
        prompt = max(1, context - output)
    return prompt, output


# engines that allocate the KV cache in pages as tokens arrive (vLLM's PagedAttention; SGLang's token pool and
# TensorRT-LLM's paged KV cache alike), so a sequence holds only the tokens it has so far
PAGED_KV_ENGINES = ("vllm", "sglang", "tensorrt-llm")


def kv_sequence_tokens(workload: Workload, engine: str) -> int:
    """Tokens of KV cache each sequence is sized for. A paged-KV engine (`PAGED_KV_ENGINES`) holds a request's
    prompt + output, not the whole context, when the request states its prompt and that is shorter (Kwon et al.,
    "Efficient Memory Management for Large Language Model Serving with PagedAttention", SOSP 2023: blocks are
    allocated on demand, no slot is reserved up to the maximum length); the pool must still hold one sequence
    of the full context (vLLM refuses to start when max_model_len does not fit), which `plans` adds as a floor.
    Otherwise the context: an unstated prompt fills it (the default request), and llama.cpp's slots are fixed
    at n_ctx / n_parallel tokens each whatever their requests hold."""
    if engine not in PAGED_KV_ENGINES or workload.prompt_tokens is None:
        return workload.context_tokens
    return min(workload.context_tokens, sum(request_tokens(workload)))


def filled_context_phrase(workload: Workload) -> Phrase:
    """Without `prompt_tokens` every prompt is taken to fill the context (`request_tokens`): the safe default,
    and the slowest; said, so the reader knows a stated prompt gives a truer figure (trial 34 W14: 15,900-token
    prompts made a 50-user gpt-oss-120b service prefill-bound, 25.6 M ₽ where 2,000-token prompts need 5.2 M)."""
    return Phrase(
        "prompts assumed to fill the context: %(tokens)s tokens; give prompt_tokens for a truer figure",
        tokens=Num(request_tokens(workload)[0]),
    )


def _request_problems(workload: Workload) -> dict[str, list[str]]:
    """A stated prompt or output must be a positive count, and the request must fit in the context."""
    stated = [name for name in ("prompt_tokens", "output_tokens") if getattr(workload, name) is not None]
    problems: dict[str, list[str]] = {
        name: [Phrase("Must be at least 1.")] for name in stated if getattr(workload, name) < 1
    }
    if not stated or problems:
        return problems
    prompt, output = request_tokens(workload)
    if prompt + output <= workload.context_tokens:
        return {}
    reason = Phrase(
        "prompt_tokens + output_tokens = %(total)s is more than context_tokens = %(context)s: a request must fit "
        "in the context.",
        total=Num(prompt + output),
        context=Num(workload.context_tokens),
    )
    return {name: [reason] for name in stated}


def default_engine(precision: str) -> str:
    """llama.cpp for GGUF types, vLLM otherwise (ARCHITECTURE.md §HTTP API)."""
    return "llama.cpp" if precision in GGUF_PRECISIONS else "vllm"


def _one_of(choices: tuple[str, ...]) -> Phrase:
    return Phrase("Must be one of: %(choices)s.", choices=", ".join(choices))


def workload_problems(workload: Workload) -> dict[str, list[str]]:
    """Field-named reasons a workload cannot be estimated as given (empty when it can)."""
    problems: dict[str, list[str]] = {}

    def add(field: str, reason: str) -> None:
        problems.setdefault(field, []).append(reason)

    if workload.task not in TASKS:
        add("task", _one_of(TASKS))
    if workload.precision not in PRECISIONS:
        add("precision", _one_of(PRECISIONS))
    if workload.kv_cache_precision not in KV_PRECISIONS:
        add("kv_cache_precision", _one_of(KV_PRECISIONS))
    if workload.engine not in ENGINES:
        add("engine", _one_of(ENGINES))
    if workload.optimizer not in OPTIMIZERS:
        add("optimizer", _one_of(OPTIMIZERS))
    if workload.framework not in FRAMEWORKS:
        add("framework", _one_of(FRAMEWORKS))
    if workload.offload not in OFFLOADS:
        add("offload", _one_of(OFFLOADS))
    if workload.zero_stage not in (0, 1, 2, 3):
        add("zero_stage", Phrase("Must be 0, 1, 2 or 3."))
    if workload.activation_checkpointing and workload.activation_checkpointing not in CHECKPOINTING_MODES:
        add("activation_checkpointing", _one_of(CHECKPOINTING_MODES))
    if workload.training_precision not in TRAINING_PRECISIONS:
        add("training_precision", _one_of(TRAINING_PRECISIONS))
    if workload.power_limit_w is not None and not workload.power_limit_w > 0:
        add("power_limit_w", Phrase("Must be more than 0."))
    for name in ("context_tokens", "concurrent_users", "batch_size", "sequence_length", "lora_rank"):
        if getattr(workload, name) < 1:
            add(name, Phrase("Must be at least 1."))
    if problems or workload.task != "inference":
        return problems
    problems.update(_request_problems(workload))
    engine, precision, kv = workload.engine, workload.precision, workload.kv_cache_precision
    if precision in GGUF_PRECISIONS and engine in ("tensorrt-llm", "transformers"):
        add(
            "engine",
            Phrase(
                "%(precision)s is a GGUF type: it runs on llama.cpp (or vLLM's GGUF loader).",
                precision=precision.upper(),
            ),
        )
    if engine == "llama.cpp" and precision in _HF_QUANTIZED:
        add(
            "precision",
            Phrase(
                "llama.cpp does not load %(precision)s checkpoints; use a GGUF type or bf16/fp16.", precision=precision
            ),
        )
    if engine == "llama.cpp" and kv == "fp8":
        add("kv_cache_precision", Phrase("llama.cpp has no fp8 KV cache; use q8_0 or q4_0."))
    if engine != "llama.cpp" and kv in ("q8_0", "q4_0"):
        add(
            "kv_cache_precision",
            Phrase("%(kv)s KV cache is a llama.cpp type; %(engine)s supports f16/bf16 or fp8.", kv=kv, engine=engine),
        )
    return problems


def _check(workload: Workload) -> None:
    problems = workload_problems(workload)
    if problems:
        raise DomainError(Phrase("The workload cannot be estimated as given."), fields=problems)
