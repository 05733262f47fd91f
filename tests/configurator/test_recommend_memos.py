"""The recommender's shortcuts answer as the long way does (issue 34, recommend speed): a build validated from
its sibling (`validate_unproven(like=…)`) gets validate()'s verdict; an estimate remembered during a search is
estimate()'s; a PSU set priced before its build is made costs what the build costs."""

from __future__ import annotations

from decimal import Decimal

import pytest

from configurator.engine.builds import build_price
from configurator.engine.errors import DomainError
from configurator.engine.estimate import estimate, remembering_estimates
from configurator.engine.recommend import recommend
from configurator.engine.recommend.assembly import Judge, complete_builds, policy_bases, with_psus
from configurator.engine.recommend.parts import snapshot_parts
from configurator.engine.recommend.policy import drive_for, profiled, working
from configurator.engine.recommend.search import Stream, _Pending
from configurator.engine.types import BuildSpec, CatalogSnapshot, Estimate, Workload
from configurator.engine.validate import validate, validate_unproven
from configurator.use_cases import use_cases

CASES = {case.title: case for case in use_cases()}
VAT = Decimal(22)  # recommend()'s default VAT


def _policy_builds(snapshot: CatalogSnapshot, title: str) -> tuple[Workload, list[BuildSpec]]:
    """The policy builds (every PSU set of every CPU) of the chassis and GPU option of the use case's first
    candidate that has several, on the whole catalog."""
    case = CASES[title]
    constraints = profiled(case.workload, case.constraints)
    workload = working(case.workload, constraints)
    parts = snapshot_parts(snapshot)
    drive = drive_for(snapshot, workload)
    assert drive is not None
    builds: list[BuildSpec] = []
    option = None
    for candidate in recommend(snapshot, case.workload, case.constraints).candidates:
        option = parts.option(workload, snapshot.gpus[candidate.build.gpus[0].spec.sku], candidate.build.gpu_count)
        chassis = snapshot.chassis[candidate.build.chassis.sku]
        cpus = parts.cpus(chassis)
        builds = list(complete_builds(snapshot, chassis, option, cpus, drive, constraints, every_psu_set=True))[:16]
        if len(builds) >= 3:
            break
    assert option is not None
    return option.workload, builds


@pytest.mark.parametrize("title", ["70B Q4 for a team", "full fine-tune of an 8B model", "405B FP8"])
def test_a_build_validated_from_its_sibling_gets_validates_verdict(snapshot: CatalogSnapshot, title: str) -> None:
    workload, builds = _policy_builds(snapshot, title)
    assert len(builds) >= 2, f"{title}: too few policy builds to compare"
    like = None
    reused = 0
    for build in builds:
        done = validate_unproven(build, snapshot=snapshot, workload=workload, like=like)
        assert done.verdict == validate(build, snapshot=snapshot, workload=workload, prove=False)
        if like is not None and build.gpus is like.ctx.build.gpus and build.cpus is like.ctx.build.cpus:
            # only the PSU set changed: the estimate is the sibling's own, not made again
            assert done.ctx.estimate is like.ctx.estimate
            reused += 1
        like = done
    assert reused, f"{title}: no two builds differed in their PSU set alone"


def test_a_sibling_of_another_workload_is_not_reused(snapshot: CatalogSnapshot) -> None:
    workload, builds = _policy_builds(snapshot, "70B Q4 for a team")
    other, _ = _policy_builds(snapshot, "beginner 7B Q4 chat")
    like = validate_unproven(builds[0], snapshot=snapshot, workload=other)
    done = validate_unproven(builds[1], snapshot=snapshot, workload=workload, like=like)
    assert done.verdict == validate(builds[1], snapshot=snapshot, workload=workload, prove=False)
    assert done.ctx.workload is workload


def test_estimates_remembered_during_a_search_are_estimates(snapshot: CatalogSnapshot) -> None:
    case = CASES["70B Q4 for a team"]
    gpu = snapshot.gpus["rtx-5090"]
    plain = estimate(case.workload, gpu, 2, link_gbs=None)
    memo: dict[object, Estimate] = {}
    with remembering_estimates(memo):
        first = estimate(case.workload, gpu, 2, link_gbs=None)
        again = estimate(case.workload, gpu, 2, link_gbs=None)
        four = estimate(case.workload, gpu, 4, link_gbs=None)
    assert first == plain and again is first
    assert four != first and len(memo) == 2
    assert estimate(case.workload, gpu, 2, link_gbs=None) is not first  # outside the block: not remembered
    with remembering_estimates(memo, most=2):  # full: emptied before the block
        assert not memo


def test_an_estimate_that_fails_fails_every_time(snapshot: CatalogSnapshot) -> None:
    case = CASES["70B Q4 for a team"]
    memo: dict[object, Estimate] = {}
    with remembering_estimates(memo):
        for _ in range(2):
            with pytest.raises(DomainError):
                estimate(case.workload, snapshot.gpus["rtx-5090"], 0)
    assert not memo


def test_a_psu_set_priced_before_its_build_costs_what_the_build_costs(snapshot: CatalogSnapshot) -> None:
    case = CASES["production service requiring ECC"]
    constraints = profiled(case.workload, case.constraints)
    workload = working(case.workload, constraints)
    top = recommend(snapshot, case.workload, case.constraints).candidates[0]
    parts = snapshot_parts(snapshot)
    option = parts.option(workload, snapshot.gpus[top.build.gpus[0].spec.sku], top.build.gpu_count)
    drive = drive_for(snapshot, workload)
    assert drive is not None
    chassis = snapshot.chassis[top.build.chassis.sku]
    stream = Stream(Judge(snapshot, constraints, VAT), option, chassis.is_workstation, drive)
    priced = list(stream._price(chassis))
    assert priced
    for price, _, pending in priced:
        assert isinstance(pending, _Pending)  # made when it reaches the front
        assert price == build_price(pending.build, vat_percent=VAT).gross
    made = [with_psus(base, psus) for base, sets in policy_bases(
        snapshot, chassis, option, parts.cpus(chassis), drive, constraints, every_psu_set=True
    ) for psus in sets]  # fmt: skip
    assert made == list(
        complete_builds(snapshot, chassis, option, parts.cpus(chassis), drive, constraints, every_psu_set=True)
    )
