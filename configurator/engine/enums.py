"""Value sets the engine shares with the models and the pages: one `StrEnum` each, plain Python, no Django.

A member is its value (`Cooling.PASSIVE == "passive"`), so the engine's string fields and `Literal` types
(configurator.engine.types) take them as they are. The Django side builds its `TextChoices` from these
values and gives each a `gettext_lazy` label (catalog.models for the catalog's columns,
configurator.choices for the workload's and the findings' sets), so a label is written once and its Russian
lives in locale/ru/LC_MESSAGES/django.po. Stored values and API values are these strings: never rename one.
"""

from __future__ import annotations

from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Redundancy(StrEnum):
    """PSU redundancy of a build."""

    NONE = "none"
    N_PLUS_1 = "n+1"
    N_PLUS_N = "n+n"


class Task(StrEnum):
    INFERENCE = "inference"
    LORA = "lora"
    QLORA = "qlora"
    FULL_FINETUNE = "full_finetune"


class FormFactor(StrEnum):
    """The form factor a buyer asks the recommender for."""

    ANY = "any"
    WORKSTATION = "workstation"
    RACK = "rack"


class ChassisKind(StrEnum):
    TOWER_WORKSTATION = "tower-workstation"
    RACK_WORKSTATION = "rack-workstation"
    RACK_SERVER = "rack-server"
    HGX = "hgx"


class NvlinkKind(StrEnum):
    NONE = "none"
    BRIDGE_2WAY = "bridge-2way"
    BRIDGE_2OR4WAY = "bridge-2or4way"
    NVSWITCH_SXM = "nvswitch-sxm"
    INFINITY_FABRIC_OAM = "infinity-fabric-oam"


class GpuFormFactor(StrEnum):
    PCIE = "pcie"
    SXM = "sxm"
    OAM = "oam"


class GpuSocket(StrEnum):
    """The module socket of an SXM/OAM GPU and the baseboard generation a chassis carries: a module sits only on
    a baseboard of its own generation (NVIDIA HGX A100 = SXM4, HGX H100/H200 = SXM5, HGX B200 = SXM6, HGX B300 =
    its own Blackwell Ultra module; AMD Instinct MI300X = OAM on the UBB). PCIe cards have none ("")."""

    NONE = ""
    SXM4 = "sxm4"
    SXM5 = "sxm5"
    SXM6 = "sxm6"
    # Blackwell Ultra modules sit on the HGX B300 board only (1,100 W class, NVLink 5, ConnectX-8 on board;
    # NVIDIA Blackwell Architecture Technical Brief v2.1): not the B200 board, whose modules are 1,000 W
    HGX_B300 = "hgx-b300"
    # an HGX H100 8-GPU and an HGX H200 8-GPU board are distinct assemblies NVIDIA ships with their own modules
    # (the HGX baseboard is sold populated, not as a socket to fill): H100 SXM5 modules on the HGX H100 board,
    # H200 SXM5 on the HGX H200 board (issue 34 trial t34; the fixture rows cite the HGX pages)
    HGX_H100 = "hgx-h100"
    HGX_H200 = "hgx-h200"
    OAM = "oam"


class Cooling(StrEnum):
    ACTIVE = "active"
    BLOWER = "blower"
    PASSIVE = "passive"


class PowerConnector(StrEnum):
    V12_2X6 = "12v-2x6"
    PCIE_8PIN = "pcie-8pin"
    EPS_8PIN = "eps-8pin"
    NONE = "none"
    BASEBOARD = "baseboard"


class PcieTopology(StrEnum):
    DIRECT = "direct"
    SWITCHED = "switched"


class PsuFormFactor(StrEnum):
    ATX = "atx"
    CRPS = "crps"


class MemoryKind(StrEnum):
    RDIMM = "rdimm"
    UDIMM = "udimm"


class StorageInterface(StrEnum):
    NVME = "nvme"
    SATA = "sata"


class Noise(StrEnum):
    """Where the machine will stand (Constraints.noise): an office or a lab takes towers and workstations, not
    rack servers with server fans; a server room takes anything. ANY = not said."""

    ANY = "any"
    OFFICE = "office"
    LAB = "lab"
    SERVER_ROOM = "server_room"


class FindingCode(StrEnum):
    """The stable dotted id of every finding the rules make (`Finding.code`); API clients key on these, the
    pages title them (configurator.labels.FINDING_TITLES). Never rename one; add a member with a new rule."""

    COOLING_AXIAL_DENSITY = "cooling.axial_density"
    COOLING_FLOW_THROUGH_SERVER = "cooling.flow_through_server"
    COOLING_PASSIVE_AIRFLOW = "cooling.passive_airflow"
    CPU_COUNT = "cpu.count"
    CPU_MIXED = "cpu.mixed"
    CPU_NONE = "cpu.none"
    CPU_ONE_SOCKET_PART = "cpu.one_socket_part"
    CPU_SOCKET = "cpu.socket"
    CPU_SOCKET_EMPTY = "cpu.socket_empty"
    ECC_GPU_REQUIRED = "ecc.gpu_required"
    ECC_MEMORY_REQUIRED = "ecc.memory_required"
    FIT_BASEBOARD_COUNT = "fit.baseboard_count"
    FIT_CHASSIS_KIND = "fit.chassis_kind"
    FIT_DRIVE_BAYS = "fit.drive_bays"
    FIT_GPU_COUNT = "fit.gpu_count"
    FIT_GPU_FORM_FACTOR = "fit.gpu_form_factor"
    FIT_GPU_GENERATION = "fit.gpu_generation"
    FIT_GPU_HEIGHT = "fit.gpu_height"
    FIT_GPU_LENGTH = "fit.gpu_length"
    FIT_GPU_SLOT_WIDTH = "fit.gpu_slot_width"
    FIT_GPU_TDP = "fit.gpu_tdp"
    INTERCONNECT_BRIDGE_COUNT = "interconnect.bridge_count"
    INTERCONNECT_BRIDGE_MISMATCH = "interconnect.bridge_mismatch"
    INTERCONNECT_BRIDGE_MISSING = "interconnect.bridge_missing"
    INTERCONNECT_BRIDGE_SPACING = "interconnect.bridge_spacing"
    INTERCONNECT_BRIDGE_WAYS = "interconnect.bridge_ways"
    INTERCONNECT_MIXED_GPUS = "interconnect.mixed_gpus"
    INTERCONNECT_MIXED_MODELS = "interconnect.mixed_models"
    INTERCONNECT_NO_BRIDGE = "interconnect.no_bridge"
    INTERCONNECT_NO_NVLINK = "interconnect.no_nvlink"
    INTERCONNECT_NVSWITCH = "interconnect.nvswitch"
    INTERCONNECT_TP_OVER_PCIE = "interconnect.tp_over_pcie"
    INTERCONNECT_TP_PARTLY_BRIDGED = "interconnect.tp_partly_bridged"
    INTERCONNECT_TP_OVER_SOCKETS = "interconnect.tp_over_sockets"
    INTERCONNECT_UNBRIDGED_GPU = "interconnect.unbridged_gpu"
    MEMORY_TWO_DPC = "memory.2dpc"
    MEMORY_DIMM_SLOTS = "memory.dimm_slots"
    MEMORY_ECC_MIXED = "memory.ecc_mixed"
    MEMORY_ECC_RDIMM_REQUIRED = "memory.ecc_rdimm_required"
    MEMORY_KIND = "memory.kind"
    MEMORY_MIXED_MODULES = "memory.mixed_modules"
    MEMORY_NONE = "memory.none"
    MEMORY_POPULATION = "memory.population"
    MEMORY_RAM_BELOW_2X_VRAM = "memory.ram_below_2x_vram"
    MEMORY_RAM_BELOW_1_5X_VRAM = "memory.ram_below_1_5x_vram"
    MEMORY_RAM_BELOW_VRAM = "memory.ram_below_vram"
    PCIE_DEAD_SLOTS = "pcie.dead_slots"
    PLATFORM_BOOT_MIRROR = "platform.boot_mirror"
    PLATFORM_CPU_CORES = "platform.cpu_cores"
    PLATFORM_MULTI_NODE_NICS = "platform.multi_node_nics"
    PLATFORM_NETWORK = "platform.network"
    PCIE_LANES = "pcie.lanes"
    PCIE_P2P_ACS = "pcie.p2p_acs"
    PCIE_SHARED_UPLINK = "pcie.shared_uplink"
    PCIE_SLOT_LANES = "pcie.slot_lanes"
    PCIE_X8_FALLBACK = "pcie.x8_fallback"
    POWER_CIRCUIT_120V = "power.circuit_120v"
    POWER_GPU_ADAPTERS = "power.gpu_adapters"
    POWER_GPU_CONNECTORS = "power.gpu_connectors"
    POWER_HEADROOM = "power.headroom"
    POWER_INPUT_VOLTAGE = "power.input_voltage"
    POWER_PSU_BAYS = "power.psu_bays"
    POWER_PSU_CAPACITY = "power.psu_capacity"
    POWER_PSU_FORM_FACTOR = "power.psu_form_factor"
    POWER_PSU_MIXED = "power.psu_mixed"
    POWER_REDUNDANCY_COUNT = "power.redundancy_count"
    POWER_REDUNDANCY_UNSUPPORTED = "power.redundancy_unsupported"
    POWER_TRANSIENT = "power.transient"
    WORKLOAD_ENGINE_SUPPORT = "workload.engine_support"
    WORKLOAD_ESTIMATE = "workload.estimate"
    WORKLOAD_NO_GPU = "workload.no_gpu"
    WORKLOAD_PRECISION_UNSUPPORTED = "workload.precision_unsupported"
    WORKLOAD_PRECISION_WEIGHT_ONLY = "workload.precision_weight_only"
    WORKLOAD_ROCM_STACK = "workload.rocm_stack"
    WORKLOAD_SPEED = "workload.speed"
    WORKLOAD_VRAM = "workload.vram"
