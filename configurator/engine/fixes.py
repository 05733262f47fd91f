"""Apply a finding's fix to a build body: the build editor's "apply" button.

A fix is `{action, sku, target, qty, detail}` (configurator.engine.types.Fix). What each one does to the body:

* `add` on a part kind: `qty` more of `sku` (a new line when the build has none of it);
* `remove` on a part kind: `qty` fewer of `sku` (the line goes when nothing is left);
* `replace` on `chassis`: the chassis becomes `sku`; a detail "… with cpu X" also puts X in the CPU
  sockets, "… with N× gpu" sets that GPU line to N;
* `replace` on a part kind: the lines named by the detail ("replace <sku> with …") or, when the detail
  names the kind ("replace psus with …", "use cpu …"), every line of the kind, become `qty` × `sku`;
* `set` on `psu_redundancy` / `site_voltage`: the value named in the detail ("set psu_redundancy n+1").

Anything else (`change` of the workload) cannot be applied to a build and raises `FixNotApplicable`.
Pure: a dict in, a new dict out; the result is validated again by the caller like any other body.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from configurator.engine.builds import PART_KINDS
from configurator.engine.types import REDUNDANCY_MODES, SITE_VOLTAGES

_SET = re.compile(r"^set (?P<field>psu_redundancy|site_voltage) (?P<value>\S+)")
_REPLACE_NAMED = re.compile(r"^replace (?P<old>\S+) with ")
_WITH_CPU = re.compile(r" with cpu (?P<sku>[a-z0-9][a-z0-9.+-]*)")
_WITH_GPUS = re.compile(r" with (?P<qty>\d+)× (?P<sku>[a-z0-9][a-z0-9.+-]*)")


class FixNotApplicable(ValueError):
    """The fix needs a decision the build body cannot hold (e.g. another inference engine)."""


def fix_is_applicable(fix: Mapping[str, Any]) -> bool:
    """Whether `build_apply_fix` can apply this fix (so the page shows an "apply" button)."""
    action, target = fix.get("action"), fix.get("target")
    if action == "set":
        return _SET.match(str(fix.get("detail") or "")) is not None
    if action in ("add", "remove"):
        return target in PART_KINDS and bool(fix.get("sku"))
    if action == "replace":
        return (target == "chassis" or target in PART_KINDS) and bool(fix.get("sku"))
    return False


def _lines(body: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    lines = body.get(kind)
    if not isinstance(lines, list):
        lines = []
    body[kind] = [dict(line) for line in lines if isinstance(line, Mapping)]
    return body[kind]


def _qty(line: Mapping[str, Any]) -> int:
    qty = line.get("qty", 1)
    return qty if isinstance(qty, int) and not isinstance(qty, bool) else 1


def _add(body: dict[str, Any], kind: str, sku: str, qty: int) -> None:
    lines = _lines(body, kind)
    for line in lines:
        if line.get("sku") == sku:
            line["qty"] = _qty(line) + qty
            return
    lines.append({"sku": sku, "qty": qty})


def _remove(body: dict[str, Any], kind: str, sku: str, qty: int) -> None:
    kept = []
    for line in _lines(body, kind):
        if line.get("sku") == sku and qty > 0:
            left = _qty(line) - qty
            qty = max(0, -left)
            if left > 0:
                kept.append({**line, "qty": left})
            continue
        kept.append(line)
    body[kind] = kept


def _replace(body: dict[str, Any], kind: str, sku: str, qty: int | None, detail: str) -> None:
    lines = _lines(body, kind)
    named = _REPLACE_NAMED.match(detail)
    old = named.group("old") if named else kind
    replaced = [line for line in lines if old == kind or line.get("sku") == old]
    if not replaced:  # the detail named a line the body no longer has: replace the whole kind
        replaced = lines
    count = qty if qty is not None else sum(_qty(line) for line in replaced) or 1
    kept = [line for line in lines if line not in replaced]
    body[kind] = [*kept, {"sku": sku, "qty": count}]


def _replace_chassis(body: dict[str, Any], sku: str, detail: str) -> None:
    body["chassis"] = sku
    with_cpu = _WITH_CPU.search(detail)
    if with_cpu:
        sockets = sum(_qty(line) for line in _lines(body, "cpus")) or 1
        body["cpus"] = [{"sku": with_cpu.group("sku"), "qty": sockets}]
    with_gpus = _WITH_GPUS.search(detail)
    if with_gpus:
        gpu, count = with_gpus.group("sku"), int(with_gpus.group("qty"))
        others = [line for line in _lines(body, "gpus") if line.get("sku") != gpu]
        body["gpus"] = [*others, {"sku": gpu, "qty": count}]


def build_apply_fix(body: Mapping[str, Any], fix: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the build body with `fix` applied (see the module docstring)."""
    if not fix_is_applicable(fix):
        raise FixNotApplicable(str(fix.get("detail") or fix.get("action")))
    result = copy.deepcopy(dict(body))
    action, target = str(fix["action"]), str(fix.get("target"))
    sku = str(fix.get("sku") or "")
    qty = fix.get("qty")
    detail = str(fix.get("detail") or "")
    if action == "set":
        match = _SET.match(detail)
        if match is None:
            raise FixNotApplicable(detail)
        field, value = match.group("field"), match.group("value")
        if field == "psu_redundancy" and value in REDUNDANCY_MODES:
            result["psu_redundancy"] = value
        elif field == "site_voltage" and value.isdigit() and int(value) in SITE_VOLTAGES:
            result["site_voltage"] = int(value)
        else:
            raise FixNotApplicable(detail)
    elif action == "add":
        _add(result, target, sku, int(qty or 1))
    elif action == "remove":
        _remove(result, target, sku, int(qty or 1))
    elif target == "chassis":
        _replace_chassis(result, sku, detail)
    else:
        _replace(result, target, sku, int(qty) if qty is not None else None, detail)
    return result
