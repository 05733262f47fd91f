"""Rows of the cluster catalog (fixture JSON or ORM `.values()`) → configurator.engine.cluster.parts specs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from configurator.engine.cluster import parts as p


def _common(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "sku": row["sku"],
        "name": row["name"],
        "name_ru": str(row.get("name_ru") or ""),
        "price": Decimal(str(row["list_price"])),
    }


def _f(value: Any) -> float | None:
    return None if value in (None, "") else float(value)


def switch_spec(row: Mapping[str, Any]) -> p.SwitchSpec:
    return p.SwitchSpec(
        **_common(row),
        fabric=row["fabric"],
        role=row["role"],
        ports=int(row["ports"]),
        port_speed_gbps=int(row["port_speed_gbps"]),
        max_split=int(row["max_split"]),
        rdma=bool(row["rdma"]),
        rack_units=int(row["rack_units"]),
        power_w=int(row["power_w"]),
        weight_kg=float(row["weight_kg"]),
    )


def adapter_spec(row: Mapping[str, Any]) -> p.AdapterSpec:
    return p.AdapterSpec(
        **_common(row),
        speed_gbps=int(row["speed_gbps"]),
        ports=int(row["ports"]),
        is_dpu=bool(row["is_dpu"]),
        power_w=int(row["power_w"]),
    )


def cable_spec(row: Mapping[str, Any]) -> p.CableSpec:
    return p.CableSpec(
        **_common(row),
        medium=row["medium"],
        speed_gbps=int(row["speed_gbps"]),
        ports=int(row["ports"]),
        length_m=_f(row.get("length_m")),
        reach_m=float(row["reach_m"]),
        power_w=float(row["power_w"]),
    )


def storage_node_spec(row: Mapping[str, Any]) -> p.StorageNodeSpec:
    return p.StorageNodeSpec(
        **_common(row),
        usable_tb=float(row["usable_tb"]),
        read_gbs=float(row["read_gbs"]),
        write_gbs=float(row["write_gbs"]),
        ports=int(row["ports"]),
        port_speed_gbps=int(row["port_speed_gbps"]),
        rack_units=int(row["rack_units"]),
        power_w=int(row["power_w"]),
        weight_kg=float(row["weight_kg"]),
    )


def rack_spec(row: Mapping[str, Any]) -> p.RackSpec:
    return p.RackSpec(
        **_common(row),
        rack_units=int(row["rack_units"]),
        width_mm=int(row["width_mm"]),
        depth_mm=int(row["depth_mm"]),
        static_load_kg=int(row["static_load_kg"]),
        weight_kg=float(row["weight_kg"]),
    )


def pdu_spec(row: Mapping[str, Any]) -> p.PduSpec:
    return p.PduSpec(
        **_common(row),
        phases=int(row["phases"]),
        voltage_v=int(row["voltage_v"]),
        current_a=int(row["current_a"]),
        outlets=int(row["outlets"]),
        weight_kg=float(row["weight_kg"]),
    )


BUILDERS: dict[str, Any] = {
    "switches": switch_spec,
    "adapters": adapter_spec,
    "cables": cable_spec,
    "storage_nodes": storage_node_spec,
    "racks": rack_spec,
    "pdus": pdu_spec,
}


def cluster_catalog_from_rows(
    rows_by_kind: Mapping[str, Iterable[Mapping[str, Any]]], version: str
) -> p.ClusterCatalog:
    """Active rows only: what is not on sale is not recommended."""
    kinds: dict[str, dict[str, Any]] = {}
    for kind, builder in BUILDERS.items():
        kinds[kind] = {row["sku"]: builder(row) for row in rows_by_kind.get(kind, ()) if row.get("is_active", True)}
    return p.ClusterCatalog(version=version, **kinds)


def cluster_catalog() -> p.ClusterCatalog:
    """The cluster parts in the database (a handful of rows: read on each call)."""
    from catalog.models import CLUSTER_MODELS

    rows = {kind: list(model.objects.values()) for kind, model in CLUSTER_MODELS.items()}
    return cluster_catalog_from_rows(rows, version="database")
