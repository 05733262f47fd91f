"""The PCIe lane plan of a build: how its GPUs, NVMe drives and NICs map onto the slots and the CPUs' lanes
(validation-rules.md §2.1-2.2). The rules (rules/pcie.py) and the recommender both read it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from configurator.engine.types import BuildSpec, CpuSpec, Line

X16 = 16
X8 = 8
NVME_LANES = 4  # an NVMe drive is a PCIe x4 device (§2.1)
GPUS_PER_UPLINK = 2  # §2.2: warn "shared uplink" above 2 GPUs per x16 uplink [S7]


@dataclass(frozen=True, slots=True)
class LanePlan:
    """How a build's PCIe devices map onto the slots and the CPUs' lanes (§2.1-2.2)."""

    topology: str  # direct | switched
    gpu_lanes_full: int  # every GPU at its native width (x16, or x8 cards like the RTX 5060 Ti)
    gpu_lanes: int  # what the GPUs take from the CPUs: uplinks × 16 behind switches, after x8 fallback
    x8_cards: int  # cards dropped from x16 to x8 to fit the slot wiring
    links_fit: bool  # the slots can wire every GPU (at x16 or x8)
    nvme_lanes: int
    nic_lanes: int
    available: int  # lanes the CPUs present wire to slots

    @property
    def needed(self) -> int:
        return self.gpu_lanes + self.nvme_lanes + self.nic_lanes


def cpu_lanes(cpus: tuple[Line[CpuSpec], ...], sockets: int) -> int:
    """One CPU: its 1P lanes; two or more: Σ lanes per socket in 2P (EPYC 64, Xeon 80/96 [S3][V1][S14]).
    A 1P-only part has no 2P figure: half its 1P lanes is assumed so its socket error stands alone."""
    units = [line.spec for line in cpus for _ in range(line.qty)][: max(sockets, 1)]
    if not units:
        return 0
    if len(units) == 1:
        return units[0].pcie_lanes_1p
    return sum(cpu.pcie_lanes_per_socket_2p or cpu.pcie_lanes_1p // 2 for cpu in units)


def lane_plan(build: BuildSpec) -> LanePlan:
    chassis = build.chassis
    widths = [min(X16, line.spec.pcie_lanes) for line in build.gpus for _ in range(line.qty)]
    full = sum(widths)
    nvme = sum(line.spec.pcie_lanes * line.qty for line in build.storage if line.spec.interface == "nvme")
    nic = sum(line.spec.pcie_lanes * line.qty for line in build.nics)
    available = cpu_lanes(build.cpus, chassis.cpu_sockets)
    common = {"nvme_lanes": nvme, "nic_lanes": nic, "available": available, "gpu_lanes_full": full}
    if chassis.pcie_topology == "switched":
        # GPUs (and SXM modules on HGX) hang off PCIe switches; the CPUs only see the x16 uplinks.
        return LanePlan(
            topology="switched",
            gpu_lanes=chassis.pcie_switch_uplinks * X16,
            x8_cards=0,
            links_fit=True,
            **common,
        )
    slot_lanes = chassis.gpu_slot_lanes
    if full <= slot_lanes:
        return LanePlan(topology="direct", gpu_lanes=full, x8_cards=0, links_fit=True, **common)
    minimal = sum(min(X8, width) for width in widths)
    if len(widths) <= chassis.gpu_bays and minimal <= slot_lanes:
        dropped = math.ceil((full - slot_lanes) / X8)
        return LanePlan(topology="direct", gpu_lanes=full - X8 * dropped, x8_cards=dropped, links_fit=True, **common)
    return LanePlan(topology="direct", gpu_lanes=full, x8_cards=0, links_fit=False, **common)
