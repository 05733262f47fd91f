"""NVLink bridge sets for the interconnect rules (rules/interconnect.py): the sets that join a number of GPUs
(validation-rules.md §4: which GPUs take which bridge and how many ways [V19][V21][S1][S6]), and the fixes
that add or remove them.
"""

from __future__ import annotations

from configurator.engine.budgets.links import MAX_WAYS
from configurator.engine.rules.context import RuleContext, active, part_fix
from configurator.engine.types import BridgeSpec, BuildSpec, Fix, GpuSpec, Line


def _bridges_for(ctx: RuleContext, gpu: GpuSpec) -> list[BridgeSpec]:
    ways_allowed = MAX_WAYS.get(gpu.nvlink_kind, 0)
    return sorted(
        (b for b in active(ctx.snapshot.bridges) if gpu.sku in b.gpu_skus and b.ways <= ways_allowed),
        key=lambda b: (-b.ways, b.price, b.sku),
    )


def bridge_plan(ctx: RuleContext, gpu: GpuSpec, count: int) -> list[tuple[BridgeSpec, int]]:
    """Bridge sets that join `count` GPUs: the widest sets first (H200 NVL: 4-way for groups of four, 2-way
    for a remaining pair)."""
    plan = []
    left = count
    for bridge in _bridges_for(ctx, gpu):
        sets = left // bridge.ways
        if sets:
            plan.append((bridge, sets))
            left -= sets * bridge.ways
    return plan


def add_bridge_fixes(plan: list[tuple[BridgeSpec, int]]) -> tuple[Fix, ...]:
    return tuple(part_fix("add", "bridges", bridge.sku, sets) for bridge, sets in plan)


def remove_bridge(line: Line[BridgeSpec]) -> Fix:
    return part_fix("remove", "bridges", line.spec.sku, line.qty)


def remove_bridges(build: BuildSpec) -> tuple[Fix, ...]:
    return tuple(remove_bridge(line) for line in build.bridges)
