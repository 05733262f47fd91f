"""Recommendations: the cheapest valid builds for a workload, with the reasons shown.

Pure: a CatalogSnapshot, a Workload and Constraints in; ranked Candidates out. Every candidate returned
has been run through `validate()` and has no error.

The search space is the one an integrator would quote, the *recommendation policy* (`policy`), shared
with the exhaustive reference search below so both answer the same question.

Search (`recommend`): estimate once per GPU model to get the smallest count that fits (and, with a
speed target, the smallest tensor-parallel count that meets it), keep the chassis that take that many,
then per chassis the cheapest CPUs that give the lanes, the cheapest policy memory and drive, and the
cheapest PSU set for the resulting load; validate; rank. `exhaustive_search` walks every GPU count,
chassis, CPU and PSU set of the same space and validates each survivor — the reference the tests and
`make bench` compare against.

The modules, each using only those before it:

- `policy`: which parts a build gets for a set of GPUs (pools, CPUs, memory, drive, PSUs, NVLink) and
  the GPU options (`count` × one GPU model, estimated);
- `parts`: the policy's part lists per catalog snapshot, remembered;
- `assembly`: the policy builds of one chassis and GPU option, priced and validated (`Judge`);
- `reasons`: why each candidate is there, in sentences;
- `search`: lazy streams of builds with lower bounds, the heap search over them, the alternatives;
- `suggestions`: what would fit when nothing does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from decimal import Decimal

from configurator.engine.estimate import estimate
from configurator.engine.recommend.assembly import Judge, complete_builds
from configurator.engine.recommend.parts import snapshot_parts
from configurator.engine.recommend.policy import (
    chassis_pool,
    drive_options,
    fits,
    gpu_option,
    gpu_pool,
    max_gpus,
    speed_target,
    working,
)
from configurator.engine.recommend.search import Stream, counts_to_try, pick_distinct
from configurator.engine.recommend.suggestions import Cheapest, what_would_fit
from configurator.engine.rules.context import chassis_takes_gpu
from configurator.engine.types import Candidate, CatalogSnapshot, Constraints, Estimate, Workload

__all__ = ["Recommendation", "exhaustive_search", "recommend", "speed_target"]


@dataclass(frozen=True, slots=True)
class Recommendation:
    estimate: Estimate  # the workload without a GPU (memory breakdown, assumptions)
    candidates: tuple[Candidate, ...]
    considered: int  # builds priced and validated
    suggestions: tuple[str, ...]  # when nothing fits: what would
    elapsed_ms: float


def recommend(
    snapshot: CatalogSnapshot,
    workload: Workload,
    constraints: Constraints,
    *,
    limit: int = 5,
    vat_percent: Decimal = Decimal(22),
) -> Recommendation:
    started = time.perf_counter()
    workload = working(workload, constraints)
    judge = Judge(snapshot, constraints, vat_percent)
    drives = drive_options(snapshot, workload)
    drive = min(drives, key=lambda d: (d.price, d.sku)) if drives else None
    parts = snapshot_parts(snapshot)
    streams: list[Stream] = []
    pool = parts.chassis_pool(constraints)
    most = max((max_gpus(c, constraints) for c in pool), default=0)
    classes = sorted({c.is_workstation for c in pool}, reverse=True)
    for gpu in gpu_pool(snapshot, workload, constraints):
        if drive is None or not parts.hosts(gpu, constraints):
            continue
        for option in counts_to_try(snapshot, workload, gpu, most):
            streams.extend(Stream(judge, option, workstation, drive) for workstation in classes)
    chosen = pick_distinct(streams, limit, workload)
    suggestions = () if chosen else what_would_fit(workload, constraints, _cheapest(snapshot, vat_percent))
    return Recommendation(
        estimate=estimate(workload),
        candidates=tuple(chosen),
        considered=judge.considered,
        suggestions=suggestions,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


def _cheapest(snapshot: CatalogSnapshot, vat_percent: Decimal) -> Cheapest:
    """`recommend` run again on the same catalog for another workload or constraints: its first candidate."""

    def cheapest(workload: Workload, constraints: Constraints) -> Candidate | None:
        found = recommend(snapshot, workload, constraints, limit=1, vat_percent=vat_percent).candidates
        return found[0] if found else None

    return cheapest


def _rank_key(candidate: Candidate, target: float | None, task: str) -> tuple[int, Decimal, float, str]:
    slow = int(task == "inference" and target is not None and candidate.decode_tokens_per_s_per_user < target)
    gpu = candidate.build.gpus[0].spec.sku
    return (slow, candidate.price.gross, -candidate.decode_tokens_per_s_total, f"{gpu}/{candidate.build.chassis.sku}")


# --------------------------------------------------------------------------- the exhaustive reference


def exhaustive_search(
    snapshot: CatalogSnapshot, workload: Workload, constraints: Constraints, *, vat_percent: Decimal = Decimal(22)
) -> tuple[Candidate | None, int]:
    """Reference for tests and benchmarks: every GPU model × every count × every chassis × every CPU ×
    every carrying PSU set of the policy space, each priced and validated; the cheapest valid build
    (speed target first, as in `recommend`). Returns it and the number of builds validated."""
    workload = working(workload, constraints)
    judge = Judge(snapshot, constraints, vat_percent)
    drives = drive_options(snapshot, workload)
    if not drives:
        return None, 0
    drive = min(drives, key=lambda d: (d.price, d.sku))
    target = speed_target(workload)
    best: Candidate | None = None
    chassis_list = chassis_pool(snapshot, constraints)
    for gpu in gpu_pool(snapshot, workload, constraints):
        most = max((max_gpus(c, constraints) for c in chassis_list), default=0)
        for count in range(1, most + 1):
            option = gpu_option(snapshot, workload, gpu, count)
            if not fits(option):
                continue  # the workload.vram rule would refuse every build of this option
            for chassis in chassis_list:
                if count > max_gpus(chassis, constraints) or not chassis_takes_gpu(chassis, gpu, count):
                    continue  # the fit/cooling rules would refuse it
                cpus = snapshot_parts(snapshot).cpus(chassis)
                for build in complete_builds(snapshot, chassis, option, cpus, drive, constraints, every_psu_set=True):
                    # exact pruning: a build in a slower class than the best, or dearer in the same class,
                    # cannot win, so it is not validated
                    beat = None
                    if best is not None:
                        slow = int(not option.meets(target))
                        best_slow = _rank_key(best, target, workload.task)[0]
                        if slow > best_slow:
                            continue
                        if slow == best_slow:
                            beat = best.price.gross
                    candidate = judge.candidate(build, option, beat=beat)
                    if candidate is None:
                        continue
                    if best is None or _rank_key(candidate, target, workload.task) < _rank_key(
                        best, target, workload.task
                    ):
                        best = candidate
    return best, judge.considered
