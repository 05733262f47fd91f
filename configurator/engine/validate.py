"""Build → Verdict: run every rule of configurator.engine.rules and summarise power, PCIe, slots and VRAM.

Pure: takes the CatalogSnapshot (for fixes that name catalog SKUs) and never touches the ORM.
"""

from __future__ import annotations

from dataclasses import fields

from configurator.engine.budgets.lanes import LANE_INPUTS
from configurator.engine.budgets.links import effective_link_gbs
from configurator.engine.proving import Focus, prove_fixes
from configurator.engine.rules import RULE_READS, RULE_YIELDS, RULES, RuleContext
from configurator.engine.rules.context import ESTIMATE_INPUTS, findings_only
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
BUILD_FIELDS = tuple(field.name for field in fields(BuildSpec))
# per rule, the codes it can yield, and those it can yield as errors (rules.RULE_YIELDS)
RULE_CODES = tuple(frozenset(code for code, _ in pairs) for pairs in RULE_YIELDS)
RULE_ERROR_CODES = tuple(frozenset(code for code, severity in pairs if severity == "error") for pairs in RULE_YIELDS)
# code → the rules that can yield it
YIELDED_BY: dict[str, tuple[int, ...]] = {
    code: tuple(index for index, codes in enumerate(RULE_CODES) if code in codes)
    for codes in RULE_CODES
    for code in codes
}


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
    ctx = _context(build, snapshot, workload)
    per_rule = tuple(tuple(rule(ctx)) for rule in RULES)
    findings = tuple(sorted((finding for found in per_rule for finding in found), key=finding_order))
    if prove:
        findings = prove_fixes(
            build,
            findings,
            snapshot=snapshot,
            check=Rechecks(ctx, per_rule),
        )
    estimate = ctx.estimate
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


def _context(
    build: BuildSpec, snapshot: CatalogSnapshot, workload: Workload | None, like: RuleContext | None = None
) -> RuleContext:
    """The rules' context for `build`; the estimate (and the lane plan) of `like` when the fields it is made of
    are the same."""
    if like is not None and all(getattr(build, name) is getattr(like.build, name) for name in ESTIMATE_INPUTS):
        link_gbs, estimate, problem = like.link_gbs, like.estimate, like.estimate_problem
    else:
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
    if (
        like is not None
        and "lanes" in vars(like)
        and all(getattr(build, n) is getattr(like.build, n) for n in LANE_INPUTS)
    ):
        vars(ctx)["lanes"] = like.lanes  # the cached_property, filled: the plan is a function of these fields
    return ctx


_Run = tuple[BuildSpec, RuleContext, frozenset[int], dict[int, tuple[Finding, ...]], tuple[Finding, ...]]


class Rechecks:
    """The findings of builds a fix made from the validated one, proving off, for engine.proving.

    Only the rules that read a field the fix changed run again (rules.RULE_READS); the others' findings of the
    validated build stand, they would be the same. With a `focus` (the code being answered, the error codes
    the build already has) only the rules that can yield that code or a new error code run (rules.RULE_YIELDS),
    those yielding the code first, each at most once per fixed build, without their fixes; the findings come
    unordered, without the unchanged rules' findings of other codes (they cannot matter), and stop at the
    first that fails the proof (the answered finding still there, a new error
    code; unless the focus asks for every finding that can matter). With `fixes_for`, only the rules that can
    yield one of these codes count: those changed run, and those that find one of these codes run again with
    their fixes.
    """

    def __init__(self, base: RuleContext, per_rule: tuple[tuple[Finding, ...], ...]):
        self.base, self.per_rule = base, per_rule
        # id(fixed) → (fixed, its context, the rules to re-run, their findings so far, the other rules' findings)
        self.runs: dict[int, _Run] = {}
        # changed fields → (the rules to re-run, the other rules' findings): many fixes change the same fields
        self.stale: dict[frozenset[str], tuple[frozenset[int], tuple[Finding, ...]]] = {}
        # (changed rules, focus code, error codes) → the rules that can change such a proof, yielding it first
        self.relevant: dict[tuple[frozenset[int], str, frozenset[str]], tuple[int, ...]] = {}
        # (changed rules, code) → the unchanged rules' findings of that code
        self.same_code: dict[tuple[frozenset[int], str], tuple[Finding, ...]] = {}
        # error codes → the rules that can yield another error code
        self.erring: dict[frozenset[str], tuple[int, ...]] = {}
        # codes → the rules that can yield them
        self.yielding: dict[frozenset[str], tuple[int, ...]] = {}

    def _state(self, fixed: BuildSpec) -> _Run:
        state = self.runs.get(id(fixed))
        if state is None or state[0] is not fixed:
            base = self.base.build
            changed = frozenset(name for name in BUILD_FIELDS if getattr(fixed, name) is not getattr(base, name))
            if changed not in self.stale:
                stale = frozenset(index for index, reads in enumerate(RULE_READS) if not reads.isdisjoint(changed))
                kept = tuple(f for index, run in enumerate(self.per_rule) if index not in stale for f in run)
                self.stale[changed] = (stale, kept)
            stale, kept = self.stale[changed]
            ctx = _context(fixed, self.base.snapshot, self.base.workload, like=self.base)
            state = self.runs[id(fixed)] = (fixed, ctx, stale, {}, kept)
        return state

    def _relevant(self, stale: frozenset[int], code: str, errors: frozenset[str]) -> tuple[int, ...]:
        """The changed rules that can change a proof of `code` on a build with `errors`, those yielding it first."""
        key = (stale, code, errors)
        found = self.relevant.get(key)
        if found is None:
            erring = self.erring.get(errors)
            if erring is None:
                erring = self.erring[errors] = tuple(
                    index for index, codes in enumerate(RULE_ERROR_CODES) if not codes <= errors
                )
            yielding = YIELDED_BY.get(code, ())
            found = self.relevant[key] = tuple(index for index in yielding if index in stale) + tuple(
                index for index in erring if index in stale and index not in yielding
            )
        return found

    def _focused(self, state: _Run, focus: Focus) -> tuple[Finding, ...]:
        _, ctx, stale, done, kept = state
        code, errors, components, stop = focus
        # of the unchanged rules' findings only those of the code can matter (their errors are not new)
        same = self.same_code.get((stale, code))
        if same is None:
            same = self.same_code[stale, code] = tuple(finding for finding in kept if finding.code == code)
        if stop and _fails(same, code, errors, components):
            return same
        found = list(same)
        with findings_only():
            for index in self._relevant(stale, code, errors):
                run = done.get(index)
                if run is None:
                    run = done[index] = tuple(RULES[index](ctx))
                if run:
                    found.extend(run)
                    if stop and _fails(run, code, errors, components):
                        break
        return tuple(found)

    def __call__(
        self, fixed: BuildSpec, fixes_for: frozenset[str] | None = None, focus: Focus | None = None
    ) -> tuple[Finding, ...]:
        state = self._state(fixed)
        if focus is not None and not fixes_for:  # a proof reads sets: no order needed
            return self._focused(state, focus)
        _, ctx, stale, done, _ = state
        wanted = range(len(RULES)) if not fixes_for else self._yielding(fixes_for)
        missing = [index for index in wanted if index in stale and index not in done]
        if missing:
            with findings_only():
                for index in missing:
                    done[index] = tuple(RULES[index](ctx))
        found: list[Finding] = []
        for index in wanted:
            run = self.per_rule[index]
            if index in stale:
                run = done[index]
                if fixes_for and any(finding.code in fixes_for for finding in run):
                    run = tuple(RULES[index](ctx))
            found.extend(run)
        return tuple(sorted(found, key=finding_order))

    def _yielding(self, codes: frozenset[str]) -> tuple[int, ...]:
        """The rules that can yield one of `codes`."""
        if codes not in self.yielding:
            self.yielding[codes] = tuple(index for index, own in enumerate(RULE_CODES) if not own.isdisjoint(codes))
        return self.yielding[codes]


def _fails(
    findings: tuple[Finding, ...], code: str, errors: frozenset[str], components: tuple[str, ...] | None
) -> bool:
    """One of `findings` fails a proof of `code`: an error of a code not in `errors`, or the finding itself
    (any of its code when `components` is None, else one with these sorted components)."""
    return any(
        (finding.severity == "error" and finding.code not in errors)
        or (finding.code == code and (components is None or tuple(sorted(finding.components)) == components))
        for finding in findings
    )


def full_recheck(
    build: BuildSpec,
    snapshot: CatalogSnapshot,
    workload: Workload | None,
    fixes_for: frozenset[str] | None = None,
    focus: Focus | None = None,
) -> tuple[Finding, ...]:
    """The findings of a fixed build by validating it whole, proving off (with every fix when `fixes_for`):
    the straightforward check the proving used before it re-ran only the affected rules (the tests compare)."""
    if fixes_for:
        return validate(build, snapshot=snapshot, workload=workload, prove=False).findings
    with findings_only():
        return validate(build, snapshot=snapshot, workload=workload, prove=False).findings
