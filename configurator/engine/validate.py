"""Build → Verdict: run every rule of configurator.engine.rules and summarise power, PCIe, slots and VRAM.

Pure: takes the CatalogSnapshot (for fixes that name catalog SKUs) and never touches the ORM.
"""

from __future__ import annotations

from configurator.engine.budgets.links import effective_link_gbs
from configurator.engine.proving import prove_fixes
from configurator.engine.rules import RULES, RuleContext
from configurator.engine.rules.context import findings_only
from configurator.engine.rules.workload import workload_estimate
from configurator.engine.types import (
    BuildSpec,
    CatalogSnapshot,
    Finding,
    PcieSummary,
    PowerSummary,
    SlotSummary,
    Verdict,
    VramSummary,
    Workload,
)

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def finding_order(finding: Finding) -> tuple[int, str, tuple[str, ...], str]:
    return (SEVERITY_ORDER.get(finding.severity, 3), finding.code, finding.components, finding.message)


def validate(
    build: BuildSpec, *, snapshot: CatalogSnapshot, workload: Workload | None = None, prove: bool = True
) -> Verdict:
    """Every finding of every rule, errors first then warnings then info, each group by code.

    `valid` is True when no finding is an error. With a workload the estimate (on all the build's GPUs,
    over NVLink/NVSwitch when the build links them) is attached and checked by the workload rules.
    With `prove` (the default) every fix offered has been applied and the build validated again
    (engine.proving); `prove=False` is that re-validation, and the unproven rules' view.
    """
    link_gbs = effective_link_gbs(build)
    estimate, problem = workload_estimate(build, workload, link_gbs=link_gbs)
    ctx = RuleContext(
        build=build,
        snapshot=snapshot,
        workload=workload,
        estimate=estimate,
        estimate_problem=problem,
        link_gbs=link_gbs,
    )
    findings = tuple(sorted((finding for rule in RULES for finding in rule(ctx)), key=finding_order))
    if prove:
        findings = prove_fixes(
            build,
            findings,
            snapshot=snapshot,
            check=lambda fixed, with_fixes: _recheck(fixed, snapshot, workload, with_fixes=with_fixes),
        )
    power, lanes, chassis = ctx.power, ctx.lanes, build.chassis
    layout = estimate.layout if estimate is not None else None
    return Verdict(
        valid=not any(finding.severity == "error" for finding in findings),
        findings=findings,
        power=PowerSummary(
            load_w=round(power.load_w, 1),
            capacity_w=round(power.usable_w, 1),
            installed_w=round(power.installed_w, 1),
            redundancy=build.psu_redundancy,
            site_voltage=build.site_voltage,
        ),
        pcie=PcieSummary(lanes_needed=lanes.needed, lanes_available=lanes.available, topology=lanes.topology),
        slots=SlotSummary(
            gpus=build.gpu_count,
            gpu_bays=chassis.gpu_bays,
            max_gpus=chassis.max_gpu_count,
            dimms=build.dimm_count,
            dimm_slots=chassis.dimm_slots,
            psus=build.psu_count,
            psu_bays=chassis.psu_bays,
        ),
        vram=VramSummary(
            total_gib=round(build.total_vram_gib, 2),
            needed_per_gpu_gib=round(layout.per_gpu_gib, 2) if layout else None,
            usable_per_gpu_gib=round(layout.usable_gib, 2) if layout else None,
        ),
        estimate=estimate,
    )


def _recheck(
    build: BuildSpec, snapshot: CatalogSnapshot, workload: Workload | None, *, with_fixes: bool
) -> tuple[Finding, ...]:
    """The findings of a fixed build, proving off (no recursion); without its fixes unless asked."""
    if with_fixes:
        return validate(build, snapshot=snapshot, workload=workload, prove=False).findings
    with findings_only():
        return validate(build, snapshot=snapshot, workload=workload, prove=False).findings
