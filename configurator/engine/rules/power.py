"""Power: the load against the PSUs under the chosen redundancy, input voltage, GPU cables, the wall circuit.

Numbers and sources: ../shared/reference/validation-rules.md §1 (tags [Sx] → platforms.md, [Vx] → the end of
validation-rules.md). The PSU sets the fixes suggest: rules/power_fixes.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import partial

from configurator.engine.budgets.power import (
    ADAPTER_MAX_W,
    ADAPTER_PCIE8_LEADS,
    ATX_TRANSIENT_SHARE,
    CIRCUIT_120V_15A_W,
    CIRCUIT_120V_20A_W,
    CIRCUIT_230V_16A_W,
    CONNECTOR_KINDS,
    COOLING_MARGIN,
    HEADROOM_SHARE,
    WALL_EFFICIENCY,
    connectors_suffice,
    effective_needs,
    gpu_connector_needs,
    gpu_connectors_available,
    power_budget,
)
from configurator.engine.fixes import chassis_op, make_fix, redundancy_value, replace_op, set_op
from configurator.engine.phrase import Num, Phrase
from configurator.engine.rules.context import (
    MAX_FIXES,
    Rule,
    RuleContext,
    build_gpus,
    chassis_takes_gpu,
    fix_options,
    fixes_wanted,
    remove_gpus_fix,
)
from configurator.engine.rules.power_fixes import capacity_fixes, psu_fix, psu_options
from configurator.engine.types import BuildSpec, Finding, Fix

# --------------------------------------------------------------------------- rules


def psu_capacity(ctx: RuleContext) -> Iterator[Finding]:
    """§1.2 ERROR load > usable; WARN load > 80 % of usable. Worked examples: 8× H200 NVL on 2× 1600 W,
    and on 4× 2000 W in 2+2 (validation-rules.md §1.2)."""
    budget, build = ctx.power, ctx.build
    psus = tuple(line.spec.sku for line in build.psus)
    if budget.load_w > budget.usable_w:
        have = (
            Phrase(
                "%(count)s× PSU under %(redundancy)s at %(voltage)s V give %(usable)s W",
                count=budget.psu_count,
                redundancy=redundancy_value(build.psu_redundancy),
                voltage=build.site_voltage,
                usable=Num(budget.usable_w),
            )
            if budget.psu_count
            else Phrase("there are no PSUs")
        )
        yield Finding(
            code="power.psu_capacity",
            severity="error",
            message=Phrase(
                "The build draws %(load)s W (components %(raw)s W + %(margin)s%% cooling margin) but %(have)s.",
                load=Num(budget.load_w),
                raw=Num(budget.raw_w),
                margin=Num(COOLING_MARGIN * 100),
                have=have,
            ),
            measured=round(budget.load_w, 1),
            limit=round(budget.usable_w, 1),
            unit="W",
            components=psus,
            fixes=capacity_fixes(ctx, budget.load_w) if fixes_wanted() else (),
        )
    elif budget.utilization is not None and budget.utilization > HEADROOM_SHARE:
        options = psu_options(ctx, budget.load_w / HEADROOM_SHARE, redundancy=build.psu_redundancy)
        below = Phrase("below %(limit)s %%", limit=Num(HEADROOM_SHARE * 100))
        yield Finding(
            code="power.headroom",
            severity="warning",
            message=Phrase(
                "The PSUs run at %(share)s%% of their usable %(usable)s W under %(redundancy)s; "
                "keep the load below %(limit)s%%.",
                share=Num(budget.utilization * 100),
                usable=Num(budget.usable_w),
                redundancy=redundancy_value(build.psu_redundancy),
                limit=Num(HEADROOM_SHARE * 100),
            ),
            measured=round(budget.utilization * 100, 1),
            limit=HEADROOM_SHARE * 100,
            unit="%",
            components=psus,
            fixes=tuple(psu_fix(option, build, why=below) for option in options[:1]),
        )


def psu_models(ctx: RuleContext) -> Iterator[Finding]:
    """All PSUs identical: redundant supplies share load only as identical units (vendor PSU rules [S30])."""
    if len(ctx.build.psus) > 1:
        lines = ctx.build.psus
        biggest = max(lines, key=lambda line: (line.spec.watts_high_line, line.spec.sku))
        yield Finding(
            code="power.psu_mixed",
            severity="error",
            message=Phrase("PSUs of different models cannot share the load; install one model."),
            measured=len(lines),
            limit=1,
            unit="models",
            components=tuple(line.spec.sku for line in lines),
            fixes=(make_fix(replace_op("psus", biggest.spec.sku, ctx.build.psu_count)),),
        )


def psu_form_factor(ctx: RuleContext) -> Iterator[Finding]:
    """PSU form factor = the chassis' (CRPS hot-swap bays in racks, ATX in towers)."""
    chassis = ctx.build.chassis
    wrong = [line for line in ctx.build.psus if line.spec.form_factor != chassis.psu_form_factor]
    if wrong:
        options = psu_options(ctx, None)
        yield Finding(
            code="power.psu_form_factor",
            severity="error",
            message=Phrase(
                "%(chassis)s takes %(kind)s PSUs, not %(wrong)s.",
                chassis=chassis.sku,
                kind=chassis.psu_form_factor.upper(),
                wrong=", ".join(sorted({line.spec.form_factor.upper() for line in wrong})),
            ),
            measured=wrong[0].spec.form_factor,
            limit=chassis.psu_form_factor,
            components=tuple(line.spec.sku for line in wrong),
            fixes=tuple(psu_fix(option, ctx.build) for option in options[:1]),
        )


def psu_bays(ctx: RuleContext) -> Iterator[Finding]:
    """PSU count ≤ the chassis PSU bays."""
    build = ctx.build
    if build.psu_count > build.chassis.psu_bays:
        options = psu_options(ctx, None)
        yield Finding(
            code="power.psu_bays",
            severity="error",
            message=Phrase.plural(
                "%(count)s PSU does not fit the %(bays)s PSU bays of %(chassis)s.",
                "%(count)s PSUs do not fit the %(bays)s PSU bays of %(chassis)s.",
                "count",
                count=build.psu_count,
                bays=build.chassis.psu_bays,
                chassis=build.chassis.sku,
            ),
            measured=build.psu_count,
            limit=build.chassis.psu_bays,
            unit="PSUs",
            components=tuple(line.spec.sku for line in build.psus),
            fixes=tuple(psu_fix(option, build) for option in options[:1]),
        )


def psu_redundancy(ctx: RuleContext) -> Iterator[Finding]:
    """The redundancy mode is one the chassis supports, and the count allows it (N+1 ≥ 2, N+N even)."""
    build = ctx.build
    modes = build.chassis.psu_redundancy_modes
    if build.psu_redundancy not in modes:
        yield Finding(
            code="power.redundancy_unsupported",
            severity="error",
            message=Phrase(
                "%(chassis)s supports PSU redundancy %(modes)s, not %(redundancy)s.",
                chassis=build.chassis.sku,
                modes=", ".join(modes),
                redundancy=redundancy_value(build.psu_redundancy),
            ),
            measured=build.psu_redundancy,
            limit=", ".join(modes),
            components=(build.chassis.sku,),
            fixes=tuple(make_fix(set_op("psu_redundancy", mode)) for mode in modes),
        )
    count = build.psu_count
    if count and build.psu_redundancy == "n+n" and count % 2:
        yield Finding(
            code="power.redundancy_count",
            severity="error",
            message=Phrase("N+N redundancy needs an even number of PSUs; the build has %(count)s.", count=count),
            measured=count,
            limit=count + 1,
            unit="PSUs",
            components=tuple(line.spec.sku for line in build.psus),
            fixes=_count_fixes(ctx),
        )
    elif count == 1 and build.psu_redundancy == "n+1":
        yield Finding(
            code="power.redundancy_count",
            severity="error",
            message=Phrase("N+1 redundancy needs at least 2 PSUs; the build has 1."),
            measured=1,
            limit=2,
            unit="PSUs",
            components=tuple(line.spec.sku for line in build.psus),
            fixes=_count_fixes(ctx),
        )


def _count_fixes(ctx: RuleContext) -> tuple[Fix, ...]:
    options = psu_options(ctx, None)
    return tuple(psu_fix(option, ctx.build) for option in options[:1])


def input_voltage(ctx: RuleContext) -> Iterator[Finding]:
    """§1.3: at 100-127 V use the low-line rating; a high-line-only PSU (Lenovo SR950 1600 W [S30],
    DGX H200 [S28]) does not run at all → ERROR."""
    build = ctx.build
    if build.site_voltage >= 200:
        return
    high_only = [line.spec for line in build.psus if line.spec.watts_low_line is None]
    if high_only:
        options = psu_options(ctx, None)
        fixes = [psu_fix(option, build, why=Phrase("rated at 120 V")) for option in options[:1]]
        fixes.append(make_fix(set_op("site_voltage", 230), reason=Phrase("a 200-240 V circuit")))
        yield Finding(
            code="power.input_voltage",
            severity="error",
            message=Phrase(
                "%(psus)s run only on 200-240 V input; the site has %(voltage)s V.",
                psus=", ".join(sorted(psu.sku for psu in high_only)),
                voltage=build.site_voltage,
            ),
            measured=build.site_voltage,
            limit=200,
            unit="V",
            components=tuple(sorted(psu.sku for psu in high_only)),
            fixes=tuple(fixes),
        )


def _cables_suffice(build: BuildSpec, *, kind: str) -> bool:
    have = gpu_connectors_available(build)
    return effective_needs(gpu_connector_needs(build), have)[0][kind] <= have[kind]


def _adapter_note(build: BuildSpec, adapters: int) -> Finding:
    """INFO (issue 34): which plugs a 2 × 8-pin PCIe → 12V-2x6 adapter feeds, counted against the PCIe leads."""
    gpus = tuple(
        line.spec.sku
        for line in build.gpus
        if line.spec.power_connector == "12v-2x6" and line.spec.tdp_w <= ADAPTER_MAX_W
    )
    return Finding(
        code="power.gpu_adapters",
        severity="info",
        message=Phrase.plural(
            "%(count)s GPU is fed through a 2 × 8-pin PCIe → 12V-2x6 adapter (cards up to %(watts)s W): it takes "
            "%(leads)s of the PCIe 8-pin leads; use the adapter the card or PSU vendor supplies.",
            "%(count)s GPUs are fed through 2 × 8-pin PCIe → 12V-2x6 adapters (cards up to %(watts)s W): they take "
            "%(leads)s of the PCIe 8-pin leads; use the adapters the card or PSU vendor supplies.",
            "count",
            count=adapters,
            watts=ADAPTER_MAX_W,
            leads=ADAPTER_PCIE8_LEADS * adapters,
        ),
        measured=adapters,
        limit=None,
        unit="adapters",
        components=gpus,
    )


def gpu_power_connectors(ctx: RuleContext) -> Iterator[Finding]:
    """§1.6: every GPU gets its native cables (12V-2x6 600 W, PCIe 8-pin 150 W [V12]; EPS-8 on A40/A100
    class cards, not interchangeable with PCIe 8-pin without the vendor adapter [S1][V14])."""
    build = ctx.build
    native = gpu_connector_needs(build)
    have = gpu_connectors_available(build)
    needs, adapters = effective_needs(native, have)
    if adapters and connectors_suffice(native, have):
        yield _adapter_note(build, adapters)
    for kind in CONNECTOR_KINDS:
        if needs[kind] <= have[kind]:
            continue
        gpus = tuple(line.spec.sku for line in build.gpus if line.spec.power_connector == kind)
        fixes: list[Fix] = []
        if not build.chassis.is_rack:
            options = psu_options(ctx, None, connectors=native)
            cables = Phrase.plural(
                "%(count)s %(kind)s cable", "%(count)s %(kind)s cables", "count", count=needs[kind], kind=kind
            )
            fixes.extend(psu_fix(option, build, why=cables) for option in options[:1])
        else:
            for chassis in fix_options(ctx.snapshot.chassis):
                moved = replace(build, chassis=chassis)
                if (
                    chassis.sku != build.chassis.sku
                    and chassis.is_rack
                    and connectors_suffice(native, gpu_connectors_available(moved))
                    and all(chassis_takes_gpu(chassis, gpu, count) for gpu, count in build_gpus(build).values())
                    and build.gpu_count <= min(chassis.gpu_bays, chassis.max_gpu_count)
                ):
                    fixes.append(make_fix(chassis_op(chassis.sku)))
                if len(fixes) >= 2:
                    break

        gpu_fix = remove_gpus_fix(
            build, partial(_cables_suffice, kind=kind), lambda left: Phrase("%(left)s GPUs have cables", left=left)
        )
        if gpu_fix:
            fixes.append(gpu_fix)
        yield Finding(
            code="power.gpu_connectors",
            severity="error",
            message=(
                Phrase(
                    "The GPUs need %(need)s %(kind)s power cables; the %(chassis)s power board provides %(have)s.",
                    need=needs[kind],
                    kind=kind,
                    chassis=build.chassis.sku,
                    have=have[kind],
                )
                if build.chassis.is_rack
                else Phrase(
                    "The GPUs need %(need)s %(kind)s power cables; the PSUs provide %(have)s.",
                    need=needs[kind],
                    kind=kind,
                    have=have[kind],
                )
            ),
            measured=needs[kind],
            limit=have[kind],
            unit=f"{kind} cables",
            components=gpus,
            fixes=tuple(fixes[:MAX_FIXES]),
        )


def circuit_120v(ctx: RuleContext) -> Iterator[Finding]:
    """§1.4: continuous load ≤ 80 % of the breaker: 120 V/15 A → 1,440 W, 120 V/20 A → 1,920 W [V7].
    Wall draw = load / 0.92 (ASSUMPTION: Platinum/Titanium efficiency at load [V9][V10]). ERROR for
    workstations (they plug into a wall outlet); racks are sized on the PDU by the data centre."""
    build = ctx.build
    if build.site_voltage != 120 or not build.chassis.is_workstation:
        return
    budget = ctx.power
    if budget.wall_w <= CIRCUIT_120V_15A_W:
        return
    fixes: list[Fix] = []
    if budget.wall_w <= CIRCUIT_230V_16A_W:
        fixes.append(
            make_fix(
                set_op("site_voltage", 230),
                reason=Phrase("a 230 V/16 A circuit carries %(watts)s W continuous", watts=Num(CIRCUIT_230V_16A_W)),
            )
        )

    gpu_fix = remove_gpus_fix(
        build,
        lambda smaller: power_budget(smaller).wall_w <= CIRCUIT_120V_15A_W,
        lambda left: Phrase.plural(
            "%(left)s GPU stays within %(watts)s W",
            "%(left)s GPUs stay within %(watts)s W",
            "left",
            left=left,
            watts=Num(CIRCUIT_120V_15A_W),
        ),
    )
    if gpu_fix:
        fixes.append(gpu_fix)
    yield Finding(
        code="power.circuit_120v",
        severity="error",
        message=Phrase(
            "At the wall the workstation draws about %(wall)s W (%(load)s W at %(efficiency)s%% PSU efficiency, "
            "assumed); a 120 V/15 A circuit carries %(circuit_15a)s W continuous (80 %% rule), a dedicated "
            "120 V/20 A circuit %(circuit_20a)s W.",
            wall=Num(budget.wall_w),
            load=Num(budget.load_w),
            efficiency=Num(WALL_EFFICIENCY * 100),
            circuit_15a=Num(CIRCUIT_120V_15A_W),
            circuit_20a=Num(CIRCUIT_120V_20A_W),
        ),
        measured=round(budget.wall_w, 1),
        limit=CIRCUIT_120V_15A_W,
        unit="W",
        components=(build.chassis.sku,),
        fixes=tuple(fixes),
    )


def atx_transients(ctx: RuleContext) -> Iterator[Finding]:
    """§1.5 HEURISTIC: GPU transients reach 2.2-3.1× TDP for 200 µs [S29] and trip ATX PSUs sized close to the
    average load [V4][V11]: warn above 75 % of the ATX rating."""
    build, budget = ctx.build, ctx.power
    atx = [line.spec.sku for line in build.psus if line.spec.form_factor == "atx"]
    if not atx or budget.usable_w <= 0 or budget.load_w > budget.usable_w:
        return
    limit = ATX_TRANSIENT_SHARE * budget.usable_w
    if budget.load_w > limit:
        options = psu_options(ctx, budget.load_w / ATX_TRANSIENT_SHARE, redundancy=build.psu_redundancy)
        yield Finding(
            code="power.transient",
            severity="warning",
            message=Phrase(
                "%(load)s W on %(usable)s W of ATX PSU: GPU power spikes (2-3× TDP for microseconds) can trip it; "
                "keep the average below %(share)s %% of the rating.",
                load=Num(budget.load_w),
                usable=Num(budget.usable_w),
                share=Num(ATX_TRANSIENT_SHARE * 100),
            ),
            measured=round(budget.load_w, 1),
            limit=round(limit, 1),
            unit="W",
            components=tuple(atx),
            fixes=tuple(psu_fix(option, build, why=Phrase("transient headroom")) for option in options[:1]),
        )


RULES = (
    psu_capacity,
    psu_models,
    psu_form_factor,
    psu_bays,
    psu_redundancy,
    input_voltage,
    gpu_power_connectors,
    circuit_120v,
    atx_transients,
)
# the build fields these rules (findings and fixes) read: after a fix that changes none, they are not re-run
READS = frozenset({"chassis", "cpus", "gpus", "memory", "nics", "psu_redundancy", "psus", "site_voltage", "storage"})
# rules that read fewer fields than the module's READS (the same check covers them): a fix that changes
# none of these leaves their findings standing
READS_BY_RULE: dict[Rule, frozenset[str]] = {
    psu_models: frozenset({"psus"}),
}
