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
