"""Recommendations: the cheapest valid builds for a workload, with the reasons shown.

Pure: a CatalogSnapshot, a Workload and Constraints in; ranked Candidates out. Every candidate returned
has been run through `validate()` and has no error.

The search space is the one an integrator would quote, the *recommendation policy* (`policy`), shared
with the exhaustive reference search (tests/configurator/exhaustive.py) so both answer the same question.

Search (`recommend`): look-alike parts are priced once (`grouping`); estimate once per GPU model to get
the smallest count that fits (and, with a speed target, the smallest tensor-parallel count that meets it;
a fixed baseboard gets the next count it takes), keep the chassis that take that many, then per chassis
the cheapest CPUs with the cores and lanes, the cheapest policy memory and drives for the sized need
(`sizing`), and the cheapest PSU set for the resulting load; validate (unproven: errors and warnings);
a build with warnings is also offered with its warning fixes applied when that makes it clean; rank;
prove the fixes and say the reasons only for what is returned. The exhaustive reference walks every GPU
count, chassis, CPU and PSU set of the same space and validates each survivor; the tests and `make bench`
compare against it.

The modules, each using only those before it:

- `sizing`: the CPU cores, RAM and storage a workload asks for, with the sources and HEURISTIC labels;
- `policy`: which parts a build gets for a set of GPUs (pools, CPUs, memory, drive, PSUs, NVLink) and
  the GPU options (`count` × one GPU model, estimated);
- `grouping`: the catalog with one part per set of identical specs, the cheapest;
- `parts`: the policy's part lists per catalog snapshot, remembered, and the search's memos of earlier
  requests (their streams, priced builds and candidates' verdicts, which a repeated request reuses);
- `assembly`: the policy builds of one chassis and GPU option, priced and validated (`Judge`);
- `reasons`: why each candidate is there, in sentences;
- `search`: lazy streams of builds with lower bounds;
- `picking`: the heap search over the streams, the alternatives;
- `suggestions`: what would fit when nothing does, most useful first, each with its build and price.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

from configurator.engine.availability import BuildAvailability, ships_soonest
from configurator.engine.estimate import estimate, remembering_estimates
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import LazyTexts, Num, Phrase
from configurator.engine.recommend.assembly import Judge
from configurator.engine.recommend.grouping import grouped
from configurator.engine.recommend.hybrid import hybrid_options, hybrid_phrase, hybrid_wanted
from configurator.engine.recommend.parts import MOST_REMEMBERED, Parts, snapshot_parts
from configurator.engine.recommend.picking import pick_distinct
from configurator.engine.recommend.policy import (
    DEFAULT_RESERVE,
    GpuOption,
    VramReserve,
    drive_for,
    gpu_pool,
    max_gpus,
    profiled,
    reserve_assumption,
    speed_target,
    working,
)
from configurator.engine.recommend.search import Stream, StreamBounds, _gross, counts_to_try, stream_bounds
from configurator.engine.recommend.speedups import speedups
from configurator.engine.recommend.suggestions import (
    Cheapest,
    cheaper_precision,
    cheaper_with_knobs,
    gives_up,
    offer,
    several_servers,
    what_would_fit,
)
from configurator.engine.rules.context import active
from configurator.engine.types import (
    BuildSpec,
    Candidate,
    CatalogSnapshot,
    Constraints,
    Estimate,
    Line,
    StorageSpec,
    Workload,
)

__all__ = ["DEFAULT_RESERVE", "Recommendation", "VramReserve", "recommend", "speed_target"]


@direct_init
@dataclass(frozen=True, slots=True)
class Recommendation:
    estimate: Estimate  # the workload without a GPU (memory breakdown, assumptions)
    candidates: tuple[Candidate, ...]
    considered: int  # builds priced and validated
    # when nothing fits: what would (each re-run against the whole request); for training that fits: the
    # knobs that fit a cheaper build
    suggestions: tuple[str, ...]
    elapsed_ms: float


def recommend(
    snapshot: CatalogSnapshot,
    workload: Workload,
    constraints: Constraints,
    *,
    limit: int = 5,
    vat_percent: Decimal = Decimal(22),
    availability: Callable[[BuildSpec], BuildAvailability] | None = None,
    reserve: VramReserve = DEFAULT_RESERVE,
    suggest: bool = True,
) -> Recommendation:
    """`availability` (the suppliers' offers) makes `constraints.deliver_by` count and, between builds of
    equal price, puts the one whose parts are all in stock first. `reserve`: the VRAM each GPU of a
    recommended build keeps free (a setting of the caller's). `suggest`: when nothing fits, say what would
    (the runs it makes on changed workloads do not suggest in turn)."""
    started = time.perf_counter()
    # the builds validated share their estimates: same workload, GPUs, count and link graph → one estimate
    with remembering_estimates(snapshot_parts(snapshot).memo("estimates"), MOST_REMEMBERED["estimates"]):
        return _recommend(
            snapshot, workload, constraints, started, limit=limit, vat_percent=vat_percent,
            availability=availability, reserve=reserve, suggest=suggest,
        )  # fmt: skip


def _recommend(
    snapshot: CatalogSnapshot,
    workload: Workload,
    constraints: Constraints,
    started: float,
    *,
    limit: int,
    vat_percent: Decimal,
    availability: Callable[[BuildSpec], BuildAvailability] | None,
    reserve: VramReserve,
    suggest: bool,
) -> Recommendation:
    constraints = profiled(workload, constraints)
    workload = working(workload, constraints)
    # look-alike parts priced once (grouping), unless the caller names chassis or a delivery date, which
    # tell SKUs apart
    search = snapshot if constraints.chassis or constraints.deliver_by else grouped(snapshot)
    judge = Judge(search, constraints, vat_percent, availability=availability)
    drive = drive_for(search, workload)
    parts = snapshot_parts(search)
    # a date before the soonest any build ships: no search (every build would be read in vain)
    too_soon = _too_soon(snapshot, workload, constraints, vat_percent, reserve, availability)
    streams: list[Stream] = []
    if drive is not None and too_soon is None:
        plan = parts.remembered(
            "plans",
            (workload, constraints, reserve, vat_percent),
            lambda: _stream_plan(parts, judge, workload, reserve, drive),
        )
        streams = [Stream(judge, option, workstation, drive, bounds, parts) for option, workstation, bounds in plan]
    chosen = pick_distinct(streams, limit, workload, snapshot)
    cheapest = _cheapest(snapshot, vat_percent, reserve, availability)
    if not suggest:
        suggestions: tuple[str, ...] = ()
    elif chosen:
        # training: the knobs (micro-batch, checkpointing, Unsloth) that fit a cheaper build, each proven;
        # BF16/FP16 inference: a lighter precision that meets the whole request for materially less
        suggestions = (
            *cheaper_with_knobs(workload, constraints, cheapest, chosen[0]),
            *cheaper_precision(workload, constraints, cheapest, chosen[0]),
            # every build misses the speed target: a shorter prompt or several servers that meet it (issue 34)
            *speedups(workload, constraints, cheapest, chosen),
        )
    elif _missing(snapshot):
        suggestions = (
            Phrase(
                "the catalog has no active %(kinds)s: nothing can be recommended until catalog staff add them",
                kinds=", ".join(_missing(snapshot)),
            ),
        )
    else:
        deliver_by = constraints.deliver_by
        suggestions = what_would_fit(
            workload,
            constraints,
            cheapest,
            lambda: _cluster(search, workload),
            earliest=(
                (lambda: _earliest(snapshot, workload, constraints, deliver_by, vat_percent, reserve, availability))
                if deliver_by is not None and availability is not None
                else None
            ),
            soonest=too_soon,
        )
    if suggest:
        # one user of an MoE giant: the CPU-offload build beside the all-GPU ones (hybrid)
        offload = hybrid_options(snapshot, workload, constraints, vat_percent=vat_percent, reserve=reserve)
        alone, quantized = replace(workload, concurrent_users=1), ""
        if not offload and not chosen and workload.concurrent_users > 1 and hybrid_wanted(alone):
            # several users of an MoE giant that nothing fits: the offload build still serves one at a time
            # (at the precision asked, else at Q4_K_M), said with what it gives up
            for precision in dict.fromkeys((workload.precision, "q4_k_m")):
                offload = hybrid_options(
                    snapshot, replace(alone, precision=precision), constraints, vat_percent=vat_percent,
                    reserve=reserve,
                )  # fmt: skip
                if offload:
                    quantized = precision if precision != workload.precision else ""
                    break
        if offload and (not chosen or offload[0].candidate.price.gross < chosen[0].price.gross):
            lost = gives_up(offload[0].candidate, workload)  # below the speed target: said
            said = hybrid_phrase(offload[0])
            if lost is not None:
                said = Phrase("%(offer)s, %(lost)s", offer=said, lost=lost)
            if quantized:
                said = Phrase("quantized to %(precision)s, %(offer)s", precision=quantized.upper(), offer=said)
            if workload.concurrent_users > 1:
                said = Phrase(
                    "%(offer)s; it serves one user at a time, not the %(users)s at once asked (one stream uses "
                    "all of the CPU's RAM bandwidth)",
                    offer=said,
                    users=workload.concurrent_users,
                )
            suggestions = (*suggestions, said)
    plain = estimate(workload)
    # said when read (LazyTexts): a run made for a suggestion (`_cheapest`) reads only its candidates
    assumed = plain.assumptions
    return Recommendation(
        estimate=replace(plain, assumptions=LazyTexts(lambda: (*assumed, reserve_assumption(reserve)))),
        candidates=tuple(chosen),
        considered=judge.considered,
        suggestions=suggestions,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


def _stream_plan(
    parts: Parts, judge: Judge, workload: Workload, reserve: VramReserve, drive: Line[StorageSpec]
) -> tuple[tuple[GpuOption, bool, StreamBounds], ...]:
    """The streams to search, with their bounds: every GPU option worth trying (`counts_to_try`) of every
    GPU a chassis of the pool hosts, in each form-factor class of the pool, workstations first (remembered
    per snapshot: the same for every request about this workload, constraints and VAT).

    Only streams that can yield a build: one without a chassis that takes its GPUs (no floor), or whose floor
    is above the budget, would never be opened (`picking._best`, `Stream.head_price`), so it is not made;
    under a budget an option whose GPUs, drive and the pool's cheapest chassis floor already cost more is
    not bounded, and a GPU of which one card does not fit is not sized at all (a stream's floor is at least
    that). A capped run — the lighter-precision suggestion, capped at a share of
    the fitting build's price — then prices only the GPUs it can afford (issue 34: most of such a run was
    sizing and bounding streams it would never open)."""
    search, constraints = judge.snapshot, judge.constraints
    pool = parts.chassis_pool(constraints)
    most = max((max_gpus(c, constraints) for c in pool), default=0)
    classes = sorted({c.is_workstation for c in pool}, reverse=True)
    budget, vat = constraints.max_price, judge.vat_percent
    # the least any build spends besides its GPUs and bridges: the drive and the cheapest chassis floor of
    # the pool (chassis, cheapest CPUs, cheapest PSU set; `Parts.takers` adds sized CPUs and memory to it)
    floors = [floor for floor in (parts.chassis_floor(chassis) for chassis in pool) if floor is not None]
    least = drive.spec.price * drive.qty + min(floors, default=Decimal(0))
    plan = []
    for gpu in gpu_pool(search, workload, constraints):
        if not parts.hosts(gpu, constraints):
            continue
        if budget is not None and _gross(gpu.price + least, vat) > budget:
            continue
        for option in counts_to_try(search, workload, gpu, most, reserve, pool, constraints):
            if budget is not None and _gross(gpu.price * option.count + least, vat) > budget:
                continue
            for workstation in classes:
                bounds = stream_bounds(parts, judge, option, workstation, drive)
                floor = bounds[3]
                if floor is not None and (budget is None or floor <= budget):
                    plan.append((option, workstation, bounds))
    return tuple(plan)


def _missing(snapshot: CatalogSnapshot) -> tuple[str, ...]:
    """The part kinds every build needs of which the catalog has no active row."""
    kinds: tuple[tuple[str, bool], ...] = (
        ("GPUs", bool(active(snapshot.gpus))),
        ("chassis", bool(active(snapshot.chassis))),
        ("CPUs", bool(active(snapshot.cpus))),
        ("PSUs", bool(active(snapshot.psus))),
        ("memory", bool(active(snapshot.memory))),
        ("storage", bool(active(snapshot.storage))),
    )
    return tuple(name for name, present in kinds if not present)


def _cluster(snapshot: CatalogSnapshot, workload: Workload) -> Phrase | None:
    """How many servers of the catalog would hold the workload when no single one does (no limits)."""
    open_limits = profiled(workload, Constraints())
    pool = snapshot_parts(snapshot).chassis_pool(open_limits)
    return several_servers(
        workload, gpu_pool(snapshot, workload, open_limits), pool, lambda chassis: max_gpus(chassis, open_limits)
    )


def _cheapest(
    snapshot: CatalogSnapshot,
    vat_percent: Decimal,
    reserve: VramReserve,
    availability: Callable[[BuildSpec], BuildAvailability] | None = None,
) -> Cheapest:
    """`recommend` run again on the same catalog for another workload or constraints: its first candidate
    (with the same offers, so a delivery date still counts)."""

    def cheapest(workload: Workload, constraints: Constraints) -> Candidate | None:
        found = recommend(
            snapshot,
            workload,
            constraints,
            limit=1,
            vat_percent=vat_percent,
            reserve=reserve,
            availability=availability,
            suggest=False,
        ).candidates
        return found[0] if found else None

    return cheapest


def _too_soon(
    snapshot: CatalogSnapshot,
    workload: Workload,
    constraints: Constraints,
    vat_percent: Decimal,
    reserve: VramReserve,
    availability: Callable[[BuildSpec], BuildAvailability] | None,
) -> date | None:
    """When `constraints.deliver_by` comes before the soonest any build can ship: that soonest date (else
    None). The cheapest build without a date proves it when its slowest part is one in stock
    (`ships_soonest`): no build of any workload ships sooner, so a search under an earlier date, and every
    suggestion re-run under it, would read every build in vain (a 70B model due in 5 working days read 5,701
    builds, and its suggestions 12 searches more: 10–38 s)."""
    asked = constraints.deliver_by
    if asked is None or availability is None:
        return None
    plain = _cheapest(snapshot, vat_percent, reserve, availability)(workload, replace(constraints, deliver_by=None))
    if plain is None:
        return None
    shipping = availability(plain.build)
    if shipping.ship_date is None or shipping.ship_date <= asked or not ships_soonest(shipping):
        return None
    return shipping.ship_date


def _earliest(
    snapshot: CatalogSnapshot,
    workload: Workload,
    constraints: Constraints,
    asked: date,
    vat_percent: Decimal,
    reserve: VramReserve,
    availability: Callable[[BuildSpec], BuildAvailability],
) -> Phrase | None:
    """When no build ships by `constraints.deliver_by`: the earliest date one does, with that build — a
    bisection over delivery dates (a later date only admits more builds), each step the recommender run
    with that date, from the deadline to the ship date of the cheapest build without one; None when no build
    meets the other limits at all (the other suggestions say what would)."""
    cheapest = _cheapest(snapshot, vat_percent, reserve, availability)
    plain = cheapest(workload, replace(constraints, deliver_by=None))
    if plain is None:
        return None
    shipping = availability(plain.build)
    ship = shipping.ship_date
    if ship is None:
        return Phrase(
            "nothing ships by %(asked)s, and no date can be said: the cheapest build's %(parts)s have no live "
            "supplier offer",
            asked=asked.isoformat(),
            parts=", ".join(shipping.without_offer),
        )
    low, high = asked, ship  # nothing ships by `low`; a build ships by `high` (checked below)
    found = cheapest(workload, replace(constraints, deliver_by=high))
    if found is None:
        return None
    while (high - low).days > 1 and not ships_soonest(shipping):  # soonest: no earlier date can do
        middle = low + timedelta(days=(high - low).days // 2)
        probe = cheapest(workload, replace(constraints, deliver_by=middle))
        if probe is None:
            low = middle
        else:
            high, found = middle, probe
    first = Phrase(
        "nothing ships by %(asked)s: the earliest a build can ship is %(date)s (%(offer)s)",
        asked=asked.isoformat(),
        date=(availability(found.build).ship_date or high).isoformat(),
        offer=offer(found),
    )
    target = speed_target(workload)
    if workload.task != "inference" or target is None or gives_up(found, workload) is None:
        return first
    # trial 34 U05: the earliest build misses the speed target — say by how much, and when (and for how much)
    # the earliest build that meets it ships: the top-ranked build under a date meets the target whenever any
    # does (ranking), so a later date only helps, and the same bisection finds it
    slow = Phrase(
        "%(first)s, but it serves only %(speed)s tokens/s per user, %(share)s%% short of the %(target)s asked for",
        first=first,
        speed=Num(found.decode_tokens_per_s_per_user, 1),
        share=Num((1 - found.decode_tokens_per_s_per_user / target) * 100),
        target=Num(target, None),
    )
    if gives_up(plain, workload) is not None:
        return Phrase("%(slow)s; no build meets that speed by any date", slow=slow)
    low, high, met = high, ship, plain
    while (high - low).days > 1:
        middle = low + timedelta(days=(high - low).days // 2)
        probe = cheapest(workload, replace(constraints, deliver_by=middle))
        if probe is None or gives_up(probe, workload) is not None:
            low = middle
        else:
            high, met = middle, probe
    return Phrase(
        "%(slow)s; the earliest build that meets it ships %(date)s (%(offer)s)",
        slow=slow,
        date=(availability(met.build).ship_date or high).isoformat(),
        offer=offer(met),
    )
