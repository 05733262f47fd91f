"""Quote arithmetic and line copies: Decimals and catalog specs in, Decimals and line drafts out (the spec line in
both languages).

Rounding (the rules the totals tests pin down):

* unit price = list price × (100 − discount) / 100, rounded half-up to kopecks (hardware lines: every kind but
  `services`);
* a service line is not discounted (servicelines/, README §services): a fixed service costs its copied price,
  a percentage service (warranty, on-site service …) `percent` × the hardware net / 100, rounded half-up to
  kopecks, where the hardware net is Σ line totals of the non-optional hardware lines, after the quote's
  discount (`service_unit_price`, `hardware_net`);
* line total = unit price × qty (exact: the unit price already has two places);
* net = Σ line totals of the lines that are not optional;
* VAT = net × VAT rate / 100, rounded half-up to kopecks — VAT is charged on the net, once, not per line;
* gross = net + VAT.

Lines are net of VAT; the VAT rate is the one in force on the quote's date (finance.vat).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils import translation
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from catalog.choices import ChassisKind
from configurator.counting import counted
from configurator.engine import specs
from configurator.engine.builds import money
from configurator.labels import label
from configurator.wording import psu_grade, storage_interface

HUNDRED = Decimal(100)
#: The kind of a quote's service lines (servicelines.ServiceItem copies); every other kind is hardware.
SERVICE_KIND = "services"


@dataclass(frozen=True, slots=True)
class Totals:
    net: Decimal
    vat: Decimal
    gross: Decimal


@dataclass(frozen=True, slots=True)
class LineDraft:
    """A quote line before it is saved: everything copied from the catalog at this moment."""

    kind: str
    sku: str
    name: str
    spec_summary: str
    qty: int
    list_price: Decimal
    discount_percent: Decimal
    unit_price: Decimal
    line_total: Decimal
    optional: bool = False
    name_ru: str = ""  # the catalog's Russian name ("" = name): the quote shows the name of its reader's language
    spec_summary_ru: str = ""
    service_percent: Decimal | None = None  # a percentage service line's percentage of the hardware net
    section: str = ""  # a cluster quote's section (configurator.engine.cluster.bill.SECTIONS)


def unit_price(list_price: Decimal, discount_percent: Decimal) -> Decimal:
    return money(list_price * (HUNDRED - discount_percent) / HUNDRED)


def line_total(list_price: Decimal, qty: int, discount_percent: Decimal) -> Decimal:
    return money(unit_price(list_price, discount_percent) * qty)


def hardware_net(lines: Iterable[tuple[str, Decimal, bool]]) -> Decimal:
    """The base of percentage services: Σ line totals of the (kind, line total, optional) lines that are hardware
    (not `services`) and not optional — after the quote's discount, which the line totals already carry."""
    return sum((total for kind, total, optional in lines if kind != SERVICE_KIND and not optional), Decimal(0))


def service_unit_price(*, list_price: Decimal, percent: Decimal | None, hardware_net: Decimal) -> Decimal:
    """A service line's unit price, never discounted: its copied `list_price` when it is fixed (`percent` is None),
    else `percent` of `hardware_net`, rounded half-up to kopecks."""
    if percent is None:
        return list_price
    return money(hardware_net * percent / HUNDRED)


def totals(lines: Iterable[tuple[Decimal, bool]], vat_percent: Decimal) -> Totals:
    """`lines` are (line total, optional) pairs; optional lines are left out."""
    net = money(sum((total for total, optional in lines if not optional), Decimal(0)))
    vat = money(net * vat_percent / HUNDRED)
    return Totals(net=net, vat=vat, gross=net + vat)


def _g(value: float | None) -> str:
    """A spec number as short as it can be, with the decimal mark of the active language (4.5 / 4,5)."""
    if value is None:
        return ""
    text = f"{value:g}"
    return text.replace(".", ",") if _russian() else text


def _russian() -> bool:
    return (get_language() or "").startswith("ru")


def spec_summary(spec: Any) -> str:
    """One line a customer can read, with units, for the quote table, in the active language."""
    if isinstance(spec, specs.GpuSpec):
        return _("%(vram)s GiB %(memory)s, %(bandwidth)s GB/s, %(tdp)s W") % {
            "vram": _g(spec.vram_gib), "memory": spec.memory_type, "bandwidth": _g(spec.bandwidth_gbs),
            "tdp": spec.tdp_w,
        }  # fmt: skip
    if isinstance(spec, specs.CpuSpec):
        return _("%(cores)s / %(threads)s, %(socket)s, %(tdp)s W") % {
            "cores": counted("cores", spec.cores), "threads": counted("threads", spec.threads),
            "socket": spec.socket, "tdp": spec.tdp_w,
        }  # fmt: skip
    if isinstance(spec, specs.ChassisSpec):
        size = f"{_g(spec.rack_units)}U, " if spec.rack_units else ""
        return _("%(kind)s, %(size)s%(gpus)s, %(bays)s") % {
            "kind": label(ChassisKind, spec.kind) if _russian() else spec.kind,
            "size": size, "gpus": counted("up to GPUs", spec.max_gpu_count), "bays": counted("PSU bays", spec.psu_bays),
        }  # fmt: skip
    if isinstance(spec, specs.PsuSpec):
        return _("%(watts)s W, %(efficiency)s, %(form)s") % {
            "watts": spec.watts_high_line, "efficiency": psu_grade(spec.efficiency), "form": spec.form_factor.upper()
        }  # fmt: skip
    if isinstance(spec, specs.MemorySpec):
        ecc = ", ECC" if spec.ecc else ""
        return _("%(capacity)s GB %(type)s %(kind)s %(speed)s MT/s%(ecc)s") % {
            "capacity": spec.capacity_gb, "type": spec.memory_type.upper(), "kind": spec.kind.upper(),
            "speed": spec.speed_mts, "ecc": ecc,
        }  # fmt: skip
    if isinstance(spec, specs.StorageSpec):
        return _("%(capacity)s TB, %(interface)s, %(form)s") % {
            "capacity": _g(spec.capacity_tb), "interface": storage_interface(spec.interface),
            "form": spec.form_factor.upper(),
        }  # fmt: skip
    if isinstance(spec, specs.NicSpec):
        return _("%(ports)s × %(speed)s Gb/s, PCIe %(gen)s.0 x%(lanes)s") % {
            "ports": spec.ports, "speed": spec.speed_gbps, "gen": spec.pcie_gen, "lanes": spec.pcie_lanes
        }  # fmt: skip
    if isinstance(spec, specs.BridgeSpec):
        return _("NVLink %(ways)s-way, %(gpus)s") % {"ways": spec.ways, "gpus": ", ".join(spec.gpu_skus)}
    return ""


def spec_summaries(spec: Any) -> tuple[str, str]:
    """The spec line in English and in Russian: a quote line keeps both and shows its reader's."""
    with translation.override("en"):
        english = spec_summary(spec)[:300]
    with translation.override("ru"):
        russian = spec_summary(spec)[:300]
    return english, russian


def _priced_draft(
    kind: str, spec: Any, qty: int, discount_percent: Decimal, names: tuple[str, str], summaries: Sequence[str],
    **extra: Any,
) -> LineDraft:  # fmt: skip
    """A hardware line at the catalog price of `spec` and the quote's discount (a server's part or a cluster's)."""
    return LineDraft(
        kind=kind,
        sku=spec.sku,
        name=names[0],
        name_ru=names[1],
        spec_summary=summaries[0],
        spec_summary_ru=summaries[1],
        qty=qty,
        list_price=spec.price,
        discount_percent=discount_percent,
        unit_price=unit_price(spec.price, discount_percent),
        line_total=line_total(spec.price, qty, discount_percent),
        **extra,
    )


def line_draft(kind: str, spec: Any, qty: int, discount_percent: Decimal, *, optional: bool = False) -> LineDraft:
    names = (spec.name, spec.name_ru)
    return _priced_draft(kind, spec, qty, discount_percent, names, spec_summaries(spec), optional=optional)


def cluster_summary(kind: str, spec: Any) -> str:
    """One line for a cluster part (configurator.engine.cluster.parts), in the active language."""
    if kind == "switches":
        return _("%(ports)s × %(speed)s Gb/s, %(units)sU, %(power)s W") % {
            "ports": spec.ports, "speed": spec.port_speed_gbps, "units": spec.rack_units, "power": spec.power_w
        }  # fmt: skip
    if kind == "adapters":
        return _("%(ports)s × %(speed)s Gb/s, %(power)s W") % {
            "ports": spec.ports, "speed": spec.speed_gbps, "power": spec.power_w
        }  # fmt: skip
    if kind == "cables":
        return _("%(speed)s Gb/s, reach %(reach)s m") % {"speed": spec.speed_gbps, "reach": _g(spec.reach_m)}
    if kind == "storage_nodes":
        return _("%(usable)s TB usable, write %(write)s GB/s, %(units)sU") % {
            "usable": _g(spec.usable_tb), "write": _g(spec.write_gbs), "units": spec.rack_units
        }  # fmt: skip
    if kind == "racks":
        return _("%(units)sU, %(width)s × %(depth)s mm") % {
            "units": spec.rack_units, "width": spec.width_mm, "depth": spec.depth_mm
        }  # fmt: skip
    if kind == "pdus":
        return _("%(phases)s-phase %(volts)s V %(amps)s A, %(outlets)s outlets") % {
            "phases": spec.phases, "volts": spec.voltage_v, "amps": spec.current_a, "outlets": spec.outlets
        }  # fmt: skip
    return spec_summary(spec)


def cluster_line_draft(
    section: str, kind: str, spec: Any, qty: int, discount_percent: Decimal, *, per_node: int = 0
) -> LineDraft:
    """A cluster line (configurator.engine.cluster.bill.ClusterLine) priced as every hardware line: the same
    `unit_price` and `line_total` at the quote's discount."""
    texts = []
    for language in ("en", "ru"):
        with translation.override(language):
            text = cluster_summary(kind, spec)
            if per_node:
                text = _("%(per_node)s per node; %(summary)s") % {"per_node": per_node, "summary": text}
            texts.append(text[:300])
    names = (spec.name[:200], getattr(spec, "name_ru", "")[:200])
    return _priced_draft(kind, spec, qty, discount_percent, names, texts, section=section)
