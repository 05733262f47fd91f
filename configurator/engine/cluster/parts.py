"""Specs of the cluster catalog (catalog models NetworkSwitch, NetworkAdapter, Cable, StorageNode, Rack, Pdu),
as frozen dataclasses the cluster engine reads; built by catalog.cluster_specs from fixture or database rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from configurator.engine.frozen import direct_init


@direct_init
@dataclass(frozen=True, slots=True)
class SwitchSpec:
    sku: str
    name: str
    price: Decimal
    fabric: str  # infiniband | ethernet
    role: str  # compute | frontend | management
    ports: int
    port_speed_gbps: int
    max_split: int
    rdma: bool
    rack_units: int
    power_w: int
    weight_kg: float
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name`

    def ports_at(self, speed_gbps: int) -> int:
        """Ports at `speed_gbps`: the native ports, each split into up to `max_split` slower ones; none faster."""
        if speed_gbps > self.port_speed_gbps:
            return 0
        return self.ports * min(self.max_split, self.port_speed_gbps // speed_gbps)


@direct_init
@dataclass(frozen=True, slots=True)
class AdapterSpec:
    sku: str
    name: str
    price: Decimal
    speed_gbps: int
    ports: int
    is_dpu: bool
    power_w: int
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name`


@direct_init
@dataclass(frozen=True, slots=True)
class CableSpec:
    sku: str
    name: str
    price: Decimal
    medium: str  # dac | aoc | transceiver | fiber | copper
    speed_gbps: int
    ports: int  # links one module serves (twin-port OSFP: 2)
    length_m: float | None  # None: transceivers, and cords cut to the link
    reach_m: float
    power_w: float
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name`


@direct_init
@dataclass(frozen=True, slots=True)
class StorageNodeSpec:
    sku: str
    name: str
    price: Decimal
    usable_tb: float
    read_gbs: float
    write_gbs: float
    ports: int
    port_speed_gbps: int
    rack_units: int
    power_w: int
    weight_kg: float
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name`


@direct_init
@dataclass(frozen=True, slots=True)
class RackSpec:
    sku: str
    name: str
    price: Decimal
    rack_units: int
    width_mm: int
    depth_mm: int
    static_load_kg: int
    weight_kg: float
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name`


@direct_init
@dataclass(frozen=True, slots=True)
class PduSpec:
    sku: str
    name: str
    price: Decimal
    phases: int
    voltage_v: int
    current_a: int
    outlets: int
    weight_kg: float
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name`


@direct_init
@dataclass(frozen=True, slots=True)
class ClusterCatalog:
    version: str
    switches: dict[str, SwitchSpec] = field(default_factory=dict)
    adapters: dict[str, AdapterSpec] = field(default_factory=dict)
    cables: dict[str, CableSpec] = field(default_factory=dict)
    storage_nodes: dict[str, StorageNodeSpec] = field(default_factory=dict)
    racks: dict[str, RackSpec] = field(default_factory=dict)
    pdus: dict[str, PduSpec] = field(default_factory=dict)
