"""The GPU node a cluster repeats: an NVSwitch (HGX) server of the catalog, full of one SXM GPU, with one
400 Gb/s compute NIC per GPU (NVIDIA's 2-8-9-400 node: 2 CPUs, 8 GPUs, 8 east-west NICs + 1 north-south DPU,
the DPU coming from the cluster catalog). Parts: the chassis's CPU socket count of the cheapest CPU that fits,
one DIMM per memory channel of the smallest size giving at least the node's VRAM in RAM (validation-rules.md
§2: RAM below 1× VRAM warns), the PSU bays filled with the largest CRPS unit at N+1, two NVMe drives."""

from __future__ import annotations

import math

from configurator.engine.errors import DomainError
from configurator.engine.phrase import Phrase
from configurator.engine.rules.context import chassis_takes_gpu
from configurator.engine.types import BuildSpec, CatalogSnapshot, GpuSpec, Line


def node_gpus(snapshot: CatalogSnapshot) -> list[GpuSpec]:
    """SXM GPUs an HGX chassis of the catalog takes."""
    hgx = [c for c in snapshot.chassis.values() if c.is_active and c.has_nvswitch]
    return [
        g
        for g in snapshot.gpus.values()
        if g.is_active
        and g.nvlink_kind == "nvswitch-sxm"
        and any(chassis_takes_gpu(c, g, c.max_gpu_count) for c in hgx)
    ]


def hgx_node(snapshot: CatalogSnapshot, gpu_sku: str, nic_speed_gbps: int = 400) -> BuildSpec:
    gpu = snapshot.gpus.get(gpu_sku)
    hosts = [
        c
        for c in snapshot.chassis.values()
        if c.is_active and c.has_nvswitch and gpu is not None and chassis_takes_gpu(c, gpu, c.max_gpu_count)
    ]
    if gpu is None or not hosts:
        raise DomainError(
            Phrase("no HGX chassis of the catalog takes %(gpu)s", gpu=gpu_sku),
            fields={"gpu": [Phrase("No HGX chassis takes it.")]},
        )
    chassis = min(hosts, key=lambda c: (c.price, c.sku))
    gpus = chassis.max_gpu_count
    cpus = [
        c
        for c in snapshot.cpus.values()
        if c.is_active and c.socket == chassis.cpu_socket and c.max_sockets >= chassis.cpu_sockets
    ]
    cpu = min(cpus, key=lambda c: (c.price, c.sku))
    vram_gb = gpu.vram_gib * gpus
    dimms = [m for m in snapshot.memory.values() if m.is_active and m.kind == chassis.memory_kind]
    per_dimm = math.ceil(vram_gb / chassis.memory_channels)
    memory = min((m for m in dimms if m.capacity_gb >= per_dimm), key=lambda m: (m.capacity_gb, m.price))
    psus = [p for p in snapshot.psus.values() if p.is_active and p.form_factor == chassis.psu_form_factor]
    psu = max(psus, key=lambda p: (p.watts_high_line, -p.price))
    drives = [s for s in snapshot.storage.values() if s.is_active and s.interface == "nvme"]
    drive = min(drives, key=lambda s: (abs(s.capacity_tb - 4), s.price))
    nics = [n for n in snapshot.nics.values() if n.is_active and n.speed_gbps == nic_speed_gbps]
    nic = min(nics, key=lambda n: (n.price, n.sku))
    return BuildSpec(
        chassis=chassis,
        cpus=(Line(cpu, chassis.cpu_sockets),),
        gpus=(Line(gpu, gpus),),
        psus=(Line(psu, chassis.psu_bays),),
        memory=(Line(memory, chassis.memory_channels),),
        storage=(Line(drive, 2),),
        nics=(Line(nic, gpus // nic.ports),),
        psu_redundancy="n+1",
        site_voltage=230,
    )
