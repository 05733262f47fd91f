"""When nothing fits: what would, most useful first, each with the cheapest build it gives and its price.

The order is the one an integrator would lead with: keep the job and lighten how it runs (a lower
precision, QLoRA, an 8-bit optimizer, LoRA instead of full fine-tuning), then shrink the job (a shorter
sequence or context, fewer users, a lower speed target), then spend more (budget and the other limits,
ECC), and when no single machine of the catalog holds it, how many servers of which kind would. Each
suggestion is the recommender run again on the changed workload or constraints (`Cheapest`), at most
`MAX_RUNS` runs per answer.

When a build fits as asked, two kinds of suggestion may still stand beside it, each proven the same way:
training knobs that fit a cheaper build (`cheaper_with_knobs`), and for BF16/FP16 inference a lighter
precision that meets the whole request for materially less (`cheaper_precision`: one run, two at most).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from typing import TypeVar

from configurator.engine.estimate import min_gpus_to_fit
from configurator.engine.phrase import Num, Phrase
from configurator.engine.precision_support import precision_support
from configurator.engine.recommend.hybrid import hybrid_wanted
from configurator.engine.recommend.policy import needs_ecc, speed_target, takes
from configurator.engine.rules.context import chassis_takes_gpu
from configurator.engine.types import Candidate, ChassisSpec, Constraints, GpuSpec, Workload

# The cheapest candidate the search finds for a workload and constraints on the same catalog (None: none).
Cheapest = Callable[[Workload, Constraints], Candidate | None]

T = TypeVar("T")

MAX_RUNS = 12  # recommender runs per answer: a bound on the work of one "nothing fits"
CLUSTER_MAX_GPUS = 64  # the largest cluster the estimate sizes for "several servers"
HEAVIER_THAN_FP8 = ("fp32", "bf16", "fp16")
HEAVIER_THAN_Q4 = ("fp32", "bf16", "fp16", "fp8", "int8", "q8_0", "q6_k", "q5_k_m", "q5_k_s")
# A lighter precision is suggested beside a build that fits as asked only when its build costs at most this
# share of it (≥ 15 % less: "materially less", HEURISTIC — the issue-34 trial's threshold for a quote an
# engineer would re-send).
CHEAPER_SHARE = Decimal("0.85")

# What a lighter precision gives up, with its source:
# - FP8 W8A8: Kurtic et al., "Give Me BF16 or Give Me Death? Accuracy-Performance Trade-Offs in LLM
#   Quantization", ACL 2025 (arXiv:2411.02355), >500,000 evaluations of the Llama-3.1 family in vLLM: FP8 is
#   effectively lossless at every scale (~99 %+ recovery on the OpenLLM leaderboard tasks, MMLU included);
#   Neural Magic / Red Hat publish the same for Qwen2.5-72B-Instruct-FP8-dynamic on its model card.
# - INT4 weight-only (AWQ/GPTQ, W4A16): the same study, "competitive with 8-bit INT", i.e. 1–3 % lower scores.
# - Q4_K_M (llama.cpp): HEURISTIC — treated as INT4 weight-only (the study above); llama.cpp's quantize README
#   lists its perplexity rise over F16 per model.
QUALITY = {
    "fp8": Phrase("FP8 scores within about 1 %% of BF16 on MMLU-class benchmarks (arXiv:2411.02355)"),
    "int4": Phrase("INT4 AWQ weights score 1–3 %% lower than BF16 (arXiv:2411.02355)"),
    "q4_k_m": Phrase("Q4_K_M weights score a few %% lower than 16-bit ones (HEURISTIC, as INT4 in arXiv:2411.02355)"),
}


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


def gives_up(candidate: Candidate, asked: Workload) -> Phrase | None:
    """What a suggested build gives up of the request as asked (None: nothing): the per-user speed target.
    Budget, limits and the delivery date are kept by the run itself (the same constraints)."""
    target = speed_target(asked)
    if target is None or candidate.decode_tokens_per_s_per_user >= target:
        return None
    # rounded as every other speed is (the offer beside it says the same figure: 5.29 → "5.3" in both), but
    # down when rounding would reach the target: a speed below it is never shown as it (19.96 → "19.9")
    fast = candidate.decode_tokens_per_s_per_user
    shown = round(fast, 1) if round(fast, 1) < target else math.floor(fast * 10) / 10
    speed = Num(shown, 1)
    if asked.target_tokens_per_s is None:
        return Phrase(
            "but only %(speed)s of the default interactive %(target)s tokens/s per user",
            speed=speed,
            target=Num(target, None),
        )
    return Phrase(
        "but only %(speed)s of the %(target)s tokens/s per user asked for", speed=speed, target=Num(target, None)
    )


@dataclass
class _Runs:
    cheapest: Cheapest
    asked: Workload | None = None  # the request as asked: a suggestion says what its build gives up of it
    left: int = MAX_RUNS
    single_machine: bool = False  # some machine of the catalog holds the workload as asked, limits lifted
    soonest: date | None = None  # no build of any workload ships before this date (proven by the caller)

    def __call__(self, workload: Workload, constraints: Constraints) -> Candidate | None:
        if self.left <= 0:
            return None
        if self.soonest is not None and constraints.deliver_by is not None and constraints.deliver_by < self.soonest:
            return None  # proven empty: not run, and not counted
        self.left -= 1
        return self.cheapest(workload, constraints)

    def offer(self, candidate: Candidate, keeps_speed: bool = True) -> Phrase:
        """The build and its price, and what it gives up of the request (`keeps_speed`: the suggestion keeps
        the speed target, so a build below it says by how much)."""
        said = offer(candidate)
        if self.asked is not None and self.asked.task != "inference" and candidate.training_tokens_per_s > 0:
            # trial 34 U07: a training suggestion says its build's speed, as the inference ones do
            said = Phrase(
                "%(offer)s, trains ≈ %(speed)s tokens/s", offer=said, speed=Num(candidate.training_tokens_per_s)
            )
        lost = gives_up(candidate, self.asked) if keeps_speed and self.asked is not None else None
        return Phrase("%(offer)s, %(lost)s", offer=said, lost=lost) if lost is not None else said


def _first_meeting(
    run: _Runs, tries: Iterable[tuple[Workload, T]], constraints: Constraints
) -> tuple[Candidate, T] | None:
    """The first try whose build meets the request's speed target; else the first with any build (its
    suggestion then says what it gives up); None when no try has a build."""
    fallback: tuple[Candidate, T] | None = None
    for changed, what in tries:
        found = run(changed, constraints)
        if found is None:
            continue
        if run.asked is None or gives_up(found, run.asked) is None:
            return found, what
        if fallback is None:
            fallback = (found, what)
    return fallback


def knob_changes(workload: Workload) -> list[tuple[Workload, Phrase]]:
    """Training knobs that keep the job and need less GPU memory, each as (changed workload, what it says),
    gentlest first, then all of them together:

    - gradient checkpointing keeps one input per layer and recomputes the rest in the backward pass (Chen
      et al. 2016, "Training Deep Nets with Sublinear Memory Cost", https://arxiv.org/abs/1604.06174), at
      about one more forward pass of compute;
    - micro-batch 1 with gradient accumulation keeps the effective batch (the Hugging Face Trainer's
      `gradient_accumulation_steps`, https://huggingface.co/docs/transformers/perf_train_gpu_one) and holds
      one sequence's activations at a time;
    - Unsloth offloads the checkpointed layer inputs to host RAM and fuses the LoRA kernels
      (https://github.com/unslothai/unsloth, README: "70% less VRAM"); LoRA and QLoRA only.
    """
    if workload.task == "inference":
        return []
    changes: list[tuple[Workload, Phrase]] = []
    together = workload
    if not workload.gradient_checkpointing:
        changes.append(
            (
                replace(workload, gradient_checkpointing=True),
                Phrase("turn on gradient checkpointing (about a third more compute per step)"),
            )
        )
        together = replace(together, gradient_checkpointing=True)
    if workload.batch_size > 1:
        changes.append(
            (
                replace(workload, batch_size=1),
                Phrase(
                    "train with micro-batch 1 and %(steps)s gradient-accumulation steps (the same effective batch)",
                    steps=workload.batch_size,
                ),
            )
        )
        together = replace(together, batch_size=1)
    if workload.task in ("lora", "qlora") and workload.framework != "unsloth":
        changes.append(
            (
                replace(workload, framework="unsloth", gradient_checkpointing=True),
                Phrase("train with Unsloth (layer inputs offloaded to host RAM)"),
            )
        )
        together = replace(together, framework="unsloth", gradient_checkpointing=True)
    if len(changes) > 1:
        # named, not "all of these": the suggestions show at most two knobs, so "these" may be one of them
        named = changes[-1][1]
        for _, words in reversed(changes[:-1]):
            named = Phrase("%(first)s; %(rest)s", first=words, rest=named)
        changes.append((together, Phrase("%(changes)s, all together", changes=named)))
    return changes


def _knobs(workload: Workload, constraints: Constraints, run: _Runs, beat: Decimal | None = None) -> Iterator[Phrase]:
    """Training knobs (`knob_changes`) that make a build fit, or (`beat`: the price of the build that fits
    as asked) a cheaper one; at most two, the first that works and the cheapest."""
    said: list[tuple[Decimal, Phrase]] = []
    for changed, words in knob_changes(workload):
        found = run(changed, constraints)
        if found is None or (beat is not None and found.price.gross >= beat):
            continue
        if said and found.price.gross >= said[-1][0]:
            continue
        said.append((found.price.gross, Phrase("%(knob)s: %(offer)s", knob=words, offer=run.offer(found))))
    yield from (phrase for _, phrase in said[:1] + said[1:][-1:])


def cheaper_with_knobs(
    workload: Workload, constraints: Constraints, cheapest: Cheapest, first: Candidate
) -> tuple[Phrase, ...]:
    """When a training build fits as asked: the knobs that fit a cheaper one (`_knobs`), each proven."""
    run = _Runs(cheapest, asked=workload, left=len(knob_changes(workload)))
    return tuple(_knobs(workload, constraints, run, beat=first.price.gross))


def _lighter(workload: Workload, constraints: Constraints, run: _Runs) -> Iterator[Phrase]:
    """Keep the job, run it lighter: precision, QLoRA, an 8-bit optimizer, LoRA."""
    if workload.task == "inference":
        tries: list[tuple[str, str]] = []
        if workload.precision in HEAVIER_THAN_FP8:
            tries.append(("fp8", "vllm"))
        if workload.precision in HEAVIER_THAN_Q4:
            tries.extend((("q4_k_m", "llama.cpp"), ("int4", "vllm")))
        best = _first_meeting(run, ((replace(workload, precision=p, engine=e), (p, e)) for p, e in tries), constraints)
        if best is not None:
            quantized, (precision, engine) = best
            yield _quantized(run, quantized, precision, engine)
        elif tries and constraints.max_price is not None and hybrid_wanted(replace(workload, concurrent_users=1)):
            # an MoE giant over the budget: what the quantized build costs, so the answer says why none fits
            precision, engine = "q4_k_m", "llama.cpp"
            found = run(replace(workload, precision=precision, engine=engine), replace(constraints, max_price=None))
            if found is not None:
                yield Phrase(
                    "quantized to %(precision)s (%(engine)s) it still needs %(offer)s, over the %(budget)s "
                    "%(currency)s budget",
                    precision=precision.upper(),
                    engine=engine,
                    offer=_quantized_offer(run, found),
                    budget=Num(constraints.max_price),
                    currency=found.price.currency,
                )
        return
    knobbed = list(_knobs(workload, constraints, run))
    yield from knobbed
    # when no knob alone fits a build, the lighter methods are tried with the gentle knobs on too (a
    # 70B full fine-tune at micro-batch 4 without checkpointing fits nowhere even as QLoRA)
    gentle = replace(workload, gradient_checkpointing=True, batch_size=1)
    base = gentle if not knobbed and gentle != workload else workload

    def said(tip: Phrase) -> Phrase:
        if base is workload:
            return tip
        return Phrase("with gradient checkpointing and micro-batch 1, %(tip)s", tip=tip)

    if workload.task in ("full_finetune", "lora"):
        found = run(replace(base, task="qlora", optimizer="adamw"), constraints)
        if found:
            yield said(Phrase("fine-tune with QLoRA (4-bit base weights): %(offer)s", offer=run.offer(found)))
    if workload.task == "full_finetune" and workload.optimizer == "adamw":
        found = run(replace(base, optimizer="adamw_8bit"), constraints)
        if found:
            yield said(Phrase("use an 8-bit Adam optimizer (bitsandbytes): %(offer)s", offer=run.offer(found)))
    if workload.task == "full_finetune":
        found = run(replace(base, task="lora"), constraints)
        if found:
            yield said(Phrase("fine-tune with LoRA instead: %(offer)s", offer=run.offer(found)))


def _quantized_offer(run: _Runs, found: Candidate) -> Phrase:
    """The build, its price and its speed per user (and, below the target, by how much)."""
    return Phrase(
        "%(offer)s, ≈ %(speed)s tokens/s per user",
        offer=run.offer(found),
        speed=Num(found.decode_tokens_per_s_per_user, 1),
    )


def _quantized(run: _Runs, found: Candidate, precision: str, engine: str, saved: Decimal | None = None) -> Phrase:
    """A lighter precision as a suggestion says it: the build, its price (and `saved`: the share less than
    the build as asked), its speed, what it gives up of the request and of the model's quality."""
    said = _quantized_offer(run, found)
    if saved is not None:
        said = Phrase("%(offer)s (%(saved)s %% cheaper)", offer=said, saved=Num(saved * 100))
    how = engine
    if precision == "fp8" and precision_support(found.build.gpus[0].spec, "fp8") == "weight_only":
        how = Phrase("%(engine)s, weight-only: the GPU has no FP8 tensor cores", engine=engine)
    quality = QUALITY.get(precision)
    if quality is not None:
        said = Phrase("%(offer)s; it gives up: %(quality)s", offer=said, quality=quality)
    return Phrase("quantize to %(precision)s (%(how)s): %(offer)s", precision=precision.upper(), how=how, offer=said)


def precision_tries(workload: Workload) -> list[tuple[str, str]]:
    """The lighter precisions (precision, engine) worth pricing beside a BF16/FP16 inference build that fits,
    gentlest first: FP8 then INT4 AWQ for a vLLM-class request, Q4_K_M for a llama.cpp one."""
    if workload.task != "inference" or workload.precision not in HEAVIER_THAN_FP8:
        return []
    if workload.engine == "llama.cpp":
        return [("q4_k_m", "llama.cpp")]
    engine = workload.engine if workload.engine in ("vllm", "sglang", "tensorrt-llm") else "vllm"
    return [("fp8", engine), ("int4", "vllm")]


def cheaper_precision(
    workload: Workload, constraints: Constraints, cheapest: Cheapest, first: Candidate
) -> tuple[Phrase, ...]:
    """When an inference build fits as asked in BF16/FP16: the gentlest lighter precision (`precision_tries`)
    whose build meets the whole request (budget, limits, delivery date, speed target) for at most
    `CHEAPER_SHARE` of its price, said with what it gives up; () when none does. Each run is capped at that
    price and at the fitting build's GPU count (HEURISTIC bound: a lighter precision is sold to save GPUs,
    and the cap keeps the run from estimating every larger count — +28 % CPU time on the W01 request instead
    of +85 %), so the search prunes every stream above them (bounded: one run, two when FP8 saves nothing)."""
    tries = precision_tries(workload)
    if not tries:
        return ()
    cap = (first.price.gross * CHEAPER_SHARE).quantize(Decimal("0.01"))
    most = min(first.build.gpu_count, constraints.max_gpus or first.build.gpu_count)
    capped = replace(constraints, max_price=min(cap, constraints.max_price or cap), max_gpus=most)
    run = _Runs(cheapest, asked=workload, left=len(tries))
    for precision, engine in tries:
        found = run(replace(workload, precision=precision, engine=engine), capped)
        if found is None or gives_up(found, workload) is not None:
            continue
        saved = 1 - found.price.gross / first.price.gross
        return (_quantized(run, found, precision, engine, saved=saved),)
    return ()


def _smaller(workload: Workload, constraints: Constraints, run: _Runs) -> Iterator[Phrase]:
    """Shrink the job: a shorter sequence or context, fewer users, a lower speed target."""
    if workload.task != "inference":
        length = workload.sequence_length // 2
        while length >= 512:
            found = run(replace(workload, sequence_length=length), constraints)
            if found:
                yield Phrase(
                    "train on sequences of %(tokens)s tokens: %(offer)s", tokens=Num(length), offer=run.offer(found)
                )
                break
            length //= 2
        return
    contexts = []
    context = workload.context_tokens // 2
    while context >= 2048:
        contexts.append(context)
        context //= 2
    shorter = _first_meeting(run, ((replace(workload, context_tokens=c), c) for c in contexts), constraints)
    if shorter is not None:
        yield Phrase(
            "shorten the context to %(tokens)s tokens (the KV cache shrinks with it): %(offer)s",
            tokens=Num(shorter[1]),
            offer=run.offer(shorter[0]),
        )
    counts = []
    users = workload.concurrent_users // 2
    while users >= 1:
        counts.append(users)
        users //= 2
    fewer = _first_meeting(run, ((replace(workload, concurrent_users=u), u) for u in counts), constraints)
    if fewer is not None:
        yield Phrase.plural(
            "serve %(users)s user at once: %(offer)s",
            "serve %(users)s users at once: %(offer)s",
            "users",
            users=fewer[1],
            offer=run.offer(fewer[0]),
        )
    if workload.target_tokens_per_s:
        found = run(replace(workload, target_tokens_per_s=None), constraints)
        if found:
            yield Phrase(
                "drop the %(target)s tokens/s per user target: %(offer)s",
                target=Num(workload.target_tokens_per_s, None),
                offer=run.offer(found, keeps_speed=False),
            )


def _limits(workload: Workload, constraints: Constraints, run: _Runs) -> Iterator[Phrase]:
    """Spend more: the cheapest build with every limit lifted, and which limits it needs lifted."""
    open_limits = replace(
        constraints,
        max_price=None,
        form_factor="any",
        max_power_w=None,
        max_gpus=None,
        chassis=(),
        site_voltage=230,
        deliver_by=None,  # a date no build meets is said by the earliest-date suggestion
    )
    lifted = run(workload, open_limits) if open_limits != constraints else None
    run.single_machine = lifted is not None
    if lifted is not None:
        build, gross, what = lifted.build, lifted.price.gross, offer(lifted)
        if constraints.max_price is not None and gross > constraints.max_price:
            # a training knob that fits for less over the budget is the smaller raise, said first (trial tr34)
            yield from _knobs(workload, replace(constraints, max_price=None), run, beat=gross)
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
            yield Phrase("without the ECC requirement: %(offer)s", offer=run.offer(relaxed))


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
    earliest: Callable[[], Phrase | None] | None = None,
    soonest: date | None = None,
) -> tuple[Phrase, ...]:
    """Say what would work, most useful first (module docstring); `cluster` says how many servers would
    when no single machine does; `earliest` (a delivery date was asked) says the earliest date a build
    can ship when none ships by the date, first; `soonest`: no build of any workload ships before this date,
    so a suggestion under an earlier delivery date is not run (it would find nothing)."""
    run = _Runs(cheapest, asked=workload, soonest=soonest)
    tips: list[Phrase] = []
    if earliest is not None:
        date = earliest()
        if date is not None:
            tips.append(date)
    tips += [*_lighter(workload, constraints, run), *_smaller(workload, constraints, run)]
    tips.extend(_limits(workload, constraints, run))
    if cluster is not None and not run.single_machine:
        several = cluster()
        if several is not None:
            tips.append(several)
    if not tips:
        tips.append(Phrase("no catalog build fits this workload; ask a sales engineer for a multi-node cluster"))
    return tuple(dict.fromkeys(tips))  # a knob said within the budget is not said again over it
