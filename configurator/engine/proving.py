"""Every offered fix is proven: applied to the build and validated again before anyone sees it.

A fix answers a finding when, on the fixed build, the finding is gone and no error code appears that the
build did not already have. A finding is "gone" when no finding of its code is left, or, for a code the
build shows several times (one per component), when none with the same components is left.

Where a rule's fix clears its finding but needs more (a chassis that takes the GPUs but not the CPUs, a
redundancy mode that needs more PSUs), the fix is extended with the first proven-able fix the fixed build
offers for what went wrong, a few steps deep: the smallest combination found is offered as ONE fix. An error
left with no applicable fix says so (`no_fix`), so nobody follows a fix that does not exist.

The re-validation runs with proving off (no recursion) and is memoised per call, so one build is validated
once however many findings offer the same fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from configurator.engine.fixes import FixNotApplicable, apply_fix
from configurator.engine.types import BuildSpec, CatalogSnapshot, Finding, Fix, FixOp

MAX_OFFERED = 3  # proven fixes kept per finding (the rule's closest first)
MAX_EXTRA_STEPS = 3  # fixes a combination may chain after the rule's own one
MAX_CHECKS = 6  # re-validations one verdict may spend on proving the rules' fixes (errors first)
MAX_EXTEND_CHECKS = 8  # and on combining them (each step of a combination is one more)

Check = Callable[[BuildSpec, bool], tuple[Finding, ...]]  # (build, with its fixes) → its findings


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


class _Prover:
    def __init__(self, build: BuildSpec, findings: tuple[Finding, ...], snapshot: CatalogSnapshot, check: Check):
        self.build, self.findings, self.snapshot, self.check = build, findings, snapshot, check
        # steps → (fixed build, its findings, whether they carry their fixes); None: cannot be made
        self.memo: dict[tuple[FixOp, ...], tuple[BuildSpec, tuple[Finding, ...], bool] | None] = {}
        self.checks = 0
        self.extend_checks = 0

    def outcome(
        self, ops: tuple[FixOp, ...], *, with_fixes: bool = False
    ) -> tuple[BuildSpec, tuple[Finding, ...]] | None:
        """The fixed build and its findings (with the fixes they offer when asked), None when the steps
        cannot be made or the budget is spent."""
        if ops in self.memo:
            known = self.memo[ops]
            if known is None:
                return None
            if known[2] or not with_fixes:
                return known[0], known[1]
        else:
            known = None
        extending = with_fixes
        if (self.extend_checks if extending else self.checks) >= (MAX_EXTEND_CHECKS if extending else MAX_CHECKS):
            return None
        if known:
            fixed = known[0]
        else:
            try:
                fixed = apply_fix(self.build, Fix(ops=ops), self.snapshot)
            except FixNotApplicable:
                self.memo[ops] = None
                return None
            if fixed == self.build:
                self.memo[ops] = None
                return None
        if extending:
            self.extend_checks += 1
        else:
            self.checks += 1
        findings = self.check(fixed, with_fixes)
        self.memo[ops] = (fixed, findings, with_fixes)
        return fixed, findings

    def proves(self, finding: Finding, ops: tuple[FixOp, ...]) -> bool:
        result = self.outcome(ops)
        if result is None:
            return False
        after = result[1]
        return is_gone(finding, self.findings, after) and not new_error_codes(self.findings, after)

    def extend(self, finding: Finding, fix: Fix) -> Fix | None:
        """`fix` with the fewest further steps (each the first applicable fix the fixed build offers for a
        new error or for the finding itself) after which it is proven; None when none within reach."""
        ops = fix.ops
        for _ in range(MAX_EXTRA_STEPS + 1):
            result = self.outcome(ops, with_fixes=True)
            if result is None:
                return None
            after = result[1]
            fresh = new_error_codes(self.findings, after)
            still = not is_gone(finding, self.findings, after)
            if not fresh and not still:
                return replace(fix, ops=ops)
            blockers = [f for f in after if f.severity == "error" and f.code in fresh]
            if still:
                blockers += [f for f in after if f.code == finding.code]
            step = next(
                (
                    more
                    for blocker in blockers
                    for more in blocker.fixes
                    if more.applicable and not _undoes(ops, more.ops)
                ),
                None,
            )
            if step is None:
                return None
            ops = ops + step.ops
        return None

    def prove(self, finding: Finding) -> Finding:
        if not finding.fixes:
            return replace(finding, no_fix=finding.severity == "error")
        if self.checks >= MAX_CHECKS and not any(fix.ops in self.memo for fix in finding.fixes):
            # the budget went on the findings before (errors first): nothing unproven is shown, and
            # nothing is claimed either; the fixes appear once the errors above are fixed
            return replace(finding, fixes=tuple(fix for fix in finding.fixes if not fix.applicable))
        kept: list[Fix] = []
        seen: set[tuple[FixOp, ...]] = set()
        pending: list[Fix] = []
        for fix in finding.fixes:
            if not fix.applicable:
                kept.append(fix)  # a workload decision: shown, never applied
            elif sum(1 for done in kept if done.applicable) >= MAX_OFFERED:
                break
            elif self.proves(finding, fix.ops):
                if fix.ops not in seen:
                    seen.add(fix.ops)
                    kept.append(fix)
            else:
                pending.append(fix)
        if finding.severity == "error" and not any(fix.applicable for fix in kept):
            for fix in pending[:1]:
                combined = self.extend(finding, fix)
                if combined is not None and combined.ops not in seen:
                    seen.add(combined.ops)
                    kept.append(combined)
                    break
        no_fix = finding.severity == "error" and not any(fix.applicable for fix in kept)
        return replace(finding, fixes=tuple(kept), no_fix=no_fix)


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
    # the most common case first: errors in order, so the budget goes where it matters
    return tuple(prover.prove(finding) for finding in findings)
