"""Server engines' memory outside the KV cache (vLLM, TensorRT-LLM modelled alike, SGLang when it is an engine).

vLLM sizes its KV cache as ``gpu_memory_utilization × total − (weights + peak activation + non-torch memory +
CUDA-graph memory)`` per GPU (vllm/v1/worker/gpu_worker.py `determine_available_memory`; since v0.11 the log
says "Actual usage is … GiB for weight, … for peak activation, … for non-torch memory, and … for CUDAGraph
memory"). Each term, per GPU of a tensor-parallel group of t:

- **peak activation** of the profile run: one forward pass of ``max_num_batched_tokens`` tokens — 8,192 on GPUs
  with ≥ 70 GiB that are not A100s, 2,048 otherwise, and ``max_num_seqs`` 1,024 / 256 for the OpenAI server
  (vllm/engine/arg_utils.py `EngineArgs._set_default_args`, usage context OPENAI_API_SERVER). Per token, 16-bit:
  the residual, norm output and hidden state (3·h, not split) and one layer's q, k, v and gated-MLP temporaries
  (q_dim + 2·kv_dim + 3·I, split over t);
- **fused-MoE workspace** (MoE models): `fused_experts_impl` (vllm/model_executor/layers/fused_moe/fused_moe.py)
  allocates intermediate_cache1 (M × top-k × 2N), cache2 (M·top-k × N) and cache3 (M × top-k × h) for
  M = min(tokens, VLLM_FUSED_MOE_CHUNK_SIZE = 32,768) with N = moe_intermediate / t, in the activation dtype;
- **logits and sampler**: fp32 logits of ``max_num_seqs`` sequences over the whole vocabulary and the sampler's
  probabilities (2 × 4 B per entry) on the rank that gathers them;
- **CUDA graphs**: graphs are captured for batch sizes up to 512 (CompilationConfig max_capture_size) into one
  memory pool, largest first: the pool holds the activations of a 512-token step. HEURISTIC: plus 0.25 GiB for
  the graphs' own allocations and per-stream cuBLAS workspaces (vLLM reports 0.2-1.5 GiB per GPU; no formula
  is published);
- **communication buffers** (t > 1): NCCL channels and vLLM's custom all-reduce buffers. HEURISTIC: 0.5 GiB.

SGLang joins through `SERVER_ENGINES` with the same terms (its `mem_fraction_static` plays the part of
gpu_memory_utilization) when the engine list names it.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.estimate.weights import GIB
from configurator.engine.frozen import direct_init
from configurator.engine.types import GpuSpec, ModelArch

SERVER_ENGINES = ("vllm", "tensorrt-llm", "sglang")
FUSED_MOE_CHUNK = 32_768  # VLLM_FUSED_MOE_CHUNK_SIZE
CUDA_GRAPH_MAX_BATCH = 512  # vLLM CompilationConfig.max_capture_size
CUDA_GRAPH_FIXED_GIB = 0.25  # HEURISTIC (module docstring)
COMM_BUFFERS_GIB = 0.5  # HEURISTIC (module docstring)


def server_batch(gpu: GpuSpec | None) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) vLLM's OpenAI server defaults to on this GPU."""
    if gpu is not None and gpu.vram_gib >= 70 and "a100" not in gpu.sku:
        return 8192, 1024
    return 2048, 256


@direct_init
@dataclass(frozen=True, slots=True)
class ServerMemory:
    """Bytes per GPU outside weights and KV cache; `total` is what the engine subtracts before its KV pool."""

    batched_tokens: int
    max_seqs: int
    activation: float
    moe_workspace: float
    logits: float
    cuda_graphs: float
    comm: float

    @property
    def total(self) -> float:
        return self.activation + self.moe_workspace + self.logits + self.cuda_graphs + self.comm


def per_token_coefficients(model: ModelArch) -> tuple[float, float, float, float]:
    """Bytes per batched token: (activation not split, activation split over t, MoE workspace not split, MoE
    workspace split over t) — see the module docstring."""
    h, q_dim, kv_dim = model.hidden, model.heads * model.head_dim, model.kv_heads * model.head_dim
    dense = model.intermediate if not model.is_moe else model.shared_experts * model.moe_intermediate
    if model.is_moe and model.dense_layers:
        dense = max(dense, model.intermediate)
    moe_fixed = moe_split = 0.0
    if model.is_moe:
        moe_fixed = 2.0 * model.active_experts * h  # intermediate_cache3: M × top-k × h
        moe_split = 2.0 * model.active_experts * 3 * model.moe_intermediate  # caches 1 and 2: 2N + N
    return 2.0 * 3 * h, 2.0 * (q_dim + 2 * kv_dim + 3 * dense), moe_fixed, moe_split


def server_memory_from(
    coefficients: tuple[float, float, float, float], vocab: int, tokens: int, seqs: int, tp: int
) -> ServerMemory:
    act_fixed, act_split, moe_fixed, moe_split = coefficients
    t = max(1, tp)
    activation = act_fixed + act_split / t
    moe = moe_fixed + moe_split / t
    graph_tokens = min(CUDA_GRAPH_MAX_BATCH, tokens)
    return ServerMemory(
        batched_tokens=tokens,
        max_seqs=seqs,
        activation=tokens * activation,
        moe_workspace=min(tokens, FUSED_MOE_CHUNK) * moe,
        logits=2 * 4.0 * seqs * vocab,
        cuda_graphs=graph_tokens * (activation + moe) + CUDA_GRAPH_FIXED_GIB * GIB,
        comm=COMM_BUFFERS_GIB * GIB if tp > 1 else 0.0,
    )


def server_total(coefficients: tuple[float, float, float, float], vocab: int, tokens: int, seqs: int, tp: int) -> float:
    """`server_memory_from(...).total` without building the record (the layout search calls it per count)."""
    act_fixed, act_split, moe_fixed, moe_split = coefficients
    t = max(1, tp)
    activation = act_fixed + act_split / t
    moe = moe_fixed + moe_split / t
    return (
        tokens * activation
        + min(tokens, FUSED_MOE_CHUNK) * moe
        + 8.0 * seqs * vocab
        + min(CUDA_GRAPH_MAX_BATCH, tokens) * (activation + moe)
        + CUDA_GRAPH_FIXED_GIB * GIB
        + (COMM_BUFFERS_GIB * GIB if tp > 1 else 0.0)
    )


def server_memory(model: ModelArch, gpu: GpuSpec | None, tp: int) -> ServerMemory:
    tokens, seqs = server_batch(gpu)
    return server_memory_from(per_token_coefficients(model), model.vocab, tokens, seqs, tp)
