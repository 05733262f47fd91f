"""The platform around the GPUs of a data-centre GPU server (issue 34): CPU cores per GPU, mirrored boot drives,
the network card. (System memory against GPU memory is rules/memory.py `ram_vs_vram`.)

The numbers and where they come from (the recommender sizes its builds by the same constants,
recommend/sizing.py):

- **Cores.** NVIDIA AI Enterprise Reference Architecture, H200 NVL PCIe-optimised 2-8-5 NVIDIA-Certified
  system: "CPU cores: minimum 7 physical CPU cores per GPU", two sockets
  (docs.nvidia.com/ai-enterprise/reference-architecture/latest/compute-node-hardware.html). NVIDIA DGX H100 /
  H200: 2 × Xeon Platinum 8480C = 112 cores for 8 GPUs = 14 per GPU; DGX B200: 2 × Xeon 8570, 56 cores each =
  14 per GPU (docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-foundation-enterprise-ai/latest/
  core-components.html; docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html). WARN below 7.
- **Boot drives.** DGX H100/H200/B200: "2 × 1.92 TB NVMe M.2 SSD in RAID 1" for the OS, data on separate NVMe
  (8 × 3.84 TB U.2) (same pages). A production machine on one unmirrored boot drive goes down with it: WARN when
  a GPU server (or a production workload) has fewer than 2 drives.
- **Network.** Enterprise RA names its PCIe-optimised servers sockets-GPUs-adapters: 2-4-3 and 2-8-5 (one
  east-west adapter per two GPUs plus one north-south), HGX 2-8-9 (one east-west adapter per GPU plus one
  north-south) (compute-node-hardware.html above; DGX B200: 8 × ConnectX-7 400 Gb/s + 2 × BlueField-3). A
  serving node needs at least 25 GbE north-south (HEURISTIC: the RA's north-south adapter is 200 GbE
  BlueField-3; 25 GbE is the least a rack switch port gives a node, and a 10 GbE port carries only ~1 GB/s
  of prompts, answers and model downloads). WARN without one. Multi-node (the workload says so): one
  200-400G adapter per GPU on an NVSwitch board (2-8-9), one per two GPUs on PCIe (2-8-5), WARN below.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from configurator.engine.fixes import add_op, make_fix, replace_op
from configurator.engine.phrase import Phrase
from configurator.engine.rules.context import Rule, RuleContext, fix_options
from configurator.engine.types import BuildSpec, Finding, Fix, NicSpec, StorageSpec, Workload

SERVER_CORES_PER_GPU = 7  # NVIDIA AI Enterprise RA 2-8-5: minimum 7 physical cores per GPU
DGX_CORES_PER_GPU = 14  # DGX H100/H200/B200: 112 cores for 8 GPUs
BOOT_MIRROR_DRIVES = 2  # DGX: 2 × 1.92 TB M.2 in RAID 1 for the OS
SERVING_NIC_GBPS = 25  # north-south, the least for a serving node (module docstring)
FABRIC_NIC_GBPS = 200  # east-west adapters of a multi-node cluster: 200-400G (Enterprise RA, DGX ConnectX-7)


def datacenter_server(build: BuildSpec) -> bool:
    """A data-centre GPU server (rack server or HGX, not a workstation) with GPUs."""
    return not build.chassis.is_workstation and build.gpu_count > 0


def serves_network(workload: Workload | None) -> bool:
    """A model served to several users, or in production, is reached over the network whatever the box (issue
    34): a workstation serving a team takes the serving role's cores and network card, as a GPU server does."""
    return (
        workload is not None and workload.task == "inference" and (workload.concurrent_users > 1 or workload.production)
    )


def serving_node(build: BuildSpec, workload: Workload | None) -> bool:
    """A data-centre GPU server, or any build with GPUs serving users over the network (`serves_network`)."""
    return datacenter_server(build) or (build.gpu_count > 0 and serves_network(workload))


def total_cores(build: BuildSpec) -> int:
    return sum(line.spec.cores * line.qty for line in build.cpus)


def fabric_nics_needed(build: BuildSpec) -> int:
    """East-west adapters a multi-node build needs: one per GPU on an NVSwitch board (HGX, Enterprise RA
    2-8-9), one per two GPUs on PCIe (2-4-3, 2-8-5)."""
    per = 1 if build.chassis.has_nvswitch else 2
    return math.ceil(build.gpu_count / per)


def _drive_count(build: BuildSpec) -> int:
    return sum(line.qty for line in build.storage)


def cpu_cores(ctx: RuleContext) -> Iterator[Finding]:
    """WARN: a GPU server (or a build serving users over the network) with fewer than 7 physical cores per GPU
    (Enterprise RA 2-8-5 minimum)."""
    build = ctx.build
    if not serving_node(build, ctx.workload) or not build.cpus:
        return
    cores, need = total_cores(build), SERVER_CORES_PER_GPU * build.gpu_count
    if cores >= need:
        return
    sockets = build.cpu_count
    current = build.cpus[0].spec
    options = sorted(
        (
            cpu
            for cpu in fix_options(ctx.snapshot.cpus)
            if cpu.socket == current.socket and cpu.cores * sockets >= need and cpu.max_sockets >= sockets
        ),
        key=lambda cpu: (cpu.price, cpu.sku),
    )
    yield Finding(
        code="platform.cpu_cores",
        severity="warning",
        message=Phrase(
            "%(cores)s CPU cores for %(gpus)s GPUs (%(per_gpu)s per GPU): NVIDIA's reference GPU servers have at "
            "least 7 physical cores per GPU (Enterprise RA 2-8-5), DGX systems 14; fewer starve data loading, "
            "tokenisation and the serving engine's workers.",
            cores=cores,
            gpus=build.gpu_count,
            per_gpu=f"{cores / build.gpu_count:.1f}",
        ),
        measured=cores,
        limit=need,
        unit="cores",
        components=tuple(line.spec.sku for line in build.cpus),
        fixes=tuple(make_fix(replace_op("cpus", cpu.sku, sockets)) for cpu in options[:1]),
    )


def _smallest_drive(ctx: RuleContext) -> StorageSpec | None:
    drives = [d for d in fix_options(ctx.snapshot.storage) if d.interface == "nvme"]
    return min(drives, key=lambda d: (d.capacity_tb, d.price, d.sku)) if drives else None


def boot_mirror(ctx: RuleContext) -> Iterator[Finding]:
    """WARN: a GPU server, or any build for a production workload, with fewer than 2 drives has no mirrored
    boot (DGX: 2 × M.2 in RAID 1 plus data NVMe)."""
    build = ctx.build
    production = ctx.workload is not None and ctx.workload.production
    if not (datacenter_server(build) or (production and build.gpu_count)):
        return
    drives = _drive_count(build)
    if drives >= BOOT_MIRROR_DRIVES:
        return
    drive = _smallest_drive(ctx)
    fixes: tuple[Fix, ...] = ()
    if drive is not None and drives + 1 <= build.chassis.drive_bays + build.chassis.chipset_m2_slots:
        fixes = (make_fix(add_op("storage", drive.sku, BOOT_MIRROR_DRIVES - drives)),)
    yield Finding(
        code="platform.boot_mirror",
        severity="warning",
        message=Phrase.plural(
            "%(count)s drive: a production server boots from two mirrored drives (RAID 1, as DGX systems do) "
            "and keeps the models on data NVMe; one failed drive stops this one.",
            "%(count)s drives: a production server boots from two mirrored drives (RAID 1, as DGX systems do) "
            "and keeps the models on data NVMe; one failed drive stops this one.",
            "count",
            count=drives,
        ),
        measured=drives,
        limit=BOOT_MIRROR_DRIVES,
        unit="drives",
        components=tuple(line.spec.sku for line in build.storage),
        fixes=fixes,
    )


def _cheapest_nic(ctx: RuleContext, gbps: int) -> NicSpec | None:
    nics = [nic for nic in fix_options(ctx.snapshot.nics) if nic.speed_gbps >= gbps]
    return min(nics, key=lambda nic: (nic.price, nic.sku)) if nics else None


def network(ctx: RuleContext) -> Iterator[Finding]:
    """WARN: a GPU server (or a workstation serving users over the network) without a network card of at least
    25 GbE."""
    build = ctx.build
    if not serving_node(build, ctx.workload):
        return
    fastest = max((line.spec.speed_gbps for line in build.nics), default=0)
    if fastest >= SERVING_NIC_GBPS:
        return
    nic = _cheapest_nic(ctx, SERVING_NIC_GBPS)
    yield Finding(
        code="platform.network",
        severity="warning",
        message=(
            _workstation_network(ctx, fastest)
            if not datacenter_server(build)
            else Phrase(
                "No network card: a GPU server needs at least a %(gbps)s GbE port to serve users and load models "
                "(NVIDIA's reference servers carry a 200 GbE north-south adapter).",
                gbps=SERVING_NIC_GBPS,
            )
            if not build.nics
            else Phrase(
                "The fastest network card is %(have)s GbE: a GPU server needs at least %(gbps)s GbE to serve users "
                "and load models (NVIDIA's reference servers carry a 200 GbE north-south adapter).",
                have=fastest,
                gbps=SERVING_NIC_GBPS,
            )
        ),
        measured=fastest,
        limit=SERVING_NIC_GBPS,
        unit="Gb/s",
        components=tuple(line.spec.sku for line in build.nics),
        fixes=(make_fix(add_op("nics", nic.sku, 1)),) if nic is not None else (),
    )


def _workstation_network(ctx: RuleContext, fastest: int) -> Phrase:
    """Why a workstation that serves users needs the serving port."""
    users = ctx.workload.concurrent_users if ctx.workload is not None else 1
    return Phrase(
        "A machine serving %(users)s users over the network needs at least a %(gbps)s GbE port for their requests "
        "and the model downloads; this one's fastest is %(have)s GbE (NVIDIA's reference servers carry a 200 GbE "
        "north-south adapter).",
        have=fastest,
        users=users,
        gbps=SERVING_NIC_GBPS,
    )


def multi_node_nics(ctx: RuleContext) -> Iterator[Finding]:
    """WARN: a build for a multi-node workload with fewer 200-400G adapters than the Enterprise RA gives its
    GPUs (one per GPU on NVSwitch, one per two on PCIe)."""
    build = ctx.build
    if ctx.workload is None or not ctx.workload.multi_node or not build.gpu_count:
        return
    have = sum(line.qty for line in build.nics if line.spec.speed_gbps >= FABRIC_NIC_GBPS)
    need = fabric_nics_needed(build)
    if have >= need:
        return
    nic = _cheapest_nic(ctx, FABRIC_NIC_GBPS)
    yield Finding(
        code="platform.multi_node_nics",
        severity="warning",
        message=Phrase(
            "%(have)s of %(need)s 200-400G network cards for a multi-node job: NVIDIA's reference architectures "
            "give one per GPU on an NVSwitch board (2-8-9) and one per two GPUs on PCIe (2-8-5); fewer make "
            "the network the bottleneck of tensor and data parallelism across nodes.",
            have=have,
            need=need,
        ),
        measured=have,
        limit=need,
        unit="NICs",
        components=tuple(line.spec.sku for line in build.nics),
        fixes=(make_fix(add_op("nics", nic.sku, need - have)),) if nic is not None else (),
    )


RULES = (cpu_cores, boot_mirror, network, multi_node_nics)
# the build fields these rules (findings and fixes) read: after a fix that changes none, they are not re-run
READS = frozenset({"chassis", "cpus", "gpus", "storage", "nics"})
READS_BY_RULE: dict[Rule, frozenset[str]] = {
    cpu_cores: frozenset({"chassis", "cpus", "gpus"}),
    boot_mirror: frozenset({"chassis", "gpus", "storage"}),
    network: frozenset({"chassis", "gpus", "nics"}),
    multi_node_nics: frozenset({"chassis", "gpus", "nics"}),
}
