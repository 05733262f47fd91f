"""ClusterSpec (what is asked) and ClusterBuild (what sizing makes of it): frozen dataclasses, units in names."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from configurator.engine.cluster.parts import CableSpec, PduSpec, RackSpec, StorageNodeSpec, SwitchSpec
from configurator.engine.frozen import direct_init
from configurator.engine.types import BuildSpec

# TIA-942 (Telecommunications Infrastructure Standard for Data Centers), floor loading: 7.2 kPa minimum,
# 12 kPa recommended = 1,224 kg/m² (12,000 N/m² / 9.81 m/s²); the default site rating is the recommended value.
TIA942_RECOMMENDED_FLOOR_KG_M2 = 1224.0
# Server PSUs of the 80 PLUS Platinum class must hold a power factor ≥ 0.95 at 50 % load (80 PLUS
# specification for 230 V internal redundant supplies): the PF for amps per feed.
POWER_FACTOR = 0.95
# Continuous load on a breaker or PDU stays at or below 80 % of its rating (NEC 210.19(A) / 215.2 continuous
# loads at 125 %; IEC practice rates PDUs the same way).
CONTINUOUS_SHARE = 0.8
# NVIDIA DGX H100 User Guide: system weight 130.45 kg, the heaviest 8-GPU HGX-class node; the weight of a node
# whose chassis row has none (ClusterSpec.node_weight_kg).
NODE_WEIGHT_KG = 130.0


@direct_init
@dataclass(frozen=True, slots=True)
class ClusterSpec:
    """A cluster of `nodes` identical `node` builds for a purpose.

    `purpose`: training needs an RDMA compute fabric; inference across nodes uses it too (pipeline/expert
    parallel), inference that fits a node can do without. `oversubscription` is leaf downlinks per uplink
    (1 = non-blocking). `storage_tb` is the usable storage asked for (sizing adds checkpoints and model files
    from the workload when the recommender builds the spec). Site: `rack_kw_limit` (power and cooling per rack),
    `site_voltage_v` (three-phase line-to-line), `floor_kg_m2` (floor rating)."""

    node: BuildSpec
    nodes: int
    purpose: str = "training"  # training | inference
    compute_switch: str | None = None  # a switch SKU; None: the cheapest RDMA compute switch at the NIC speed
    oversubscription: float = 1.0
    storage_tb: float = 0.0
    checkpoint_tb: float = 0.0  # one checkpoint (written at once: sizes write bandwidth)
    rack_kw_limit: float = 40.0
    site_voltage_v: int = 400
    floor_kg_m2: float = TIA942_RECOMMENDED_FLOOR_KG_M2
    node_weight_kg: float = NODE_WEIGHT_KG
    rack: str | None = None  # compute rack SKU; None: the cheapest rack that holds the nodes


@direct_init
@dataclass(frozen=True, slots=True)
class Device:
    """One box in a rack: `rack` is its rack's index in the row, `u` its lowest unit (1 = bottom)."""

    id: str  # node-03, leaf-r2-g0, spine-1, fe-0, oob-2, storage-0
    kind: str  # node | leaf | spine | switch | frontend | management | storage
    sku: str
    rack: int
    u: int
    height_u: int
    power_w: float
    weight_kg: float
    rails: tuple[int, ...] = ()  # leaves: the rails whose NICs they take


@direct_init
@dataclass(frozen=True, slots=True)
class Link:
    """One cable between two devices. `rail` is the compute NIC's rail (−1 for other links)."""

    network: str  # compute | uplink | frontend | storage | management
    a: str
    b: str
    speed_gbps: int
    length_m: float
    medium: str
    cable: str  # the cable, or the fiber cord of an optical link
    modules: tuple[str, ...] = ()  # transceiver SKUs at end a and end b (optical links)
    rail: int = -1


@direct_init
@dataclass(frozen=True, slots=True)
class Fabric:
    switch: SwitchSpec
    speed_gbps: int
    rails: int
    tiers: int  # 1: one switch; 2: leaf/spine
    leaves: int
    spines: int
    downlinks_per_leaf: int  # the ports each leaf gives to nodes (radix at the NIC speed, less uplinks)
    oversubscription: float
    nodes_per_su: int  # the scalable unit: nodes one group of rail leaves takes


@direct_init
@dataclass(frozen=True, slots=True)
class RackPlan:
    index: int
    rack: RackSpec
    role: str  # compute | network
    used_u: int
    load_w: float
    weight_kg: float
    pdu: PduSpec
    pdus_per_feed: int
    feeds: int
    amps_per_feed: float  # per phase, the whole rack's load on one feed (2N: either feed carries it)
    amps_per_pdu: float
    cords_per_feed: int


@direct_init
@dataclass(frozen=True, slots=True)
class StoragePlan:
    node: StorageNodeSpec
    count: int
    need_tb: float
    checkpoint_tb: float
    write_s: float  # one checkpoint written by all storage nodes together


@direct_init
@dataclass(frozen=True, slots=True)
class BomLine:
    section: str  # nodes | compute fabric | front-end | management | storage | racks and power | cables
    sku: str
    name: str
    qty: int
    unit_price: Decimal
    name_ru: str = ""  # the catalog's Russian name for Russian pages ("" = `name`)

    @property
    def total(self) -> Decimal:
        return self.unit_price * self.qty


@direct_init
@dataclass(frozen=True, slots=True)
class ClusterBuild:
    spec: ClusterSpec
    gpus_per_node: int
    node_load_w: float
    fabric: Fabric | None
    frontend: SwitchSpec | None
    frontend_count: int
    management: SwitchSpec
    management_count: int
    storage: StoragePlan | None
    racks: tuple[RackPlan, ...]
    devices: tuple[Device, ...]
    links: tuple[Link, ...]
    bom: tuple[BomLine, ...]
    cables: dict[str, CableSpec]  # every cable and module the links name, by SKU (rules read their reach)

    @property
    def price(self) -> Decimal:
        return sum((line.total for line in self.bom), Decimal(0))

    @property
    def load_kw(self) -> float:
        return sum(r.load_w for r in self.racks) / 1000

    def switch_count(self, kind: str) -> int:
        return sum(1 for d in self.devices if d.kind == kind)
