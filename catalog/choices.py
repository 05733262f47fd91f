"""The catalog's choice sets (values from the engine's enums, labels translated), imported by catalog.models."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from configurator.engine import enums


class NvlinkKind(models.TextChoices):
    NONE = enums.NvlinkKind.NONE.value, _("none")
    BRIDGE_2WAY = enums.NvlinkKind.BRIDGE_2WAY.value, _("NVLink bridge, 2-way")
    BRIDGE_2OR4WAY = enums.NvlinkKind.BRIDGE_2OR4WAY.value, _("NVLink bridge, 2- or 4-way")
    NVSWITCH_SXM = enums.NvlinkKind.NVSWITCH_SXM.value, _("NVLink through NVSwitch (SXM / HGX)")
    INFINITY_FABRIC_OAM = enums.NvlinkKind.INFINITY_FABRIC_OAM.value, _("AMD Infinity Fabric (OAM / UBB)")


class GpuFormFactor(models.TextChoices):
    PCIE = enums.GpuFormFactor.PCIE.value, _("PCIe card")
    SXM = enums.GpuFormFactor.SXM.value, _("SXM module")
    OAM = enums.GpuFormFactor.OAM.value, _("OAM module")


class GpuSocket(models.TextChoices):
    NONE = enums.GpuSocket.NONE.value, _("none (PCIe card)")
    SXM4 = enums.GpuSocket.SXM4.value, _("SXM4 (HGX A100)")
    SXM5 = enums.GpuSocket.SXM5.value, _("SXM5 (HGX H100/H200)")
    SXM6 = enums.GpuSocket.SXM6.value, _("SXM6 (HGX B200)")
    HGX_B300 = enums.GpuSocket.HGX_B300.value, _("Blackwell Ultra SXM (HGX B300)")
    HGX_H100 = enums.GpuSocket.HGX_H100.value, _("H100 SXM5 (HGX H100 8-GPU board)")
    HGX_H200 = enums.GpuSocket.HGX_H200.value, _("H200 SXM5 (HGX H200 8-GPU board)")
    OAM = enums.GpuSocket.OAM.value, _("OAM (AMD Instinct UBB)")


class Cooling(models.TextChoices):
    ACTIVE = enums.Cooling.ACTIVE.value, _("active (axial fans)")
    BLOWER = enums.Cooling.BLOWER.value, _("blower (rear exhaust)")
    PASSIVE = enums.Cooling.PASSIVE.value, _("passive (needs chassis airflow)")


class PowerConnector(models.TextChoices):
    V12_2X6 = enums.PowerConnector.V12_2X6.value, _("16-pin 12VHPWR / 12V-2x6 (600 W)")
    PCIE_8PIN = enums.PowerConnector.PCIE_8PIN.value, _("PCIe 8-pin (150 W)")
    EPS_8PIN = enums.PowerConnector.EPS_8PIN.value, _("EPS / CPU 8-pin")
    NONE = enums.PowerConnector.NONE.value, _("slot powered (75 W)")
    BASEBOARD = enums.PowerConnector.BASEBOARD.value, _("baseboard (SXM / OAM)")


class ChassisKind(models.TextChoices):
    TOWER_WORKSTATION = enums.ChassisKind.TOWER_WORKSTATION.value, _("Tower workstation")
    RACK_WORKSTATION = enums.ChassisKind.RACK_WORKSTATION.value, _("Rack workstation")
    RACK_SERVER = enums.ChassisKind.RACK_SERVER.value, _("Rack server")
    HGX = enums.ChassisKind.HGX.value, _("HGX server")


class PcieTopology(models.TextChoices):
    DIRECT = enums.PcieTopology.DIRECT.value, _("GPUs on CPU root ports")
    SWITCHED = enums.PcieTopology.SWITCHED.value, _("GPUs behind PCIe switches")


class PsuFormFactor(models.TextChoices):
    ATX = enums.PsuFormFactor.ATX.value, "ATX"
    CRPS = enums.PsuFormFactor.CRPS.value, _("CRPS (hot-swap)")


class MemoryKind(models.TextChoices):
    RDIMM = enums.MemoryKind.RDIMM.value, "RDIMM"
    UDIMM = enums.MemoryKind.UDIMM.value, "UDIMM"


class StorageInterface(models.TextChoices):
    NVME = enums.StorageInterface.NVME.value, _("NVMe (PCIe)")
    SATA = enums.StorageInterface.SATA.value, "SATA"
