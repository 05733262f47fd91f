"""Serving under continuous batching: prompts and decode steps share the GPUs (vLLM, SGLang and TensorRT-LLM
schedule them together with chunked prefill; llama-server's slots alike).

- `decode_per_user`: the decode speed each of N users sees (1 / its time per output token). A step decodes one
  token of each of the N sequences, and in steady state each of the N − 1 others starts a new request every
  `output_tokens` of its tokens, so per step the GPUs also prefill (N − 1) × prompt / output prompt tokens. The
  user's own prompt is its time to first token, not part of its decode (NVIDIA's genai-perf and `vllm bench
  serve` measure inter-token latency / TPOT after the first token).
- `served_throughput`: output tokens/s of the whole build at full load, prefill included: every generated
  token costs its share of a decode step of `b` sequences plus prompt / output of one prompt's prefill, at the
  largest `b` the engine runs and the KV cache holds.

A decode step is `speed.step_seconds` of `speed.step_terms` (bytes at η_bw, FLOPs at the MFU, fixed per-layer
and all-reduce time); one prompt's prefill is `prompt_prefill_s`: its FLOPs at the MFU over all GPUs, plus the
all-reduces and activation traffic of its tokens (in a mixed step the weights are read once for prefill and
decode alike). Both read the request of `engines.request_tokens` at its mean depth (`plans.serving_plans`).
`estimate()` reports both (`serving_throughput`), the recommender compares the per-user speed with the
customer's target, and bench/accuracy_server.py judges these same functions on fixtures/server_speed.csv,
with its fitted constants passed in (`mfu`, `constants`, `moe_efficiency`); tests/api/test_one_path.py holds
all three to them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from configurator.engine import calibration as cal
from configurator.engine.estimate.engines import request_tokens
from configurator.engine.estimate.layout import (
    DP_ATTENTION,
    _parallelism,
    _per_gpu_bytes,
    _usable_gib,
    dp_attention_possible,
    split_ways,
)
from configurator.engine.estimate.plans import _Plan, serving_plans
from configurator.engine.estimate.server_memory import server_batch
from configurator.engine.estimate.speed import (
    LinkArg,
    _allreduce_s,
    _gather_scatter_s,
    _Link,
    _link,
    _moe_efficiency,
    _moe_extra_flops,
    _pcie_gbs,
    _peak_flops,
    _prefill_s,
    loaded_step_tokens,
    moe_load_efficiency,
    plan_activation_bytes,
    quantized_gemms,
    routed_rate,
    step_seconds,
    step_terms,
)
from configurator.engine.estimate.training_speed import training_step
from configurator.engine.estimate.weights import GIB
from configurator.engine.frozen import direct_init
from configurator.engine.types import GpuSpec, Throughput, Workload


def max_running_sequences(engine: str, gpu: GpuSpec) -> int:
    """Sequences an engine runs at once by default: vLLM's `max_num_seqs` for this GPU (1024 on ≥ 70 GiB GPUs
    other than A100, else 256: `server_memory.server_batch`), the others `calibration.MAX_RUNNING_SEQUENCES`."""
    if engine == "vllm":
        return server_batch(gpu)[1]
    return cal.MAX_RUNNING_SEQUENCES.get(engine, 256)


@direct_init
@dataclass(frozen=True, slots=True)
class Served:
    """Output tokens/s of a whole build at full load, and the running sequences that reach it."""

    tokens_per_s: float
    sequences: int
    decode_share: float  # share of GPU time spent in decode steps (the rest is prefill)


@direct_init
@dataclass(frozen=True, slots=True)
class UserDecode:
    """Decode tokens/s of one user among the workload's, and the share of its time per token spent on the
    other users' prompts; `all_users_tokens_per_s`: what the N sequences give together, each request's own
    prompt included too (N / (step + N × prompt / output)): below N × the per-user speed by one prompt's
    prefill per user, since a user's own prompt is its wait for the first token, not part of its decode."""

    tokens_per_s: float
    prefill_share: float
    all_users_tokens_per_s: float = 0.0


@direct_init
@dataclass(frozen=True, slots=True)
class _Setting:
    """What both speeds need: the request's plans, the layout and the constants in force."""

    prompt_plan: _Plan
    decode_plan: _Plan
    parallelism: str
    link: _Link
    mfu: float
    constants: cal.DecodeConstants
    prompt_tokens: int = 1
    output_tokens: int = 1


def _setting(
    workload: Workload, gpu: GpuSpec, gpu_count: int, prompt_tokens: int, output_tokens: int, link_gbs: LinkArg,
    mfu: float | None, constants: cal.DecodeConstants | None, mfu_scale: float | None = None,
    parallelism: str | None = None,
) -> _Setting:  # fmt: skip
    prompt_plan, decode_plan = serving_plans(workload, prompt_tokens, output_tokens)
    engine = decode_plan.engine
    constants = constants or cal.DECODE_CONSTANTS[(engine, cal.memory_class(gpu.memory_type))]
    if not workload.cuda_graphs and engine in cal.SERVER_ENGINES:  # eager: kernels launched from the host
        constants = replace(constants, tau_layer_s=constants.tau_layer_s + cal.EAGER_LAYER_S)
    return _Setting(
        prompt_plan=prompt_plan,
        decode_plan=decode_plan,
        parallelism=parallelism or _parallelism(decode_plan, gpu_count),
        link=_link(gpu, link_gbs, gpu_count),
        mfu=(mfu or cal.prefill_mfu(engine, quantized=quantized_gemms(gpu, decode_plan.weight_precision, engine)))
        * (cal.server_mfu_scale(engine, gpu.vendor) if mfu_scale is None else mfu_scale),
        constants=constants,
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
    )


def _load_efficiency(setting: _Setting, gpu: GpuSpec, sequences: int, moe_efficiency: float | None) -> float:
    """The routed GEMMs' efficiency while `sequences` run (`speed.moe_load_efficiency` of the mixed step's tokens,
    `speed.loaded_step_tokens`); `moe_efficiency` replaces the fitted value it starts from."""
    plan = setting.decode_plan
    tokens = loaded_step_tokens(sequences, setting.prompt_tokens, setting.output_tokens, gpu)
    return moe_load_efficiency(plan.workload.model, plan.engine, tokens, moe_efficiency)


def _prompt_s(
    setting: _Setting, gpu: GpuSpec, gpu_count: int, moe_efficiency: float | None, sequences: int | None = None
) -> float:
    """Seconds the GPUs spend on one prompt inside mixed steps: 2 × active params + attention FLOPs per token
    (the routed experts' at `moe_efficiency` of the dense rate) at the MFU over all GPUs; under tensor
    parallelism the 2 all-reduces per layer of its hidden states (their bytes scale with hidden × layers, not
    with the active parameters: ~3× more per FLOP on a sparse MoE such as Qwen3-235B-A22B than on a dense
    405B); and the activation traffic of `speed.plan_activation_bytes`."""
    plan = setting.prompt_plan
    model, tokens = plan.workload.model, plan.workload.context_tokens
    peak = _peak_flops(gpu, plan.weight_precision, plan.engine)
    # the routed experts' rows: their share of the mixed step's tokens while `sequences` run (a prompt chunk alone
    # when not given), at the FP8 rate up to speed.FP8_RATE_MAX_ROWS (speed.routed_rate)
    step = loaded_step_tokens(sequences, setting.prompt_tokens, setting.output_tokens, gpu) if sequences else None
    rate = routed_rate(gpu, plan, None, step)
    flops = plan.prefill_flops + _moe_extra_flops(model, _moe_efficiency(plan.engine, moe_efficiency), rate)
    seconds = tokens * flops / (gpu_count * setting.mfu * peak)
    tp = split_ways(setting.parallelism, gpu_count)
    if setting.parallelism == DP_ATTENTION:  # its attention on one rank, the others' prompts on theirs
        seconds += _gather_scatter_s(model, tokens, tp, setting.link)
    else:
        seconds += _allreduce_s(model, tokens, tp, setting.link)
    moved = tokens * plan_activation_bytes(plan, tp) * tp / gpu_count
    return seconds + moved / (setting.constants.eta_bw * gpu.bandwidth_gbs * 1e9)


def _step_s(setting: _Setting, gpu: GpuSpec, gpu_count: int, sequences: int, moe_efficiency: float | None) -> float:
    terms = step_terms(
        setting.decode_plan, gpu, gpu_count, setting.parallelism, setting.link, moe_efficiency, sequences=sequences
    )
    return step_seconds(terms, setting.constants, setting.mfu)


def prompt_prefill_s(
    workload: Workload,
    gpu: GpuSpec,
    gpu_count: int,
    *,
    prompt_tokens: int,
    output_tokens: int,
    link_gbs: LinkArg = None,
    mfu: float | None = None,
    constants: cal.DecodeConstants | None = None,
    moe_efficiency: float | None = None,
    mfu_scale: float | None = None,
    parallelism: str | None = None,
) -> float:
    """Seconds of GPU time one prompt of the workload's requests costs when it rides along decode steps."""
    setting = _setting(
        workload, gpu, gpu_count, prompt_tokens, output_tokens, link_gbs, mfu, constants, mfu_scale, parallelism
    )
    return _prompt_s(setting, gpu, gpu_count, moe_efficiency)


def decode_per_user(
    workload: Workload,
    gpu: GpuSpec,
    gpu_count: int,
    *,
    prompt_tokens: int,
    output_tokens: int,
    link_gbs: LinkArg = None,
    mfu: float | None = None,
    constants: cal.DecodeConstants | None = None,
    moe_efficiency: float | None = None,
    mfu_scale: float | None = None,
    parallelism: str | None = None,
) -> UserDecode:
    """Decode tokens/s each user sees while `concurrent_users × batch_size` sequences run (module docstring):
    1 / (a decode step of all of them + (N − 1) × prompt / output of one prompt's prefill). One user: the
    decode step alone. `mfu`, `constants` and `moe_efficiency` override the shipped ones (bench/accuracy.py);
    `parallelism` is the layout (default: estimate.layout's for the count; see `workload_parallelism`)."""
    setting = _setting(
        workload, gpu, gpu_count, prompt_tokens, output_tokens, link_gbs, mfu, constants, mfu_scale, parallelism
    )
    sequences = workload.concurrent_users * workload.batch_size
    step = _step_s(setting, gpu, gpu_count, sequences, moe_efficiency)
    prompt_per_token = _prompt_s(setting, gpu, gpu_count, moe_efficiency) / output_tokens
    others = (sequences - 1) * prompt_per_token
    return UserDecode(
        1.0 / (step + others), others / (step + others), sequences / (step + sequences * prompt_per_token)
    )


def served_throughput(
    workload: Workload,
    gpu: GpuSpec,
    gpu_count: int,
    *,
    prompt_tokens: int,
    output_tokens: int,
    link_gbs: LinkArg = None,
    mfu: float | None = None,
    constants: cal.DecodeConstants | None = None,
    with_prefill: bool = True,
    max_sequences: int | None = None,
    moe_efficiency: float | None = None,
    mfu_scale: float | None = None,
    users: int | None = None,
    parallelism: str | None = None,
) -> Served:
    """Output tokens/s under continuous batching with every request queued (trtllm-bench `throughput`,
    `bench_serving --request-rate inf`): each generated token costs its share of a decode step of `b` sequences
    plus prompt/output of one prompt's prefill (`prompt_prefill_s`). `b` runs over powers of two up to the
    engine's cap on running sequences (`max_running_sequences`) while the KV cache at the mean depth (prompt +
    output/2) fits, and not above `max_sequences` (the requests of a finite benchmark run); the best `b`, the
    largest (`_full_batch`), is the answer; `users` (the workload's sequences, from estimate()) is tried beside
    the powers of two and is the least full load, so the full load is never below what the workload's own users
    get (5 users of a card that holds 5 but not 8). `mfu`, `constants` and `moe_efficiency` override the fitted ones
    (bench/accuracy.py)."""
    setting = _setting(
        workload, gpu, gpu_count, prompt_tokens, output_tokens, link_gbs, mfu, constants, mfu_scale, parallelism
    )
    plan = setting.decode_plan
    sequences = _full_batch(plan, setting.parallelism, gpu, gpu_count, max_sequences, users)
    if not sequences:
        return Served(0.0, 0, 1.0)
    efficiency = _load_efficiency(setting, gpu, sequences, moe_efficiency)
    prefill_s = _prompt_s(setting, gpu, gpu_count, efficiency, sequences) if with_prefill else 0.0
    step = _step_s(setting, gpu, gpu_count, sequences, efficiency)
    per_token = step / sequences + prefill_s / output_tokens
    return Served(1.0 / per_token, sequences, step / sequences / per_token)


def _full_batch(
    plan: _Plan, parallelism: str, gpu: GpuSpec, gpu_count: int, max_sequences: int | None, users: int | None = None
) -> int:
    """The largest batch of the search in `served_throughput` whose KV cache fits (0: not even one).

    It is the best one: a step of b sequences costs A + B·b (weights once, each sequence's KV and activations;
    for MoE the experts' union, which grows slower than b) or C·b when compute-bound, plus fixed and all-reduce
    time that grow slower than b, so seconds per token (step / b) never rise with b; and the memory a batch
    needs rises with b, so the batches that fit are the smallest ones. tests/configurator/test_serving.py
    holds this equal to trying every batch."""
    cap = max_running_sequences(plan.engine, gpu)
    if parallelism == DP_ATTENTION:  # each rank schedules its own requests up to the engine's cap
        cap *= gpu_count
    batches = [1 << i for i in range(cap.bit_length()) if 1 << i <= cap]
    if max_sequences:  # a benchmark of N requests never runs more than N sequences at once
        batches = [b for b in batches if b < max_sequences] + [min(max_sequences, cap)]
    # an engine's cap is its default (llama-server's slots, vLLM's max_num_seqs): a service for N users is set to N
    floor = users if users and users <= (max_sequences or users) else 0
    if floor and floor not in batches:
        batches = sorted([*batches, floor])
    usable = _usable_gib(plan, gpu) * GIB
    low, high = 0, len(batches)  # batches[:low] fit, batches[high:] do not
    while low < high:
        middle = (low + high) // 2
        if _per_gpu_bytes(plan, parallelism, gpu_count, sequences=batches[middle]) <= usable:
            low = middle + 1
        else:
            high = middle
    # the workload's own users run at once by estimate()'s layout (its memory check sizes the KV cache of all of
    # them): the full load is at least that many, even where this search's server-batch sizing holds fewer
    return max(batches[low - 1] if low else 0, floor)


@direct_init
@dataclass(frozen=True, slots=True)
class ServedLayout:
    """The full load of a build laid out as `replicas` data-parallel instances of `tensor_parallel` GPUs each
    (`served`: all replicas together)."""

    served: Served
    tensor_parallel: int
    replicas: int
    user: UserDecode | None = None  # each of the workload's users on it (estimate(): the fullest replica's share)


def instance_sizes(plan: _Plan, count: int) -> list[int]:
    """GPUs per instance an engine can serve `count` GPUs with, largest first: a server engine (vLLM, SGLang,
    TensorRT-LLM) runs count / k data-parallel replicas of tensor parallelism k for every divisor k of the count
    on which the model's heads split (one GPU always); llama.cpp and transformers run one instance on all GPUs."""
    if plan.engine not in cal.SERVER_ENGINES or count <= 1:
        return [count]
    return [k for k in range(count, 0, -1) if count % k == 0 and (k == count or _parallelism(plan, k) != "pipeline")]


def replica_users(sequences: int, replicas: int) -> int:
    """Sequences on the fullest of `replicas` data-parallel replicas (a load balancer spreads the requests)."""
    return math.ceil(sequences / replicas)


def best_served_layout(
    workload: Workload,
    gpu: GpuSpec,
    gpu_count: int,
    *,
    prompt_tokens: int,
    output_tokens: int,
    link_gbs: LinkArg = None,
    users: int | None = None,
    parallelism: str | None = None,
    plan: _Plan | None = None,
    one_instance: bool = False,
    known: ServedLayout | None = None,
) -> ServedLayout:
    """The layout an engine is set to and its full load, over the instance sizes of `instance_sizes` (each replica at
    `served_throughput`): with `plan`, the split fastest for the workload's users (`decode_per_user` of a replica's
    share), then the most output tokens/s; without it, the most output tokens/s (a tie keeps the larger instance).
    Data-parallel replicas read their weights each, but skip the tensor-parallel all-reduces (2 per layer of every
    token, prefill included) and the per-layer fixed time of a split step, so they win at full load once a replica's
    KV cache holds a large batch: MLPerf Inference v4.1 ran Llama-2-70B FP8 as 8 × TP1 on 8 × H200 and 4×TP2 on 8×H100
    (mlcommons/inference_results_v4.1 closed/NVIDIA/configs/llama2-70b/Offline/__init__.py, `tensor_parallelism`),
    AMD as 8 × TP1 on 8 × MI300X (its 8-GPU result is 7.7 × its 1-GPU one); Lambda's vLLM sweeps on 1-8 × A100/H100
    found the same ("data parallelism outperforms tensor parallelism when the model fits",
    LambdaLabsML/vllm-benchmark benchmark_v0.md). The users (`users`) bound each replica's full load from below
    (`_full_batch`); with `plan` a split whose replica cannot hold its share of their KV caches is not tried. A
    stated layout (`one_instance`) is one instance on all the GPUs, and so is DP attention for the users (`plan`);
    for the build's capacity DP attention on all the GPUs competes with the splits (trial tr33b: over 2 × 8 B200 its
    all-gathers crossed the network, 3,024 tokens/s against 8,224 on one server). `known`: a one-instance split
    already worked out for the same users (the users' split), taken as it is."""
    if parallelism == DP_ATTENTION or one_instance:
        whole = ServedLayout(served_throughput(
            workload, gpu, gpu_count, prompt_tokens=prompt_tokens, output_tokens=output_tokens, link_gbs=link_gbs,
            users=users, parallelism=parallelism), gpu_count, 1)  # fmt: skip
        split = None if one_instance or plan is not None else best_served_layout(workload, gpu, gpu_count,
            prompt_tokens=prompt_tokens, output_tokens=output_tokens, link_gbs=link_gbs, users=users)  # fmt: skip
        return split if split and split.served.tokens_per_s > whole.served.tokens_per_s * (1 + 1e-9) else whole
    sizing = plan
    plan = serving_plans(workload, prompt_tokens, output_tokens)[1]
    # (size, replicas, the users on the fullest replica, the speed each of the workload's users gets there)
    splits: list[tuple[int, int, int | None, UserDecode | None]] = []
    for size in instance_sizes(plan, gpu_count):
        replicas = gpu_count // size
        share = users if replicas == 1 else replica_users(users, replicas) if users and sizing is not None else None
        if replicas > 1 and sizing is not None:  # users not held (share None): a replica must hold one (tr33b)
            held = _per_gpu_bytes(sizing, _parallelism(sizing, size), size, gpu, sequences=share or 1)
            if held > _usable_gib(sizing, gpu) * GIB:
                continue
        user = None
        if sizing is not None:  # estimate(): the speed each of the workload's users gets on this split
            each = replica_users(workload.concurrent_users, replicas)
            user = decode_per_user(
                workload if each == workload.concurrent_users else replace(workload, concurrent_users=each), gpu, size,
                prompt_tokens=prompt_tokens, output_tokens=output_tokens, link_gbs=link_gbs,
                parallelism=parallelism if replicas == 1 else None,
            )  # fmt: skip
        splits.append((size, replicas, share, user))
    # estimate(): the split that serves the workload's users fastest (few users: tensor parallel over more GPUs;
    # many: more replicas, each with fewer users and no all-reduce), then the most output tokens/s; without the
    # workload's plan the most output tokens/s; on a tie (within 1e-9) the first, i.e. the largest instance.
    # The full load is worked out only for the splits still in the running (the users' speed is decided first).
    if sizing is not None:
        fastest = max(user.tokens_per_s for *_, user in splits if user is not None)
        splits = [split for split in splits if split[3] is not None and split[3].tokens_per_s >= fastest * (1 - 1e-9)]
    layouts = []
    for size, replicas, share, user in splits:
        if known is not None and known.replicas == replicas == 1 and known.tensor_parallel == size:
            layouts.append(ServedLayout(known.served, size, 1, user))  # `known`: one instance, the same users
            continue
        served = served_throughput(
            workload, gpu, size, prompt_tokens=prompt_tokens, output_tokens=output_tokens, link_gbs=link_gbs,
            users=share,
        )  # fmt: skip
        total = Served(served.tokens_per_s * replicas, served.sequences * replicas, served.decode_share)
        layouts.append(ServedLayout(total, size, replicas, user))
    best = max(layout.served.tokens_per_s for layout in layouts)
    return next(layout for layout in layouts if layout.served.tokens_per_s >= best * (1 - 1e-9))


def workload_parallelism(plan: _Plan, gpu: GpuSpec, count: int, link_gbs: LinkArg) -> str:
    """The layout estimate() gives the workload: estimate.layout's (`_parallelism`), or DP attention where the
    engine has it for the model (`layout.dp_attention_possible`) and it fits when tensor parallelism's replicated
    latent cache does not, or both fit and it serves the workload's users faster (at a few users the rank that
    reads all of the attention weights is slower than a tensor-parallel GPU reading 1/t of them; with many
    users each rank reads 1/t of the latent caches instead of all of them)."""
    base = _parallelism(plan, count)
    if not dp_attention_possible(plan, count):
        return base
    key = ("workload_parallelism", gpu, count, link_gbs)
    found = plan.memo.get(key)
    if found is not None:
        return found  # type: ignore[return-value]
    usable = _usable_gib(plan, gpu) * GIB
    found = base
    if _per_gpu_bytes(plan, DP_ATTENTION, count, gpu) <= usable:
        if _per_gpu_bytes(plan, base, count, gpu) > usable:
            found = DP_ATTENTION
        else:
            w = plan.workload
            prompt, output = request_tokens(w)
            speeds = [
                decode_per_user(
                    w, gpu, count, prompt_tokens=prompt, output_tokens=output, link_gbs=link_gbs, parallelism=layout
                ).tokens_per_s
                for layout in (base, DP_ATTENTION)
            ]
            found = DP_ATTENTION if speeds[1] > speeds[0] else base
    plan.memo[key] = found
    return found


def serving_throughput(
    plan: _Plan,
    gpu: GpuSpec,
    count: int,
    link_gbs: LinkArg,
    parallelism: str | None = None,
    *,
    one_instance: bool = False,
    held: bool = True,
) -> Throughput:
    """The speeds estimate() reports for the request of `engines.request_tokens`. The users' layout
    (`best_served_layout` with the plan: the split fastest for them) gives `decode_per_user` of the fullest
    replica's share (what the speed rule and the recommender judge) and the first token on an idle instance.
    The full load (`served_throughput`, no request cap) is the build's capacity, the split of most output tokens/s
    (`best_served_layout` without the plan, what `make accuracy` judges), at least the users' own total.
    Training: the whole build's tokens/s. `one_instance`: a layout the request states, no other split tried. `held`:
    estimate()'s memory check (else the users are queued, not run, and set no floor under the full load)."""
    if plan.training:
        link = _link(gpu, link_gbs, count)
        trained = training_step(plan, gpu, count, link.gbs, _pcie_gbs(gpu))
        return Throughput(0.0, 0.0, 0.0, 0.0, training_tokens_per_s=trained.tokens_per_s)
    w = plan.workload
    prompt, output = request_tokens(w)
    parallelism = parallelism or _parallelism(plan, count)
    users = plan.sequences if held else None
    layout = best_served_layout(
        w, gpu, count, prompt_tokens=prompt, output_tokens=output, link_gbs=link_gbs, users=users,
        parallelism=parallelism, plan=plan, one_instance=one_instance,
    )  # fmt: skip
    size, whole = layout.tensor_parallel, parallelism
    if layout.replicas > 1:  # each replica serves its share of the users on its own `size` GPUs
        parallelism = _parallelism(plan, size)
    share = replica_users(w.concurrent_users, layout.replicas)
    user = layout.user or decode_per_user(
        w if share == w.concurrent_users else replace(w, concurrent_users=share), gpu, size,
        prompt_tokens=prompt, output_tokens=output, link_gbs=link_gbs, parallelism=parallelism,
    )  # fmt: skip
    # all the users together: the fullest replica's rate for each of them (a share of N / replicas exactly when
    # the users split evenly)
    all_users = user.all_users_tokens_per_s * w.concurrent_users / share
    capacity = layout if one_instance else best_served_layout(  # the users' split is theirs; this, the build's
        w, gpu, count, prompt_tokens=prompt, output_tokens=output, link_gbs=link_gbs, users=users,
        parallelism=whole, known=layout,
    )  # fmt: skip
    served = capacity.served
    # the full load runs at least the workload's own users when they fit (`_full_batch`); the two formulas of that
    # same load (N / (step + N × prompt / output) and 1 / (step / N + prompt / output)) may differ in the last bit
    served_tokens = max(served.tokens_per_s, all_users) if held else served.tokens_per_s
    all_users = all_users if held else min(all_users, served_tokens)  # only those held decode at once
    prompt_plan = serving_plans(w, prompt, output)[0]
    first_token = _prefill_s(prompt_plan, gpu, size, parallelism, _link(gpu, link_gbs, size))
    return Throughput(
        decode_tokens_per_s_per_user=user.tokens_per_s,
        decode_tokens_per_s_total=all_users,
        prefill_tokens_per_s=prompt / first_token,
        time_to_first_token_s=first_token,
        served_output_tokens_per_s=served_tokens,
        served_sequences=served.sequences,
        prompt_tokens=prompt,
        output_tokens=output,
        prefill_share=user.prefill_share,
        served_tensor_parallel=capacity.tensor_parallel,
        served_replicas=capacity.replicas,
        users_tensor_parallel=layout.tensor_parallel,
        users_replicas=layout.replicas,
    )
