"""Layout on GPUs: the parallelism a GPU count gets, the memory each GPU needs (ZeRO stages shard the training
state over the GPUs) and the fewest GPUs whose memory fits."""

from __future__ import annotations

import math
from dataclasses import replace

from configurator.engine.estimate.engines import GPU_CONTEXT_GIB, GPU_MEMORY_UTILIZATION, kv_sequence_tokens
from configurator.engine.estimate.kv_cache import kv_bytes_per_token
from configurator.engine.estimate.plans import _Plan, _plan
from configurator.engine.estimate.server_memory import (
    COMM_BUFFERS_GIB,
    SERVER_ENGINES,
    ServerMemory,
    server_batch,
    server_memory_from,
    server_total,
)
from configurator.engine.estimate.topology import Topology
from configurator.engine.estimate.training import deepspeed_step_bytes, sharded_stage, zero_bucket_bytes
from configurator.engine.estimate.weights import GIB
from configurator.engine.types import GpuSpec, ModelArch, Workload


def _parallelism(plan: _Plan, count: int) -> str:
    if count <= 1:
        return "single"
    if plan.training:
        return "data"
    model = plan.workload.model
    if plan.engine in ("vllm", "sglang", "tensorrt-llm"):
        kv_ok = model.is_mla or model.kv_heads % count == 0 or count % model.kv_heads == 0
        if model.heads % count == 0 and kv_ok:
            return "tensor"
    return "pipeline"


# Data-parallel attention (`DP_ATTENTION`): on an MLA MoE model the attention runs data parallel, each of the
# `count` ranks on its own requests with its own latent cache and its own whole copy of the attention projections,
# while the MoE (and dense MLP) layers stay tensor parallel over all GPUs; the hidden states of all ranks' tokens
# are all-gathered before each MoE layer and reduce-scattered after it. Under tensor parallelism every GPU holds
# the whole MLA latent cache (it has one KV head), so DP attention divides the cache by the ranks. Engines:
# SGLang `--enable-dp-attention` (SGLang v0.4 release, lmsys.org/blog/2024-12-04-sglang-v0-4: "Data parallelism
# attention for DeepSeek models: up to 1.9x decoding throughput improvement"; docs.sglang.io
# advanced_features/dp_dpa_smg_guide: "DeepSeek models use MLA and only have one KV head", TP duplicates it;
# the DeepSeek-V3 usage guide docs/basic_usage/deepseek_v3.md: DP workers "synchronized before and after
# processing through the Mixture-of-Experts (MoE) layer"), vLLM `--data-parallel-size` whose expert layers form
# one tensor-parallel group of DP × TP (docs.vllm.ai serving/data_parallel_deployment: "particularly those like
# DeepSeek that employ MLA ... data parallel for the attention layers and expert or tensor parallel ... for the
# expert layers"; ranks without requests run dummy forward passes).
DP_ATTENTION = "dp_attention"
DP_ATTENTION_ENGINES = ("vllm", "sglang")


def dp_attention_possible(plan: _Plan, count: int) -> bool:
    """The engine can lay this MLA MoE model out with data-parallel attention over `count` GPUs."""
    model = plan.workload.model
    return (
        count > 1
        and not plan.training
        and plan.engine in DP_ATTENTION_ENGINES
        and model.is_mla
        and model.is_moe
        and _parallelism(plan, count) == "tensor"
    )


def split_ways(parallelism: str, count: int) -> int:
    """GPUs the (MoE/MLP) weights are split over: all of them under tensor parallelism and DP attention."""
    return count if parallelism in ("tensor", DP_ATTENTION) else 1


def rank_sequences(sequences: int, count: int) -> int:
    """Sequences on the fullest DP-attention rank (the engine spreads requests over the ranks)."""
    return math.ceil(sequences / count)


def _kv_share(model: ModelArch, tp: int) -> float:
    """Share of the KV cache each tensor-parallel GPU holds: heads split, replicated when kv_heads < t;
    the MLA latent is shared by all heads, so every GPU keeps all of it (vLLM MLA backends)."""
    if model.is_mla:
        return 1.0
    return max(1.0 / tp, 1.0 / model.kv_heads)


def server_non_kv(plan: _Plan, parallelism: str, count: int, gpu: GpuSpec | None) -> ServerMemory:
    """What a server engine keeps per GPU besides weights and KV cache (estimate.server_memory)."""
    tokens, seqs = server_batch(gpu)
    tp = count if parallelism == "tensor" else 1
    found = server_memory_from(plan.server_coefficients, plan.workload.model.vocab, tokens, seqs, tp)
    if parallelism == DP_ATTENTION:  # `_dp_server_bytes`
        found = replace(found, comm=COMM_BUFFERS_GIB * GIB)
    return found


def _dp_server_bytes(plan: _Plan, gpu: GpuSpec | None) -> float:
    """A DP-attention rank's memory outside weights and KV: its attention temporaries whole (not split), and its
    MoE workspace for the gathered tokens of all ranks (count × the tokens, 1/count of the expert width each: as
    one GPU's), plus the communication buffers; HEURISTIC: counted as server_memory's terms at t = 1."""
    tokens, seqs = server_batch(gpu)
    vocab = plan.workload.model.vocab
    return server_total(plan.server_coefficients, vocab, tokens, seqs, 1) + COMM_BUFFERS_GIB * GIB


def _per_gpu_bytes(
    plan: _Plan, parallelism: str, count: int, gpu: GpuSpec | None = None, *, sequences: int | None = None
) -> float:
    """Bytes the fullest GPU holds. `sequences` replaces the plan's count of KV caches (inference: the KV cache
    is `kv_read_per_seq` per sequence; nothing else an engine that runs several sequences holds depends on it),
    so the full-load search (estimate.serving) sizes a batch without a plan for each."""
    overhead = GPU_CONTEXT_GIB * GIB
    kv = plan.kv if sequences is None else plan.kv_read_per_seq * sequences
    if plan.training:
        stage = sharded_stage(plan.workload.framework, plan.workload.zero_stage, count)
        # MoE: the routed experts are spread over the GPUs (expert parallel), whatever the ZeRO stage
        spread = 1.0 - plan.expert_share + plan.expert_share / count
        weights = plan.weights / count if stage >= 3 else plan.weights * spread
        gradients = plan.gradients / count if stage >= 2 else plan.gradients * spread
        optimizer = plan.optimizer / count if stage >= 1 else plan.optimizer * spread
        gather = plan.gather if stage >= 3 else 0.0
        if stage in (1, 2):
            gather = zero_bucket_bytes(plan.workload.framework, plan.trainable_params)
        offload = plan.workload.offload
        if offload != "none":  # ZeRO-Offload / FSDP CPUOffload: the optimizer states live in host RAM
            optimizer = 0.0
        if offload == "parameters":  # and the weight shards and gradients too; one gathered layer stays
            weights, gradients, gather = 0.0, 0.0, max(gather, plan.gather)
        step = weights + gradients + optimizer + gather + plan.scratch + plan.logits + overhead
        # DeepSpeed's optimizer step, after backward freed the activations, logits and gathered layers, adds its
        # fp32 gradient partition and AdamW's temporary (training.deepspeed_step_bytes)
        extra = 0.0 if offload != "none" else deepspeed_step_bytes(
            plan.workload.framework, plan.workload.optimizer, stage, plan.trainable_params, count,
            fp32=plan.weight_precision == "fp32",
        )  # fmt: skip
        update = weights + gradients + optimizer + (gather if stage in (1, 2) else 0.0) + extra + overhead
        # QLoRA frameworks that load the bf16 checkpoint before quantising peak then, not in a step
        return max(step, update if extra else 0.0, plan.load_peak + overhead)
    if parallelism == DP_ATTENTION:  # the fullest rank: its own requests' latent cache, all attention weights
        attention = plan.attention_bytes
        rank_kv = plan.kv_read_per_seq * rank_sequences(plan.sequences if sequences is None else sequences, count)
        weights = (plan.weights_vram - attention) / count + attention
        return weights + rank_kv + _dp_server_bytes(plan, gpu) + overhead
    if plan.engine in SERVER_ENGINES:
        tokens, seqs = server_batch(gpu)
        vocab = plan.workload.model.vocab
        tp = count if parallelism == "tensor" else 1
        server = server_total(plan.server_coefficients, vocab, tokens, seqs, tp)
        if parallelism == "single":
            return plan.weights_vram + kv + server + overhead
        if parallelism == "tensor":
            share = _kv_share(plan.workload.model, count)
            return plan.weights_vram / count + kv * share + server + overhead
        layers = plan.workload.model.layers
        logits = 8.0 * seqs * vocab  # on the last stage only
        body = math.ceil(layers / count) / layers * (plan.layer_bytes + kv) + overhead + server - logits
        return max(body + plan.embed_gpu_bytes, body + plan.head_bytes + logits)
    if parallelism == "single":
        return plan.weights_vram + kv + plan.scratch + plan.logits + overhead
    if parallelism == "tensor":
        share = _kv_share(plan.workload.model, count)
        return plan.weights_vram / count + kv * share + plan.scratch / count + plan.logits + overhead
    layers = plan.workload.model.layers
    body = math.ceil(layers / count) / layers * (plan.layer_bytes + kv) + plan.scratch + overhead
    return max(body + plan.embed_gpu_bytes, body + plan.head_bytes + plan.logits)


def kv_cache_tokens(plan: _Plan, parallelism: str, count: int, gpu: GpuSpec) -> int | None:
    """Tokens the KV pool of a server engine holds on this build — vLLM's "GPU KV cache size: N tokens": the
    usable memory of the fullest GPU less everything but the KV cache, over its KV bytes per token (all
    layers, no sliding-window saving; hybrid models: full-attention layers only). None for other engines."""
    if plan.training or plan.engine not in SERVER_ENGINES:
        return None
    model = plan.workload.model
    if parallelism == DP_ATTENTION:  # each rank its own pool: the build's is count × the fullest rank's
        rank_kv = plan.kv_read_per_seq * rank_sequences(plan.sequences, count)
        free = _usable_gib(plan, gpu) * GIB - (_per_gpu_bytes(plan, parallelism, count, gpu) - rank_kv)
        return max(0, int(free // plan.kv_per_token)) * count if plan.kv_per_token else None
    share = 1.0
    if parallelism == "tensor":
        share = _kv_share(model, count)
    elif parallelism == "pipeline":
        share = math.ceil(model.layers / count) / model.layers
    without_kv = _per_gpu_bytes(plan, parallelism, count, gpu) - plan.kv * share
    free = _usable_gib(plan, gpu) * GIB - without_kv
    per_token = plan.kv_per_token * share
    return max(0, int(free // per_token)) if per_token else None


def pool_users(plan: _Plan, pool: int) -> int:
    """Users whose requests (`engines.kv_sequence_tokens`: the whole context unless a paged engine is told the
    request) the KV pool of `pool` tokens holds. The pool counts tokens of every layer
    (`kv_cache_tokens`); a user's sliding-window layers hold at most the window (`kv_bytes_per_token` with the
    context: Gemma 3 keeps 1,024 tokens in 40 of its 48 layers), so a user takes fewer of its tokens than the
    context — the same saving the memory need counts (vLLM's hybrid KV cache manager frees the blocks that
    leave the window; its "Maximum concurrency for N tokens per request" counts it too)."""
    w = plan.workload
    tokens = kv_sequence_tokens(w, plan.engine)  # a paged engine's user holds its stated request
    per_user = kv_bytes_per_token(w.model, w.kv_cache_precision, tokens) * tokens
    if per_user <= 0 or plan.kv_per_token <= 0:
        return pool // tokens
    return int(pool * plan.kv_per_token // per_user)


def _usable_gib(plan: _Plan, gpu: GpuSpec) -> float:
    return gpu.vram_gib * GPU_MEMORY_UTILIZATION.get(plan.engine, 1.0)


def _min_gpus(plan: _Plan, gpu: GpuSpec, max_gpus: int) -> int | None:
    """Kept in the plan's memo per GPU (estimate() asks it again for each GPU count of the same GPU): what it
    reads of the GPU is its memory and SKU (`_usable_gib`, `server_batch`), so those are the key."""
    key = ("min_gpus", gpu.sku, gpu.vram_gib, max_gpus)
    if key in plan.memo:
        return plan.memo[key]  # type: ignore[return-value]
    usable = _usable_gib(plan, gpu) * GIB
    found: int | None = None
    for count in range(1, max(1, max_gpus) + 1):
        fits = _per_gpu_bytes(plan, _parallelism(plan, count), count, gpu) <= usable
        if fits or (dp_attention_possible(plan, count) and _per_gpu_bytes(plan, DP_ATTENTION, count, gpu) <= usable):
            found = count
            break
    plan.memo[key] = found
    return found


def min_gpus_to_fit(
    workload: Workload, gpu: GpuSpec, *, max_gpus: int = 16, link_gbs: float | Topology | None = None
) -> int | None:
    """Smallest count of `gpu` (1..max_gpus) whose per-GPU memory fits, None when none does.

    Memory does not depend on the interconnect; `link_gbs` is accepted for symmetry with `estimate`.
    """
    del link_gbs
    return _min_gpus(_plan(workload), gpu, max_gpus)
