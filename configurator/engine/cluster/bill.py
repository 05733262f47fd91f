"""A cluster as the lines of one quote (issue 39 item 5), by section: the node's parts × N, the compute fabric
(leaf/spine switches and the cables and transceivers of the compute and uplink links), the front-end / storage
network (its switches and cables), storage nodes, management (switches and cables), racks and PDUs. Every line
names the catalog SKU and the catalog kind (the node's part kinds; the cluster parts' catalog.cluster_models
kinds), so an order's purchasing plan buys them. Prices are catalog list prices: the quote prices them with its
discount (quotes.pricing, the one path).

Cables are split by the network of their link; optical modules are counted per section as
⌈module ends / ports per module⌉ (a twin-port OSFP serves two links), so a section never shares a module with
another one."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from configurator.engine.builds import build_lines
from configurator.engine.cluster.parts import ClusterCatalog
from configurator.engine.cluster.types import ClusterBuild
from configurator.engine.frozen import direct_init

NODES, COMPUTE, FRONTEND, STORAGE, MANAGEMENT, RACKS = (
    "nodes",
    "compute_fabric",
    "frontend",
    "storage",
    "management",
    "racks_power",
)
#: The sections in the order a quote shows them (services follow them).
SECTIONS = (NODES, COMPUTE, FRONTEND, STORAGE, MANAGEMENT, RACKS)
_NETWORK_SECTION = {
    "compute": COMPUTE,
    "uplink": COMPUTE,
    "frontend": FRONTEND,
    "storage": FRONTEND,
    "management": MANAGEMENT,
}
_BOM_SECTION = {"compute fabric": COMPUTE, "front-end": FRONTEND, "management": MANAGEMENT, "storage": STORAGE}


@direct_init
@dataclass(frozen=True, slots=True)
class ClusterLine:
    section: str
    kind: str  # chassis, cpus, gpus … (node parts) | switches, adapters, cables, storage_nodes, racks, pdus
    spec: Any  # the engine spec: sku, name, price (node parts also name_ru)
    qty: int
    per_node: int = 0  # node parts: how many one node has

    @property
    def total(self) -> Decimal:
        return Decimal(self.spec.price) * self.qty


def _kind_of(cat: ClusterCatalog, sku: str) -> tuple[str, Any]:
    for kind, table in (
        ("switches", cat.switches),
        ("adapters", cat.adapters),
        ("cables", cat.cables),
        ("storage_nodes", cat.storage_nodes),
        ("racks", cat.racks),
        ("pdus", cat.pdus),
    ):
        if sku in table:
            return kind, table[sku]
    raise KeyError(sku)


def cluster_lines(build: ClusterBuild, cat: ClusterCatalog) -> list[ClusterLine]:
    """The quote lines of `build` in SECTIONS order; their totals add up to `build.price`."""
    nodes = build.spec.nodes
    lines = [
        ClusterLine(NODES, kind, spec, qty * nodes, per_node=qty) for kind, spec, qty in build_lines(build.spec.node)
    ]
    chassis = build.spec.node.chassis.sku
    for bom in build.bom:
        if bom.section == "nodes" and bom.sku != chassis:  # the node's DPU (the 9th, north-south NIC)
            kind, spec = _kind_of(cat, bom.sku)
            lines.append(ClusterLine(NODES, kind, spec, bom.qty, per_node=bom.qty // nodes))
        elif bom.section in _BOM_SECTION:
            kind, spec = _kind_of(cat, bom.sku)
            lines.append(ClusterLine(_BOM_SECTION[bom.section], kind, spec, bom.qty))
        elif bom.section == "racks and power":
            kind, spec = _kind_of(cat, bom.sku)
            lines.append(ClusterLine(RACKS, kind, spec, bom.qty))
    cables: Counter[tuple[str, str]] = Counter()
    ends: Counter[tuple[str, str]] = Counter()
    for link in build.links:
        section = _NETWORK_SECTION.get(link.network, COMPUTE)
        if link.cable:
            cables[(section, link.cable)] += 1
        for module in link.modules:
            ends[(section, module)] += 1
    for (section, sku), count in ends.items():
        cables[(section, sku)] += math.ceil(count / cat.cables[sku].ports)
    for (section, sku), qty in sorted(cables.items()):
        lines.append(ClusterLine(section, "cables", cat.cables[sku], qty))
    order = {section: index for index, section in enumerate(SECTIONS)}
    return sorted(lines, key=lambda line: order[line.section])  # stable: the order inside a section is kept


@direct_init
@dataclass(frozen=True, slots=True)
class Facility:
    """What the site must give the cluster: racks, the heaviest rack's kW and its amps per feed (per phase)."""

    racks: int
    load_kw: float
    max_rack_kw: float
    max_amps_per_feed: float
    site_voltage_v: int
    rack_kw_limit: float


def cluster_facility(build: ClusterBuild) -> Facility:
    return Facility(
        racks=len(build.racks),
        load_kw=round(build.load_kw, 2),
        max_rack_kw=round(max((r.load_w for r in build.racks), default=0.0) / 1000, 2),
        max_amps_per_feed=round(max((r.amps_per_feed for r in build.racks), default=0.0), 1),
        site_voltage_v=build.spec.site_voltage_v,
        rack_kw_limit=build.spec.rack_kw_limit,
    )


__all__ = ["SECTIONS", "ClusterLine", "Facility", "cluster_facility", "cluster_lines"]
