"""Cluster parts (issue 39): what a cluster of GPU nodes adds to its nodes — switches, adapters outside the node
build, cables and transceivers, storage nodes, racks and PDUs. Imported by catalog.models (one app, one set of
migrations: 0007_cluster_parts). Loaded from fixtures/cluster_catalog.json (catalog.services.
cluster_catalog_load_fixture); the engine reads them as configurator.engine.cluster specs."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.model_base import POSITIVE, POSITIVE_INT, CatalogItem


class Fabric(models.TextChoices):
    INFINIBAND = "infiniband", _("InfiniBand")
    ETHERNET = "ethernet", _("Ethernet")


class SwitchRole(models.TextChoices):
    COMPUTE = "compute", _("compute fabric (east-west)")
    FRONTEND = "frontend", _("front-end / storage (north-south)")
    MANAGEMENT = "management", _("out-of-band management")


class CableMedium(models.TextChoices):
    DAC = "dac", _("direct-attach copper")
    AOC = "aoc", _("active optical cable")
    TRANSCEIVER = "transceiver", _("optical transceiver")
    FIBER = "fiber", _("fiber patch cord")
    COPPER = "copper", _("twisted-pair patch cord")


class NetworkSwitch(CatalogItem):
    fabric = models.CharField(_("fabric"), max_length=12, choices=Fabric.choices)
    role = models.CharField(_("role"), max_length=12, choices=SwitchRole.choices)
    ports = models.PositiveSmallIntegerField(_("ports"), validators=POSITIVE_INT)
    port_speed_gbps = models.PositiveIntegerField(_("port speed, Gb/s"), validators=POSITIVE_INT)
    max_split = models.PositiveSmallIntegerField(
        _("split per port"), default=1, help_text=_("Ports each port can be split into (2 × 400G from one 800G)")
    )
    cages = models.PositiveSmallIntegerField(_("cages"), help_text=_("Physical cages (32 OSFP for 64 NDR ports)"))
    rdma = models.BooleanField(_("RDMA"), help_text=_("InfiniBand, or Ethernet with RoCE for GPU traffic"))
    rack_units = models.PositiveSmallIntegerField(_("height, U"), validators=POSITIVE_INT)
    power_w = models.PositiveIntegerField(_("max power, W"), validators=POSITIVE_INT)
    weight_kg = models.DecimalField(_("weight, kg"), max_digits=6, decimal_places=1, validators=POSITIVE)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("network switch")
        verbose_name_plural = _("network switches")
        constraints = [
            *CatalogItem.base_constraints("switch"),
            models.CheckConstraint(condition=Q(ports__gt=0, port_speed_gbps__gt=0), name="switch_ports_positive"),
            models.CheckConstraint(condition=Q(max_split__gte=1), name="switch_split_positive"),
        ]


class NetworkAdapter(CatalogItem):
    """Adapters a cluster adds to each node beyond its compute NICs (BlueField-3 DPU for north-south)."""

    speed_gbps = models.PositiveIntegerField(_("speed, Gb/s"), validators=POSITIVE_INT)
    ports = models.PositiveSmallIntegerField(_("ports"), validators=POSITIVE_INT)
    pcie_gen = models.PositiveSmallIntegerField(_("PCIe generation"))
    pcie_lanes = models.PositiveSmallIntegerField(_("PCIe lanes"))
    is_dpu = models.BooleanField(_("DPU"), default=False)
    power_w = models.PositiveIntegerField(_("max power, W"), validators=POSITIVE_INT)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("network adapter")
        verbose_name_plural = _("network adapters")
        constraints = [*CatalogItem.base_constraints("adapter")]


class Cable(CatalogItem):
    medium = models.CharField(_("medium"), max_length=12, choices=CableMedium.choices)
    speed_gbps = models.PositiveIntegerField(_("speed, Gb/s"), validators=POSITIVE_INT)
    ports = models.PositiveSmallIntegerField(
        _("ports per module"), default=1, help_text=_("Links one end serves (2 for twin-port OSFP)")
    )
    length_m = models.DecimalField(
        _("length, m"), max_digits=5, decimal_places=1, null=True, blank=True, help_text=_("Empty for transceivers")
    )
    reach_m = models.DecimalField(_("reach, m"), max_digits=6, decimal_places=1, validators=POSITIVE)
    power_w = models.DecimalField(_("power per end, W"), max_digits=5, decimal_places=1, default=0)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("cable or transceiver")
        verbose_name_plural = _("cables and transceivers")
        constraints = [
            *CatalogItem.base_constraints("cable"),
            models.CheckConstraint(condition=Q(reach_m__gt=0), name="cable_reach_positive"),
            models.CheckConstraint(
                condition=Q(length_m__isnull=True) | Q(length_m__lte=models.F("reach_m")), name="cable_length_in_reach"
            ),
        ]


class StorageNode(CatalogItem):
    usable_tb = models.DecimalField(_("usable capacity, TB"), max_digits=8, decimal_places=1, validators=POSITIVE)
    read_gbs = models.DecimalField(_("read, GB/s"), max_digits=6, decimal_places=1, validators=POSITIVE)
    write_gbs = models.DecimalField(_("write, GB/s"), max_digits=6, decimal_places=1, validators=POSITIVE)
    ports = models.PositiveSmallIntegerField(_("network ports"), validators=POSITIVE_INT)
    port_speed_gbps = models.PositiveIntegerField(_("port speed, Gb/s"), validators=POSITIVE_INT)
    rack_units = models.PositiveSmallIntegerField(_("height, U"), validators=POSITIVE_INT)
    power_w = models.PositiveIntegerField(_("max power, W"), validators=POSITIVE_INT)
    weight_kg = models.DecimalField(_("weight, kg"), max_digits=6, decimal_places=1, validators=POSITIVE)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("storage node")
        verbose_name_plural = _("storage nodes")
        constraints = [*CatalogItem.base_constraints("storagenode")]


class Rack(CatalogItem):
    rack_units = models.PositiveSmallIntegerField(_("height, U"), validators=POSITIVE_INT)
    width_mm = models.PositiveIntegerField(_("width, mm"), validators=POSITIVE_INT)
    depth_mm = models.PositiveIntegerField(_("depth, mm"), validators=POSITIVE_INT)
    static_load_kg = models.PositiveIntegerField(_("static load rating, kg"), validators=POSITIVE_INT)
    weight_kg = models.DecimalField(_("empty weight, kg"), max_digits=6, decimal_places=1, validators=POSITIVE)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("rack")
        verbose_name_plural = _("racks")
        constraints = [*CatalogItem.base_constraints("rack")]


class Pdu(CatalogItem):
    phases = models.PositiveSmallIntegerField(_("phases"))
    voltage_v = models.PositiveIntegerField(_("voltage, V"), help_text=_("Line-to-line for three-phase units"))
    current_a = models.PositiveIntegerField(_("rated current, A"), validators=POSITIVE_INT)
    outlets = models.PositiveSmallIntegerField(_("outlets"), validators=POSITIVE_INT)
    weight_kg = models.DecimalField(_("weight, kg"), max_digits=5, decimal_places=1, validators=POSITIVE)
    history = HistoricalRecords()

    class Meta(CatalogItem.Meta):
        verbose_name = _("PDU")
        verbose_name_plural = _("PDUs")
        constraints = [
            *CatalogItem.base_constraints("pdu"),
            models.CheckConstraint(condition=Q(phases__in=[1, 3]), name="pdu_phases_1_or_3"),
        ]


CLUSTER_MODELS: dict[str, type[CatalogItem]] = {
    "switches": NetworkSwitch,
    "adapters": NetworkAdapter,
    "cables": Cable,
    "storage_nodes": StorageNode,
    "racks": Rack,
    "pdus": Pdu,
}
