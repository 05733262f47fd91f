"""The PCIe lane plan of a build: how its GPUs, NVMe drives and NICs map onto the slots and the CPUs' lanes
(validation-rules.md §2.1-2.2). The rules (rules/pcie.py) and the recommender both read it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from configurator.engine.frozen import direct_init
from configurator.engine.types import BuildSpec, CpuSpec, Line

X16 = 16
X8 = 8
NVME_LANES = 4  # an NVMe drive is a PCIe x4 device (§2.1)
GPUS_PER_UPLINK = 2  # §2.2: warn "shared uplink" above 2 GPUs per x16 uplink [S7]


@direct_init
@dataclass(frozen=True, slots=True)
class LanePlan:
    """How a build's PCIe devices map onto the slots and the CPUs' lanes (§2.1-2.2)."""

    topology: str  # direct | switched
    gpu_lanes_full: int  # every GPU at its native width (x16, or x8 cards like the RTX 5060 Ti)
    gpu_lanes: int  # what the GPUs take from the CPUs: uplinks × 16 behind switches, after x8 fallback
    x8_cards: int  # cards dropped from x16 to x8 to fit the slot wiring
    links_fit: bool  # the slots can wire every GPU (at x16 or x8)
    nvme_lanes: int  # on CPU lanes (not the chipset's M.2 sockets, not behind switches)
    nic_lanes: int  # on CPU lanes (not behind switches)
    available: int  # lanes the CPUs present wire to slots
    gpu_positions: int = 0  # GPU positions of the chassis
    live_gpu_positions: int = 0  # those wired to a filled CPU socket
    behind_switches: int = 0  # NIC and NVMe lanes that sit behind the PCIe switches (HGX)
    on_chipset: int = 0  # NVMe drives on the chipset's M.2 sockets (desktop)
    slot_lanes: int = 0  # GPU slot lanes wired to the filled sockets (direct topology)

    @property
    def needed(self) -> int:
        return self.gpu_lanes + self.nvme_lanes + self.nic_lanes


def cpu_lanes(cpus: tuple[Line[CpuSpec], ...], sockets: int) -> int:
    """A 1-socket board: its CPU's 1P lanes; a 2-socket board: Σ lanes per socket in 2P over the FILLED sockets
    (EPYC 64, Xeon 80/96 [S3][V1][S14]) — the board wires each socket's lanes to its own slots, so a lone CPU
    brings its socket's share, not its 1P figure, and an empty socket nothing (issue 12). A 1P-only part has
    no 2P figure: half its 1P lanes is assumed so its socket error stands alone."""
    units = [line.spec for line in cpus for _ in range(line.qty)][: max(sockets, 1)]
    if not units:
        return 0
    if sockets <= 1:
        return units[0].pcie_lanes_1p
    return sum(cpu.pcie_lanes_per_socket_2p or cpu.pcie_lanes_1p // 2 for cpu in units)


def live_gpu_positions(build: BuildSpec) -> int:
    """GPU positions wired to a filled socket (chassis.gpu_slots_per_socket, socket 1 first); all of them
    when the chassis does not say, or every socket has a CPU."""
    chassis = build.chassis
    per_socket = chassis.gpu_slots_per_socket
    positions = min(chassis.gpu_bays, chassis.max_gpu_count)
    if not per_socket or not build.cpus:
        return positions
    filled = min(build.cpu_count, len(per_socket))
    return min(positions, sum(per_socket[:filled]))


# the build fields the lane plan is made of (engine.validate reuses a plan across builds that share them)
LANE_INPUTS = ("chassis", "cpus", "gpus", "nics", "storage")


def lane_plan(build: BuildSpec) -> LanePlan:
    chassis = build.chassis
    widths = [min(X16, line.spec.pcie_lanes) for line in build.gpus for _ in range(line.qty)]
    full = sum(widths)
    drives = [line.spec.pcie_lanes for line in build.storage if line.spec.interface == "nvme" for _ in range(line.qty)]
    on_chipset = min(len(drives), chassis.chipset_m2_slots)  # the chipset's M.2 sockets take drives first
    nvme = sum(sorted(drives)[on_chipset:])
    nic = sum(line.spec.pcie_lanes * line.qty for line in build.nics)
    behind = 0
    if chassis.pcie_topology == "switched" and chassis.io_behind_switches:
        behind, nvme, nic = nvme + nic, 0, 0  # HGX: NICs and NVMe hang off the switches with the GPUs
    available = cpu_lanes(build.cpus, chassis.cpu_sockets)
    positions = min(chassis.gpu_bays, chassis.max_gpu_count)
    live = live_gpu_positions(build)
    common = {
        "nvme_lanes": nvme,
        "nic_lanes": nic,
        "available": available,
        "gpu_lanes_full": full,
        "gpu_positions": positions,
        "live_gpu_positions": live,
        "behind_switches": behind,
        "on_chipset": on_chipset,
    }
    if chassis.pcie_topology == "switched":
        # GPUs (and SXM modules on HGX) hang off PCIe switches; the CPUs only see the x16 uplinks (those of
        # the filled sockets).
        uplinks = chassis.pcie_switch_uplinks * live // positions if positions else chassis.pcie_switch_uplinks
        return LanePlan(topology="switched", gpu_lanes=uplinks * X16, x8_cards=0, links_fit=True, **common)
    slot_lanes = chassis.gpu_slot_lanes * live // positions if positions else chassis.gpu_slot_lanes
    common["slot_lanes"] = slot_lanes
    if full <= slot_lanes:
        return LanePlan(topology="direct", gpu_lanes=full, x8_cards=0, links_fit=True, **common)
    minimal = sum(min(X8, width) for width in widths)
    if len(widths) <= chassis.gpu_bays and minimal <= slot_lanes:
        dropped = math.ceil((full - slot_lanes) / X8)
        return LanePlan(topology="direct", gpu_lanes=full - X8 * dropped, x8_cards=dropped, links_fit=True, **common)
    return LanePlan(topology="direct", gpu_lanes=full, x8_cards=0, links_fit=False, **common)
