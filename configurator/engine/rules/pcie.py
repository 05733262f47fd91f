"""PCIe: GPU link widths on the chassis' slots, switch uplinks, and the CPU lane budget.

Numbers and sources: ../shared/reference/validation-rules.md §2 (EPYC 128 lanes 1P / 64 per socket in 2P
[S3][S7], Xeon 80 per socket [V1], Xeon 6900P 96 [S14], TR PRO 128 [S4], TRX50 48 [S27]; switches [S7]).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace

from configurator.engine.budgets.lanes import GPUS_PER_UPLINK, X8, X16, cpu_lanes, lane_plan
from configurator.engine.fixes import chassis_op, make_fix, remove_op, replace_op
from configurator.engine.phrase import Phrase, PhraseValue
from configurator.engine.rules.context import (
    MAX_FIXES,
    Rule,
    RuleContext,
    build_gpus,
    chassis_for_gpus,
    fix_options,
    part_fix,
    remove_gpus_fix,
)
from configurator.engine.types import BuildSpec, ChassisSpec, CpuSpec, Finding, Fix, FixOp, Line


def _lanes_ok(build: BuildSpec) -> bool:
    plan = lane_plan(build)
    return plan.links_fit and plan.needed <= plan.available


def gpu_slot_links(ctx: RuleContext) -> Iterator[Finding]:
    """§2.1 ERROR when the slots cannot give every GPU a link even at x8; WARN (x8 fallback) when some
    cards drop to x8 — host-to-GPU bandwidth halves (Gen4 x8 = 32 GB/s, Gen5 x8 = 64 GB/s [V19])."""
    build, plan = ctx.build, ctx.lanes
    chassis = build.chassis
    gpus = tuple(line.spec.sku for line in build.gpus)
    if not plan.links_fit:
        options = [
            option
            for option in chassis_for_gpus(ctx.snapshot, build_gpus(build), like=build.chassis)
            if _lanes_ok(replace(build, chassis=option, cpus=_best_cpus(ctx, option, build)))
        ]
        fixes = [
            make_fix(chassis_op(option.sku), *_cpu_ops(build, _best_cpus(ctx, option, build)))
            for option in options
            if option.sku != chassis.sku
        ][:2]
        gpu_fix = remove_gpus_fix(
            build,
            lambda smaller: lane_plan(smaller).links_fit,
            lambda left: Phrase.plural(
                "%(left)s GPU gets its own x16/x8 link", "%(left)s GPUs get their own x16/x8 links", "left", left=left
            ),
        )
        if gpu_fix:
            fixes.append(gpu_fix)
        facts: dict[str, PhraseValue] = {
            "count": build.gpu_count,
            "full": plan.gpu_lanes_full,
            "chassis": chassis.sku,
            "slot_lanes": chassis.gpu_slot_lanes,
            "bays": chassis.gpu_bays,
        }
        yield Finding(
            code="pcie.slot_lanes",
            severity="error",
            message=_slot_lanes_message(build, plan.slot_lanes, facts),
            measured=plan.gpu_lanes_full,
            limit=chassis.gpu_slot_lanes,
            unit="lanes",
            components=(chassis.sku, *gpus),
            fixes=tuple(fixes[:MAX_FIXES]),
        )
    elif plan.x8_cards:
        lanes: dict[str, PhraseValue] = {
            "x8": plan.x8_cards,
            "count": build.gpu_count,
            "chassis": chassis.sku,
            "slot_lanes": chassis.gpu_slot_lanes,
            "full": plan.gpu_lanes_full,
        }
        if build.gpu_count == 1:
            message = Phrase(
                "The GPU runs at x8: %(chassis)s wires %(slot_lanes)s GPU lanes for %(full)s at x16; host-to-GPU "
                "bandwidth halves on that card.",
                **lanes,
            )
        elif plan.x8_cards == 1:
            message = Phrase(
                "1 of %(count)s GPUs runs at x8: %(chassis)s wires %(slot_lanes)s GPU lanes for %(full)s at x16; "
                "host-to-GPU bandwidth halves on that card.",
                **lanes,
            )
        else:
            message = Phrase(
                "%(x8)s of %(count)s GPUs run at x8: %(chassis)s wires %(slot_lanes)s GPU lanes for %(full)s at "
                "x16; host-to-GPU bandwidth halves on those cards.",
                **lanes,
            )
        yield Finding(
            code="pcie.x8_fallback",
            severity="warning",
            message=message,
            measured=plan.gpu_lanes_full,
            limit=chassis.gpu_slot_lanes,
            unit="lanes",
            components=(chassis.sku, *gpus),
        )


def _slot_lanes_message(build: BuildSpec, slot_lanes: int, facts: dict[str, PhraseValue]) -> Phrase:
    """Why the slots cannot wire the GPUs: more cards than slots, too few lanes even at x8, or both (issue 12:
    "4 cards in 3 slots" is a slot problem; at x8 the lanes would carry them)."""
    chassis = build.chassis
    too_many_cards = build.gpu_count > chassis.gpu_bays
    at_x8 = sum(min(X8, min(X16, line.spec.pcie_lanes)) * line.qty for line in build.gpus)
    short_of_lanes = at_x8 > slot_lanes
    facts = {**facts, "x8": at_x8, "slot_lanes": slot_lanes}  # the lanes of the filled sockets' slots
    if too_many_cards and not short_of_lanes:
        return Phrase.plural(
            "%(count)s GPU for %(bays)s GPU slots: %(chassis)s has a slot for each card, not more; its %(slot_lanes)s "
            "GPU lanes would carry the cards at x8 (%(x8)s lanes), the slots are what is missing.",
            "%(count)s GPUs for %(bays)s GPU slots: %(chassis)s has a slot for each card, not more; its "
            "%(slot_lanes)s GPU lanes would carry the cards at x8 (%(x8)s lanes), the slots are what is missing.",
            "count",
            **facts,
        )
    if too_many_cards:
        return Phrase.plural(
            "%(count)s GPU for %(bays)s GPU slots, and %(x8)s lanes even at x8 for the %(slot_lanes)s GPU lanes "
            "%(chassis)s wires: both slots and lanes are missing.",
            "%(count)s GPUs for %(bays)s GPU slots, and %(x8)s lanes even at x8 for the %(slot_lanes)s GPU lanes "
            "%(chassis)s wires: both slots and lanes are missing.",
            "count",
            **facts,
        )
    return Phrase.plural(
        "%(count)s GPU needs %(full)s lanes at full width; %(chassis)s wires %(slot_lanes)s GPU lanes in "
        "%(bays)s slots, not enough even at x8.",
        "%(count)s GPUs need %(full)s lanes at full width; %(chassis)s wires %(slot_lanes)s GPU lanes "
        "in %(bays)s slots, not enough even at x8.",
        "count",
        **facts,
    )


def shared_uplinks(ctx: RuleContext) -> Iterator[Finding]:
    """§2.2: behind switches GPU↔GPU runs at x16, host traffic shares the x16 uplink; WARN above 2 GPUs per
    uplink (KV-cache offload and training feed through it) [S7]."""
    build, chassis = ctx.build, ctx.build.chassis
    if chassis.pcie_topology != "switched" or not chassis.pcie_switch_uplinks or not build.gpus:
        return
    per_uplink = math.ceil(build.gpu_count / chassis.pcie_switch_uplinks)
    if per_uplink > GPUS_PER_UPLINK:
        yield Finding(
            code="pcie.shared_uplink",
            severity="warning",
            message=(
                Phrase(
                    "%(per_uplink)s GPUs share the one x16 switch uplink to the CPUs: host-memory traffic "
                    "(offload, data loading) is split between them.",
                    per_uplink=per_uplink,
                )
                if chassis.pcie_switch_uplinks == 1
                else Phrase(
                    "%(per_uplink)s GPUs share each x16 switch uplink to the CPUs (%(uplinks)s uplinks): "
                    "host-memory traffic (offload, data loading) is split between them.",
                    per_uplink=per_uplink,
                    uplinks=chassis.pcie_switch_uplinks,
                )
            ),
            measured=per_uplink,
            limit=GPUS_PER_UPLINK,
            unit="GPUs per uplink",
            components=(chassis.sku,),
        )


def switch_p2p(ctx: RuleContext) -> Iterator[Finding]:
    """§2.2 INFO: behind PCIe switches ACS must be off on root and downstream ports for full P2P, otherwise
    P2P is slow or NCCL hangs (ESC8000A-E13P, SYS-421GE-TNRT) [S7][S19]."""
    build = ctx.build
    pcie_gpus = sum(line.qty for line in build.gpus if line.spec.form_factor == "pcie")
    if build.chassis.pcie_topology == "switched" and pcie_gpus >= 2:
        yield Finding(
            code="pcie.p2p_acs",
            severity="info",
            message=Phrase(
                "The GPUs sit behind PCIe switches: disable ACS on the root and switch downstream ports "
                "(or the NCCL P2P path hangs) and check `nvidia-smi topo -m` after installation."
            ),
            components=(build.chassis.sku,),
        )


def _best_cpus(ctx: RuleContext, chassis: ChassisSpec, build: BuildSpec) -> tuple[Line[CpuSpec], ...]:
    """The CPUs to assume on `chassis`: the build's own when they fit its socket, else the catalog CPU
    for that socket with the most lanes (then the cores closest to the build's CPU, then the cheapest: trial
    tr34 moved a 64-core Threadripper 7980X build to a 16-core 9955WX), one per socket."""
    count = min(max(build.cpu_count, 1), chassis.cpu_sockets)
    if all(line.spec.socket == chassis.cpu_socket for line in build.cpus) and build.cpus:
        return build.cpus
    candidates = [
        cpu for cpu in fix_options(ctx.snapshot.cpus) if cpu.socket == chassis.cpu_socket and cpu.max_sockets >= count
    ]
    if not candidates:
        return ()
    cores = build.cpus[0].spec.cores * build.cpu_count // count if build.cpus else 0
    best = max(
        candidates,
        key=lambda cpu: (cpu_lanes((Line(cpu, count),), count), -abs(cpu.cores - cores) if cores else 0, -cpu.price),
    )
    return (Line(spec=best, qty=count),)


def _cpu_ops(build: BuildSpec, cpus: tuple[Line[CpuSpec], ...]) -> tuple[FixOp, ...]:
    """The CPU step that goes with a chassis swap: none when the build keeps its CPUs."""
    if not cpus or cpus == build.cpus:
        return ()
    return (replace_op("cpus", cpus[0].spec.sku, sum(line.qty for line in cpus)),)


def _cpu_fixes(ctx: RuleContext, needed: int) -> list[Fix]:
    """CPUs for this chassis (same socket count) whose lanes carry `needed`: fewest lanes, then cores
    closest to the current CPU, then price."""
    build = ctx.build
    count = min(max(build.cpu_count, 1), build.chassis.cpu_sockets)
    current = build.cpus[0].spec if build.cpus else None
    sockets = build.chassis.cpu_sockets
    fill_socket = current is not None and len(build.cpus) == 1 and count < sockets <= current.max_sockets
    if current and fill_socket and cpu_lanes((Line(current, sockets),), sockets) >= needed:
        extra = sockets - count  # fill the empty socket first
        if extra:
            return [part_fix("add", "cpus", current.sku, extra)]
    current_cores = current.cores if current else 0
    options = [
        cpu
        for cpu in fix_options(ctx.snapshot.cpus)
        if cpu.socket == build.chassis.cpu_socket
        and cpu.max_sockets >= count
        and cpu_lanes((Line(cpu, count),), build.chassis.cpu_sockets) >= needed
    ]
    options.sort(
        key=lambda cpu: (
            cpu_lanes((Line(cpu, count),), build.chassis.cpu_sockets),
            abs(cpu.cores - current_cores),
            cpu.price,
            cpu.sku,
        )
    )
    return [make_fix(replace_op("cpus", cpu.sku, count)) for cpu in options[:1]]


def _remove_nics_fix(build: BuildSpec) -> Fix | None:
    """The fewest NICs to take out so the lane budget holds (those with the most lanes first), or None when
    taking every NIC out would not make it hold (issue 34: 8 × 400G NICs on 192 lanes)."""
    if not build.nics:
        return None
    widest = max(build.nics, key=lambda line: (line.spec.pcie_lanes, line.spec.sku))
    for taken in range(1, widest.qty + 1):
        left = tuple(
            line if line is not widest else Line(spec=line.spec, qty=line.qty - taken)
            for line in build.nics
            if line is not widest or line.qty > taken
        )
        plan = lane_plan(replace(build, nics=left))
        if plan.needed <= plan.available:
            kept = widest.qty - taken
            reason = (
                Phrase("%(left)s× %(nic)s fit the CPU lanes", left=kept, nic=widest.spec.sku)
                if kept
                else Phrase("the CPU lanes carry no %(nic)s", nic=widest.spec.sku)
            )
            return make_fix(remove_op("nics", widest.spec.sku, taken), reason=reason)
    return None


def cpu_lane_budget(ctx: RuleContext) -> Iterator[Finding]:
    """§2.1 ERROR: 16 × GPUs (uplinks × 16 behind switches) + 4 × NVMe + NIC lanes ≤ the lanes the CPUs wire."""
    build, plan = ctx.build, ctx.lanes
    if not build.cpus or plan.needed <= plan.available:
        return
    fixes = _cpu_fixes(ctx, plan.needed)
    if not fixes:
        for option in chassis_for_gpus(ctx.snapshot, build_gpus(build), like=build.chassis):
            cpus = _best_cpus(ctx, option, build)
            if option.sku != build.chassis.sku and cpus and _lanes_ok(replace(build, chassis=option, cpus=cpus)):
                fixes.append(make_fix(chassis_op(option.sku), *_cpu_ops(build, cpus)))
                if len(fixes) == 2:
                    break
    nic_fix = _remove_nics_fix(build)  # NICs out before GPUs: the GPUs are the build's job
    if nic_fix:
        fixes.append(nic_fix)
    gpu_fix = remove_gpus_fix(
        build,
        lambda smaller: lane_plan(smaller).needed <= lane_plan(smaller).available,
        lambda left: (
            Phrase("1 GPU fits the CPU lanes") if left == 1 else Phrase("%(left)s GPUs fit the CPU lanes", left=left)
        ),
    )
    if gpu_fix:
        fixes.append(gpu_fix)
    budget: dict[str, PhraseValue] = {
        "needed": plan.needed,
        "gpu": plan.gpu_lanes,
        "nvme": plan.nvme_lanes,
        "nic": plan.nic_lanes,
        "available": plan.available,
    }
    if plan.topology == "switched":
        message = Phrase(
            "The build needs %(needed)s PCIe lanes (%(uplinks)s switch uplinks × 16 = %(gpu)s + NVMe %(nvme)s + "
            "NIC %(nic)s); the CPUs wire %(available)s.",
            uplinks=build.chassis.pcie_switch_uplinks,
            **budget,
        )
    else:
        message = Phrase(
            "The build needs %(needed)s PCIe lanes (GPUs %(gpu)s + NVMe %(nvme)s + NIC %(nic)s); "
            "the CPUs wire %(available)s.",
            **budget,
        )
    yield Finding(
        code="pcie.lanes",
        severity="error",
        message=message,
        measured=plan.needed,
        limit=plan.available,
        unit="lanes",
        components=tuple(line.spec.sku for line in build.cpus),
        fixes=tuple(fixes[:MAX_FIXES]),
    )


def dead_gpu_positions(ctx: RuleContext) -> Iterator[Finding]:
    """ERROR (issue 12): a 2-socket board wires its GPU positions to both sockets (chassis gpu_slots_per_socket);
    with a socket empty its positions are dead, so GPUs beyond the live ones have nowhere to go."""
    build, plan = ctx.build, ctx.lanes
    chassis = build.chassis
    if not build.cpus or build.gpu_count <= plan.live_gpu_positions or plan.live_gpu_positions >= plan.gpu_positions:
        return
    first, last = plan.live_gpu_positions + 1, plan.gpu_positions
    current = build.cpus[0].spec
    missing = min(chassis.cpu_sockets, len(chassis.gpu_slots_per_socket)) - build.cpu_count
    fixes: list[Fix] = []
    if missing > 0 and current.max_sockets >= chassis.cpu_sockets:
        fixes.append(part_fix("add", "cpus", current.sku, missing))
    gpu_fix = remove_gpus_fix(
        build,
        lambda smaller: smaller.gpu_count <= plan.live_gpu_positions,
        lambda left: Phrase("%(left)s GPUs fit the positions of the filled socket", left=left),
    )
    if gpu_fix:
        fixes.append(gpu_fix)
    yield Finding(
        code="pcie.dead_slots",
        severity="error",
        message=Phrase(
            "GPU positions %(first)s-%(last)s of %(chassis)s hang off the empty CPU socket and are dead; "
            "%(count)s GPUs need more than the %(live)s live positions.",
            first=first,
            last=last,
            chassis=chassis.sku,
            count=build.gpu_count,
            live=plan.live_gpu_positions,
        ),
        measured=build.gpu_count,
        limit=plan.live_gpu_positions,
        unit="GPUs",
        components=(chassis.sku, *(line.spec.sku for line in build.cpus)),
        fixes=tuple(fixes[:MAX_FIXES]),
    )


RULES = (gpu_slot_links, dead_gpu_positions, shared_uplinks, switch_p2p, cpu_lane_budget)
# the build fields these rules (findings and fixes) read: after a fix that changes none, they are not re-run
READS = frozenset({"chassis", "cpus", "gpus", "nics", "storage"})
# rules that read fewer fields than the module's READS (the same check covers them): a fix that changes
# none of these leaves their findings standing
READS_BY_RULE: dict[Rule, frozenset[str]] = {
    shared_uplinks: frozenset({"chassis", "gpus"}),
    switch_p2p: frozenset({"chassis", "gpus"}),
}
