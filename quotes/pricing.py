"""Quote arithmetic and line copies. Pure: Decimals and catalog specs in, Decimals and line drafts out.

Rounding (the rules the totals tests pin down):

* unit price = list price × (100 − discount) / 100, rounded half-up to kopecks;
* line total = unit price × qty (exact: the unit price already has two places);
* net = Σ line totals of the lines that are not optional;
* VAT = net × VAT rate / 100, rounded half-up to kopecks — VAT is charged on the net, once, not per line;
* gross = net + VAT.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from configurator.engine import specs
from configurator.engine.builds import money

HUNDRED = Decimal(100)


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


def unit_price(list_price: Decimal, discount_percent: Decimal) -> Decimal:
    return money(list_price * (HUNDRED - discount_percent) / HUNDRED)


def line_total(list_price: Decimal, qty: int, discount_percent: Decimal) -> Decimal:
    return money(unit_price(list_price, discount_percent) * qty)


def totals(lines: Iterable[tuple[Decimal, bool]], vat_percent: Decimal) -> Totals:
    """`lines` are (line total, optional) pairs; optional lines are left out."""
    net = money(sum((total for total, optional in lines if not optional), Decimal(0)))
    vat = money(net * vat_percent / HUNDRED)
    return Totals(net=net, vat=vat, gross=net + vat)


def _g(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def spec_summary(spec: Any) -> str:
    """One line a customer can read, with units, for the quote table."""
    if isinstance(spec, specs.GpuSpec):
        return f"{_g(spec.vram_gib)} GiB {spec.memory_type}, {_g(spec.bandwidth_gbs)} GB/s, {spec.tdp_w} W"
    if isinstance(spec, specs.CpuSpec):
        return f"{spec.cores} cores / {spec.threads} threads, {spec.socket}, {spec.tdp_w} W"
    if isinstance(spec, specs.ChassisSpec):
        size = f"{_g(spec.rack_units)}U, " if spec.rack_units else ""
        return f"{spec.kind}, {size}up to {spec.max_gpu_count} GPU, {spec.psu_bays} PSU bays"
    if isinstance(spec, specs.PsuSpec):
        return f"{spec.watts_high_line} W, {spec.efficiency}, {spec.form_factor.upper()}"
    if isinstance(spec, specs.MemorySpec):
        ecc = ", ECC" if spec.ecc else ""
        return f"{spec.capacity_gb} GB {spec.memory_type} {spec.kind.upper()} {spec.speed_mts} MT/s{ecc}"
    if isinstance(spec, specs.StorageSpec):
        return f"{_g(spec.capacity_tb)} TB, {spec.interface}, {spec.form_factor}"
    if isinstance(spec, specs.NicSpec):
        return f"{spec.ports} × {spec.speed_gbps} Gb/s, PCIe {spec.pcie_gen}.0 x{spec.pcie_lanes}"
    if isinstance(spec, specs.BridgeSpec):
        return f"NVLink {spec.ways}-way, {', '.join(spec.gpu_skus)}"
    return ""


def line_draft(kind: str, spec: Any, qty: int, discount_percent: Decimal, *, optional: bool = False) -> LineDraft:
    return LineDraft(
        kind=kind,
        sku=spec.sku,
        name=spec.name,
        name_ru=spec.name_ru,
        spec_summary=spec_summary(spec)[:300],
        qty=qty,
        list_price=spec.price,
        discount_percent=discount_percent,
        unit_price=unit_price(spec.price, discount_percent),
        line_total=line_total(spec.price, qty, discount_percent),
        optional=optional,
    )
