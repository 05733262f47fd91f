"""Catalog specs: the fields of the catalog's models the engine needs, as frozen dataclasses, and the
snapshot of all of them (built by catalog.specs). Units are in the field names (`vram_gib`, `tdp_w`, `_mm`).

Every spec carries both display names, `name` (English) and `name_ru` (Russian, "" where the name is a brand
name that stays as it is): one snapshot serves requests in every language, and the door that shows a part
picks the name of its reader's language (`configurator.wording.part_name`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from configurator.engine.frozen import direct_init


@direct_init
@dataclass(frozen=True, slots=True)
class GpuSpec:
    sku: str
    name: str
    vendor: str
    price: Decimal
    currency: str
    vram_gib: float
    memory_type: str
    bandwidth_gbs: float
    tdp_w: int
    fp16_tflops: float
    fp8_tflops: float | None
    int8_tops: float | None
    ecc: bool
    nvlink_kind: str  # none | bridge-2way | bridge-2or4way | nvswitch-sxm | infinity-fabric-oam
    nvlink_gbs: float | None
    form_factor: str  # pcie | sxm | oam
    slot_width: float | None
    length_mm: int | None
    cooling: str  # active | blower | passive
    power_connector: str  # 12v-2x6 | pcie-8pin | eps-8pin | none | baseboard
    power_connector_count: int
    pcie_gen: int
    pcie_lanes: int
    mig: bool
    is_consumer: bool
    is_active: bool = True
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name` (brand names)
    # SXM/OAM modules: the socket generation (enums.GpuSocket: sxm4 | sxm5 | sxm6 | oam); "" for PCIe cards
    module_socket: str = ""
    # the maker no longer makes it (catalog Gpu.end_of_life): ranked behind a current card of similar price, and
    # said with its lead-time risk (recommend.ranking.ranked_price, recommend.reasons)
    end_of_life: bool = False


@direct_init
@dataclass(frozen=True, slots=True)
class CpuSpec:
    sku: str
    name: str
    vendor: str
    price: Decimal
    currency: str
    family: str
    socket: str
    cores: int
    threads: int
    tdp_w: int
    pcie_lanes_1p: int
    pcie_lanes_per_socket_2p: int | None
    pcie_gen: int
    memory_channels: int
    memory_kind: str  # rdimm | udimm
    memory_speed_mts: int
    memory_speed_2dpc_mts: int | None
    max_sockets: int
    is_active: bool = True
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name` (brand names)


@direct_init
@dataclass(frozen=True, slots=True)
class ChassisSpec:
    sku: str
    name: str
    vendor: str
    price: Decimal
    currency: str
    kind: str  # tower-workstation | rack-workstation | rack-server | hgx
    rack_units: float | None
    cpu_socket: str
    cpu_sockets: int
    gpu_bays: int
    max_gpu_count: int
    gpu_form_factor: str
    max_gpu_slot_width: float | None
    max_gpu_length_mm: int | None
    max_gpu_tdp_w: int
    gpu_slot_pitch: int | None
    server_airflow: bool
    has_nvswitch: bool
    pcie_topology: str  # direct | switched
    pcie_switch_uplinks: int
    gpu_slot_lanes: int
    memory_kind: str
    memory_channels: int
    dimm_slots: int
    psu_bays: int
    psu_form_factor: str
    psu_redundancy_modes: tuple[str, ...]
    drive_bays: int
    base_power_w: int
    gpu_power_12v2x6: int
    gpu_power_eps8: int
    gpu_power_pcie8: int
    is_active: bool = True
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name` (brand names)
    # PCIe topology (issue 12): GPU positions per CPU socket (socket 1 first; () = all on socket 1), NICs and
    # NVMe behind the PCIe switches (HGX), M.2 sockets on the chipset (desktop)
    gpu_slots_per_socket: tuple[int, ...] = ()
    io_behind_switches: bool = False
    chipset_m2_slots: int = 0
    gpu_baseboard: str = ""  # a fixed GPU baseboard (HGX H200 8-GPU) takes only baseboard_gpu_counts GPUs
    baseboard_gpu_counts: tuple[int, ...] = ()
    # the baseboard's module socket generation (enums.GpuSocket): HGX H200 = sxm5; "" = no fixed baseboard
    baseboard_socket: str = ""

    @property
    def is_workstation(self) -> bool:
        return self.kind in ("tower-workstation", "rack-workstation")

    @property
    def is_rack(self) -> bool:
        return self.kind != "tower-workstation"


@direct_init
@dataclass(frozen=True, slots=True)
class PsuSpec:
    sku: str
    name: str
    vendor: str
    price: Decimal
    currency: str
    form_factor: str  # atx | crps
    watts_high_line: int
    watts_low_line: int | None  # None = high-line only
    efficiency: str
    connectors_12v2x6: int
    connectors_eps8: int
    connectors_pcie8: int
    is_active: bool = True
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name` (brand names)

    def watts_at(self, site_voltage: int) -> int | None:
        """Rated output at the site voltage; None when the unit does not run on it."""
        return self.watts_high_line if site_voltage >= 200 else self.watts_low_line


@direct_init
@dataclass(frozen=True, slots=True)
class MemorySpec:
    sku: str
    name: str
    vendor: str
    price: Decimal
    currency: str
    memory_type: str
    kind: str  # rdimm | udimm
    capacity_gb: int
    ecc: bool
    registered: bool
    speed_mts: int
    power_w: float
    is_active: bool = True
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name` (brand names)


@direct_init
@dataclass(frozen=True, slots=True)
class StorageSpec:
    sku: str
    name: str
    vendor: str
    price: Decimal
    currency: str
    interface: str
    form_factor: str
    capacity_tb: float
    pcie_lanes: int
    power_w: int
    is_active: bool = True
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name` (brand names)


@direct_init
@dataclass(frozen=True, slots=True)
class NicSpec:
    sku: str
    name: str
    vendor: str
    price: Decimal
    currency: str
    speed_gbps: int
    ports: int
    pcie_lanes: int
    pcie_gen: int
    power_w: int
    is_active: bool = True
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name` (brand names)


@direct_init
@dataclass(frozen=True, slots=True)
class BridgeSpec:
    sku: str
    name: str
    vendor: str
    price: Decimal
    currency: str
    gpu_skus: tuple[str, ...]
    ways: int
    slot_spacing: int
    is_active: bool = True
    name_ru: str = ""  # the catalog's Russian display name; "" = the same as `name` (brand names)


PartSpec = GpuSpec | CpuSpec | ChassisSpec | PsuSpec | MemorySpec | StorageSpec | NicSpec | BridgeSpec


@direct_init
@dataclass(frozen=True, slots=True)
class CatalogSnapshot:
    """Every catalog row as a spec, by SKU. Built by catalog.specs; `version` changes with the catalog."""

    version: str
    gpus: dict[str, GpuSpec]
    cpus: dict[str, CpuSpec]
    chassis: dict[str, ChassisSpec]
    psus: dict[str, PsuSpec]
    memory: dict[str, MemorySpec]
    storage: dict[str, StorageSpec]
    nics: dict[str, NicSpec]
    bridges: dict[str, BridgeSpec]

    def kind(self, name: str) -> dict[str, PartSpec]:
        return getattr(self, name)
