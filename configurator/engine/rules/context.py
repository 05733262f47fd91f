"""What every rule sees: the build, the catalog snapshot, the workload and its estimate.

Numbers several rules share (the power budget, the PCIe lane plan) are computed once per validation and
cached on the context. Helpers here build fixes that name real, active catalog SKUs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from configurator.engine.fixes import add_op, chassis_op, make_fix, remove_op
from configurator.engine.phrase import Phrase
from configurator.engine.types import (
    BuildSpec,
    CatalogSnapshot,
    ChassisSpec,
    Estimate,
    Finding,
    Fix,
    GpuSpec,
    Line,
    Workload,
)

if TYPE_CHECKING:
    from configurator.engine.budgets.lanes import LanePlan
    from configurator.engine.budgets.power import PowerBudget
    from configurator.engine.estimate.topology import Topology

MAX_FIXES = 3  # suggestions per finding; the closest ones first
# the build fields the workload estimate (and the GPU link bandwidth it assumes) is made of
ESTIMATE_INPUTS = ("gpus", "chassis", "bridges", "cpus")  # cpus: the sockets the GPUs sit on

# Off while engine.proving re-validates a fixed build only to read its findings: the costly searches for
# fixes (PSU sets, chassis, fewer GPUs) then return nothing.
_FIXES_WANTED: ContextVar[bool] = ContextVar("fixes_wanted", default=True)


def fixes_wanted() -> bool:
    return _FIXES_WANTED.get()


class findings_only:
    """Rules inside skip searching for fixes (their findings are the same). A class, not a generator: proving
    enters it once per re-validation."""

    __slots__ = ("token",)

    def __enter__(self) -> None:
        self.token = _FIXES_WANTED.set(False)

    def __exit__(self, *exc: object) -> None:
        _FIXES_WANTED.reset(self.token)


@dataclass(frozen=True)
class RuleContext:
    build: BuildSpec
    snapshot: CatalogSnapshot
    workload: Workload | None = None
    estimate: Estimate | None = None
    estimate_problem: str | None = None  # why the workload could not be estimated on this build
    # what the estimate was told of the GPUs' links (budgets.links.build_link): the build's link graph, a
    # bandwidth every GPU reaches every other at, or None = PCIe
    link_gbs: float | Topology | None = None
    # the power budget of a build whose fields in `power_same` are this build's (the build a fix was made from):
    # what those fields make of it is reused
    power_like: PowerBudget | None = field(default=None, compare=False, repr=False)
    power_same: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @cached_property
    def power(self) -> PowerBudget:
        from configurator.engine.budgets.power import power_budget

        return power_budget(self.build, like=self.power_like, same=self.power_same)

    @cached_property
    def lanes(self) -> LanePlan:
        from configurator.engine.budgets.lanes import lane_plan

        return lane_plan(self.build)


Rule = Callable[[RuleContext], Iterable[Finding]]

PartT = TypeVar("PartT")


#: id(parts) → (parts, its active parts): a snapshot's part dicts are made once and never changed, and the
#: rules ask for the same lists at every validation; a few snapshots' worth (8 kinds each) are kept
_ACTIVE: dict[int, tuple[dict[str, Any], list[Any]]] = {}
_ACTIVE_MOST = 64


def active(parts: dict[str, PartT]) -> list[PartT]:
    """Active catalog parts in SKU order (deterministic). The list is shared: callers must not change it."""
    known = _ACTIVE.get(id(parts))
    if known is not None and known[0] is parts:
        return known[1]
    found = [part for sku, part in sorted(parts.items()) if getattr(part, "is_active", True)]
    if len(_ACTIVE) >= _ACTIVE_MOST:
        _ACTIVE.clear()
    _ACTIVE[id(parts)] = (parts, found)
    return found


def fix_options(parts: dict[str, PartT]) -> list[PartT]:
    """The active catalog parts a rule builds its fixes from; none while only findings are wanted (proving's
    re-validations: the findings' codes, severities and components do not depend on them, a test checks)."""
    return active(parts) if fixes_wanted() else []


def chassis_takes_gpu(chassis: ChassisSpec, gpu: GpuSpec, count: int = 1) -> bool:
    """The chassis physically takes `count` × `gpu` and cools it (the fit and cooling rules, in one test)."""
    if count > min(chassis.max_gpu_count, chassis.gpu_bays):
        return False
    if gpu.form_factor != chassis.gpu_form_factor or other_generation(chassis, gpu):
        return False
    if exceeds(gpu.slot_width, chassis.max_gpu_slot_width) or exceeds(gpu.length_mm, chassis.max_gpu_length_mm):
        return False
    if gpu.tdp_w > chassis.max_gpu_tdp_w:
        return False
    if gpu.cooling == "passive" and not chassis.server_airflow:
        return False
    if gpu.nvlink_kind == "nvswitch-sxm" and not chassis.has_nvswitch:
        return False
    return not (gpu.is_consumer and chassis.rack_units is not None and chassis.rack_units < 3)


def other_generation(chassis: ChassisSpec, gpu: GpuSpec) -> bool:
    """The module's socket generation differs from the chassis' baseboard (an SXM4 A100 on the SXM5 HGX H200
    baseboard); unknown on either side is not a mismatch."""
    return bool(gpu.module_socket and chassis.baseboard_socket and gpu.module_socket != chassis.baseboard_socket)


def exceeds(value: float | None, limit: float | None) -> bool:
    """value > limit when both are known (an unknown size or limit is not a violation)."""
    return value is not None and limit is not None and value > limit


def chassis_for_gpus(
    snapshot: CatalogSnapshot, gpus: dict[str, tuple[GpuSpec, int]], *, like: ChassisSpec | None = None
) -> list[ChassisSpec]:
    """Active chassis that take every GPU model at its count (and the total): those of the same kind and CPU
    socket as `like` first (a tower for a tower, EPYC for EPYC), then a workstation for a workstation (trial
    tr34: 4 GPUs in a TRX50 tower were sent to a 2U rack server with server fans before the Threadripper PRO
    workstation), then the smallest and cheapest."""
    if not fixes_wanted():
        return []
    total = sum(count for _, count in gpus.values())
    found = [
        chassis
        for chassis in active(snapshot.chassis)
        if total <= min(chassis.max_gpu_count, chassis.gpu_bays)
        and all(chassis_takes_gpu(chassis, gpu, count) for gpu, count in gpus.values())
    ]
    kind, socket = (like.kind, like.cpu_socket) if like else (None, None)
    desk = like.is_workstation if like else None
    return sorted(
        found,
        key=lambda c: (
            c.kind != kind,
            c.cpu_socket != socket,
            c.is_workstation != desk,
            c.max_gpu_count,
            c.price,
            c.sku,
        ),
    )


def build_gpus(build: BuildSpec) -> dict[str, tuple[GpuSpec, int]]:
    return {line.spec.sku: (line.spec, line.qty) for line in build.gpus}


def use_chassis_fixes(chassis: Iterable[ChassisSpec], *, current: str, why: Phrase | None = None) -> tuple[Fix, ...]:
    fixes = []
    for option in chassis:
        if option.sku == current:
            continue
        fixes.append(make_fix(chassis_op(option.sku), reason=why))
        if len(fixes) == MAX_FIXES:
            break
    return tuple(fixes)


def part_fix(action: Literal["add", "remove"], target: str, sku: str, qty: int) -> Fix:
    """Fix "add/remove qty× sku" on the lines of `target` (gpus, cpus, memory, bridges, …)."""
    return make_fix(add_op(target, sku, qty) if action == "add" else remove_op(target, sku, qty))


def remove_heaviest_gpus_fix(build: BuildSpec, remove: int) -> Fix:
    """Fix "remove `remove` GPUs", the most power-hungry first, over as many lines as that takes (a build with
    2× of its heaviest card and 4 others loses both and 2 of the next)."""
    ops = []
    left = remove
    for line in sorted(build.gpus, key=lambda line: (-line.spec.tdp_w, line.spec.sku)):
        take = min(left, line.qty)
        if take:
            ops.append(remove_op("gpus", line.spec.sku, take))
        left -= take
    return make_fix(*ops)


def without_gpus(build: BuildSpec, remove: int) -> BuildSpec:
    """The build with `remove` GPUs taken out, the most power-hungry first."""
    lines = sorted(build.gpus, key=lambda line: (-line.spec.tdp_w, line.spec.sku))
    kept: list[Line[GpuSpec]] = []
    left = remove
    for line in lines:
        take = min(left, line.qty)
        left -= take
        if line.qty - take > 0:
            kept.append(Line(spec=line.spec, qty=line.qty - take))
    order = {line.spec.sku: i for i, line in enumerate(build.gpus)}
    return replace(build, gpus=tuple(sorted(kept, key=lambda line: order[line.spec.sku])))


def remove_gpus_fix(build: BuildSpec, works: Callable[[BuildSpec], bool], why: Callable[[int], Phrase]) -> Fix | None:
    """Fix "remove k× gpu" for the smallest k after which `works(build)` holds; not offered when more than
    half the GPUs would go (then a different part, not fewer GPUs, is the answer). `why(left)` says what
    the `left` GPUs that stay then do."""
    if not fixes_wanted():
        return None
    for removed in range(1, build.gpu_count // 2 + 1):
        if works(without_gpus(build, removed)):
            heaviest = max(build.gpus, key=lambda line: (line.spec.tdp_w, line.spec.sku)).spec
            return make_fix(remove_op("gpus", heaviest.sku, removed), reason=why(build.gpu_count - removed))
    return None
