"""When nothing fits: what would, most useful first, each with the cheapest build it gives and its price.

The order is the one an integrator would lead with: keep the job and lighten how it runs (a lower
precision, QLoRA, an 8-bit optimizer, LoRA instead of full fine-tuning), then shrink the job (a shorter
sequence or context, fewer users, a lower speed target), then spend more (budget and the other limits,
ECC), and when no single machine of the catalog holds it, how many servers of which kind would. Each
suggestion is the recommender run again on the changed workload or constraints (`Cheapest`), at most
`MAX_RUNS` runs per answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from configurator.engine.estimate import min_gpus_to_fit
from configurator.engine.phrase import Num, Phrase
from configurator.engine.recommend.policy import needs_ecc, takes
from configurator.engine.rules.context import chassis_takes_gpu
from configurator.engine.types import Candidate, ChassisSpec, Constraints, GpuSpec, Workload

# The cheapest candidate the search finds for a workload and constraints on the same catalog (None: none).
Cheapest = Callable[[Workload, Constraints], Candidate | None]

MAX_RUNS = 12  # recommender runs per answer: a bound on the work of one "nothing fits"
CLUSTER_MAX_GPUS = 64  # the largest cluster the estimate sizes for "several servers"
HEAVIER_THAN_FP8 = ("fp32", "bf16", "fp16")
HEAVIER_THAN_Q4 = ("fp32", "bf16", "fp16", "fp8", "int8", "q8_0", "q6_k", "q5_k_m", "q5_k_s")


def _build_words(candidate: Candidate) -> Phrase:
    build = candidate.build
    return Phrase(
        "%(count)s× %(gpu)s in %(chassis)s",
        count=build.gpu_count,
        gpu=build.gpus[0].spec.sku,
        chassis=build.chassis.sku,
    )


def offer(candidate: Candidate) -> Phrase:
    """A build and its price, as a suggestion says it."""
    build = candidate.build
    return Phrase(
        "%(count)s× %(gpu)s in %(chassis)s, %(amount)s %(currency)s",
        count=build.gpu_count,
        gpu=build.gpus[0].spec.sku,
        chassis=build.chassis.sku,
        amount=Num(candidate.price.gross),
        currency=candidate.price.currency,
    )


@dataclass
class _Runs:
    cheapest: Cheapest
    left: int = MAX_RUNS
    single_machine: bool = False  # some machine of the catalog holds the workload as asked, limits lifted

    def __call__(self, workload: Workload, constraints: Constraints) -> Candidate | None:
        if self.left <= 0:
            return None
        self.left -= 1
        return self.cheapest(workload, constraints)


def _lighter(workload: Workload, constraints: Constraints, run: _Runs) -> Iterator[Phrase]:
    """Keep the job, run it lighter: precision, QLoRA, an 8-bit optimizer, LoRA."""
    if workload.task == "inference":
        tries: list[tuple[str, str]] = []
        if workload.precision in HEAVIER_THAN_FP8:
            tries.append(("fp8", "vllm"))
        if workload.precision in HEAVIER_THAN_Q4:
            tries.extend((("q4_k_m", "llama.cpp"), ("int4", "vllm")))
        for precision, engine in tries:
            found = run(replace(workload, precision=precision, engine=engine), constraints)
            if found:
                yield Phrase(
                    "quantize to %(precision)s (%(engine)s): %(offer)s",
                    precision=precision.upper(),
                    engine=engine,
                    offer=offer(found),
                )
                break
        return
    if workload.task in ("full_finetune", "lora"):
        found = run(replace(workload, task="qlora", optimizer="adamw"), constraints)
        if found:
            yield Phrase("fine-tune with QLoRA (4-bit base weights): %(offer)s", offer=offer(found))
    if workload.task == "full_finetune" and workload.optimizer == "adamw":
        found = run(replace(workload, optimizer="adamw_8bit"), constraints)
        if found:
            yield Phrase("use an 8-bit Adam optimizer (bitsandbytes): %(offer)s", offer=offer(found))
    if workload.task == "full_finetune":
        found = run(replace(workload, task="lora"), constraints)
        if found:
            yield Phrase("fine-tune with LoRA instead: %(offer)s", offer=offer(found))


def _smaller(workload: Workload, constraints: Constraints, run: _Runs) -> Iterator[Phrase]:
    """Shrink the job: a shorter sequence or context, fewer users, a lower speed target."""
    if workload.task != "inference":
        length = workload.sequence_length // 2
        while length >= 512:
            found = run(replace(workload, sequence_length=length), constraints)
            if found:
                yield Phrase(
                    "train on sequences of %(tokens)s tokens: %(offer)s", tokens=Num(length), offer=offer(found)
                )
                break
            length //= 2
        return
    context = workload.context_tokens // 2
    while context >= 2048:
        found = run(replace(workload, context_tokens=context), constraints)
        if found:
            yield Phrase(
                "shorten the context to %(tokens)s tokens (the KV cache shrinks with it): %(offer)s",
                tokens=Num(context),
                offer=offer(found),
            )
            break
        context //= 2
    users = workload.concurrent_users // 2
    while users >= 1:
        found = run(replace(workload, concurrent_users=users), constraints)
        if found:
            yield Phrase.plural(
                "serve %(users)s user at once: %(offer)s",
                "serve %(users)s users at once: %(offer)s",
                "users",
                users=users,
                offer=offer(found),
            )
            break
        users //= 2
    if workload.target_tokens_per_s:
        found = run(replace(workload, target_tokens_per_s=None), constraints)
        if found:
            yield Phrase(
                "drop the %(target)s tokens/s per user target: %(offer)s",
                target=Num(workload.target_tokens_per_s, None),
                offer=offer(found),
            )


def _limits(workload: Workload, constraints: Constraints, run: _Runs) -> Iterator[Phrase]:
    """Spend more: the cheapest build with every limit lifted, and which limits it needs lifted."""
    open_limits = replace(
        constraints, max_price=None, form_factor="any", max_power_w=None, max_gpus=None, chassis=(), site_voltage=230
    )
    lifted = run(workload, open_limits) if open_limits != constraints else None
    run.single_machine = lifted is not None
    if lifted is not None:
        build, gross, what = lifted.build, lifted.price.gross, offer(lifted)
        if constraints.max_price is not None and gross > constraints.max_price:
            yield Phrase(
                "raise the budget to %(amount)s %(currency)s (%(what)s)",
                amount=Num(gross),
                currency=lifted.price.currency,
                what=_build_words(lifted),
            )
        if constraints.form_factor == "workstation" and not build.chassis.is_workstation:
            yield Phrase("allow rack servers (%(what)s)", what=what)
        if constraints.form_factor == "rack" and not build.chassis.is_rack:
            yield Phrase("allow tower workstations (%(what)s)", what=what)
        if constraints.max_gpus is not None and build.gpu_count > constraints.max_gpus:
            yield Phrase("allow %(count)s GPUs (%(what)s)", count=build.gpu_count, what=what)
        if constraints.max_power_w is not None and lifted.verdict.power.load_w > constraints.max_power_w:
            yield Phrase("allow %(load)s W of load (%(what)s)", load=Num(lifted.verdict.power.load_w), what=what)
        if constraints.chassis and build.chassis.sku not in constraints.chassis:
            yield Phrase("allow chassis %(chassis)s (%(what)s)", chassis=build.chassis.sku, what=what)
        if constraints.site_voltage == 120:
            yield Phrase("use a 200–240 V circuit (%(what)s)", what=what)
    if needs_ecc(workload, constraints):
        relaxed = run(replace(workload, require_ecc=False, production=False), replace(constraints, require_ecc=False))
        if relaxed:
            yield Phrase("without the ECC requirement: %(offer)s", offer=offer(relaxed))


def several_servers(
    workload: Workload, gpus: list[GpuSpec], chassis: list[ChassisSpec], most: Callable[[ChassisSpec], int]
) -> Phrase | None:
    """How many servers of which kind hold the workload when no single one does: per GPU model, the
    chassis taking the most of it and the smallest GPU count that fits (sharded / split across nodes);
    the fewest servers, then the cheapest GPUs."""
    best: tuple[int, object, int, int, GpuSpec, ChassisSpec] | None = None
    run = replace(workload, zero_stage=3) if workload.task != "inference" else workload
    for gpu in gpus:
        hosts = [(min(most(c), c.max_gpu_count), c) for c in chassis if chassis_takes_gpu(c, gpu, 1)]
        hosts = [(n, c) for n, c in hosts if n > 0 and takes(c, gpu, n)]
        if not hosts:
            continue
        per_node, host = max(hosts, key=lambda row: (row[0], -row[1].price))
        count = min_gpus_to_fit(run, gpu, max_gpus=CLUSTER_MAX_GPUS)
        if count is None or count <= per_node:
            continue
        nodes = math.ceil(count / per_node)
        key = (nodes, gpu.price * count, count, per_node, gpu, host)
        if best is None or key[:3] < best[:3]:
            best = key
    if best is None:
        return None
    nodes, _, count, per_node, gpu, host = best
    return Phrase(
        "only several servers hold it: %(nodes)s × %(chassis)s with %(per_node)s× %(gpu)s each (%(count)s GPUs "
        "or more, sharded across nodes over a fast network); ask a sales engineer for the cluster",
        nodes=nodes,
        chassis=host.sku,
        per_node=per_node,
        gpu=gpu.sku,
        count=count,
    )


def what_would_fit(
    workload: Workload,
    constraints: Constraints,
    cheapest: Cheapest,
    cluster: Callable[[], Phrase | None] | None = None,
) -> tuple[Phrase, ...]:
    """Say what would work, most useful first (module docstring); `cluster` says how many servers would
    when no single machine does."""
    run = _Runs(cheapest)
    tips = [*_lighter(workload, constraints, run), *_smaller(workload, constraints, run)]
    tips.extend(_limits(workload, constraints, run))
    if cluster is not None and not run.single_machine:
        several = cluster()
        if several is not None:
            tips.append(several)
    if not tips:
        tips.append(Phrase("no catalog build fits this workload; ask a sales engineer for a multi-node cluster"))
    return tuple(tips)
