"""Workload → Estimate: memory, layout on GPUs and speed of an LLM workload (pure functions, no Django).

Formulas and their sources (../shared/reference/estimator-anchors.md):
- weights: tensor by tensor at the storage precision (GGUF mixes per llama.cpp `llama_tensor_get_type`);
- KV cache: 2 × layers × kv_heads × head_dim × bytes × tokens × sequences; MLA caches kv_lora_rank + rope dims;
  sliding-window layers hold at most the window;
- activations: inference compute buffers per engine; training per Korthikanti et al. (arXiv 2205.05198),
  counted tensor by tensor for SwiGLU blocks with flash attention, full recompute with checkpointing;
- training state: mixed-precision AdamW 2 + 2 + 12 bytes/param (ZeRO, Rajbhandari et al. arXiv 1910.02054,
  K = 12), 8-bit AdamW (Dettmers et al. arXiv 2110.02861) 2 + 2 + 4 + 2; ZeRO stages shard over the GPUs;
- decode: bytes read per step / (η_bw × bandwidth) + per-layer and per-hop time (configurator.engine.calibration),
  tensor parallel adds 2 all-reduces per layer (llm-analysis `analysis.py` @d841e40); capped by compute.

The package, one module per step: `weights` (bits and bytes per tensor, per-checkpoint precision maps),
`kv_cache` (hybrid linear-attention state included), `engines` (what an engine reserves; workload checks),
`server_memory` (vLLM-style memory outside the KV cache: activation peak, fused-MoE workspace, logits, CUDA
graphs, communication), `plans` (memory before layout, training included), `layout` (parallelism, per-GPU
memory, the KV pool in tokens, `min_gpus_to_fit`), `speed` (a decode step, a prefill), `serving` (the speed each
user sees while the others' prompts share the GPUs, and the whole build's output at full load), `training_speed`
(training tokens/s for the whole build), `assumptions` (the sentences); `estimate` below puts them together.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from configurator.engine.errors import DomainError
from configurator.engine.estimate.assumptions import _layout_assumptions, _memory_assumptions
from configurator.engine.estimate.engines import (
    GPU_CONTEXT_GIB,
    GPU_MEMORY_UTILIZATION,
    LLAMACPP_UBATCH,
    VLLM_BATCHED_TOKENS_SMALL,
    VLLM_MAX_NUM_SEQS,
    default_engine,
    workload_problems,
)
from configurator.engine.estimate.kv_cache import (
    KV_BYTES_PER_ELEMENT,
    kv_bytes_per_layer_token,
    kv_bytes_per_token,
    kv_cache_bytes,
)
from configurator.engine.estimate.layout import (
    _min_gpus,
    _per_gpu_bytes,
    _usable_gib,
    kv_cache_tokens,
    min_gpus_to_fit,
    pool_users,
    server_non_kv,
    split_ways,
)
from configurator.engine.estimate.plans import _plan
from configurator.engine.estimate.server_memory import SERVER_ENGINES, server_memory
from configurator.engine.estimate.serving import serving_throughput, workload_parallelism
from configurator.engine.estimate.speed import PCIE_GBS_PER_LANE, LinkArg, _link, decode_terms
from configurator.engine.estimate.stated_layout import StatedLayout, stated_layout_problems, stated_note
from configurator.engine.estimate.weights import (
    GGML_TYPE_BITS,
    GGUF_DEFAULT_TYPE,
    GGUF_MXFP4_MOE,
    GGUF_PUBLISHED_BPW,
    GIB,
    HF_LINEAR_BITS,
    NF4_BITS,
    Tensor,
    WeightProfile,
    bits_per_weight,
    model_tensors,
    tensor_bits,
    weight_bytes,
    weight_profile,
)
from configurator.engine.phrase import LazyTexts, Phrase
from configurator.engine.types import Estimate, GpuLayout, GpuSpec, MemoryBreakdown, Throughput, Workload

__all__ = [
    "GGML_TYPE_BITS",
    "GGUF_DEFAULT_TYPE",
    "GGUF_MXFP4_MOE",
    "GGUF_PUBLISHED_BPW",
    "GIB",
    "GPU_CONTEXT_GIB",
    "GPU_MEMORY_UTILIZATION",
    "HF_LINEAR_BITS",
    "KV_BYTES_PER_ELEMENT",
    "LLAMACPP_UBATCH",
    "NF4_BITS",
    "PCIE_GBS_PER_LANE",
    "VLLM_BATCHED_TOKENS_SMALL",
    "VLLM_MAX_NUM_SEQS",
    "StatedLayout",
    "Tensor",
    "WeightProfile",
    "bits_per_weight",
    "decode_terms",
    "default_engine",
    "estimate",
    "kv_bytes_per_layer_token",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "min_gpus_to_fit",
    "model_tensors",
    "server_memory",
    "tensor_bits",
    "weight_bytes",
    "weight_profile",
    "workload_problems",
]


# The estimates remembered while a caller searches (`remembering_estimates`): None elsewhere
_REMEMBERED: ContextVar[dict[Any, Estimate] | None] = ContextVar("remembered_estimates", default=None)


@contextmanager
def remembering_estimates(memo: dict[Any, Estimate], most: int = 2048) -> Iterator[None]:
    """Within the block, `estimate()` answers a call it answered before from `memo` (the recommender's search
    validates many builds whose GPUs, count and link graph are the same: one estimate each). An estimate is a
    function of its arguments alone (frozen, hashable: the workload, the GPU spec, the link graph), and is
    frozen, so sharing it is safe; `memo` is emptied when it holds `most` (a bound on a long-lived caller's
    memory)."""
    if len(memo) >= most:
        memo.clear()
    token = _REMEMBERED.set(memo)
    try:
        yield
    finally:
        _REMEMBERED.reset(token)


def estimate(
    workload: Workload,
    gpu: GpuSpec | None = None,
    gpu_count: int = 1,
    *,
    link_gbs: LinkArg = None,
    max_gpus: int = 16,
    stated: StatedLayout | None = None,
) -> Estimate:
    """Memory, layout on `gpu_count` × `gpu` and speed of a workload.

    `link_gbs` is the GPU-to-GPU bandwidth when every GPU reaches every other over NVLink/NVSwitch; None means
    PCIe (from the GPU's generation and lanes); a `topology.Topology` is the build's link graph, and tensor
    parallelism runs at the slowest link of its ring (`topology.tp_bound`).
    `stated` is a layout the request states (estimate.stated_layout): the GPUs run replicas of it instead of
    the layout estimate() would choose.
    Raises DomainError (fields named) for workloads that cannot run.
    """
    if stated is not None:
        return _estimate_stated(workload, gpu, gpu_count, link_gbs, max_gpus, stated)
    memo = _REMEMBERED.get()
    if memo is None:
        return _estimate(workload, gpu, gpu_count, link_gbs, max_gpus)
    key = (workload, gpu, gpu_count, link_gbs, max_gpus)
    found = memo.get(key)
    if found is None:  # a DomainError is raised again on every call (not remembered)
        found = memo[key] = _estimate(workload, gpu, gpu_count, link_gbs, max_gpus)
    return found


def _estimate_stated(
    workload: Workload, gpu: GpuSpec | None, gpu_count: int, link_gbs: LinkArg, max_gpus: int, stated: StatedLayout
) -> Estimate:
    """The estimate of `gpu_count` GPUs laid out as replicas of the stated instance: one replica's estimate
    (its share of the users, the stated parallelism, no other instance size tried), its totals times the
    replicas."""
    problems = stated_layout_problems(workload, gpu_count, stated)
    if problems:
        raise DomainError(Phrase("The stated layout cannot be estimated."), fields=problems)
    if workload.task != "inference" or gpu is None:
        return _estimate(workload, gpu, gpu_count, link_gbs, max_gpus)
    replicas = gpu_count // stated.instance
    users = workload.concurrent_users
    share = workload if replicas == 1 else replace(workload, concurrent_users=-(-users // replicas))
    one = _estimate(share, gpu, stated.instance, link_gbs, max_gpus, forced=stated.parallelism)
    note = stated_note(stated, gpu_count, users)
    layout, speed, memory = one.layout, one.throughput, one.memory
    if layout is not None and replicas > 1:
        pool, held = layout.kv_cache_tokens, layout.max_concurrent_users
        layout = replace(
            layout,
            count=gpu_count,
            kv_cache_tokens=None if pool is None else pool * replicas,
            max_concurrent_users=None if held is None else held * replicas,
        )
        memory = MemoryBreakdown(
            weights=memory.weights * replicas,
            kv_cache=memory.kv_cache * replicas,
            activations=memory.activations * replicas,
            gradients=memory.gradients * replicas,
            optimizer=memory.optimizer * replicas,
            overhead=memory.overhead * replicas,
        )
    if speed is not None:
        speed = replace(
            speed,
            decode_tokens_per_s_total=speed.decode_tokens_per_s_total * replicas,
            served_output_tokens_per_s=speed.served_output_tokens_per_s * replicas,
            served_sequences=speed.served_sequences * replicas,
            served_tensor_parallel=stated.tensor_parallel,
            served_replicas=replicas,
            users_tensor_parallel=stated.tensor_parallel,
            users_replicas=replicas,
        )
    own = one.assumptions
    return replace(one, memory=memory, layout=layout, throughput=speed, assumptions=LazyTexts(lambda: [note, *own]))


# the English msgids of the assumptions that say which split the estimate chose (assumptions._layout_assumptions)
CHOSEN_LAYOUT_WORDS = ("serving layout: ", "full load: the build's capacity")


def _estimate(
    workload: Workload,
    gpu: GpuSpec | None,
    gpu_count: int,
    link_gbs: LinkArg,
    max_gpus: int,
    forced: str | None = None,
) -> Estimate:
    if gpu_count < 1:
        raise DomainError(
            Phrase("gpu_count must be at least 1."), fields={"gpu_count": [Phrase("Must be at least 1.")]}
        )
    plan = _plan(workload)
    count = gpu_count if gpu is not None else 1
    overhead = GPU_CONTEXT_GIB * count
    memory = MemoryBreakdown(
        weights=plan.weights / GIB,
        kv_cache=plan.kv / GIB,
        activations=(plan.scratch + plan.logits) / GIB,
        gradients=plan.gradients / GIB,
        optimizer=plan.optimizer / GIB,
        overhead=overhead,
    )
    layout: GpuLayout | None = None
    throughput: Throughput | None = None
    if gpu is not None:
        parallelism = forced or workload_parallelism(plan, gpu, count, link_gbs)
        per_gpu = _per_gpu_bytes(plan, parallelism, count, gpu) / GIB
        usable = _usable_gib(plan, gpu)
        pool = kv_cache_tokens(plan, parallelism, count, gpu)
        if plan.engine in SERVER_ENGINES:
            server = server_non_kv(plan, parallelism, count, gpu)
            memory = replace(memory, activations=server.total * split_ways(parallelism, count) / GIB)
        layout = GpuLayout(
            sku=gpu.sku,
            count=count,
            parallelism=parallelism,
            per_gpu_gib=per_gpu,
            usable_gib=usable,
            fits=per_gpu <= usable,
            min_gpus_to_fit=_min_gpus(plan, gpu, max_gpus),
            kv_cache_tokens=pool,
            max_concurrent_users=None if pool is None else pool_users(plan, pool),
        )
        link = _link(gpu, link_gbs, count)
        throughput = serving_throughput(
            plan, gpu, count, link_gbs, parallelism, one_instance=forced is not None, held=layout.fits
        )

    def explain() -> list[Phrase]:
        words = _memory_assumptions(plan)
        if workload.model_named:
            words.insert(
                0,
                Phrase(
                    "model '%(typed)s' read as %(name)s (%(slug)s): the one library model that name matches",
                    typed=workload.model_named,
                    name=workload.model.name,
                    slug=workload.model.slug,
                ),
            )
        if gpu is not None and throughput is not None:
            size = throughput.users_tensor_parallel
            instance = _link(gpu, link_gbs, size) if throughput.users_replicas > 1 else None
            said = _layout_assumptions(plan, gpu, count, parallelism, link, throughput, instance)
            # a stated layout (`forced`) was not chosen: the chosen split's words would name another (trial tr33:
            # a stated pipeline of 8 read "1 replica of tensor parallelism 8, the split that serves fastest")
            words.extend(w for w in said if forced is None or not w.template.startswith(CHOSEN_LAYOUT_WORDS))
        return words

    return Estimate(
        model_slug=workload.model.slug,
        total_params=workload.model.total_params,
        active_params=workload.model.active_params,
        memory=memory,
        layout=layout,
        throughput=throughput,
        assumptions=LazyTexts(explain),  # the recommender makes thousands of estimates and reads few of these
    )
