"""What can be sold. One table per part kind; units are part of every field name.

Every row carries `source`: where its specifications come from (datasheet, spec database, review).
Constraints live in the database too, so an impossible row cannot be stored by any door.
"""

from __future__ import annotations

from decimal import Decimal

from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.choices import (
    ChassisKind,
    Cooling,
    GpuFormFactor,
    GpuSocket,
    MemoryKind,
    NvlinkKind,
    PcieTopology,
    PowerConnector,
    PsuFormFactor,
    StorageInterface,
)
from catalog.model_base import POSITIVE, POSITIVE_INT, CatalogItem


class Gpu(CatalogItem):
    memory_type = models.CharField(_("memory type"), max_length=40)
    vram_gib = models.DecimalField(
        _("memory, GiB"),
        validators=POSITIVE,
        max_digits=6,
        decimal_places=1,
        help_text=_("Memory as the vendor states it"),
    )
    bandwidth_gbs = models.DecimalField(
        _("memory bandwidth, GB/s"), validators=POSITIVE, max_digits=7, decimal_places=1
    )
    tdp_w = models.PositiveIntegerField(
        _("TDP, W"), validators=POSITIVE_INT, help_text=_("Board power (TGP/TDP) at the default power limit")
    )
    fp16_tflops = models.DecimalField(
        _("FP16, TFLOPS"),
        validators=POSITIVE,
        max_digits=8,
        decimal_places=2,
        help_text=_("FP16/BF16 dense tensor TFLOPS"),
    )
    fp8_tflops = models.DecimalField(_("FP8, TFLOPS"), max_digits=8, decimal_places=2, null=True, blank=True)
    int8_tops = models.DecimalField(_("INT8, TOPS"), max_digits=8, decimal_places=2, null=True, blank=True)
    ecc = models.BooleanField(
        _("ECC"),
    )
    nvlink_kind = models.CharField(_("NVLink"), max_length=24, choices=NvlinkKind.choices, default=NvlinkKind.NONE)
    nvlink_gbs = models.DecimalField(_("NVLink bandwidth, GB/s"), max_digits=7, decimal_places=1, null=True, blank=True)
    form_factor = models.CharField(
        _("form factor"), max_length=8, choices=GpuFormFactor.choices, default=GpuFormFactor.PCIE
    )
    slot_width = models.DecimalField(
        _("width, slots"),
        max_digits=3,
        decimal_places=1,
        null=True,
        blank=True,
        help_text=_("Expansion slots (PCIe cards)"),
    )
    length_mm = models.PositiveIntegerField(_("length, mm"), null=True, blank=True)
    cooling = models.CharField(_("cooling"), max_length=8, choices=Cooling.choices)
    power_connector = models.CharField(_("power connector"), max_length=12, choices=PowerConnector.choices)
    power_connector_count = models.PositiveSmallIntegerField(_("power connectors"), default=1)
    pcie_gen = models.PositiveSmallIntegerField(
        _("PCIe generation"),
    )
    pcie_lanes = models.PositiveSmallIntegerField(_("PCIe lanes"), default=16)
    mig = models.BooleanField(_("MIG"), default=False)
    is_consumer = models.BooleanField(_("consumer card"), default=False, help_text=_("GeForce / Radeon RX class card"))
    module_socket = models.CharField(
        _("module socket"),
        max_length=8,
        blank=True,
        default=GpuSocket.NONE,
        choices=GpuSocket.choices,
        help_text=_("SXM/OAM modules: the baseboard generation the module fits; blank for PCIe cards"),
    )
    end_of_life = models.BooleanField(
        _("end of life"),
        default=False,
        help_text=_("The maker no longer makes it: sold from remaining stock, lead times long and uncertain"),
    )
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("GPU")
        verbose_name_plural = _("GPUs")
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
    family = models.CharField(_("family"), max_length=100)
    socket = models.CharField(
        _("socket"), max_length=32, help_text=_("Socket and platform, e.g. SP5, sTR5-WRX90, sTR5-TRX50, LGA4677, AM5")
    )
    cores = models.PositiveSmallIntegerField(_("cores"), validators=POSITIVE_INT)
    threads = models.PositiveSmallIntegerField(
        _("threads"),
    )
    tdp_w = models.PositiveIntegerField(_("TDP, W"), validators=POSITIVE_INT)
    pcie_lanes_1p = models.PositiveSmallIntegerField(
        _("PCIe lanes, 1 socket"), help_text=_("Lanes usable in a one-socket system")
    )
    pcie_lanes_per_socket_2p = models.PositiveSmallIntegerField(
        _("PCIe lanes per socket, 2 sockets"),
        null=True,
        blank=True,
        help_text=_("Lanes per socket usable in a 2P system (empty for 1P-only parts)"),
    )
    pcie_gen = models.PositiveSmallIntegerField(
        _("PCIe generation"),
    )
    memory_channels = models.PositiveSmallIntegerField(
        _("memory channels"),
    )
    memory_kind = models.CharField(_("memory kind"), max_length=8, choices=MemoryKind.choices, default=MemoryKind.RDIMM)
    memory_speed_mts = models.PositiveIntegerField(
        _("memory speed, MT/s"), help_text=_("Max DDR5 speed at 1 DIMM per channel")
    )
    memory_speed_2dpc_mts = models.PositiveIntegerField(
        _("memory speed at 2 DPC, MT/s"), null=True, blank=True, help_text=_("Speed at 2 DPC")
    )
    max_sockets = models.PositiveSmallIntegerField(
        _("max sockets"), help_text=_("1 for 1P-only parts (EPYC …P, Threadripper, Xeon W)")
    )
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("CPU")
        verbose_name_plural = _("CPUs")
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

    kind = models.CharField(_("kind"), max_length=20, choices=ChassisKind.choices)
    rack_units = models.DecimalField(_("height, U"), max_digits=3, decimal_places=1, null=True, blank=True)
    cpu_socket = models.CharField(_("CPU socket"), max_length=32)
    cpu_sockets = models.PositiveSmallIntegerField(
        _("CPU sockets"),
    )
    gpu_bays = models.PositiveSmallIntegerField(_("GPU positions"), help_text=_("GPU positions on the board / risers"))
    max_gpu_count = models.PositiveSmallIntegerField(
        _("max GPUs"),
    )
    gpu_form_factor = models.CharField(
        _("GPU form factor"), max_length=8, choices=GpuFormFactor.choices, default=GpuFormFactor.PCIE
    )
    max_gpu_slot_width = models.DecimalField(
        _("max GPU width, slots"), max_digits=3, decimal_places=1, null=True, blank=True
    )
    max_gpu_length_mm = models.PositiveIntegerField(_("max GPU length, mm"), null=True, blank=True)
    max_gpu_tdp_w = models.PositiveIntegerField(
        _("max GPU TDP, W"),
        validators=POSITIVE_INT,
    )
    gpu_slot_pitch = models.PositiveSmallIntegerField(
        _("GPU slot pitch, slots"),
        null=True,
        blank=True,
        help_text=_("Slots between adjacent GPU positions (bridge spacing)"),
    )
    server_airflow = models.BooleanField(
        _("server airflow"), help_text=_("Front-to-back server fans rated for passive GPUs")
    )
    has_nvswitch = models.BooleanField(_("NVSwitch"), default=False)
    pcie_topology = models.CharField(
        _("PCIe topology"), max_length=10, choices=PcieTopology.choices, default=PcieTopology.DIRECT
    )
    pcie_switch_uplinks = models.PositiveSmallIntegerField(
        _("PCIe switch uplinks"), default=0, help_text=_("x16 uplinks from the CPUs to the PCIe switches")
    )
    gpu_slot_lanes = models.PositiveSmallIntegerField(
        _("CPU lanes to GPU positions"),
        help_text=_(
            "CPU lanes wired to the GPU positions (switched: uplinks x 16). When GPUs x 16 exceed it, "
            "cards within the bays fall back to x8 (bifurcation)"
        ),
    )
    gpu_slots_per_socket = models.CharField(
        _("GPU positions per socket"),
        max_length=40,
        blank=True,
        default="",
        help_text=_(
            "Comma-separated GPU positions wired to each CPU socket, socket 1 first (switched: the GPUs behind "
            "that socket's uplinks), e.g. 4,4; blank: every position on socket 1. An empty socket's are dead"
        ),
    )
    io_behind_switches = models.BooleanField(
        _("I/O behind the switches"),
        default=False,
        help_text=_("NICs and NVMe sit behind the PCIe switches with the GPUs (HGX), not on CPU lanes"),
    )
    chipset_m2_slots = models.PositiveSmallIntegerField(
        _("chipset M.2 sockets"),
        default=0,
        help_text=_("M.2 NVMe sockets wired to the chipset (desktop), not to CPU lanes"),
    )
    gpu_baseboard = models.CharField(
        _("GPU baseboard"),
        max_length=100,
        blank=True,
        default="",
        help_text=_("The fixed GPU baseboard, e.g. HGX H200 8-GPU"),
    )
    baseboard_socket = models.CharField(
        _("baseboard socket"),
        max_length=8,
        blank=True,
        default=GpuSocket.NONE,
        choices=GpuSocket.choices,
        help_text=_("The module socket generation of the fixed GPU baseboard (HGX H200: SXM5)"),
    )
    baseboard_gpu_counts = models.CharField(
        _("baseboard GPU counts"),
        max_length=40,
        blank=True,
        default="",
        help_text=_("Comma-separated GPU counts the baseboard is built for"),
    )
    memory_kind = models.CharField(_("memory kind"), max_length=8, choices=MemoryKind.choices, default=MemoryKind.RDIMM)
    memory_channels = models.PositiveSmallIntegerField(
        _("memory channels"), help_text=_("Channels wired, all sockets together")
    )
    dimm_slots = models.PositiveSmallIntegerField(
        _("DIMM slots"),
    )
    psu_bays = models.PositiveSmallIntegerField(
        _("PSU bays"),
    )
    psu_form_factor = models.CharField(_("PSU form factor"), max_length=6, choices=PsuFormFactor.choices)
    psu_redundancy_modes = models.CharField(
        _("PSU redundancy modes"),
        max_length=40,
        help_text=_("Comma-separated modes the power backplane supports: none, n+1, n+n"),
    )
    drive_bays = models.PositiveSmallIntegerField(_("drive bays"), help_text=_("NVMe drive bays and M.2 sockets"))
    base_power_w = models.PositiveIntegerField(
        _("base power, W"), help_text=_("Board, fans, BMC and baseboard power at full load")
    )
    gpu_power_12v2x6 = models.PositiveSmallIntegerField(
        _("16-pin GPU cables"), default=0, help_text=_("16-pin GPU cables from the PDB")
    )
    gpu_power_eps8 = models.PositiveSmallIntegerField(
        _("EPS 8-pin GPU cables"), default=0, help_text=_("EPS 8-pin GPU cables from the PDB")
    )
    gpu_power_pcie8 = models.PositiveSmallIntegerField(
        _("PCIe 8-pin GPU cables"), default=0, help_text=_("PCIe 8-pin GPU cables from the PDB")
    )
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("platform")
        verbose_name_plural = _("platforms")
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
    form_factor = models.CharField(_("form factor"), max_length=6, choices=PsuFormFactor.choices)
    watts_high_line = models.PositiveIntegerField(
        _("power at 200–240 V, W"), validators=POSITIVE_INT, help_text=_("Rated output at 200–240 V")
    )
    watts_low_line = models.PositiveIntegerField(
        _("power at 100–127 V, W"),
        null=True,
        blank=True,
        help_text=_("Rated output at 100–127 V; empty = high-line only"),
    )
    efficiency = models.CharField(_("efficiency"), max_length=20, help_text=_("80 PLUS rating, e.g. titanium"))
    connectors_12v2x6 = models.PositiveSmallIntegerField(_("16-pin connectors"), default=0)
    connectors_eps8 = models.PositiveSmallIntegerField(_("EPS 8-pin connectors"), default=0)
    connectors_pcie8 = models.PositiveSmallIntegerField(_("PCIe 8-pin connectors"), default=0)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("PSU")
        verbose_name_plural = _("PSUs")
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
    memory_type = models.CharField(_("memory type"), max_length=8, default="ddr5")
    kind = models.CharField(_("kind"), max_length=8, choices=MemoryKind.choices)
    capacity_gb = models.PositiveIntegerField(
        _("capacity, GB"),
        validators=POSITIVE_INT,
    )
    ecc = models.BooleanField(
        _("ECC"),
    )
    registered = models.BooleanField(
        _("registered"),
    )
    speed_mts = models.PositiveIntegerField(
        _("speed, MT/s"),
    )
    power_w = models.DecimalField(_("power, W"), max_digits=5, decimal_places=1, default=8)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("memory module")
        verbose_name_plural = _("memory modules")
        constraints = [
            *CatalogItem.base_constraints("memory"),
            models.CheckConstraint(condition=Q(capacity_gb__gt=0), name="memory_capacity_positive"),
            models.CheckConstraint(condition=Q(speed_mts__gt=0), name="memory_speed_positive"),
            models.CheckConstraint(condition=~Q(kind="rdimm") | Q(registered=True), name="memory_rdimm_is_registered"),
        ]


class StorageDevice(CatalogItem):
    interface = models.CharField(_("interface"), max_length=8, choices=StorageInterface.choices)
    form_factor = models.CharField(_("form factor"), max_length=16, default="u.2")
    capacity_tb = models.DecimalField(
        _("capacity, TB"), validators=[MinValueValidator(Decimal("0.01"))], max_digits=6, decimal_places=2
    )
    pcie_lanes = models.PositiveSmallIntegerField(_("PCIe lanes"), default=4)
    power_w = models.PositiveIntegerField(_("power, W"), default=15)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("drive")
        verbose_name_plural = _("drives")
        constraints = [
            *CatalogItem.base_constraints("storage"),
            models.CheckConstraint(condition=Q(capacity_tb__gt=0), name="storage_capacity_positive"),
        ]


class Nic(CatalogItem):
    speed_gbps = models.PositiveIntegerField(
        _("speed, Gb/s"),
        validators=POSITIVE_INT,
    )
    ports = models.PositiveSmallIntegerField(_("ports"), default=1)
    pcie_lanes = models.PositiveSmallIntegerField(
        _("PCIe lanes"),
    )
    pcie_gen = models.PositiveSmallIntegerField(_("PCIe generation"), default=4)
    power_w = models.PositiveIntegerField(
        _("power, W"),
    )
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("network card")
        verbose_name_plural = _("network cards")
        constraints = [
            *CatalogItem.base_constraints("nic"),
            models.CheckConstraint(condition=Q(speed_gbps__gt=0), name="nic_speed_positive"),
            models.CheckConstraint(condition=Q(pcie_lanes__in=[1, 2, 4, 8, 16]), name="nic_lanes_valid"),
        ]


class NvlinkBridge(CatalogItem):
    gpus = models.ManyToManyField(
        Gpu, verbose_name=_("GPUs"), related_name="bridges", help_text=_("GPU models this bridge joins")
    )
    ways = models.PositiveSmallIntegerField(
        _("GPUs joined"), help_text=_("GPUs joined by one bridge set (one SKU unit): 2 or 4")
    )
    slot_spacing = models.PositiveSmallIntegerField(_("slot spacing"), help_text=_("Slots between the bridged cards"))
    history = HistoricalRecords(m2m_fields=[gpus])

    class Meta(CatalogItem.Meta):
        verbose_name = _("NVLink bridge")
        verbose_name_plural = _("NVLink bridges")
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


# the cluster parts (issue 39), registered with the app by this import (catalog.cluster_models)
from catalog.cluster_models import CLUSTER_MODELS  # noqa: E402, F401
