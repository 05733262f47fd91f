"""Look-alike parts grouped: a catalog with one part per set of identical specs, the cheapest (`grouped`).

Two parts whose every field but SKU, name and price is equal are the same part to every rule and to the
estimator, so no cheapest build holds the dearer one: the search prices one part per group. A GPU's
look-alikes must also take the same kinds of NVLink bridge (bridges name GPUs by SKU); among them a
card is dropped only when another is no dearer and neither is any of its bridges (a Pareto filter), so
the cheapest bridged build is kept too.

The grouped catalog is exact for "the cheapest build" but not for a caller who names SKUs or dates: the
recommender searches the whole catalog when the constraints list chassis or a delivery date (stock and
ship dates differ per SKU).
"""

from __future__ import annotations

from dataclasses import fields, replace
from decimal import Decimal
from typing import Any, TypeVar

from configurator.engine.rules.context import active
from configurator.engine.types import BridgeSpec, CatalogSnapshot, GpuSpec

_IGNORED = frozenset({"sku", "name", "price", "gpu_skus"})
_GROUPED: dict[str, tuple[CatalogSnapshot, CatalogSnapshot]] = {}

PartT = TypeVar("PartT")


def look(part: Any) -> tuple[object, ...]:
    """What the rules and the estimator see of a part: every field but SKU, name and price."""
    return tuple(getattr(part, f.name) for f in fields(part) if f.name not in _IGNORED)


def _cheapest_per_look(parts: dict[str, PartT]) -> dict[str, PartT]:
    best: dict[tuple[object, ...], PartT] = {}
    for part in active(parts):  # SKU order: at equal prices the first SKU stays
        key = look(part)
        if key not in best or part.price < best[key].price:  # type: ignore[attr-defined]
            best[key] = part
    return {part.sku: part for part in best.values()}  # type: ignore[attr-defined]


def _bridge_prices(gpu: GpuSpec, bridges: list[BridgeSpec]) -> dict[tuple[object, ...], Decimal]:
    prices: dict[tuple[object, ...], Decimal] = {}
    for bridge in bridges:
        if gpu.sku in bridge.gpu_skus:
            key = look(bridge)
            prices[key] = min(prices.get(key, bridge.price), bridge.price)
    return prices


def _gpus(snapshot: CatalogSnapshot) -> dict[str, GpuSpec]:
    bridges = active(snapshot.bridges)
    groups: dict[tuple[object, ...], list[tuple[GpuSpec, dict[tuple[object, ...], Decimal]]]] = {}
    for gpu in active(snapshot.gpus):
        prices = _bridge_prices(gpu, bridges)
        groups.setdefault((look(gpu), tuple(sorted(prices, key=repr))), []).append((gpu, prices))
    kept: dict[str, GpuSpec] = {}
    for members in groups.values():
        members.sort(key=lambda member: (member[0].price, member[0].sku))
        survivors: list[tuple[GpuSpec, dict[tuple[object, ...], Decimal]]] = []
        for gpu, prices in members:
            dominated = any(
                other.price <= gpu.price and all(theirs[key] <= prices[key] for key in prices)
                for other, theirs in survivors
            )
            if not dominated:
                survivors.append((gpu, prices))
        kept.update((gpu.sku, gpu) for gpu, _ in survivors)
    return kept


def grouped(snapshot: CatalogSnapshot) -> CatalogSnapshot:
    """The catalog with one active part per look (GPUs: per look and bridge offer, Pareto), remembered
    per catalog version. Bridges keep only the GPUs still there."""
    found = _GROUPED.get(snapshot.version)
    if found is not None and found[0] is snapshot:
        return found[1]
    gpus = _gpus(snapshot)
    bridges: dict[str, BridgeSpec] = {}
    for bridge in active(snapshot.bridges):
        joined = tuple(sku for sku in bridge.gpu_skus if sku in gpus)
        if joined:
            bridges[bridge.sku] = replace(bridge, gpu_skus=joined) if joined != bridge.gpu_skus else bridge
    result = CatalogSnapshot(
        version=f"{snapshot.version}+grouped",
        gpus=gpus,
        cpus=_cheapest_per_look(snapshot.cpus),
        chassis=_cheapest_per_look(snapshot.chassis),
        psus=_cheapest_per_look(snapshot.psus),
        memory=_cheapest_per_look(snapshot.memory),
        storage=_cheapest_per_look(snapshot.storage),
        nics=_cheapest_per_look(snapshot.nics),
        bridges=bridges,
    )
    if len(_GROUPED) > 8:
        _GROUPED.clear()
    _GROUPED[snapshot.version] = (snapshot, result)
    return result
