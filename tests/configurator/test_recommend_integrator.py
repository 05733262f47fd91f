"""Issue 14, what an integrator signs: parts sized from the workload, warning fixes applied, suggestions with
builds and prices when nothing fits, no partial HGX board, look-alike parts priced once.

Expectations are derived from the catalog (which GPUs, chassis and CPUs it holds), not pinned to SKUs, where
the physics allows: the catalog grows while these tests stand."""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

import pytest

from configurator.engine.estimate import min_gpus_to_fit
from configurator.engine.fixes import apply_fix
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend, speed_target
from configurator.engine.recommend.assembly import Judge, complete_builds
from configurator.engine.recommend.grouping import grouped, look
from configurator.engine.recommend.parts import snapshot_parts
from configurator.engine.recommend.policy import drive_for, fits, gpu_pool, max_gpus, profiled, working
from configurator.engine.recommend.sizing import (
    TRAINING_CORES_PER_GPU,
    TRAINING_RAM_PER_VRAM,
    cores_needed,
    ram_needed_gb,
    storage_needed_tb,
)
from configurator.engine.types import CatalogSnapshot, Constraints, Workload
from configurator.engine.validate import validate
from configurator.use_cases import use_cases

FULL_FT_70B = Workload(
    model=model_get("llama-3.1-70b"),
    task="full_finetune",
    precision="bf16",
    engine="transformers",
    sequence_length=2048,
)
PRICE = re.compile(r"([\d,]+) RUB")


def _without_huge_gpus(snapshot: CatalogSnapshot) -> CatalogSnapshot:
    """The catalog without GPUs over 141 GiB: eight of them (1,128 GiB) cannot hold a full fine-tune of a 70B
    model with AdamW (16 bytes per parameter = 1,043 GiB before activations and the reserve), so nothing
    fits whatever GPUs the catalog gains."""
    return replace(
        snapshot,
        version=f"{snapshot.version}-upto-141",
        gpus={sku: gpu for sku, gpu in snapshot.gpus.items() if gpu.vram_gib <= 141},
    )


def _top(snapshot: CatalogSnapshot, workload: Workload, constraints: Constraints | None = None):
    found = recommend(snapshot, workload, constraints or Constraints(), limit=1).candidates
    return found[0] if found else None


def test_full_finetune_of_70b_gets_suggestions_with_builds_and_prices(snapshot: CatalogSnapshot) -> None:
    """Issue 14 acceptance: not only «ask for a multi-node cluster» — QLoRA, 8-bit Adam and LoRA, each with
    the cheapest build the recommender gives for it and its price, most useful first."""
    catalog = _without_huge_gpus(snapshot)
    result = recommend(catalog, FULL_FT_70B, Constraints())
    assert result.candidates == ()
    tips = [str(tip) for tip in result.suggestions]
    expected = {
        "fine-tune with QLoRA": replace(FULL_FT_70B, task="qlora"),
        "use an 8-bit Adam optimizer": replace(FULL_FT_70B, optimizer="adamw_8bit"),
        "fine-tune with LoRA instead": replace(FULL_FT_70B, task="lora"),
    }
    order = []
    for start, changed in expected.items():
        top = _top(catalog, changed)
        said = [tip for tip in tips if tip.startswith(start)]
        if top is None:
            assert not said, (start, tips)
            continue
        assert len(said) == 1, (start, tips)
        # the build and the price are the recommender's cheapest for the changed workload
        assert f"{top.build.gpu_count}× {top.build.gpus[0].spec.sku} in {top.build.chassis.sku}" in said[0]
        price = PRICE.search(said[0])
        assert price is not None and Decimal(price.group(1).replace(",", "")) == top.price.gross
        order.append(tips.index(said[0]))
    assert len(order) >= 2, tips  # QLoRA on one or two cards, and 8-bit Adam or LoRA, fit this catalog
    assert order == sorted(order)  # lighter ways of running the same job, in the order an integrator offers them
    assert not any("ask a sales engineer for a multi-node cluster" in tip for tip in tips)


def test_only_several_servers_says_how_many_and_which(snapshot: CatalogSnapshot) -> None:
    workload = Workload(
        model=model_get("llama-3.1-405b"), task="full_finetune", precision="bf16", engine="transformers"
    )
    result = recommend(snapshot, workload, Constraints())
    assert result.candidates == ()
    several = [str(tip) for tip in result.suggestions if str(tip).startswith("only several servers hold it")]
    assert len(several) == 1, result.suggestions
    match = re.search(r"(\d+) × (\S+) with (\d+)× (\S+) each \((\d+) GPUs", several[0])
    assert match is not None, several[0]
    nodes, chassis_sku, per_node, gpu_sku, count = match.groups()
    chassis, gpu = snapshot.chassis[chassis_sku], snapshot.gpus[gpu_sku]
    assert int(nodes) >= 2
    assert int(per_node) <= max_gpus(chassis, Constraints())
    assert int(nodes) * int(per_node) >= int(count)
    assert min_gpus_to_fit(replace(workload, zero_stage=3), gpu, max_gpus=64) == int(count)


def test_suggestions_are_bounded_and_do_not_nest(snapshot: CatalogSnapshot, monkeypatch: pytest.MonkeyPatch) -> None:
    from configurator.engine import recommend as package
    from configurator.engine.recommend import suggestions

    calls: list[bool] = []
    real = package.recommend

    def counting(*args, **kwargs):
        calls.append(kwargs.get("suggest", True))
        return real(*args, **kwargs)

    monkeypatch.setattr(package, "recommend", counting)
    package.recommend(_without_huge_gpus(snapshot), FULL_FT_70B, Constraints())
    nested = calls[1:]
    assert 0 < len(nested) <= suggestions.MAX_RUNS
    assert not any(nested)  # the runs on changed workloads make no suggestions of their own


@pytest.mark.parametrize("case", [c for c in use_cases() if c.workload.task != "inference"], ids=lambda c: c.slug)
def test_training_builds_have_cores_ram_and_storage_sized_and_said(snapshot: CatalogSnapshot, case) -> None:
    for candidate in recommend(snapshot, case.workload, case.constraints).candidates:
        build = candidate.build
        cores = sum(line.spec.cores * line.qty for line in build.cpus)
        platform_cores = max(
            cpu.cores * build.chassis.cpu_sockets for cpu in snapshot_parts(snapshot).cpus(build.chassis)
        )
        assert cores >= min(TRAINING_CORES_PER_GPU * build.gpu_count, platform_cores), build.cpus
        need_ram = TRAINING_RAM_PER_VRAM * build.total_vram_gib
        assert build.ram_gb >= need_ram or build.ram_gb == max(
            line.spec.capacity_gb * line.qty for line in snapshot_parts(snapshot).memory(build.chassis, ecc=False)
        )
        assert sum(line.spec.capacity_tb * line.qty for line in build.storage) >= storage_needed_tb(case.workload)
        said = " | ".join(str(why) for why in candidate.why)
        assert "data-loader cores per GPU" in said or "short of the" in said
        assert "system memory:" in said and "storage:" in said and "checkpoints" in said


def test_an_eight_gpu_training_box_gets_cpus_for_its_data_loaders(snapshot: CatalogSnapshot) -> None:
    """Issue 14: a 38 M ₽ 8 × H200 training box had 2 × 16-core EPYC. On every 8-GPU server of the catalog,
    a training build gets at least 8 data-loader cores per GPU and 2 × its VRAM in RAM where the platform can."""
    workload = replace(FULL_FT_70B, optimizer="adamw_8bit")
    servers = [c for c in snapshot.chassis.values() if c.is_rack and max_gpus(c, Constraints()) >= 8]
    assert servers
    checked = 0
    for chassis in servers:
        top = _top(snapshot, workload, Constraints(chassis=(chassis.sku,), max_gpus=8))
        if top is None or top.build.gpu_count < 8:
            continue
        checked += 1
        cores = sum(line.spec.cores * line.qty for line in top.build.cpus)
        assert cores >= cores_needed(workload, top.build.gpu_count) == 64, (chassis.sku, top.build.cpus)
        assert top.build.cpus[0].spec.cores > 16
        assert top.build.ram_gb >= min(
            ram_needed_gb(workload, top.build.total_vram_gib),
            max(line.spec.capacity_gb * line.qty for line in snapshot_parts(snapshot).memory(chassis, ecc=False)),
        )
    assert checked, "no 8-GPU server of the catalog holds a full fine-tune of 70B with 8-bit Adam"


def test_inference_ram_holds_the_weights_and_the_vram(snapshot: CatalogSnapshot) -> None:
    for case in use_cases():
        if case.workload.task != "inference":
            continue
        for candidate in recommend(snapshot, case.workload, case.constraints).candidates:
            build = candidate.build
            need = ram_needed_gb(case.workload, build.total_vram_gib)
            largest = max(
                line.spec.capacity_gb * line.qty
                for line in snapshot_parts(snapshot).memory(build.chassis, ecc=any(m.spec.ecc for m in build.memory))
            )
            assert build.ram_gb >= min(need, largest), (case.slug, build.chassis.sku)


def _warned_fixable(snapshot: CatalogSnapshot):
    """Policy builds of the use cases, per tower chassis, whose cheapest build has warnings: (workload,
    constraints, option, build, candidate)."""
    for case in use_cases():
        for chassis in snapshot.chassis.values():
            if chassis.is_rack:
                continue
            constraints = profiled(case.workload, replace(case.constraints, chassis=(chassis.sku,)))
            if chassis not in snapshot_parts(snapshot).chassis_pool(constraints):
                continue  # the workload's profile does not allow it (production or ECC: server chassis only)
            workload = working(case.workload, constraints)
            judge = Judge(snapshot, constraints, Decimal(22))
            drive = drive_for(snapshot, workload)
            assert drive is not None
            for gpu in gpu_pool(snapshot, workload, constraints):
                count = min_gpus_to_fit(workload, gpu, max_gpus=max_gpus(chassis, constraints))
                if count is None:
                    continue
                option = snapshot_parts(snapshot).option(workload, gpu, count)
                if not fits(option):
                    continue  # the reserve refuses it: the recommender never builds it
                cpus = snapshot_parts(snapshot).cpus(chassis)
                for build in complete_builds(snapshot, chassis, option, cpus, drive, constraints, every_psu_set=False):
                    candidate = judge.candidate(build, option)
                    if candidate is not None and candidate.verdict.warnings:
                        yield judge, option, build, candidate
                    break


def test_a_warned_build_is_offered_with_its_proven_warning_fixes_applied(snapshot: CatalogSnapshot) -> None:
    """Issue 14: the recommender applies its own candidates' ready fixes (engine.fixes.apply_fix of the
    fixes engine.proving proved) when that makes the build clean."""
    repaired = 0
    for judge, option, build, candidate in _warned_fixable(snapshot):
        result = judge.fixed(candidate, option)
        if result is None:
            continue
        fixed, applied = result
        assert fixed.verdict.errors == () and fixed.verdict.warnings == ()
        proven = validate(build, snapshot=snapshot, workload=option.workload)
        assert applied[0] in [fix for finding in proven.warnings for fix in finding.fixes]
        again = build
        for fix in applied:
            again = apply_fix(again, fix, snapshot)
        assert again == fixed.build
        repaired += 1
    assert repaired, "no warned tower build of the use cases has a proven fix that clears its warnings"


def test_the_recommender_returns_the_fixed_build_and_says_so(snapshot: CatalogSnapshot) -> None:
    said = 0
    for judge, option, _build, candidate in _warned_fixable(snapshot):
        result = judge.fixed(candidate, option)
        if result is None:
            continue
        # Only this GPU in the catalog: another GPU's clean build cannot undercut the fixed one.
        alone = replace(
            snapshot, version=f"{snapshot.version}-only-{option.gpu.sku}", gpus={option.gpu.sku: option.gpu}
        )
        top = _top(alone, option.workload, judge.constraints)
        assert top is not None
        assert top.verdict.warnings == ()  # what will be signed: clean, and never dearer than the fixed build
        target = speed_target(option.workload)
        # … unless the fixed build misses the speed target and the top one meets it (issue 34: a third 300 W
        # card on a 2 × 8-pin adapter now fits the TRX50 tower, and 3 × RTX 6000 Ada reach the 10 tok/s target
        # that 2 miss)
        fixed_speed, top_speed = result[0].decode_tokens_per_s_per_user, top.decode_tokens_per_s_per_user
        slower = target is not None and fixed_speed < target <= top_speed
        assert top.price.gross <= result[0].price.gross or slower
        if top.build == result[0].build:
            assert any("proven fix is applied" in str(why) for why in top.why)
            said += 1
    assert said


def test_no_partial_hgx_baseboard_is_offered(snapshot: CatalogSnapshot) -> None:
    boards = [c for c in snapshot.chassis.values() if c.baseboard_gpu_counts]
    assert boards
    workloads = [case.workload for case in use_cases()] + [replace(FULL_FT_70B, optimizer="adamw_8bit")]
    for chassis in boards:
        for workload in workloads:
            for candidate in recommend(snapshot, workload, Constraints(chassis=(chassis.sku,))).candidates:
                assert candidate.build.gpu_count in chassis.baseboard_gpu_counts, (chassis.sku, workload.model.slug)


def test_look_alike_parts_are_priced_once_and_the_cheapest_is_kept(snapshot: CatalogSnapshot) -> None:
    """A dearer copy of every part changes nothing; a cheaper copy of the chosen GPU is chosen instead."""
    workload, constraints = next((c.workload, c.constraints) for c in use_cases() if c.slug == "70b-team")
    before = _top(snapshot, workload, constraints)
    assert before is not None

    def copies(parts: dict, factor: Decimal) -> dict:
        out = dict(parts)
        for sku, part in parts.items():
            out[f"{sku}-copy"] = replace(part, sku=f"{sku}-copy", price=(part.price * factor).quantize(Decimal("0.01")))
        return out

    kinds = ("cpus", "chassis", "psus", "memory", "storage", "nics")
    dearer = replace(
        snapshot,
        version="dearer-copies",
        gpus=copies(snapshot.gpus, Decimal("1.1")),
        **{kind: copies(getattr(snapshot, kind), Decimal("1.1")) for kind in kinds},
    )
    assert len(grouped(dearer).cpus) == len(grouped(snapshot).cpus)
    after = _top(dearer, workload, constraints)
    assert after is not None and (after.build, after.price.gross) == (before.build, before.price.gross)
    gpu = before.build.gpus[0].spec
    cheaper_gpu = replace(gpu, sku=f"{gpu.sku}-cheaper", price=gpu.price - 1)
    cheaper = replace(snapshot, version="cheaper-copy", gpus={**snapshot.gpus, cheaper_gpu.sku: cheaper_gpu})
    assert look(cheaper_gpu) == look(gpu)
    top = _top(cheaper, workload, constraints)
    assert top is not None and top.build.gpus[0].spec.sku == cheaper_gpu.sku


def test_caches_keyed_by_request_stay_bounded(snapshot: CatalogSnapshot) -> None:
    from configurator.engine.recommend import parts

    cache = parts.Parts(snapshot)
    gpu = next(iter(snapshot.gpus.values()))
    for users in range(1, parts.MAX_REMEMBERED + 10):
        workload = Workload(model=model_get("llama-3.1-8b"), precision="q4_k_m", engine="llama.cpp")
        cache.option(replace(workload, concurrent_users=users), gpu, 1)
    assert 0 < len(cache._options) <= parts.MAX_REMEMBERED


def test_the_power_cap_prunes_before_pricing(snapshot: CatalogSnapshot) -> None:
    """Issue 14: the cap was checked only after pricing (333 builds judged). Under a cap every candidate is
    within it, and the judge sees fewer builds than without the cap (those over it are never priced)."""
    workload, constraints = next((c.workload, c.constraints) for c in use_cases() if c.slug == "70b-team")
    free = recommend(snapshot, workload, constraints)
    assert free.candidates
    cap = int(min(c.verdict.power.load_w for c in free.candidates)) + 1
    capped = recommend(snapshot, workload, replace(constraints, max_power_w=cap))
    assert capped.candidates
    assert all(c.verdict.power.load_w <= cap for c in capped.candidates)
    assert capped.considered < free.considered


def test_the_streams_quick_price_is_the_build_price(snapshot: CatalogSnapshot) -> None:
    """The heap orders builds by `Stream.gross` (the option's net plus chassis, CPUs, memory, PSUs): the same
    kopecks as `build_price`, or the cheapest build would not come first."""
    from configurator.engine.builds import build_price
    from configurator.engine.recommend.search import Stream, counts_to_try

    checked = 0
    for case in use_cases():
        constraints = profiled(case.workload, case.constraints)
        workload = working(case.workload, constraints)
        judge = Judge(snapshot, constraints, Decimal(22))
        drive = drive_for(snapshot, workload)
        assert drive is not None
        pool = snapshot_parts(snapshot).chassis_pool(constraints)
        for gpu in gpu_pool(snapshot, workload, constraints)[:4]:
            for option in counts_to_try(snapshot, workload, gpu, 8, pool=pool, constraints=constraints):
                stream = Stream(judge, option, True, drive)
                for _, _, chassis in stream._takers[:2]:
                    cpus = snapshot_parts(snapshot).cpus(chassis)
                    for build in complete_builds(
                        snapshot, chassis, option, cpus, drive, constraints, every_psu_set=True
                    ):
                        assert stream.gross(build) == build_price(build, vat_percent=Decimal(22)).gross
                        checked += 1
    assert checked > 20
