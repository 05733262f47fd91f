"""GPU-to-GPU links of a build: NVLink bridges grouped by the GPU model they join, and the bandwidth the
estimator may assume (NVSwitch, bridges covering every GPU, or PCIe). Rules and the recommender read these."""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.budgets.lanes import LanePlan
from configurator.engine.estimate.topology import RingBound, Topology, build_topology, tp_bound
from configurator.engine.frozen import direct_init
from configurator.engine.types import BridgeSpec, BuildSpec, GpuSpec, Line

BRIDGE_KINDS = ("bridge-2way", "bridge-2or4way")
MAX_WAYS = {"bridge-2way": 2, "bridge-2or4way": 4}
REFERENCE_LINK_GBS = 900.0  # NVLink 4 per GPU (H100/H200 [S1]): the yardstick for GPUs that have no NVLink
TP_LOSS_WARNING = 0.05  # below a 5 % loss the PCIe all-reduce is reported as info only


@direct_init
@dataclass(frozen=True, slots=True)
class BridgeGroup:
    """The bridges that target one GPU model of the build."""

    gpu: GpuSpec
    gpu_count: int
    bridges: tuple[Line[BridgeSpec], ...]

    @property
    def covered(self) -> int:
        return sum(line.qty * line.spec.ways for line in self.bridges)


def bridge_targets(build: BuildSpec, bridge: BridgeSpec) -> list[GpuSpec]:
    return [line.spec for line in build.gpus if line.spec.sku in bridge.gpu_skus]


def bridge_groups(build: BuildSpec) -> list[BridgeGroup]:
    """Bridge lines grouped by the single GPU model they join (lines that join no or several models are
    left to the mismatch and mixed-model rules)."""
    groups = []
    for gpu_line in build.gpus:
        lines = tuple(
            line
            for line in build.bridges
            if [gpu.sku for gpu in bridge_targets(build, line.spec)] == [gpu_line.spec.sku]
        )
        if lines:
            groups.append(BridgeGroup(gpu=gpu_line.spec, gpu_count=gpu_line.qty, bridges=lines))
    return groups


def effective_link_gbs(build: BuildSpec) -> float | None:
    """GPU-to-GPU bandwidth of a build's NVLink: NVSwitch on an HGX baseboard, or NVLink when bridges that span
    the chassis' slot pitch join every GPU of a single-model build; None means PCIe. It says whether every GPU
    has a bridge, not what TP runs at: validation gives the estimate `build_link` (the link graph) instead, since
    pair bridges are no fabric for TP over more than a pair (issue 33)."""
    if len(build.gpus) != 1 or build.gpu_count < 2:
        return None
    gpu = build.gpus[0].spec
    chassis = build.chassis
    if gpu.nvlink_kind == "nvswitch-sxm":
        return gpu.nvlink_gbs if chassis.has_nvswitch else None
    if gpu.nvlink_kind == "infinity-fabric-oam":
        return gpu.nvlink_gbs if chassis.gpu_form_factor == "oam" else None
    if gpu.nvlink_kind in BRIDGE_KINDS:
        pitch = chassis.gpu_slot_pitch
        if pitch is not None and any(line.spec.slot_spacing != pitch for line in build.bridges):
            return None  # a bridge that cannot span the slots links nothing
        groups = bridge_groups(build)
        if groups and groups[0].covered >= build.gpu_count:
            return gpu.nvlink_gbs
    return None


def build_link(build: BuildSpec, lanes: LanePlan | None = None) -> float | Topology | None:
    """What the estimate of a build is told of its GPUs' links: the link graph of two or more GPUs
    (estimate.topology: NVSwitch, the bridge sets as they are fitted, PCIe switches and the CPU sockets), so
    tensor parallelism runs at the slowest link of its ring; None with fewer than 2 GPUs. `lanes`: the build's
    lane plan, when the caller has made it (the graph reads which cards drop to x8)."""
    return build_topology(build, lanes=lanes) if build.gpu_count >= 2 else None


def link_bound(link: float | Topology | None, gpu: GpuSpec, size: int) -> RingBound | None:
    """The link a TP group of `size` GPUs runs at under `link` (None: a float fabric or no graph)."""
    if isinstance(link, Topology) and size >= 2:
        return tp_bound(link, size)
    return None
