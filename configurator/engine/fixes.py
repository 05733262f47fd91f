"""Fixes as data: how the rules make them, the one sentence that says them, and `apply_fix`.

A `Fix` (engine.types) is a tuple of `FixOp`s applied together plus an optional reason. The rules build
them with the constructors below; `fix_sentence` is the only place a fix becomes words (a `Phrase`, so a
page says it in its language); `apply_fix` is the only way a fix changes a build. Nothing reads a fix's text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any

from configurator.engine.builds import PART_KINDS
from configurator.engine.errors import ErrorCode, InvalidInput
from configurator.engine.phrase import Phrase, PhraseValue
from configurator.engine.types import (
    BUILD_FIELDS,
    REDUNDANCY_MODES,
    SITE_VOLTAGES,
    BuildSpec,
    CatalogSnapshot,
    Fix,
    FixOp,
    FixOpKind,
    Line,
)


class FixNotApplicable(InvalidInput):
    """The fix cannot be made on this build (it changes the workload, or names a line the build lacks)."""

    default_code = ErrorCode.FIX_NOT_APPLICABLE


# --------------------------------------------------------------------------- constructors (for the rules)


def add_op(kind: str, sku: str, qty: int) -> FixOp:
    return FixOp(op=FixOpKind.ADD, kind=kind, sku=sku, qty=qty)


def remove_op(kind: str, sku: str, qty: int) -> FixOp:
    return FixOp(op=FixOpKind.REMOVE, kind=kind, sku=sku, qty=qty)


def replace_op(kind: str, sku: str, qty: int | None = None, *, old_sku: str | None = None) -> FixOp:
    return FixOp(op=FixOpKind.REPLACE, kind=kind, sku=sku, qty=qty, old_sku=old_sku)


def chassis_op(sku: str) -> FixOp:
    return FixOp(op=FixOpKind.SWAP_CHASSIS, sku=sku)


def set_op(field: str, value: str | int) -> FixOp:
    return FixOp(op=FixOpKind.SET, field=field, value=value)


def make_fix(*ops: FixOp, reason: str | None = None) -> Fix:
    return Fix(ops=tuple(ops), reason=reason)


def workload_fix(reason: str) -> Fix:
    """A decision about the workload (another engine, other GPUs): shown, never applied to the build."""
    return Fix(ops=(FixOp(op=FixOpKind.CHANGE_WORKLOAD),), reason=reason)


# --------------------------------------------------------------------------- the sentence


def _replace_kind_phrase(kind: str, count: PhraseValue, sku: str) -> Phrase:
    # one literal msgid per kind, so makemessages extracts each
    if kind == "psus":
        return Phrase("replace psus with %(count)s× %(sku)s", count=count, sku=sku)
    if kind == "memory":
        return Phrase("replace memory with %(count)s× %(sku)s", count=count, sku=sku)
    if kind == "gpus":
        return Phrase("replace gpus with %(count)s× %(sku)s", count=count, sku=sku)
    if kind == "storage":
        return Phrase("replace storage with %(count)s× %(sku)s", count=count, sku=sku)
    if kind == "nics":
        return Phrase("replace nics with %(count)s× %(sku)s", count=count, sku=sku)
    return Phrase("replace bridges with %(count)s× %(sku)s", count=count, sku=sku)


def redundancy_value(mode: str) -> PhraseValue:
    """A PSU redundancy mode inside a sentence: "none" is a word to translate, N+1 and N+N are not."""
    return Phrase("none") if mode == "none" else mode


def op_sentence(op: FixOp) -> Phrase | None:
    """What one step does, in words; None for a workload change (its reason says it)."""
    sku = op.sku or ""
    count = op.qty if op.qty is not None else ""
    if op.op == FixOpKind.ADD:
        return Phrase("add %(count)s× %(sku)s", count=count, sku=sku)
    if op.op == FixOpKind.REMOVE:
        return Phrase("remove %(count)s× %(sku)s", count=count, sku=sku)
    if op.op == FixOpKind.REPLACE:
        if op.kind == "cpus" and op.old_sku is None:
            if op.qty and op.qty > 1:
                return Phrase("use cpu %(sku)s ×%(count)s", sku=sku, count=op.qty)
            return Phrase("use cpu %(sku)s", sku=sku)
        if op.old_sku is not None:
            return Phrase("replace %(old)s with %(count)s× %(new)s", old=op.old_sku, count=count, new=sku)
        return _replace_kind_phrase(op.kind or "", count, sku)
    if op.op == FixOpKind.SWAP_CHASSIS:
        return Phrase("use chassis %(sku)s", sku=sku)
    if op.op == FixOpKind.SET:
        if op.field == "psu_redundancy":
            return Phrase("set psu_redundancy %(mode)s", mode=redundancy_value(str(op.value)))
        return Phrase("set site_voltage %(volts)s", volts=str(op.value))
    return None


def _steps_sentence(ops: Sequence[FixOp]) -> Phrase | None:
    first, rest = ops[0], ops[1:]
    # a chassis with the CPUs or GPUs it takes reads as one step
    if first.op == FixOpKind.SWAP_CHASSIS and rest and rest[0].op == FixOpKind.REPLACE:
        nxt = rest[0]
        head: Phrase | None
        if nxt.kind == "cpus":
            head = Phrase("use chassis %(sku)s with cpu %(cpu)s", sku=first.sku or "", cpu=nxt.sku or "")
        elif nxt.kind == "gpus":
            count = nxt.qty if nxt.qty is not None else ""
            head = Phrase(
                "use chassis %(chassis)s with %(count)s× %(gpu)s",
                chassis=first.sku or "",
                count=count,
                gpu=nxt.sku or "",
            )
        else:
            head = None
        if head is not None:
            tail = _steps_sentence(rest[1:]) if rest[1:] else None
            return Phrase("%(first)s; %(then)s", first=head, then=tail) if tail else head
    said = op_sentence(first)
    tail = _steps_sentence(rest) if rest else None
    if said is None:
        return tail
    return Phrase("%(first)s; %(then)s", first=said, then=tail) if tail else said


def fix_sentence(fix: Fix) -> str:
    """The fix in words: its steps, then the reason in parentheses (the reason alone for a workload change)."""
    steps = _steps_sentence(fix.ops) if fix.ops else None
    if steps is None:
        return fix.reason or ""
    if fix.reason:
        return Phrase("%(what)s (%(why)s)", what=steps, why=fix.reason)
    return steps


# --------------------------------------------------------------------------- applying


def _catalog_spec(snapshot: CatalogSnapshot, kind: str, sku: str | None) -> Any:
    spec = snapshot.kind(kind).get(sku or "") if kind in PART_KINDS else None
    if spec is None:
        unknown = Phrase("unknown %(kind)s SKU %(sku)s", kind=kind, sku=repr(sku))
        raise FixNotApplicable(unknown, fields={"fix.ops": [unknown]})
    return spec


def _qty(op: FixOp) -> int:
    if op.qty is None:
        return 1
    if op.qty < 1:
        raise FixNotApplicable(
            Phrase("a fix quantity must be at least 1"), fields={"fix.ops": [Phrase("qty must be at least 1")]}
        )
    return op.qty


_VALUES = attrgetter(*BUILD_FIELDS)


def _with(build: BuildSpec, name: str, value: Any) -> BuildSpec:
    """`build` with one field changed (dataclasses.replace, without its per-field bookkeeping: proving applies
    thousands of fixes a second)."""
    values = list(_VALUES(build))
    values[BUILD_FIELDS.index(name)] = value
    return BuildSpec(*values)


def _apply_op(build: BuildSpec, op: FixOp, snapshot: CatalogSnapshot) -> BuildSpec:
    if op.op == FixOpKind.SWAP_CHASSIS:
        chassis = snapshot.chassis.get(op.sku or "")
        if chassis is None:
            raise FixNotApplicable(
                Phrase("unknown chassis SKU %(sku)s", sku=repr(op.sku)), fields={"fix.ops": [Phrase("unknown chassis")]}
            )
        return _with(build, "chassis", chassis)
    if op.op == FixOpKind.SET:
        if op.field == "psu_redundancy" and op.value in REDUNDANCY_MODES:
            return _with(build, "psu_redundancy", str(op.value))
        if op.field == "site_voltage" and op.value in SITE_VOLTAGES and not isinstance(op.value, bool):
            return _with(build, "site_voltage", int(op.value))
        refused = Phrase("cannot set %(field)s to %(value)s", field=str(op.field), value=repr(op.value))
        raise FixNotApplicable(refused, fields={"fix.ops": [refused]})
    if op.op == FixOpKind.CHANGE_WORKLOAD or op.kind not in PART_KINDS:
        raise FixNotApplicable(
            Phrase("This fix changes the workload, not the build."),
            fields={"fix": [Phrase("changes the workload, not the build")]},
        )
    kind = op.kind
    lines: list[Line[Any]] = list(getattr(build, kind))
    if op.op == FixOpKind.ADD:
        spec, qty = _catalog_spec(snapshot, kind, op.sku), _qty(op)
        for index, line in enumerate(lines):
            if line.spec.sku == spec.sku:
                lines[index] = Line(spec=line.spec, qty=line.qty + qty)
                break
        else:
            lines.append(Line(spec=spec, qty=qty))
    elif op.op == FixOpKind.REMOVE:
        left = _qty(op)
        if not any(line.spec.sku == op.sku for line in lines):
            absent = Phrase("the build has no %(sku)s", sku=str(op.sku))
            raise FixNotApplicable(absent, fields={"fix.ops": [absent]})
        kept = []
        for line in lines:
            if line.spec.sku == op.sku and left > 0:
                take = min(left, line.qty)
                left -= take
                if line.qty > take:
                    kept.append(Line(spec=line.spec, qty=line.qty - take))
                continue
            kept.append(line)
        lines = kept
    else:  # REPLACE
        spec = _catalog_spec(snapshot, kind, op.sku)
        gone = [line for line in lines if op.old_sku is None or line.spec.sku == op.old_sku]
        if op.old_sku is not None and not gone:
            absent = Phrase("the build has no %(sku)s", sku=op.old_sku)
            raise FixNotApplicable(absent, fields={"fix.ops": [absent]})
        count = _qty(op) if op.qty is not None else (sum(line.qty for line in gone) or 1)
        at = lines.index(gone[0]) if gone else len(lines)
        kept = [line for line in lines if all(line is not out for out in gone)]  # by identity: no spec compares
        same = next((i for i, line in enumerate(kept) if line.spec.sku == spec.sku), None)
        if same is not None:
            kept[same] = Line(spec=spec, qty=kept[same].qty + count)
        else:
            kept.insert(min(at, len(kept)), Line(spec=spec, qty=count))
        lines = kept
    return _with(build, kind, tuple(lines))


def apply_fix(build: BuildSpec, fix: Fix, snapshot: CatalogSnapshot) -> BuildSpec:
    """The build with every step of `fix` made, in order. Raises FixNotApplicable (naming the field) for a
    workload change, an unknown SKU or a line the build does not have; the caller validates the result."""
    return apply_ops(build, fix.ops, snapshot)


def apply_ops(build: BuildSpec, ops: tuple[FixOp, ...], snapshot: CatalogSnapshot) -> BuildSpec:
    """`apply_fix` of the fix made of `ops` (engine.proving applies steps it already holds)."""
    if not ops:
        raise FixNotApplicable(
            Phrase("A fix needs at least one step."), fields={"fix.ops": [Phrase("at least one step")]}
        )
    for op in ops:
        build = _apply_op(build, op, snapshot)
    return build


# --------------------------------------------------------------------------- data (API bodies, stored verdicts)


def fix_op_data(op: FixOp) -> dict[str, Any]:
    """A step as JSON: `op` and only the fields that step uses."""
    data: dict[str, Any] = {"op": str(op.op)}
    for name in ("kind", "sku", "qty", "old_sku", "field", "value"):
        value = getattr(op, name)
        if value is not None:
            data[name] = value
    return data


def fix_from_data(data: Mapping[str, Any]) -> Fix:
    """A fix as the API returned it (`{"ops": [...], "text": ...}`) back into a `Fix`; the text is ignored
    (it is made from the steps). Raises FixNotApplicable naming the field for a malformed body."""
    raw_ops = data.get("ops") if isinstance(data, Mapping) else None
    if not isinstance(raw_ops, list) or not raw_ops:
        raise FixNotApplicable(
            Phrase('A fix is {"ops": [...]}.'), fields={"fix.ops": [Phrase("a non-empty list of steps")]}
        )
    ops = []
    for index, raw in enumerate(raw_ops):
        where = f"fix.ops[{index}]"
        if not isinstance(raw, Mapping):
            raise FixNotApplicable(Phrase("A fix step is an object."), fields={where: [Phrase("must be an object")]})
        try:
            kind = FixOpKind(str(raw.get("op")))
        except ValueError:
            choices = ", ".join(k.value for k in FixOpKind)
            raise FixNotApplicable(
                Phrase("Unknown fix step."), fields={f"{where}.op": [Phrase("one of %(choices)s", choices=choices)]}
            ) from None
        qty = raw.get("qty")
        if qty is not None and (isinstance(qty, bool) or not isinstance(qty, int)):
            raise FixNotApplicable(
                Phrase("A quantity is an integer."), fields={f"{where}.qty": [Phrase("must be an integer")]}
            )
        texts = {name: raw.get(name) for name in ("kind", "sku", "old_sku", "field")}
        for name, value in texts.items():
            if value is not None and not isinstance(value, str):
                raise FixNotApplicable(
                    Phrase("A fix field is text."), fields={f"{where}.{name}": [Phrase("must be a string")]}
                )
        value = raw.get("value")
        if value is not None and (isinstance(value, bool) or not isinstance(value, str | int)):
            raise FixNotApplicable(
                Phrase("A value is text or a number."), fields={f"{where}.value": [Phrase("text or integer")]}
            )
        ops.append(FixOp(op=kind, qty=qty, value=value, **texts))
    return Fix(ops=tuple(ops))
