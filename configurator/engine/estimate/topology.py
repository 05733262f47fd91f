"""The GPU link graph of a build, and the link that bounds tensor parallelism over a set of its GPUs.

The graph (`Topology`): which GPUs an NVSwitch or NVLink bridges join, and how the others reach each other
over PCIe: inside one PCIe switch, through the CPU's root complex, or across the sockets' link (UPI /
xGMI). A tensor-parallel all-reduce runs as a ring (NCCL's ring algorithm): every edge of the ring carries the
same 2(t−1)/t share of the data, so the ring goes at its slowest edge. Over a set that is not fully linked the
ring must leave the NVLink island somewhere, so 8 × A100 PCIe with four 2-way bridges runs TP-8 at the PCIe
rate (issue 33: it was counted as a full fabric), while TP-2 inside one bridged pair gets the bridge.

Bandwidths, per GPU and direction, in the estimator's units (`speed.PCIE_GBS_PER_LANE`: PCI-SIG payload rate
after 128b/130b encoding, the scale the decode constants were fitted on):
- NVSwitch (HGX) and NVLink bridges: the GPU's catalog `nvlink_gbs` (NVIDIA datasheets; validation-rules.md §4:
  A100 PCIe bridge 600 GB/s, H100 PCIe/NVL 600, H200 NVL 2- or 4-way 900, RTX A6000/A40/RTX 3090 112.5).
- PCIe: the GPU's generation × its lanes (`speed._pcie_gbs`). Inside one PCIe switch GPU-to-GPU runs the
  full x16 (validation-rules.md §2.2 [S7]); through an Intel CPU's root complex P2P traffic is split into
  64-byte TLPs and costs 6/5 of its bytes (NVIDIA/nccl src/graph/topo.h `INTEL_P2P_OVERHEAD(bw) (bw*6/5)`).
- Across sockets: NCCL's own figures for the inter-socket link as GPU traffic sees it (NVIDIA/nccl
  src/graph/topo.h, 2026: `SKL_QPI_BW 10.0`, `SRP_QPI_BW 22.0` Sapphire Rapids, `ERP_QPI_BW 40.0` Emerald
  Rapids, `AMD_ZEN34_BW 24.0` Zen 3/4, `AMD_ZEN5_BW 32.0` Zen 5), on NCCL's PCIe scale where PCIe Gen3 x16 is
  12 GB/s (`PCI_BW 12.0`; src/graph/topo.cc `width*speed/80`: Gen4 x16 24, Gen5 x16 48), so they are scaled
  by 15.76 / 12 onto the estimator's PCIe scale (Gen3 x16 = 15.76 GB/s). Granite Rapids (Xeon 6) is not in
  NCCL's table: Emerald Rapids' figure is assumed (UPI 2.0 at 24 GT/s against 20, so no faster in NCCL's
  model than what it gets). A GPU pair across sockets gets the lower of the two PCIe links and the socket link.

Placement: GPUs fill the chassis' positions in order (socket 1's positions first, `ChassisSpec.
gpu_slots_per_socket`; only sockets with a CPU have live positions); bridges join neighbouring positions (a
2-way set the next pair, a 4-way set the next four: the bridge spans the slot pitch); a switched chassis puts
max_gpu_count / pcie_switch_uplinks consecutive positions behind each switch.

`best_groups` splits the GPUs into groups of a TP size, best linked first (a bridged pair, a bridged quad, one
switch, one socket), so a layout can run TP inside the groups and replicas or pipeline stages across them;
`tp_bound` is the link a TP group of that size runs at. speed._link calls it; estimate.assumptions says it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from configurator.engine.budgets.lanes import X8, LanePlan, lane_plan
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Num, Phrase
from configurator.engine.specs import CpuSpec
from configurator.engine.types import BuildSpec, GpuSpec

# PCI-SIG payload rate per lane and direction (speed.PCIE_GBS_PER_LANE, repeated: speed imports this module)
_PCIE_GBS_PER_LANE: dict[int, float] = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}
# NCCL's PCIe Gen3 x16 (topo.h PCI_BW) → the estimator's Gen3 x16 payload rate
NCCL_TO_ESTIMATOR = _PCIE_GBS_PER_LANE[3] * 16 / 12.0
# NVIDIA/nccl src/graph/topo.h: inter-socket bandwidth as NCCL models it for GPU traffic, by CPU generation
NCCL_SOCKET_BW: tuple[tuple[str, str, float], ...] = (
    # (a substring of CpuSpec.family, the link's name, NCCL GB/s)
    ("Sapphire Rapids", "UPI 2.0 (Sapphire Rapids)", 22.0),  # SRP_QPI_BW
    ("Emerald Rapids", "UPI 2.0 (Emerald Rapids)", 40.0),  # ERP_QPI_BW
    ("Granite Rapids", "UPI 2.0 (Granite Rapids)", 40.0),  # not in NCCL's table: ERP_QPI_BW assumed
    ("EPYC 9005", "xGMI (EPYC Zen 5)", 32.0),  # AMD_ZEN5_BW
    ("EPYC 9004", "xGMI (EPYC Zen 4)", 24.0),  # AMD_ZEN34_BW
    ("EPYC 7", "xGMI (EPYC Zen 2/3)", 16.0),  # AMD_ZEN12_BW (the lower of Zen 1/2 and Zen 3/4: the family is not told)
)
NCCL_SOCKET_BW_UNKNOWN = {"amd": ("xGMI", 16.0), "intel": ("UPI", 10.0)}  # AMD_ZEN12_BW, SKL_QPI_BW
INTEL_P2P_OVERHEAD = 6 / 5  # NVIDIA/nccl topo.h: GPU P2P through an Intel root complex costs 6/5 of its bytes

# what bounds a ring (`RingBound.kind`)
NVSWITCH, BRIDGE, SWITCH, ROOT, SOCKET = "nvswitch", "nvlink-bridge", "pcie-switch", "pcie", "socket"
NETWORK = "network"
# GPUs on one HGX / AMD UBB baseboard: the NVSwitch (Infinity Fabric) domain of an SXM (OAM) server (NVIDIA DGX
# H100/H200/B200 user guides: 8 GPUs, 4 NVSwitch chips; AMD Instinct MI300X platform: 8 OAM on one UBB)
BASEBOARD_GPUS = 8
# one 400 Gb/s NIC per GPU (ConnectX-7, GPUDirect RDMA: DGX H100 user guide, "8 × single-port ConnectX-7 400 Gb/s
# for the compute fabric"; NVIDIA Enterprise RA 2-8-9): 50 GB/s per GPU and direction between servers
NETWORK_GBS_PER_GPU = 400 / 8


@direct_init
@dataclass(frozen=True, slots=True)
class Topology:
    """The link graph of `count` identical GPUs (position i = GPU i)."""

    gpu: GpuSpec
    count: int
    fabric_gbs: float | None = None  # NVSwitch / Infinity Fabric: every GPU to every other at this rate
    bridges: tuple[tuple[int, ...], ...] = ()  # the GPUs each NVLink bridge set joins
    bridge_gbs: float = 0.0
    sockets: tuple[int, ...] = ()  # socket of each GPU; () = all on one
    switches: tuple[int, ...] = ()  # PCIe switch of each GPU; () = on the CPU's root ports
    pcie_gbs: float = 0.0  # the GPU's own PCIe link
    pcie_lanes: int = 0  # its width in the build's slots (x8 when the slots drop cards to x8); 0 = the GPU's own
    cpu_vendor: str = ""  # "intel": P2P through the root complex pays INTEL_P2P_OVERHEAD
    socket_link: str = ""
    socket_gbs: float | None = None  # the sockets' link as GPU traffic sees it (estimator scale)
    node_gpus: int = 0  # GPUs per server when the GPUs span several (`across_nodes`); 0 = one server
    network_gbs: float = 0.0  # each GPU's share of the network between the servers (GB/s)
    # tp_bound's answers by TP size: an estimate asks 4 times, and hashing the graph (its GPU spec) is dearer
    memo: dict[int, RingBound] = field(default_factory=dict, compare=False, hash=False, repr=False)


@direct_init
@dataclass(frozen=True, slots=True)
class RingBound:
    """The slowest edge of the best ring over a set of GPUs, and why it is that edge."""

    gbs: float
    kind: str  # NVSWITCH | BRIDGE | SWITCH | ROOT | SOCKET
    nvlink: bool  # the bound is an NVLink (latency floor of NVLink, not PCIe)
    size: int
    topology: Topology

    @property
    def label(self) -> Phrase:
        """The bounding link and why, for the assumptions (made when they are read)."""
        t = self.topology
        gbs = Num(self.gbs, None) if self.nvlink else Num(self.gbs, 1)
        if self.kind == NETWORK:
            return Phrase(
                "the network between the servers (%(bandwidth)s GB/s per GPU: one 400 Gb/s NIC each), the slowest "
                "link of its ring: NVLink joins only the %(node)s GPUs of one server and the ring spans "
                "%(nodes)s servers",
                bandwidth=gbs,
                node=t.node_gpus,
                nodes=-(-self.size // t.node_gpus),
            )
        if self.kind == NVSWITCH:
            return Phrase("NVLink/NVSwitch %(bandwidth)s GB/s", bandwidth=gbs)
        pcie = Phrase("PCIe %(gen)s.0 x%(lanes)s", gen=t.gpu.pcie_gen, lanes=t.pcie_lanes or t.gpu.pcie_lanes)
        if self.kind == BRIDGE:
            return Phrase(
                "an NVLink bridge (%(bandwidth)s GB/s): all %(size)s GPUs share one bridge set",
                bandwidth=gbs,
                size=self.size,
            )
        if t.bridges:
            why = Phrase(
                "the slowest link of its ring: NVLink bridges join only %(ways)s GPUs each, so the ring "
                "between the bridged groups crosses PCIe",
                ways=len(t.bridges[0]),
            )
        else:
            why = Phrase("the slowest link of its ring: no NVLink joins these GPUs")
        if self.kind == SOCKET:
            return Phrase(
                "the CPU sockets' link %(link)s (%(bandwidth)s GB/s), %(why)s and the ring spans both "
                "sockets, whose link is slower than %(pcie)s",
                link=t.socket_link,
                bandwidth=gbs,
                why=why,
                pcie=pcie,
            )
        if self.kind == SWITCH:
            return Phrase(
                "%(pcie)s inside one PCIe switch (%(bandwidth)s GB/s), %(why)s",
                pcie=pcie,
                bandwidth=gbs,
                why=why,
            )
        if t.cpu_vendor == "intel":
            return Phrase(
                "%(pcie)s through the CPU (%(bandwidth)s GB/s: P2P through an Intel root complex costs 6/5 of "
                "its bytes), %(why)s",
                pcie=pcie,
                bandwidth=gbs,
                why=why,
            )
        return Phrase("%(pcie)s through the CPU (%(bandwidth)s GB/s), %(why)s", pcie=pcie, bandwidth=gbs, why=why)


def _pcie_gbs(gpu: GpuSpec, lanes: int = 0) -> float:
    return _PCIE_GBS_PER_LANE.get(gpu.pcie_gen, 1.969) * (lanes or gpu.pcie_lanes)


def socket_link(cpu: CpuSpec | None) -> tuple[str, float]:
    """The sockets' link of a CPU (name, GB/s on the estimator's scale): NCCL's figure for its generation."""
    if cpu is None:
        name, bw = NCCL_SOCKET_BW_UNKNOWN["intel"]
        return name, bw * NCCL_TO_ESTIMATOR
    for needle, name, bw in NCCL_SOCKET_BW:
        if needle in cpu.family:
            return name, bw * NCCL_TO_ESTIMATOR
    name, bw = NCCL_SOCKET_BW_UNKNOWN["amd" if cpu.vendor.lower() == "amd" else "intel"]
    return name, bw * NCCL_TO_ESTIMATOR


def uniform(gpu: GpuSpec, count: int, gbs: float) -> Topology:
    """`count` GPUs joined all-to-all at `gbs` (NVSwitch, Infinity Fabric, or a caller's assumed fabric)."""
    return Topology(gpu=gpu, count=count, fabric_gbs=gbs, pcie_gbs=_pcie_gbs(gpu))


def across_nodes(gpu: GpuSpec, count: int, gbs: float, node_gpus: int = BASEBOARD_GPUS) -> Topology:
    """`count` GPUs in servers of `node_gpus` joined all-to-all at `gbs` inside each (NVSwitch, Infinity Fabric)
    and by the network between them (NETWORK_GBS_PER_GPU): a ring that spans servers goes at the network."""
    return Topology(
        gpu=gpu,
        count=count,
        fabric_gbs=gbs,
        pcie_gbs=_pcie_gbs(gpu),
        node_gpus=node_gpus if count > node_gpus else 0,
        network_gbs=NETWORK_GBS_PER_GPU,
    )


# Interconnects that always join the GPUs of a system (SXM baseboards, OAM); bridges are optional parts, so
# bridged PCIe cards are estimated over PCIe unless a build says otherwise.
BUILT_IN_LINKS = ("nvswitch-sxm", "infinity-fabric-oam")


def built_in_link(gpu: GpuSpec, count: int = 1) -> float | Topology | None:
    """What `count` GPUs are joined by without a build: the GPU's built-in fabric (NVSwitch on an HGX
    baseboard, Infinity Fabric on AMD's UBB: every GPU to every other at the catalog's `nvlink_gbs`), servers of
    BASEBOARD_GPUS joined by the network beyond one baseboard (`across_nodes`), None (PCIe) for other GPUs."""
    if gpu.nvlink_kind not in BUILT_IN_LINKS or not gpu.nvlink_gbs:
        return None
    if count > BASEBOARD_GPUS:
        return across_nodes(gpu, count, gpu.nvlink_gbs)
    return gpu.nvlink_gbs


def pcie_only(gpu: GpuSpec, count: int) -> Topology:
    """`count` GPUs on one CPU's root ports, nothing else known (what estimate() assumes without a build)."""
    return Topology(gpu=gpu, count=count, pcie_gbs=_pcie_gbs(gpu))


def bridged(gpu: GpuSpec, count: int, sets: tuple[tuple[int, int], ...]) -> Topology:
    """`count` GPUs on one CPU's root ports joined by bridge sets ((ways, sets), …) in neighbouring positions:
    the recommender's graph of a GPU option before it has a chassis."""
    return Topology(
        gpu=gpu,
        count=count,
        bridges=_bridge_groups(sets, count),
        bridge_gbs=gpu.nvlink_gbs or 0.0,
        pcie_gbs=_pcie_gbs(gpu),
    )


def _positions(per_socket: tuple[int, ...], filled: int, count: int) -> tuple[int, ...]:
    """Socket of each of `count` GPUs filling the live positions in order (socket 1's first)."""
    live = per_socket[: max(filled, 1)] if per_socket else ()
    sockets: list[int] = []
    for socket, slots in enumerate(live):
        sockets.extend([socket] * slots)
    sockets = sockets[:count]
    last = sockets[-1] if sockets else 0
    sockets.extend([last] * (count - len(sockets)))  # GPUs past the live positions (a rule's error): the last socket
    return tuple(sockets) if len(set(sockets)) > 1 else ()


def build_topology(
    build: BuildSpec,
    gpu: GpuSpec | None = None,
    bridge_sets: tuple[tuple[int, int], ...] | None = None,
    lanes: LanePlan | None = None,
) -> Topology | None:
    """The link graph of a build's GPUs (None with fewer than 2). Several GPU models: no NVLink between them
    (interconnect.mixed_gpus); the graph is PCIe only, at the slowest card's link. `bridge_sets` ((ways,
    sets), …) replaces the build's bridge lines; `lanes`: the build's lane plan when the caller has it."""
    count = build.gpu_count
    if count < 2 or not build.gpus:
        return None
    gpu = gpu or build.gpus[0].spec
    chassis = build.chassis
    cpu = build.cpus[0].spec if build.cpus else None
    name, socket_gbs = socket_link(cpu)
    sockets: tuple[int, ...] = ()
    if chassis.cpu_sockets > 1:
        sockets = _positions(chassis.gpu_slots_per_socket, build.cpu_count or chassis.cpu_sockets, count)
    switches: tuple[int, ...] = ()
    if chassis.pcie_topology == "switched" and chassis.pcie_switch_uplinks:
        per_switch = max(1, -(-max(chassis.max_gpu_count, count) // chassis.pcie_switch_uplinks))
        switches = tuple(i // per_switch for i in range(count))
    # slots that cannot give every card x16 drop some to x8 (budgets.lanes, validation-rules.md §2.1: P2P
    # bandwidth halves); which cards is the board's wiring, so every PCIe edge is taken at x8 (a ring over
    # all the GPUs passes an x8 card; a smaller group might not: the estimate errs low here)
    x8 = min(X8, gpu.pcie_lanes) if (lanes or lane_plan(build)).x8_cards else 0
    base = Topology(
        gpu=gpu,
        count=count,
        sockets=sockets,
        switches=switches,
        pcie_gbs=min(_pcie_gbs(line.spec, x8 and min(x8, line.spec.pcie_lanes)) for line in build.gpus),
        pcie_lanes=x8,
        cpu_vendor=(cpu.vendor.lower() if cpu else ""),
        socket_link=name,
        socket_gbs=socket_gbs,
    )
    single = len(build.gpus) == 1
    if single and gpu.nvlink_gbs:
        if gpu.nvlink_kind == "nvswitch-sxm" and chassis.has_nvswitch:
            return _with(base, fabric_gbs=gpu.nvlink_gbs)
        if gpu.nvlink_kind == "infinity-fabric-oam" and chassis.gpu_form_factor == "oam":
            return _with(base, fabric_gbs=gpu.nvlink_gbs)
        if gpu.nvlink_kind in ("bridge-2way", "bridge-2or4way"):
            sets = bridge_sets if bridge_sets is not None else _bridge_sets(build, gpu)
            groups = _bridge_groups(sets, count)
            if groups:
                return _with(base, bridges=groups, bridge_gbs=gpu.nvlink_gbs)
    return base


def _bridge_sets(build: BuildSpec, gpu: GpuSpec) -> tuple[tuple[int, int], ...]:
    """(ways, sets) of the build's bridge lines that join this GPU and span the chassis' slot pitch."""
    pitch = build.chassis.gpu_slot_pitch
    if pitch is not None and any(line.spec.slot_spacing != pitch for line in build.bridges):
        return ()  # a bridge that cannot span the slots links nothing (interconnect.bridge_spacing)
    return tuple(
        (line.spec.ways, line.qty)
        for line in sorted(build.bridges, key=lambda line: -line.spec.ways)
        if gpu.sku in line.spec.gpu_skus
    )


def _bridge_groups(sets: tuple[tuple[int, int], ...], count: int) -> tuple[tuple[int, ...], ...]:
    """Neighbouring positions each set joins, the widest sets first; sets past the GPUs join nothing."""
    groups: list[tuple[int, ...]] = []
    start = 0
    for ways, qty in sorted(sets, key=lambda s: -s[0]):
        for _ in range(qty):
            if start + ways > count:
                break
            groups.append(tuple(range(start, start + ways)))
            start += ways
    return tuple(groups)


def _with(base: Topology, **changes: Any) -> Topology:
    return replace(base, memo={}, **changes)


def _bridge_of(t: Topology, members: tuple[int, ...]) -> bool:
    first = members[0]
    for group in t.bridges:
        if first in group:
            return all(m in group for m in members)
    return False


@lru_cache(maxsize=4096)
def ring_bound(t: Topology, members: tuple[int, ...]) -> RingBound:
    """The slowest edge of the best ring over `members` (positions). NVLink edges form cliques (a bridge set
    joins each of its GPUs to each other; an NVSwitch all of them), and every PCIe edge within a socket runs
    at one rate, lower than any NVLink: so a ring over a set inside one NVLink clique runs at the NVLink, and
    any other ring must take a PCIe edge (the best ring takes as few as it can, but one is enough to bound
    it); a set on both sockets must cross the sockets' link."""
    size = len(members)
    if t.node_gpus and len({m // t.node_gpus for m in members}) > 1:
        return RingBound(t.network_gbs, NETWORK, False, size, t)
    if t.fabric_gbs:
        return RingBound(t.fabric_gbs, NVSWITCH, True, size, t)
    if size >= 2 and t.bridges and _bridge_of(t, members):
        return RingBound(t.bridge_gbs, BRIDGE, True, size, t)
    pcie = t.pcie_gbs
    if t.switches and len({t.switches[m] for m in members}) == 1:
        return RingBound(pcie, SWITCH, False, size, t)
    through_cpu = pcie / INTEL_P2P_OVERHEAD if t.cpu_vendor == "intel" else pcie
    crosses = bool(t.sockets) and len({t.sockets[m] for m in members}) > 1
    if crosses and t.socket_gbs is not None and t.socket_gbs < through_cpu:
        return RingBound(t.socket_gbs, SOCKET, False, size, t)
    return RingBound(through_cpu, ROOT, False, size, t)


@direct_init
@dataclass(frozen=True, slots=True)
class TpGroup:
    members: tuple[int, ...]  # GPU positions
    bound: RingBound


@lru_cache(maxsize=1024)
def best_groups(t: Topology, size: int) -> tuple[TpGroup, ...]:
    """`count // size` disjoint groups of `size` GPUs, each as well linked as the graph allows: positions in
    order, so a group of 2 is a bridged pair, of 4 a bridged quad or two pairs behind one switch or on one
    socket, and groups never straddle a socket that a neighbouring cut keeps whole. A serving layout runs TP
    inside these and replicas or pipeline stages across them."""
    size = max(1, min(size, t.count))
    order = _order(t)
    groups = []
    for start in range(0, t.count - size + 1, size):
        members = order[start : start + size]
        groups.append(TpGroup(members, ring_bound(t, members)))
    return tuple(groups)


def _order(t: Topology) -> tuple[int, ...]:
    """Positions grouped by socket, then switch, then bridge group (position order already is, as placed)."""
    return tuple(
        sorted(
            range(t.count),
            key=lambda i: (
                i // t.node_gpus if t.node_gpus else 0,
                t.sockets[i] if t.sockets else 0,
                t.switches[i] if t.switches else 0,
                i,
            ),
        )
    )


def tp_bound(t: Topology, size: int) -> RingBound:
    """The link a TP group of `size` GPUs runs its all-reduces at: the worst of `best_groups` (every replica
    serves users; the slowest sets the per-user speed it can promise)."""
    known = t.memo.get(size)
    if known is not None:
        return known
    bound = min((g.bound for g in best_groups(t, size)), key=lambda b: b.gbs)  # size is clamped to 1..count
    t.memo[size] = bound
    return bound
