"""Build → Verdict: run every rule of configurator.engine.rules and summarise power, PCIe, slots and VRAM.

Pure: takes the CatalogSnapshot (for fixes that name catalog SKUs) and never touches the ORM.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from operator import attrgetter

from configurator.engine.budgets.lanes import LANE_INPUTS, lane_plan
from configurator.engine.budgets.links import build_link
from configurator.engine.frozen import direct_init
from configurator.engine.proving import Focus, prove_fixes
from configurator.engine.rules import RULE_FINDING_READS, RULE_READS, RULE_YIELDS, RULES, RuleContext
from configurator.engine.rules.context import ESTIMATE_INPUTS, findings_only
from configurator.engine.rules.workload import workload_estimate
from configurator.engine.types import (
    BUILD_FIELDS,
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
    ctx = rule_context(build, snapshot, workload)
    per_rule = tuple([tuple(rule(ctx)) for rule in RULES])
    findings = tuple(sorted((finding for found in per_rule for finding in found), key=finding_order))
    if prove:
        findings = prove_fixes(
            build,
            findings,
            snapshot=snapshot,
            check=Rechecks(ctx, per_rule),
        )
    return _verdict(ctx, findings)


@direct_init
@dataclass(frozen=True, slots=True)
class Validated:
    """`validate(build, prove=False)` with what it was made of: the rules' context and each rule's findings."""

    verdict: Verdict
    ctx: RuleContext
    per_rule: tuple[tuple[Finding, ...], ...]


def validate_unproven(
    build: BuildSpec, *, snapshot: CatalogSnapshot, workload: Workload | None, like: Validated | None = None
) -> Validated:
    """`validate(build, prove=False)`, and its context and findings per rule. With `like` (another build
    validated so, on the same snapshot and workload), only the rules that read a field in which the two builds
    differ (a field of another object: rules.RULE_READS, as engine.proving re-validates a fixed build) run
    again; the others' findings, fixes included, are `like`'s — they would be the same — and so are its link
    graph, estimate and lane plan when the fields they are made of are the same objects. The recommender's
    search validates builds that differ only in their PSU set or CPU this way."""
    if like is None or like.ctx.snapshot is not snapshot or like.ctx.workload is not workload:
        ctx = rule_context(build, snapshot, workload)
        per_rule = tuple([tuple(rule(ctx)) for rule in RULES])
    else:
        change, ctx = _derived_context(like.ctx, _VALUES(like.ctx.build), _VALUES(build), build)
        stale = change.stale
        per_rule = tuple(
            [tuple(rule(ctx)) if stale >> index & 1 else like.per_rule[index] for index, rule in enumerate(RULES)]
        )
    findings = tuple(sorted((finding for found in per_rule for finding in found), key=finding_order))
    return Validated(_verdict(ctx, findings), ctx, per_rule)


def _verdict(ctx: RuleContext, findings: tuple[Finding, ...]) -> Verdict:
    """The verdict of the build of `ctx` with these findings, and its power, PCIe, slot and VRAM summaries."""
    build = ctx.build
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


def rule_context(build: BuildSpec, snapshot: CatalogSnapshot, workload: Workload | None) -> RuleContext:
    """The rules' context for `build` (its link speed and the workload's estimate on it). Its lane plan is made
    first, once: the link graph reads it, and so do the PCIe rules and the verdict's summary (`ctx.lanes`)."""
    lanes = lane_plan(build)
    link_gbs = build_link(build, lanes)
    estimate, problem = workload_estimate(build, workload, link_gbs=link_gbs)
    ctx = RuleContext(
        build=build,
        snapshot=snapshot,
        workload=workload,
        estimate=estimate,
        estimate_problem=problem,
        link_gbs=link_gbs,
    )
    vars(ctx)["lanes"] = lanes  # the cached_property, filled
    return ctx


# rule sets as bit masks (bit i: RULES[i]); per build field, the rules that read it, with and without fixes
_VALUES = attrgetter(*BUILD_FIELDS)
_READ_BY = tuple(sum(1 << i for i, reads in enumerate(RULE_READS) if name in reads) for name in BUILD_FIELDS)
_FOUND_BY = tuple(sum(1 << i for i, reads in enumerate(RULE_FINDING_READS) if name in reads) for name in BUILD_FIELDS)
# per rule, the fields it reads while finding (a bit per BUILD_FIELDS)
_FINDING_BITS = tuple(
    sum(1 << i for i, name in enumerate(BUILD_FIELDS) if name in reads) for reads in RULE_FINDING_READS
)
_YIELD_MASK = {code: sum(1 << i for i in rules) for code, rules in YIELDED_BY.items()}
_ESTIMATE_BITS = sum(1 << BUILD_FIELDS.index(name) for name in ESTIMATE_INPUTS)
_LANE_BITS = sum(1 << BUILD_FIELDS.index(name) for name in LANE_INPUTS)


@direct_init
@dataclass(frozen=True, slots=True)
class _Change:
    """What a set of changed build fields (a bit per BUILD_FIELDS) makes stale: the rules that read one of them
    (`stale`), those that read one while only finding (`found`), and which derived facts stand."""

    stale: int
    found: int
    bits: int  # the changed fields
    same_estimate: bool
    same_lanes: bool
    same: frozenset[str]  # the fields not changed
    fields: tuple[int, ...]  # the changed ones


_CHANGES: dict[int, _Change] = {}  # at most 2 ** len(BUILD_FIELDS) entries
_INDICES: dict[int, tuple[int, ...]] = {}  # a rule mask → its rules' indices, in order
# (rules re-run, focus codes, error codes) → the rules that can change such a proof, yielding them first
_RELEVANT: dict[tuple[int, frozenset[str], frozenset[str]], tuple[int, ...]] = {}
_ERRING: dict[frozenset[str], int] = {}  # error codes → the rules that can yield another error code


def _change(bits: int) -> _Change:
    change = _CHANGES.get(bits)
    if change is None:
        fields_ = [index for index in range(len(BUILD_FIELDS)) if bits >> index & 1]
        change = _CHANGES[bits] = _Change(
            stale=_or(_READ_BY[index] for index in fields_),
            found=_or(_FOUND_BY[index] for index in fields_),
            bits=bits,
            same_estimate=not bits & _ESTIMATE_BITS,
            same_lanes=not bits & _LANE_BITS,
            same=frozenset(name for index, name in enumerate(BUILD_FIELDS) if not bits >> index & 1),
            fields=tuple(fields_),
        )
    return change


def _derived_context(
    base: RuleContext, base_values: tuple[object, ...], values: tuple[object, ...], build: BuildSpec
) -> tuple[_Change, RuleContext]:
    """The fields in which `build` differs from the build of `base` (another object), and `build`'s rules'
    context: the base's link graph, estimate and lane plan where the fields they are made of are the same, its
    power budget made from the base's (`power_budget(like=…)`)."""
    bits = 0
    for index, (new, old) in enumerate(zip(values, base_values, strict=True)):
        if new is not old:
            bits |= 1 << index
    change = _change(bits)
    # the lane plan: the base's where the fields it is made of are the same; else made when first read, or now
    # when the link graph reads it (then the PCIe rules and the verdict's summary read the same plan)
    lanes = base.lanes if change.same_lanes and "lanes" in vars(base) else None
    if change.same_estimate:
        link_gbs, estimate, problem = base.link_gbs, base.estimate, base.estimate_problem
    else:
        if lanes is None and build.gpu_count >= 2:
            lanes = lane_plan(build)
        link_gbs = build_link(build, lanes)
        estimate, problem = workload_estimate(build, base.workload, link_gbs=link_gbs)
    ctx = _new_context(
        build=build,
        snapshot=base.snapshot,
        workload=base.workload,
        estimate=estimate,
        estimate_problem=problem,
        link_gbs=link_gbs,
        power_like=base.power if "power" in vars(base) else None,
        power_same=change.same,
    )
    if lanes is not None:
        vars(ctx)["lanes"] = lanes  # the cached_property, filled: the plan is a function of these fields
    return change, ctx


def _or(masks: Iterable[int]) -> int:
    found = 0
    for mask in masks:
        found |= mask
    return found


def _indices(mask: int) -> tuple[int, ...]:
    found = _INDICES.get(mask)
    if found is None:
        if len(_INDICES) > 4096:
            _INDICES.clear()
        indices, left = [], mask
        while left:
            low = left & -left
            indices.append(low.bit_length() - 1)
            left ^= low
        found = _INDICES[mask] = tuple(indices)
    return found


def _new_context(**values: object) -> RuleContext:
    """RuleContext(**values) without the frozen dataclass's per-field setattr (proving makes one per fixed
    build): every field given (a field left out would fail the first rule that reads it), no __post_init__."""
    ctx = object.__new__(RuleContext)
    vars(ctx).update(values)
    return ctx


class _Fixed:
    """A build a fix made, its rules' context and the rules run on it so far (findings only)."""

    __slots__ = ("bits", "build", "change", "ctx", "done", "parts", "values")

    def __init__(self, build: BuildSpec, values: tuple[object, ...], bits: int, change: _Change, ctx: RuleContext):
        self.build, self.values, self.bits, self.change, self.ctx = build, values, bits, change, ctx
        self.done: dict[int, tuple[Finding, ...]] = {}
        self.parts: tuple[_Fixed, ...] = ()  # fixed builds it is made of (the combined fix's)


class Rechecks:
    """The findings of builds a fix made from the validated one, proving off, for engine.proving.

    Only the rules that read a field the fix changed run again (rules.RULE_READS; in a focused proof, where no
    fix is searched, RULE_FINDING_READS); the others' findings of the validated build stand, they would be
    the same. With a `focus` (the code being answered, the error codes the build already has) only the rules
    that can yield that code or a new error code run (rules.RULE_YIELDS), those yielding the code first, each
    at most once per fixed build, without their fixes; the findings come unordered, without the unchanged
    rules' findings of other codes (they cannot matter), and stop at the first that fails the proof (the
    answered finding still there, a new error code; unless the focus asks for every finding that can
    matter). With `fixes_for`, only the rules that can yield one of these codes count: those changed run, and
    those that find one of these codes run again with their fixes. The fixed build's power load, lane plan
    and estimate are the validated build's when the fields they are made of did not change.
    """

    def __init__(self, base: RuleContext, per_rule: tuple[tuple[Finding, ...], ...]):
        self.base, self.per_rule = base, per_rule
        self.values = _VALUES(base.build)
        self.runs: dict[int, _Fixed] = {}  # id(fixed build) → its state
        # code → (rule index, finding) of the validated build
        self.by_code: dict[str, list[tuple[int, Finding]]] = {}
        for index, run in enumerate(per_rule):
            for finding in run:
                self.by_code.setdefault(finding.code, []).append((index, finding))
        # (rules re-run, code) → the other rules' findings of that code
        self.same_code: dict[tuple[int, frozenset[str]], tuple[Finding, ...]] = {}
        # (rules re-run, focus code, error codes) → the rules that can change such a proof, yielding it first
        # (both functions of the rules alone: kept across validations, like _CHANGES)
        self.relevant = _RELEVANT
        self.erring = _ERRING
        if len(_RELEVANT) > 20000 or len(_ERRING) > 5000:
            _RELEVANT.clear()
            _ERRING.clear()

    def _state(self, fixed: BuildSpec) -> _Fixed:
        state = self.runs.get(id(fixed))
        if state is None or state.build is not fixed:
            values = _VALUES(fixed)
            change, ctx = _derived_context(self.base, self.values, values, fixed)
            state = self.runs[id(fixed)] = _Fixed(fixed, values, change.bits, change, ctx)
        return state

    def _relevant(self, stale: int, codes: frozenset[str], errors: frozenset[str]) -> tuple[int, ...]:
        """The changed rules that can change a proof of `codes` on a build with `errors`, those yielding them
        first."""
        key = (stale, codes, errors)
        found = self.relevant.get(key)
        if found is None:
            erring = self._erring(errors)
            yielding = (
                _or(_YIELD_MASK.get(code, 0) for code in codes)
                if len(codes) > 1
                else _YIELD_MASK.get(next(iter(codes)), 0)
            )
            yielding &= stale
            found = self.relevant[key] = _indices(yielding) + _indices(erring & stale & ~yielding)
        return found

    def _run(self, state: _Fixed, index: int) -> tuple[Finding, ...]:
        """The findings of rule `index` on the fixed build (fixes not searched), once per build; on a build
        made of other fixed builds' fields, those of a part that has the same objects in every field the rule
        reads while finding, when it ran there."""
        run = state.done.get(index)
        if run is None:
            # the fields it reads that the build changed, all changed (to the same objects) in the part
            changed = _FINDING_BITS[index] & state.bits
            for part in state.parts:
                if not changed & ~part.bits and index in part.done:
                    run = part.done[index]
                    break
            else:
                run = tuple(RULES[index](state.ctx))
            state.done[index] = run
        return run

    def _parts(self, state: _Fixed) -> tuple[_Fixed, ...]:
        """The fixed builds whose every changed field `state` has, the same object (the combined fix's)."""
        values, bits, parts = state.values, state.bits, []
        for part in self.runs.values():
            if part is state or not part.bits or part.bits & ~bits:
                continue
            for field_ in part.change.fields:
                if part.values[field_] is not values[field_]:
                    break
            else:
                parts.append(part)
        return tuple(parts)

    def _erring(self, errors: frozenset[str]) -> int:
        """The rules that can yield an error code not in `errors`."""
        erring = self.erring.get(errors)
        if erring is None:
            erring = self.erring[errors] = _or(
                1 << index for index, codes in enumerate(RULE_ERROR_CODES) if not codes <= errors
            )
        return erring

    def _combined(self, state: _Fixed, codes: frozenset[str], errors: frozenset[str]) -> tuple[int, ...]:
        """The rules that can change the proof of the combined fix (engine.proving): those yielding `codes`,
        and of those that can yield a new error code, the ones reading fields that two of its parts changed.
        A rule reading the changed fields of one part finds on the combined build what it found on that
        part, where the part's proof ran it (it passed, so every rule that could matter ran) and saw no new
        error code."""
        stale, bits, parts = state.change.found, state.bits, state.parts
        yielding = _or(_YIELD_MASK.get(code, 0) for code in codes) & stale
        covered = _or(part.bits for part in parts)
        cross, spans = 0, {}  # spans: fields read → whether they come from no single part
        for index in _indices(self._erring(errors) & stale & ~yielding):
            reads = _FINDING_BITS[index] & bits
            if reads not in spans:
                spans[reads] = bool(reads & ~covered) or sum(1 for part in parts if reads & part.bits) > 1
            if spans[reads]:
                cross |= 1 << index
        return _indices(yielding) + _indices(cross)

    def _focused(self, state: _Fixed, focus: Focus) -> tuple[Finding, ...]:
        codes, errors, components, stop = focus
        stale = state.change.found
        # of the unchanged rules' findings only those of the codes can matter (their errors are not new)
        same = self.same_code.get((stale, codes))
        if same is None:
            same = self.same_code[stale, codes] = tuple(
                finding for code in codes for index, finding in self.by_code.get(code, ()) if not stale >> index & 1
            )
        if stop and same and _fails(same, codes, errors, components):
            return same
        found = list(same)
        if len(codes) > 1:  # the combined fix: a build made of proven fixed builds' fields
            if not state.parts:
                state.parts = self._parts(state)
            relevant = self._combined(state, codes, errors)
        else:
            relevant = self._relevant(stale, codes, errors)
        with findings_only():
            for index in relevant:
                run = self._run(state, index)
                if run:
                    found.extend(run)
                    if stop and _fails(run, codes, errors, components):
                        break
        return tuple(found)

    def __call__(
        self, fixed: BuildSpec, fixes_for: frozenset[str] | None = None, focus: Focus | None = None
    ) -> tuple[Finding, ...]:
        state = self._state(fixed)
        if focus is not None and not fixes_for:  # a proof reads sets: no order needed
            return self._focused(state, focus)
        stale, done, ctx = state.change.stale, state.done, state.ctx
        wanted = range(len(RULES)) if not fixes_for else self._yielding(fixes_for)
        missing = [index for index in wanted if stale >> index & 1 and index not in done]
        if missing and fixes_for:
            # run with their fixes once: the findings are those without (a test checks codes, severities and
            # components), and those of these codes carry the fixes asked for
            for index in missing:
                done[index] = tuple(RULES[index](ctx))
        elif missing:
            with findings_only():
                for index in missing:
                    self._run(state, index)
        found: list[Finding] = []
        for index in wanted:
            run = self.per_rule[index]
            if stale >> index & 1:
                run = done[index]
                if fixes_for and index not in missing and any(finding.code in fixes_for for finding in run):
                    run = tuple(RULES[index](ctx))
            found.extend(run)
        return tuple(sorted(found, key=finding_order))

    @staticmethod
    def _yielding(codes: frozenset[str]) -> tuple[int, ...]:
        """The rules that can yield one of `codes`."""
        return _indices(_or(_YIELD_MASK.get(code, 0) for code in codes))


def _fails(
    findings: tuple[Finding, ...], codes: frozenset[str], errors: frozenset[str], components: tuple[str, ...] | None
) -> bool:
    """One of `findings` fails a proof of `codes`: an error of a code not in `errors`, or the finding itself
    (any of its codes when `components` is None, else one with these sorted components)."""
    for finding in findings:
        if finding.severity == "error" and finding.code not in errors:
            return True
        if finding.code in codes and (components is None or tuple(sorted(finding.components)) == components):
            return True
    return False


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
