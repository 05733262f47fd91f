"""What can be sold. One table per part kind; units are part of every field name.

Every row carries `source`: where its specifications come from (datasheet, spec database, review).
Constraints live in the database too, so an impossible row cannot be stored by any door.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

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


POSITIVE = [MinValueValidator(Decimal("0.1"), message="must be greater than zero")]
POSITIVE_INT = [MinValueValidator(1, message="must be greater than zero")]


class CatalogItem(models.Model):
    sku = models.SlugField(max_length=64, unique=True, help_text="Stable lowercase identifier, e.g. h200-nvl")
    name = models.CharField(max_length=200)
    vendor = models.CharField(max_length=100)
    list_price = models.DecimalField(
        max_digits=settings.MONEY_MAX_DIGITS,
        decimal_places=settings.MONEY_DECIMAL_PLACES,
        validators=[MinValueValidator(Decimal(0), message="a price cannot be negative")],
    )
    currency = models.CharField(max_length=3, default="RUB")
    is_active = models.BooleanField(default=True)
    source = models.TextField(help_text="Where the specifications come from (datasheet, spec DB, review)")
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects: models.Manager[Any] = models.Manager()

    class Meta:
        abstract = True
        ordering = ("sku",)

    def __str__(self) -> str:
        return f"{self.sku} ({self.name})"

    @classmethod
    def base_constraints(cls, prefix: str) -> list[models.BaseConstraint]:
        return [
            models.CheckConstraint(condition=Q(list_price__gte=0), name=f"{prefix}_price_nonnegative"),
            models.CheckConstraint(condition=~Q(sku=""), name=f"{prefix}_sku_not_empty"),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name=f"{prefix}_currency_iso"),
        ]


class Gpu(CatalogItem):
    memory_type = models.CharField(max_length=40)
    vram_gib = models.DecimalField(
        validators=POSITIVE, max_digits=6, decimal_places=1, help_text="Memory as the vendor states it"
    )
    bandwidth_gbs = models.DecimalField(validators=POSITIVE, max_digits=7, decimal_places=1)
    tdp_w = models.PositiveIntegerField(
        validators=POSITIVE_INT, help_text="Board power (TGP/TDP) at the default power limit"
    )
    fp16_tflops = models.DecimalField(
        validators=POSITIVE, max_digits=8, decimal_places=2, help_text="FP16/BF16 dense tensor TFLOPS"
    )
    fp8_tflops = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    int8_tops = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    ecc = models.BooleanField()
    nvlink_kind = models.CharField(max_length=24, choices=NvlinkKind.choices, default=NvlinkKind.NONE)
    nvlink_gbs = models.DecimalField(max_digits=7, decimal_places=1, null=True, blank=True)
    form_factor = models.CharField(max_length=8, choices=GpuFormFactor.choices, default=GpuFormFactor.PCIE)
    slot_width = models.DecimalField(
        max_digits=3, decimal_places=1, null=True, blank=True, help_text="Expansion slots (PCIe cards)"
    )
    length_mm = models.PositiveIntegerField(null=True, blank=True)
    cooling = models.CharField(max_length=8, choices=Cooling.choices)
    power_connector = models.CharField(max_length=12, choices=PowerConnector.choices)
    power_connector_count = models.PositiveSmallIntegerField(default=1)
    pcie_gen = models.PositiveSmallIntegerField()
    pcie_lanes = models.PositiveSmallIntegerField(default=16)
    mig = models.BooleanField(default=False)
    is_consumer = models.BooleanField(default=False, help_text="GeForce / Radeon RX class card")
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = "GPU"
        verbose_name_plural = "GPUs"
        constraints = [
            *CatalogItem.base_constraints("gpu"),
            models.CheckConstraint(condition=Q(vram_gib__gt=0), name="gpu_vram_positive"),
            models.CheckConstraint(condition=Q(bandwidth_gbs__gt=0), name="gpu_bandwidth_positive"),
            models.CheckConstraint(condition=Q(tdp_w__gt=0), name="gpu_tdp_positive"),
            models.CheckConstraint(condition=Q(fp16_tflops__gt=0), name="gpu_fp16_positive"),
            models.CheckConstraint(condition=Q(pcie_lanes__in=[1, 2, 4, 8, 16]), name="gpu_pcie_lanes_valid"),
            models.CheckConstraint(condition=Q(pcie_gen__gte=3, pcie_gen__lte=6), name="gpu_pcie_gen_valid"),
            models.CheckConstraint(
                condition=Q(
                    form_factor="pcie",
                    slot_width__isnull=False,
                    slot_width__gt=0,
                    length_mm__isnull=False,
                    length_mm__gt=0,
                )
                | ~Q(form_factor="pcie"),
                name="gpu_pcie_card_has_size",
            ),
            models.CheckConstraint(
                condition=Q(nvlink_kind="none") | Q(nvlink_gbs__isnull=False, nvlink_gbs__gt=0),
                name="gpu_nvlink_has_bandwidth",
            ),
            models.CheckConstraint(
                condition=~Q(nvlink_kind="nvswitch-sxm") | Q(form_factor="sxm"), name="gpu_nvswitch_only_sxm"
            ),
        ]


class Cpu(CatalogItem):
    family = models.CharField(max_length=100)
    socket = models.CharField(
        max_length=32, help_text="Socket and platform, e.g. SP5, sTR5-WRX90, sTR5-TRX50, LGA4677, AM5"
    )
    cores = models.PositiveSmallIntegerField(validators=POSITIVE_INT)
    threads = models.PositiveSmallIntegerField()
    tdp_w = models.PositiveIntegerField(validators=POSITIVE_INT)
    pcie_lanes_1p = models.PositiveSmallIntegerField(help_text="Lanes usable in a one-socket system")
    pcie_lanes_per_socket_2p = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Lanes per socket usable in a 2P system (empty for 1P-only parts)"
    )
    pcie_gen = models.PositiveSmallIntegerField()
    memory_channels = models.PositiveSmallIntegerField()
    memory_kind = models.CharField(max_length=8, choices=MemoryKind.choices, default=MemoryKind.RDIMM)
    memory_speed_mts = models.PositiveIntegerField(help_text="Max DDR5 speed at 1 DIMM per channel")
    memory_speed_2dpc_mts = models.PositiveIntegerField(null=True, blank=True, help_text="Speed at 2 DPC")
    max_sockets = models.PositiveSmallIntegerField(help_text="1 for 1P-only parts (EPYC …P, Threadripper, Xeon W)")
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = "CPU"
        verbose_name_plural = "CPUs"
        constraints = [
            *CatalogItem.base_constraints("cpu"),
            models.CheckConstraint(condition=Q(cores__gt=0), name="cpu_cores_positive"),
            models.CheckConstraint(condition=Q(threads__gte=models.F("cores")), name="cpu_threads_ge_cores"),
            models.CheckConstraint(condition=Q(tdp_w__gt=0), name="cpu_tdp_positive"),
            models.CheckConstraint(condition=Q(pcie_lanes_1p__gt=0), name="cpu_lanes_positive"),
            models.CheckConstraint(condition=Q(memory_channels__gt=0), name="cpu_channels_positive"),
            models.CheckConstraint(condition=Q(max_sockets__gte=1), name="cpu_max_sockets_positive"),
            models.CheckConstraint(
                condition=Q(max_sockets=1) | Q(pcie_lanes_per_socket_2p__isnull=False, pcie_lanes_per_socket_2p__gt=0),
                name="cpu_multisocket_has_2p_lanes",
            ),
        ]


class Chassis(CatalogItem):
    """A platform we sell: chassis + board + fans + power distribution. `list_price` is its base price."""

    kind = models.CharField(max_length=20, choices=ChassisKind.choices)
    rack_units = models.DecimalField(max_digits=3, decimal_places=1, null=True, blank=True)
    cpu_socket = models.CharField(max_length=32)
    cpu_sockets = models.PositiveSmallIntegerField()
    gpu_bays = models.PositiveSmallIntegerField(help_text="GPU positions on the board / risers")
    max_gpu_count = models.PositiveSmallIntegerField()
    gpu_form_factor = models.CharField(max_length=8, choices=GpuFormFactor.choices, default=GpuFormFactor.PCIE)
    max_gpu_slot_width = models.DecimalField(max_digits=3, decimal_places=1, null=True, blank=True)
    max_gpu_length_mm = models.PositiveIntegerField(null=True, blank=True)
    max_gpu_tdp_w = models.PositiveIntegerField(
        validators=POSITIVE_INT,
    )
    gpu_slot_pitch = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Slots between adjacent GPU positions (bridge spacing)"
    )
    server_airflow = models.BooleanField(help_text="Front-to-back server fans rated for passive GPUs")
    has_nvswitch = models.BooleanField(default=False)
    pcie_topology = models.CharField(max_length=10, choices=PcieTopology.choices, default=PcieTopology.DIRECT)
    pcie_switch_uplinks = models.PositiveSmallIntegerField(
        default=0, help_text="x16 uplinks from the CPUs to the PCIe switches"
    )
    gpu_slot_lanes = models.PositiveSmallIntegerField(
        help_text=(
            "CPU lanes wired to the GPU positions (switched: uplinks x 16). When GPUs x 16 exceed it, "
            "cards within the bays fall back to x8 (bifurcation)"
        )
    )
    gpu_slots_per_socket = models.CharField(
        max_length=40,
        blank=True,
        default="",
        help_text=(
            "Comma-separated GPU positions wired to each CPU socket, socket 1 first (switched: the GPUs behind "
            "that socket's uplinks), e.g. 4,4; blank: every position on socket 1. An empty socket's are dead"
        ),
    )
    io_behind_switches = models.BooleanField(
        default=False, help_text="NICs and NVMe sit behind the PCIe switches with the GPUs (HGX), not on CPU lanes"
    )
    chipset_m2_slots = models.PositiveSmallIntegerField(
        default=0, help_text="M.2 NVMe sockets wired to the chipset (desktop), not to CPU lanes"
    )
    gpu_baseboard = models.CharField(
        max_length=100, blank=True, default="", help_text="The fixed GPU baseboard, e.g. HGX H200 8-GPU"
    )
    baseboard_gpu_counts = models.CharField(
        max_length=40, blank=True, default="", help_text="Comma-separated GPU counts the baseboard is built for"
    )
    memory_kind = models.CharField(max_length=8, choices=MemoryKind.choices, default=MemoryKind.RDIMM)
    memory_channels = models.PositiveSmallIntegerField(help_text="Channels wired, all sockets together")
    dimm_slots = models.PositiveSmallIntegerField()
    psu_bays = models.PositiveSmallIntegerField()
    psu_form_factor = models.CharField(max_length=6, choices=PsuFormFactor.choices)
    psu_redundancy_modes = models.CharField(
        max_length=40, help_text="Comma-separated modes the power backplane supports: none, n+1, n+n"
    )
    drive_bays = models.PositiveSmallIntegerField(help_text="NVMe drive bays and M.2 sockets")
    base_power_w = models.PositiveIntegerField(help_text="Board, fans, BMC and baseboard power at full load")
    gpu_power_12v2x6 = models.PositiveSmallIntegerField(default=0, help_text="16-pin GPU cables from the PDB")
    gpu_power_eps8 = models.PositiveSmallIntegerField(default=0, help_text="EPS 8-pin GPU cables from the PDB")
    gpu_power_pcie8 = models.PositiveSmallIntegerField(default=0, help_text="PCIe 8-pin GPU cables from the PDB")
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = "chassis"
        verbose_name_plural = "chassis"
        constraints = [
            *CatalogItem.base_constraints("chassis"),
            models.CheckConstraint(condition=Q(cpu_sockets__gte=1), name="chassis_sockets_positive"),
            models.CheckConstraint(condition=Q(max_gpu_count__lte=models.F("gpu_bays")), name="chassis_max_le_bays"),
            models.CheckConstraint(condition=Q(psu_bays__gte=1), name="chassis_psu_bays_positive"),
            models.CheckConstraint(condition=Q(dimm_slots__gte=1), name="chassis_dimm_slots_positive"),
            models.CheckConstraint(condition=Q(max_gpu_tdp_w__gt=0), name="chassis_gpu_tdp_positive"),
            models.CheckConstraint(
                condition=Q(rack_units__isnull=True) | Q(rack_units__gt=0), name="chassis_rack_units_positive"
            ),
            models.CheckConstraint(
                condition=Q(kind="tower-workstation") | Q(rack_units__isnull=False),
                name="chassis_rack_kinds_have_units",
            ),
            models.CheckConstraint(
                condition=~Q(kind="hgx") | Q(gpu_form_factor__in=["sxm", "oam"]),
                name="chassis_hgx_takes_modules",
            ),
        ]

    @property
    def redundancy_modes(self) -> list[str]:
        return [mode.strip() for mode in self.psu_redundancy_modes.split(",") if mode.strip()]


class Psu(CatalogItem):
    form_factor = models.CharField(max_length=6, choices=PsuFormFactor.choices)
    watts_high_line = models.PositiveIntegerField(validators=POSITIVE_INT, help_text="Rated output at 200–240 V")
    watts_low_line = models.PositiveIntegerField(
        null=True, blank=True, help_text="Rated output at 100–127 V; empty = high-line only"
    )
    efficiency = models.CharField(max_length=20, help_text="80 PLUS rating, e.g. titanium")
    connectors_12v2x6 = models.PositiveSmallIntegerField(default=0)
    connectors_eps8 = models.PositiveSmallIntegerField(default=0)
    connectors_pcie8 = models.PositiveSmallIntegerField(default=0)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = "PSU"
        verbose_name_plural = "PSUs"
        constraints = [
            *CatalogItem.base_constraints("psu"),
            models.CheckConstraint(condition=Q(watts_high_line__gt=0), name="psu_watts_positive"),
            models.CheckConstraint(
                condition=Q(watts_low_line__isnull=True)
                | Q(watts_low_line__gt=0, watts_low_line__lte=models.F("watts_high_line")),
                name="psu_low_line_le_high_line",
            ),
        ]


class MemoryModule(CatalogItem):
    memory_type = models.CharField(max_length=8, default="ddr5")
    kind = models.CharField(max_length=8, choices=MemoryKind.choices)
    capacity_gb = models.PositiveIntegerField(
        validators=POSITIVE_INT,
    )
    ecc = models.BooleanField()
    registered = models.BooleanField()
    speed_mts = models.PositiveIntegerField()
    power_w = models.DecimalField(max_digits=5, decimal_places=1, default=8)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = "memory module"
        constraints = [
            *CatalogItem.base_constraints("memory"),
            models.CheckConstraint(condition=Q(capacity_gb__gt=0), name="memory_capacity_positive"),
            models.CheckConstraint(condition=Q(speed_mts__gt=0), name="memory_speed_positive"),
            models.CheckConstraint(condition=~Q(kind="rdimm") | Q(registered=True), name="memory_rdimm_is_registered"),
        ]


class StorageDevice(CatalogItem):
    interface = models.CharField(max_length=8, choices=StorageInterface.choices)
    form_factor = models.CharField(max_length=16, default="u.2")
    capacity_tb = models.DecimalField(validators=[MinValueValidator(Decimal("0.01"))], max_digits=6, decimal_places=2)
    pcie_lanes = models.PositiveSmallIntegerField(default=4)
    power_w = models.PositiveIntegerField(default=15)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = "storage device"
        constraints = [
            *CatalogItem.base_constraints("storage"),
            models.CheckConstraint(condition=Q(capacity_tb__gt=0), name="storage_capacity_positive"),
        ]


class Nic(CatalogItem):
    speed_gbps = models.PositiveIntegerField(
        validators=POSITIVE_INT,
    )
    ports = models.PositiveSmallIntegerField(default=1)
    pcie_lanes = models.PositiveSmallIntegerField()
    pcie_gen = models.PositiveSmallIntegerField(default=4)
    power_w = models.PositiveIntegerField()
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = "NIC"
        verbose_name_plural = "NICs"
        constraints = [
            *CatalogItem.base_constraints("nic"),
            models.CheckConstraint(condition=Q(speed_gbps__gt=0), name="nic_speed_positive"),
            models.CheckConstraint(condition=Q(pcie_lanes__in=[1, 2, 4, 8, 16]), name="nic_lanes_valid"),
        ]


class NvlinkBridge(CatalogItem):
    gpus = models.ManyToManyField(Gpu, related_name="bridges", help_text="GPU models this bridge joins")
    ways = models.PositiveSmallIntegerField(help_text="GPUs joined by one bridge set (one SKU unit): 2 or 4")
    slot_spacing = models.PositiveSmallIntegerField(help_text="Slots between the bridged cards")
    history = HistoricalRecords(m2m_fields=[gpus])

    class Meta(CatalogItem.Meta):
        verbose_name = "NVLink bridge"
        constraints = [
            *CatalogItem.base_constraints("bridge"),
            models.CheckConstraint(condition=Q(ways__in=[2, 4]), name="bridge_ways_2_or_4"),
            models.CheckConstraint(condition=Q(slot_spacing__gte=1), name="bridge_spacing_positive"),
        ]


CATALOG_MODELS: dict[str, type[CatalogItem]] = {
    "gpus": Gpu,
    "cpus": Cpu,
    "chassis": Chassis,
    "psus": Psu,
    "memory": MemoryModule,
    "storage": StorageDevice,
    "nics": Nic,
    "bridges": NvlinkBridge,
}
