"""PSU suggestions for the power rules (rules/power.py): the catalog PSU sets that carry a load under a
redundancy mode within the chassis' bays, and the fixes that reach them.

Numbers and sources: ../shared/reference/validation-rules.md §1 (budgets/power.py holds them).
"""

from __future__ import annotations

from configurator.engine.budgets.power import (
    HEADROOM_SHARE,
    REDUNDANCY_STRICTNESS,
    PsuOption,
    brings_connectors,
    load_w,
    redundant_units,
    valid_psu_counts,
)
from configurator.engine.fixes import add_op, make_fix, redundancy_value, replace_op, set_op
from configurator.engine.phrase import Num, Phrase
from configurator.engine.rules.context import MAX_FIXES, RuleContext, fix_options, fixes_wanted, remove_gpus_fix
from configurator.engine.types import BuildSpec, Fix, FixOp


def psu_options(
    ctx: RuleContext, load: float | None, *, redundancy: str | None = None, connectors: dict[str, int] | None = None
) -> list[PsuOption]:
    """Catalog PSUs (chassis form factor, rated at the site voltage), each with the smallest count that
    carries `load` under `redundancy` within the bays — inside the 80 % headroom when a count allows it.
    Sets inside the headroom first, then the smallest PSU, then the fewest units. With `connectors`
    (towers) the PSUs must also bring that many GPU cables of each kind. `load`/`redundancy` None: the build's."""
    if not fixes_wanted():
        return []
    build = ctx.build
    load = ctx.power.load_w if load is None else load  # read only when fixes are wanted
    redundancy = build.psu_redundancy if redundancy is None else redundancy
    options: list[PsuOption] = []
    for psu in fix_options(ctx.snapshot.psus):
        watts = psu.watts_at(build.site_voltage)
        if psu.form_factor != build.chassis.psu_form_factor or not watts:
            continue
        carrying = [
            PsuOption(psu, count, float((count - redundant_units(redundancy, count)) * watts), redundancy)
            for count in valid_psu_counts(redundancy, build.chassis.psu_bays)
            if brings_connectors(psu, count, connectors)
        ]
        carrying = [option for option in carrying if option.usable_w >= load]
        roomy = [option for option in carrying if load <= HEADROOM_SHARE * option.usable_w]
        if roomy or carrying:
            options.append((roomy or carrying)[0])
    return sorted(
        options,
        key=lambda o: (load > HEADROOM_SHARE * o.usable_w, o.psu.watts_high_line, o.count, o.psu.price, o.psu.sku),
    )


def psu_fix(option: PsuOption, build: BuildSpec, *, why: Phrase | None = None) -> Fix:
    return make_fix(psu_op(option, build), reason=why)


def psus_already(option: PsuOption, build: BuildSpec) -> bool:
    """The build already has exactly the PSUs of `option` (only the redundancy mode would change)."""
    return {line.spec.sku: line.qty for line in build.psus} == {option.psu.sku: option.count}


def psu_op(option: PsuOption, build: BuildSpec) -> FixOp:
    """The PSU step that reaches `option`: more of the same model when the build has only it, else a
    replacement of every PSU line."""
    current = {line.spec.sku: line.qty for line in build.psus}
    sku = option.psu.sku
    if set(current) == {sku} and option.count > current[sku]:
        return add_op("psus", sku, option.count - current[sku])
    return replace_op("psus", sku, option.count)


def capacity_fixes(ctx: RuleContext, load: float) -> tuple[Fix, ...]:
    build = ctx.build
    fixes: list[Fix] = []
    options = psu_options(ctx, load, redundancy=build.psu_redundancy)
    fixes.extend(psu_fix(option, build) for option in options[:1])
    if not options:
        strictness = REDUNDANCY_STRICTNESS.get(build.psu_redundancy, 0)
        lower = [
            mode
            for mode in ("n+1", "none")
            if mode in build.chassis.psu_redundancy_modes and REDUNDANCY_STRICTNESS[mode] < strictness
        ]
        for mode in lower:
            relaxed = psu_options(ctx, load, redundancy=mode)
            if relaxed:
                # the mode and the PSUs sized for it only work together: one fix (the mode alone when the
                # build already has those PSUs: a replacement by the same set would be a step that changes nothing)
                same = psus_already(relaxed[0], build)
                fixes.append(
                    make_fix(
                        set_op("psu_redundancy", mode),
                        *(() if same else (psu_op(relaxed[0], build),)),
                        reason=Phrase(
                            "%(current)s cannot carry %(load)s W in %(bays)s bays",
                            current=redundancy_value(build.psu_redundancy),
                            load=Num(load),
                            bays=build.chassis.psu_bays,
                        ),
                    )
                )
                break

    if len(fixes) < MAX_FIXES:
        gpu_fix = remove_gpus_fix(
            build,
            lambda smaller: bool(psu_options(ctx, load_w(smaller), redundancy=build.psu_redundancy)),
            lambda left: Phrase("%(left)s GPUs fit a catalog PSU set under the same redundancy", left=left),
        )
        if gpu_fix:
            fixes.append(gpu_fix)
    return tuple(fixes[:MAX_FIXES])
