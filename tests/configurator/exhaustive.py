"""The exhaustive reference search the recommender is checked against (tests/configurator/test_recommend.py)
and timed against (`make bench`, bench/bench_recommend.py).

It walks the same policy space as `configurator.engine.recommend.recommend` — every GPU model × every
count × every chassis × every CPU × every carrying PSU set — and validates each survivor, so the two must
agree on the cheapest valid build.
"""

from __future__ import annotations

from decimal import Decimal

from configurator.engine.recommend.assembly import Judge, complete_builds
from configurator.engine.recommend.parts import snapshot_parts
from configurator.engine.recommend.policy import (
    chassis_pool,
    count_quoted,
    drive_for,
    fits,
    gpu_option,
    gpu_pool,
    max_gpus,
    profiled,
    speed_target,
    takes,
    working,
)
from configurator.engine.recommend.ranking import EOL_RANK_WEIGHT, ranked_price
from configurator.engine.recommend.ranking import warned as ranking_warned
from configurator.engine.types import Candidate, CatalogSnapshot, Constraints, Workload


def _rank_key(candidate: Candidate, target: float | None, workload: Workload) -> tuple[int, int, Decimal, float, str]:
    """As `recommend` ranks: the speed target met first, then builds without a warning that matters to the
    workload (recommend.ranking), then price."""
    slow = int(workload.task == "inference" and target is not None and candidate.decode_tokens_per_s_per_user < target)
    warned = ranking_warned(candidate, workload, target)
    gpu = candidate.build.gpus[0].spec.sku
    return (
        slow,
        warned,
        ranked_price(candidate.price.gross, candidate.build.gpus[0].spec),
        -candidate.decode_tokens_per_s_total,
        f"{gpu}/{candidate.build.chassis.sku}",
    )


def exhaustive_search(
    snapshot: CatalogSnapshot, workload: Workload, constraints: Constraints, *, vat_percent: Decimal = Decimal(22)
) -> tuple[Candidate | None, int]:
    """Reference for tests and benchmarks: every GPU model × every count × every chassis × every CPU ×
    every carrying PSU set of the policy space, each priced and validated; the cheapest valid build
    (speed target first, then no warnings, as in `recommend`). Returns it and the number of builds validated."""
    constraints = profiled(workload, constraints)  # the same profile restrictions as `recommend`
    workload = working(workload, constraints)
    judge = Judge(snapshot, constraints, vat_percent)
    drive = drive_for(snapshot, workload)
    if drive is None:
        return None, 0
    target = speed_target(workload)
    best: Candidate | None = None
    chassis_list = chassis_pool(snapshot, constraints)
    for gpu in gpu_pool(snapshot, workload, constraints):
        most = max((max_gpus(c, constraints) for c in chassis_list), default=0)
        for count in range(1, most + 1):
            if not count_quoted(workload, count):
                continue  # tensor parallel on 1, 2, 4 or 8 GPUs only, as recommend
            option = gpu_option(snapshot, workload, gpu, count)
            if not fits(option):
                continue  # the workload.vram rule would refuse every build of this option
            for chassis in chassis_list:
                if count > max_gpus(chassis, constraints) or not takes(chassis, gpu, count):
                    continue  # the fit/cooling rules would refuse it
                cpus = snapshot_parts(snapshot).cpus(chassis)
                for build in complete_builds(snapshot, chassis, option, cpus, drive, constraints, every_psu_set=True):
                    # exact pruning: a build in a slower class than the best, or dearer in the same class
                    # than a best without warnings, cannot win, so it is not validated
                    beat = None
                    if best is not None:
                        slow = int(workload.task == "inference" and not option.meets(target))
                        best_slow, best_warned = _rank_key(best, target, workload)[:2]
                        if slow > best_slow:
                            continue
                        if slow == best_slow and not best_warned:
                            # the price this option's builds must stay under to rank before the best
                            beat = _rank_key(best, target, workload)[2]
                            if gpu.end_of_life:
                                beat = beat / EOL_RANK_WEIGHT
                    candidate = judge.candidate(build, option, beat=beat)
                    if candidate is None:
                        continue
                    if best is None or _rank_key(candidate, target, workload) < _rank_key(best, target, workload):
                        best = candidate
    return best, judge.considered
