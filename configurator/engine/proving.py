"""Every offered fix is proven: applied to the build and validated again before anyone sees it.

A fix answers a finding when, on the fixed build, the finding is gone and no error code appears that the
build did not already have. A finding is "gone" when no finding of its code is left, or, for a code the
build shows several times (one per component), when none with the same components is left.

Where no fix of a rule clears its error alone (a chassis that takes the GPUs but not the CPUs, a redundancy
mode that needs more PSUs), each of its fixes in turn is extended with the first fix the fixed build offers
for what went wrong, a few steps deep: the first combination proven is offered as ONE fix. An error left
with no applicable fix says so (`no_fix`), so nobody follows a fix that does not exist.

A build with several errors gets one more fix, offered first on the first error it clears: every error's
first proven fix applied together ("the proposed fixes together"), proven like the others (the errors it
names gone, no new error code), so a person clears a badly wrong build in a step or two, not one error a
step (`_with_combined`).

The search is complete over that space: every fix of every finding is tried, nothing is cut by a budget.
Should a verdict ever need more than MAX_CHECKS re-validations (no catalog build comes near: see
tests/configurator/test_fix_proving.py), the findings not reached say so (`fixes_unchecked`) instead of
showing no fix in silence.

The re-validation runs with proving off (no recursion), reads only codes, severities and components, and
asks for the fixes of a fixed build only for the findings a combination continues from. It is memoised per
call, so one build is validated once however many findings offer the same fix.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from decimal import Decimal

from configurator.engine.builds import PART_KINDS
from configurator.engine.fixes import FixNotApplicable, apply_ops
from configurator.engine.phrase import Phrase
from configurator.engine.types import BUILD_FIELDS, BuildSpec, CatalogSnapshot, Finding, Fix, FixOp, FixOpKind

MAX_OFFERED = 3  # proven fixes kept per finding (the rule's closest first)
MAX_EXTRA_STEPS = 3  # fixes a combination may chain after the rule's own one
MAX_CHECKS = 2000  # a safety stop on re-validations per verdict, far above any catalog build's need

# a proof's focus: the codes it answers (one; the combined fix: several), the error codes the build already
# has, the sorted components of the finding when the build shows its code more than once (None: any finding
# of the code keeps it), and whether the check may stop at the first finding that fails the proof (the focus
# finding still there, or an error of a code the build did not have); only a rule that can yield one of the
# codes or another error code can change it
Focus = tuple[frozenset[str], frozenset[str], "tuple[str, ...] | None", bool]
# (fixed build, codes whose findings must carry their fixes or None, a focus or None) → the fixed build's
# findings, in validate's order; with `fixes_for` the findings of rules that cannot yield those codes may be
# left out; with a focus: any order, the findings of rules that cannot matter to it may be left out, and
# (when it says so) the check may stop at the first finding that fails the proof
Check = Callable[[BuildSpec, "frozenset[str] | None", "Focus | None"], tuple[Finding, ...]]


def build_net(build: BuildSpec) -> Decimal:
    """The build's net list price (Σ unit price × qty), to compare the cost of fixes."""
    return build.chassis.price + sum(
        (line.spec.price * line.qty for kind in PART_KINDS for line in getattr(build, kind)), Decimal(0)
    )


# parts whose removal gives up what the customer asked the build for (GPUs, networking, memory, storage)
GIVEN_UP_KINDS = ("gpus", "nics", "memory", "storage")


def gives_up_parts(ops: tuple[FixOp, ...]) -> bool:
    """The steps take out a GPU, a NIC, DIMMs or drives."""
    return any(op.op == FixOpKind.REMOVE and op.kind in GIVEN_UP_KINDS for op in ops)


def _key(finding: Finding) -> tuple[str, tuple[str, ...]]:
    return finding.code, tuple(sorted(finding.components))


def is_gone(finding: Finding, before: Iterable[Finding], after: Iterable[Finding]) -> bool:
    """`finding` (from `before`) is not in `after`: by code, or by code and components for a code that
    `before` shows more than once."""
    if sum(1 for other in before if other.code == finding.code) > 1:
        key = _key(finding)
        return all(_key(other) != key for other in after)
    return all(other.code != finding.code for other in after)


def new_error_codes(before: Iterable[Finding], after: Iterable[Finding]) -> set[str]:
    had = {f.code for f in before if f.severity == "error"}
    return {f.code for f in after if f.severity == "error"} - had


class BudgetSpent(Exception):
    """More re-validations than MAX_CHECKS in one verdict."""


class _Prover:
    def __init__(self, build: BuildSpec, findings: tuple[Finding, ...], snapshot: CatalogSnapshot, check: Check):
        self.build, self.findings, self.snapshot, self.check = build, findings, snapshot, check
        self.errors = frozenset(f.code for f in findings if f.severity == "error")
        self.several = frozenset(code for code, count in Counter(f.code for f in findings).items() if count > 1)
        # steps → the fixed build; None: the steps cannot be made or change nothing
        self.memo: dict[tuple[FixOp, ...], BuildSpec | None] = {}
        self.proofs: dict[tuple[tuple[FixOp, ...], str, tuple[str, ...]], bool] = {}
        # (steps, code) → the fixed build's findings of that code with their fixes (a combination's next step)
        self.offered: dict[tuple[tuple[FixOp, ...], str], tuple[Finding, ...]] = {}
        self.checks = 0
        self.by_id: dict[int, tuple[tuple[FixOp, ...], BuildSpec | None]] = {}  # id(steps) → (steps, memo)
        self.singles: dict[str, frozenset[str]] = {}  # code → {code}, one object per code (a focus key)
        self.valid: dict[tuple[FixOp, ...], bool] = {}  # steps → the fixed build has no error
        self.warnings: dict[tuple[FixOp, ...], int] = {}  # steps → the fixed build's warnings
        self.net = build_net(build)

    def leaves_valid(self, ops: tuple[FixOp, ...]) -> bool:
        """The build `ops` make has no error at all (validated again, every rule)."""
        if not self.errors:
            return True  # a proven fix adds no error code to a build without one
        known = self.valid.get(ops)
        if known is None:
            result = self.outcome(ops)
            known = self.valid[ops] = result is not None and not any(f.severity == "error" for f in result[1])
        return known

    def cost(self, ops: tuple[FixOp, ...]) -> Decimal:
        """What the steps add to the build's net list price (negative: they save)."""
        fixed = self.fixed(ops)
        return build_net(fixed) - self.net if fixed is not None else Decimal(0)

    def warnings_left(self, ops: tuple[FixOp, ...]) -> int:
        """The warnings on the build `ops` make (validated again, every rule)."""
        known = self.warnings.get(ops)
        if known is None:
            result = self.outcome(ops)
            known = self.warnings[ops] = 0 if result is None else sum(f.severity == "warning" for f in result[1])
        return known

    def order(self, fixes: list[Fix]) -> list[Fix]:
        """The smallest change first (issue 34): fixes that leave the build valid; then those that keep every
        GPU, NIC, DIMM and drive the customer chose (taking one out gives up what the build is for); then those
        that leave fewer warnings (a Server Edition card that clears a card-length error and the flow-through
        warning before a taller chassis that clears the length only, trial 34 B11); then the fewest steps; then
        the least added cost (a 230 V circuit before any part). Workload decisions (not applied) stay at the
        end."""
        applied = [fix for fix in fixes if fix.applicable]
        shown = [fix for fix in fixes if not fix.applicable]
        if len(applied) > 1:
            applied.sort(
                key=lambda fix: (
                    not self.leaves_valid(fix.ops),
                    gives_up_parts(fix.ops),
                    self.warnings_left(fix.ops),
                    len(fix.ops),
                    self.cost(fix.ops),
                )
            )
        return applied + shown

    def _spend(self) -> None:
        if self.checks >= MAX_CHECKS:
            raise BudgetSpent
        self.checks += 1

    def fixed(self, ops: tuple[FixOp, ...]) -> BuildSpec | None:
        known = self.by_id.get(id(ops))  # the same steps object (a fix proven for several findings): no hashing
        if known is not None and known[0] is ops:
            return known[1]
        fixed = self.memo.get(ops, self.build)
        if fixed is self.build:  # not made yet
            try:
                fixed = apply_ops(self.build, ops, self.snapshot)
            except FixNotApplicable:
                fixed = None
            fixed = self.memo[ops] = None if fixed == self.build else fixed
        self.by_id[id(ops)] = (ops, fixed)
        return fixed

    def outcome(
        self, ops: tuple[FixOp, ...], fixes_for: frozenset[str] | None = None, focus: Focus | None = None
    ) -> tuple[BuildSpec, tuple[Finding, ...]] | None:
        """The fixed build and its findings (those of `fixes_for` with their fixes; with a `focus` only those
        that can matter to it), None when the steps cannot be made."""
        fixed = self.fixed(ops)
        if fixed is None:
            return None
        self._spend()
        return fixed, self.check(fixed, fixes_for, focus)

    def _codes(self, code: str) -> frozenset[str]:
        codes = self.singles.get(code)
        if codes is None:
            codes = self.singles[code] = frozenset((code,))
        return codes

    def proves(self, finding: Finding, ops: tuple[FixOp, ...]) -> bool:
        """On the fixed build `finding` is gone and no new error code appears: only the rules that can yield
        its code or an error code the build does not have yet need to run."""
        key = (ops, finding.code, finding.components)
        if key not in self.proofs:
            self.proofs[key] = self._proves(finding, ops)
        return self.proofs[key]

    def _proves(self, finding: Finding, ops: tuple[FixOp, ...]) -> bool:
        components = _key(finding)[1] if finding.code in self.several else None
        result = self.outcome(ops, focus=(self._codes(finding.code), self.errors, components, True))
        if result is None:
            return False
        return not any(
            (other.severity == "error" and other.code not in self.errors)
            or (other.code == finding.code and (components is None or _key(other)[1] == components))
            for other in result[1]
        )  # is_gone and no new_error_codes, with what the prover knows of the build's findings

    def extend(self, finding: Finding, fix: Fix) -> Fix | None:
        """`fix` with the fewest further steps (each the first applicable fix the fixed build offers for a
        new error or for the finding itself) after which it is proven; None when none within reach."""
        ops = fix.ops
        for _ in range(MAX_EXTRA_STEPS + 1):
            result = self.outcome(ops, focus=(self._codes(finding.code), self.errors, None, False))
            if result is None:
                return None
            after = result[1]
            fresh = new_error_codes(self.findings, after)
            still = not is_gone(finding, self.findings, after)
            if not fresh and not still:
                return replace(fix, ops=ops)
            # the first applicable step of the first blocker (the new errors by code, then the finding itself),
            # the fixes of one code at a time: most often the first blocker's first fix is the step
            step = None
            for code in (*sorted(fresh), *((finding.code,) if still else ())):
                for blocker in self._offered(ops, result[0], code):
                    if blocker.code == code and (blocker.severity == "error" or code not in fresh):
                        step = next(
                            (more for more in blocker.fixes if more.applicable and not _undoes(ops, more.ops)), None
                        )
                        if step is not None:
                            break
                if step is not None:
                    break
            if step is None:
                return None
            ops = ops + step.ops
        return None

    def _offered(self, ops: tuple[FixOp, ...], fixed: BuildSpec, code: str) -> tuple[Finding, ...]:
        """The findings of `code` on the build `ops` made, with their fixes, in validate's order."""
        offered = self.offered.get((ops, code))
        if offered is None:
            self._spend()
            offered = self.offered[ops, code] = self.check(fixed, self._codes(code), None)
        return offered

    def prove(self, finding: Finding, siblings: tuple[Fix, ...] = ()) -> Finding:
        if not finding.fixes and not (finding.severity == "error" and siblings):
            no_fix = finding.severity == "error"
            return finding if finding.no_fix == no_fix else replace(finding, no_fix=no_fix)
        kept: list[Fix] = []
        seen: set[tuple[FixOp, ...]] = set()
        pending: list[Fix] = []
        proven = 0
        for fix in finding.fixes:
            if not fix.applicable:
                kept.append(fix)  # a workload decision: shown, never applied
            elif proven >= MAX_OFFERED:
                break
            elif self.proves(finding, fix.ops):
                if fix.ops not in seen:
                    seen.add(fix.ops)
                    kept.append(fix)
                    proven += 1
            else:
                pending.append(fix)
        if finding.severity == "error" and not any(fix.applicable and not gives_up_parts(fix.ops) for fix in kept):
            # another finding's fix may clear this one too (a 230 V circuit clears the PSU capacity at 120 V)
            for fix in siblings:
                if fix.ops not in seen and self.proves(finding, fix.ops):
                    seen.add(fix.ops)
                    kept.append(fix)
                    break
        if finding.severity == "error" and not any(fix.applicable and not gives_up_parts(fix.ops) for fix in kept):
            for fix in pending:
                combined = self.extend(finding, fix)
                if combined is not None and combined.ops not in seen:
                    seen.add(combined.ops)
                    kept.append(combined)
                    break
        no_fix = finding.severity == "error" and not any(fix.applicable for fix in kept)
        kept = self.order(kept)
        if tuple(kept) == finding.fixes and no_fix == finding.no_fix:
            return finding  # every fix proven: the finding as it is
        return replace(finding, fixes=tuple(kept), no_fix=no_fix)


def _whole_kind(op: FixOp) -> bool:
    """A step that sets every line of its part kind to one SKU and a stated quantity ("replace memory with 24×
    ddr5-rdimm-64gb"): whatever earlier steps did to that kind, the kind ends as this step says."""
    return op.op == FixOpKind.REPLACE and op.old_sku is None and op.qty is not None and op.kind in PART_KINDS


def _merged(ops: tuple[FixOp, ...]) -> tuple[FixOp, ...]:
    """Removals of the same part said once, with their quantities added ("remove 2× X", not "remove 1× X;
    remove 1× X"); a step on a part kind that a later whole-kind replacement overrides left out (trial tr34:
    "replace ddr5-udimm-32gb with 12× ddr5-rdimm-32gb; replace memory with 24× ddr5-rdimm-64gb" said the
    first step for nothing; the fixed build is the same); every other step as it is, in order."""
    ops = tuple(
        op
        for index, op in enumerate(ops)
        if op.op == FixOpKind.SWAP_CHASSIS
        or op.kind not in PART_KINDS
        or not any(_whole_kind(later) and later.kind == op.kind for later in ops[index + 1 :])
    )
    out: list[FixOp] = []
    for op in ops:
        same = next(
            (
                i
                for i, o in enumerate(out)
                if op.op == FixOpKind.REMOVE and o.op == FixOpKind.REMOVE and (o.kind, o.sku) == (op.kind, op.sku)
            ),
            None,
        )
        if same is None:
            out.append(op)
        else:
            out[same] = replace(out[same], qty=(out[same].qty or 1) + (op.qty or 1))
    return tuple(out)


def _repeats(ops: tuple[FixOp, ...], more: tuple[FixOp, ...]) -> bool:
    """A further step that changes nothing new: a second chassis swap, or the same steps as the last ones
    (removing one more GPU of an over-full tower is progress, so a repeated removal is allowed once)."""
    if any(op.op == "swap_chassis" for op in more) and any(o.op == "swap_chassis" for o in ops):
        return True
    return len(ops) >= 2 * len(more) and ops[-len(more) :] == more and ops[-2 * len(more) : -len(more)] == more


def _undoes(ops: tuple[FixOp, ...], more: tuple[FixOp, ...]) -> bool:
    """A further step that only repeats or reverses a step already taken (no progress, a loop)."""
    return all(op in ops for op in more) or any(
        op.op == "swap_chassis" and any(o.op == "swap_chassis" for o in ops) for op in more
    )


def prove_fixes(
    build: BuildSpec, findings: tuple[Finding, ...], *, snapshot: CatalogSnapshot, check: Check
) -> tuple[Finding, ...]:
    """`findings` with only the fixes that are proven on `build` (see the module docstring)."""
    if not any(finding.fixes or finding.severity == "error" for finding in findings):
        return findings
    prover = _Prover(build, findings, snapshot, check)
    proven = []
    for finding in findings:
        siblings = tuple(fix for other in findings if other is not finding for fix in other.fixes if fix.applicable)
        try:
            proven.append(prover.prove(finding, siblings))
        except BudgetSpent:
            unchecked = tuple(fix for fix in finding.fixes if not fix.applicable)
            proven.append(replace(finding, fixes=unchecked, fixes_unchecked=any(f.applicable for f in finding.fixes)))
    try:
        return _with_whole(prover, list(_with_combined(prover, proven)))
    except BudgetSpent:
        return tuple(proven)


def _op_field(op: FixOp) -> str:
    """The build field a step changes."""
    if op.op == FixOpKind.SWAP_CHASSIS:
        return "chassis"
    return str(op.field if op.op == FixOpKind.SET else op.kind)


def _with_combined(prover: _Prover, proven: list[Finding]) -> tuple[Finding, ...]:
    """`proven` with one more fix, first on the first error it answers: the first proven fix of every error
    applied together (each error's, in the verdict's order, skipped when it changes a field an earlier one
    changed), offered when the build validated again has no new error code and at least two of the errors
    are gone; it answers those. One re-validation, on builds whose errors have two or more fixes to combine.

    The fixes change disjoint fields and each step reads only the field it changes, so the combined build is
    the validated one with each field as its fix made it: the same objects, so the rules that read the
    fields of one fix only are not run again (engine.validate.Rechecks)."""
    ops: tuple[FixOp, ...] = ()
    values = {name: getattr(prover.build, name) for name in BUILD_FIELDS}
    codes: set[str] = set()
    taken = 0
    steps: list[tuple[FixOp, ...]] = []
    for finding in proven:
        first = next((fix for fix in finding.fixes if fix.applicable), None) if finding.severity == "error" else None
        fixed = prover.fixed(first.ops) if first is not None else None
        if first is None or fixed is None:
            continue
        fields = {_op_field(op) for op in first.ops}
        if any(values[name] is not getattr(prover.build, name) for name in fields):
            continue  # a field an earlier fix changed
        ops, taken = ops + first.ops, taken + 1
        values.update((name, getattr(fixed, name)) for name in fields)
        codes.add(finding.code)
        steps.append(first.ops)
    if taken < 2 or any(prover.leaves_valid(one) for one in steps):
        # one of the fixes alone leaves the build valid: the others would be steps for nothing (trial tr34: a
        # 6-GPU workstation for 4 GPUs in a 3-GPU tower, combined with "remove 1× rtx-6000-ada")
        return tuple(proven)
    prover.by_id[id(ops)] = (ops, BuildSpec(**values))  # made from its parts, not hashed: it is long
    result = prover.outcome(ops, focus=(frozenset(codes), prover.errors, None, False))
    if result is None or new_error_codes(prover.findings, result[1]):
        return tuple(proven)
    after = result[1]
    gone = [
        index
        for index, finding in enumerate(proven)
        if finding.code in codes and is_gone(finding, prover.findings, after)
    ]
    if len(gone) < 2:
        return tuple(proven)
    combined = Fix(ops=ops, reason=Phrase("the proposed fixes together: they clear %(count)s errors", count=len(gone)))
    answered = proven[gone[0]]
    proven[gone[0]] = replace(answered, fixes=tuple(prover.order([combined, *answered.fixes])), no_fix=False)
    return tuple(proven)


def _with_whole(prover: _Prover, proven: list[Finding]) -> tuple[Finding, ...]:
    """When no offered fix of the first error leaves the build valid: its first fix extended, a step at a
    time, with the first applicable fix of an error the fixed build still has (at most MAX_EXTRA_STEPS),
    validated again after each; the first chain that leaves the build valid is offered first (issue 34: one
    GPU out of an over-full tower that then lacks power)."""
    at = next((i for i, f in enumerate(proven) if f.severity == "error" and f.fixes), None)
    if at is None:
        return tuple(proven)
    first = proven[at]
    offered = [fix for fix in first.fixes if fix.applicable]
    if not offered or any(prover.leaves_valid(fix.ops) for fix in offered):
        return tuple(proven)
    ops = offered[0].ops
    for _ in range(MAX_EXTRA_STEPS):
        result = prover.outcome(ops)
        if result is None:
            return tuple(proven)
        fixed, after = result
        step = None
        for code in dict.fromkeys(f.code for f in after if f.severity == "error"):
            for blocker in prover._offered(ops, fixed, code):
                if blocker.severity == "error":
                    step = next((fix for fix in blocker.fixes if fix.applicable and not _repeats(ops, fix.ops)), None)
                    if step is not None:
                        break
            if step is not None:
                break
        if step is None:
            return tuple(proven)
        ops = _merged(ops + step.ops)
        if prover.leaves_valid(ops):
            whole = Fix(ops=ops, reason=Phrase("these steps together leave the build valid"))
            proven[at] = replace(first, fixes=(whole, *first.fixes), no_fix=False)
            return tuple(proven)
    return tuple(proven)
