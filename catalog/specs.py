"""Selectors: catalog rows → frozen spec dataclasses, and the per-process CatalogSnapshot.

The snapshot is rebuilt only when the catalog's version stamp changes. The stamp is one SQL query
(row count and newest `updated_at` of every catalog table), so a request that validates a build
costs a constant number of queries whatever the build's size.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection

from catalog import models as m
from configurator.engine import specs as engine

_COMMON = ("sku", "name", "name_ru", "vendor", "currency", "is_active")


def _f(value: Any) -> float | None:
    return None if value is None else float(value)


def _common(row: Mapping[str, Any]) -> dict[str, Any]:
    data = {key: row[key] for key in _COMMON if key in row}
    data.setdefault("is_active", True)
    data.setdefault("currency", "RUB")
    data["price"] = Decimal(str(row["list_price"]))
    return data


def gpu_spec(row: Mapping[str, Any]) -> engine.GpuSpec:
    return engine.GpuSpec(
        **_common(row),
        vram_gib=float(row["vram_gib"]),
        memory_type=row["memory_type"],
        bandwidth_gbs=float(row["bandwidth_gbs"]),
        tdp_w=int(row["tdp_w"]),
        fp16_tflops=float(row["fp16_tflops"]),
        fp8_tflops=_f(row.get("fp8_tflops")),
        int8_tops=_f(row.get("int8_tops")),
        ecc=bool(row["ecc"]),
        nvlink_kind=row.get("nvlink_kind", "none"),
        nvlink_gbs=_f(row.get("nvlink_gbs")),
        form_factor=row.get("form_factor", "pcie"),
        slot_width=_f(row.get("slot_width")),
        length_mm=row.get("length_mm"),
        cooling=row["cooling"],
        power_connector=row["power_connector"],
        power_connector_count=int(row.get("power_connector_count", 1)),
        pcie_gen=int(row["pcie_gen"]),
        pcie_lanes=int(row.get("pcie_lanes", 16)),
        mig=bool(row.get("mig", False)),
        is_consumer=bool(row.get("is_consumer", False)),
        module_socket=str(row.get("module_socket") or ""),
        end_of_life=bool(row.get("end_of_life", False)),
    )


def cpu_spec(row: Mapping[str, Any]) -> engine.CpuSpec:
    return engine.CpuSpec(
        **_common(row),
        family=row["family"],
        socket=row["socket"],
        cores=int(row["cores"]),
        threads=int(row["threads"]),
        tdp_w=int(row["tdp_w"]),
        pcie_lanes_1p=int(row["pcie_lanes_1p"]),
        pcie_lanes_per_socket_2p=row.get("pcie_lanes_per_socket_2p"),
        pcie_gen=int(row["pcie_gen"]),
        memory_channels=int(row["memory_channels"]),
        memory_kind=row.get("memory_kind", "rdimm"),
        memory_speed_mts=int(row["memory_speed_mts"]),
        memory_speed_2dpc_mts=row.get("memory_speed_2dpc_mts"),
        max_sockets=int(row["max_sockets"]),
    )


def _ints(value: Any) -> tuple[int, ...]:
    """A comma-separated list of counts ("4,4") or a JSON list as a tuple of ints; blank → ()."""
    if isinstance(value, str):
        return tuple(int(part) for part in value.split(",") if part.strip())
    return tuple(int(part) for part in value or ())


def chassis_spec(row: Mapping[str, Any]) -> engine.ChassisSpec:
    modes = row["psu_redundancy_modes"]
    if isinstance(modes, str):
        modes = [mode.strip() for mode in modes.split(",") if mode.strip()]
    return engine.ChassisSpec(
        **_common(row),
        kind=row["kind"],
        rack_units=_f(row.get("rack_units")),
        cpu_socket=row["cpu_socket"],
        cpu_sockets=int(row["cpu_sockets"]),
        gpu_bays=int(row["gpu_bays"]),
        max_gpu_count=int(row["max_gpu_count"]),
        gpu_form_factor=row.get("gpu_form_factor", "pcie"),
        max_gpu_slot_width=_f(row.get("max_gpu_slot_width")),
        max_gpu_length_mm=row.get("max_gpu_length_mm"),
        max_gpu_tdp_w=int(row["max_gpu_tdp_w"]),
        gpu_slot_pitch=row.get("gpu_slot_pitch"),
        server_airflow=bool(row["server_airflow"]),
        has_nvswitch=bool(row.get("has_nvswitch", False)),
        pcie_topology=row.get("pcie_topology", "direct"),
        pcie_switch_uplinks=int(row.get("pcie_switch_uplinks", 0)),
        gpu_slot_lanes=int(row["gpu_slot_lanes"]),
        memory_kind=row.get("memory_kind", "rdimm"),
        memory_channels=int(row["memory_channels"]),
        dimm_slots=int(row["dimm_slots"]),
        psu_bays=int(row["psu_bays"]),
        psu_form_factor=row["psu_form_factor"],
        psu_redundancy_modes=tuple(modes),
        drive_bays=int(row["drive_bays"]),
        base_power_w=int(row["base_power_w"]),
        gpu_power_12v2x6=int(row.get("gpu_power_12v2x6", 0)),
        gpu_power_eps8=int(row.get("gpu_power_eps8", 0)),
        gpu_power_pcie8=int(row.get("gpu_power_pcie8", 0)),
        gpu_slots_per_socket=_ints(row.get("gpu_slots_per_socket")),
        io_behind_switches=bool(row.get("io_behind_switches", False)),
        chipset_m2_slots=int(row.get("chipset_m2_slots") or 0),
        gpu_baseboard=str(row.get("gpu_baseboard") or ""),
        baseboard_gpu_counts=_ints(row.get("baseboard_gpu_counts")),
        baseboard_socket=str(row.get("baseboard_socket") or ""),
    )


def psu_spec(row: Mapping[str, Any]) -> engine.PsuSpec:
    return engine.PsuSpec(
        **_common(row),
        form_factor=row["form_factor"],
        watts_high_line=int(row["watts_high_line"]),
        watts_low_line=row.get("watts_low_line"),
        efficiency=row["efficiency"],
        connectors_12v2x6=int(row.get("connectors_12v2x6", 0)),
        connectors_eps8=int(row.get("connectors_eps8", 0)),
        connectors_pcie8=int(row.get("connectors_pcie8", 0)),
    )


def memory_spec(row: Mapping[str, Any]) -> engine.MemorySpec:
    return engine.MemorySpec(
        **_common(row),
        memory_type=row.get("memory_type", "ddr5"),
        kind=row["kind"],
        capacity_gb=int(row["capacity_gb"]),
        ecc=bool(row["ecc"]),
        registered=bool(row["registered"]),
        speed_mts=int(row["speed_mts"]),
        power_w=float(row.get("power_w", 8)),
    )


def storage_spec(row: Mapping[str, Any]) -> engine.StorageSpec:
    return engine.StorageSpec(
        **_common(row),
        interface=row["interface"],
        form_factor=row.get("form_factor", "u.2"),
        capacity_tb=float(row["capacity_tb"]),
        pcie_lanes=int(row.get("pcie_lanes", 4)),
        power_w=int(row.get("power_w", 15)),
    )


def nic_spec(row: Mapping[str, Any]) -> engine.NicSpec:
    return engine.NicSpec(
        **_common(row),
        speed_gbps=int(row["speed_gbps"]),
        ports=int(row.get("ports", 1)),
        pcie_lanes=int(row["pcie_lanes"]),
        pcie_gen=int(row.get("pcie_gen", 4)),
        power_w=int(row["power_w"]),
    )


def bridge_spec(row: Mapping[str, Any]) -> engine.BridgeSpec:
    return engine.BridgeSpec(
        **_common(row),
        gpu_skus=tuple(sorted(row["gpus"])),
        ways=int(row["ways"]),
        slot_spacing=int(row["slot_spacing"]),
    )


SPEC_BUILDERS = {
    "gpus": gpu_spec,
    "cpus": cpu_spec,
    "chassis": chassis_spec,
    "psus": psu_spec,
    "memory": memory_spec,
    "storage": storage_spec,
    "nics": nic_spec,
    "bridges": bridge_spec,
}


def snapshot_from_rows(rows_by_kind: Mapping[str, Iterable[Mapping[str, Any]]], version: str) -> engine.CatalogSnapshot:
    """Build a snapshot from plain rows (fixture JSON or ORM `.values()`); no database needed."""
    parts: dict[str, dict[str, Any]] = {}
    for kind, builder in SPEC_BUILDERS.items():
        parts[kind] = {}
        for row in rows_by_kind.get(kind, ()):
            spec: Any = builder(row)
            parts[kind][spec.sku] = spec
    return engine.CatalogSnapshot(version=version, **parts)


def catalog_version() -> str:
    """One query: count and newest change of every catalog table. Changes whenever a row does."""
    tables = [model._meta.db_table for model in m.CATALOG_MODELS.values()]
    sql = " UNION ALL ".join(f"SELECT COUNT(*), MAX(updated_at) FROM {table}" for table in tables)  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(sql)
        rows = cursor.fetchall()
    return "|".join(f"{count}:{newest}" for count, newest in rows)


def _rows_from_database() -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {}
    for kind, model in m.CATALOG_MODELS.items():
        rows[kind] = list(model.objects.values())
    bridge_gpus: dict[int, list[str]] = {}
    for bridge_id, gpu_sku in m.NvlinkBridge.gpus.through.objects.values_list("nvlinkbridge_id", "gpu__sku"):
        bridge_gpus.setdefault(bridge_id, []).append(gpu_sku)
    for row in rows["bridges"]:
        row["gpus"] = bridge_gpus.get(row["id"], [])
    return rows


_lock = threading.Lock()
_cached: engine.CatalogSnapshot | None = None
_checked_at = 0.0  # time.monotonic() of the last version check


def catalog_snapshot() -> engine.CatalogSnapshot:
    """The current catalog as specs; rebuilt only when `catalog_version()` changes.

    The version is checked at most once per `CATALOG_SNAPSHOT_TTL_S` seconds per process (0 = on every
    call), so a busy worker pays one small query per second rather than one per request."""
    global _cached, _checked_at
    ttl = float(getattr(settings, "CATALOG_SNAPSHOT_TTL_S", 0.0))
    now = time.monotonic()
    if _cached is not None and ttl > 0 and now - _checked_at < ttl:
        return _cached
    version = catalog_version()
    _checked_at = now
    snapshot = _cached
    if snapshot is not None and snapshot.version == version:
        return snapshot
    with _lock:
        if _cached is None or _cached.version != version:
            _cached = snapshot_from_rows(_rows_from_database(), version)
        return _cached


def catalog_snapshot_clear() -> None:
    global _cached
    with _lock:
        _cached = None
