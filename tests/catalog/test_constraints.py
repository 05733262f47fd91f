"""The database itself refuses impossible catalog rows, whatever door they come through."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from catalog.models import Chassis, Cpu, Gpu, MemoryModule, Psu

GPU_OK: dict[str, Any] = {
    "sku": "test-gpu",
    "name": "Test GPU",
    "vendor": "NVIDIA",
    "list_price": Decimal("1000.00"),
    "source": "test",
    "memory_type": "GDDR6",
    "vram_gib": Decimal("24"),
    "bandwidth_gbs": Decimal("936"),
    "tdp_w": 350,
    "fp16_tflops": Decimal("71"),
    "ecc": False,
    "cooling": "active",
    "power_connector": "pcie-8pin",
    "pcie_gen": 4,
    "slot_width": Decimal("3"),
    "length_mm": 313,
}


def _refused(model: Any, **fields: Any) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        model.objects.create(**fields)


@pytest.mark.django_db
def test_valid_gpu_row_is_stored() -> None:
    gpu = Gpu.objects.create(**GPU_OK)
    assert Gpu.objects.get(pk=gpu.pk).vram_gib == Decimal("24.0")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("vram_gib", Decimal("0")),
        ("vram_gib", Decimal("-8")),
        ("bandwidth_gbs", Decimal("0")),
        ("tdp_w", 0),
        ("list_price", Decimal("-1.00")),
        ("pcie_lanes", 3),
        ("currency", "rub"),
        ("sku", ""),
    ],
)
def test_gpu_impossible_values_are_refused(field: str, value: Any) -> None:
    _refused(Gpu, **{**GPU_OK, field: value})
    assert not Gpu.objects.filter(name="Test GPU").exists()


@pytest.mark.django_db
def test_pcie_card_without_size_and_nvswitch_on_pcie_are_refused() -> None:
    _refused(Gpu, **{**GPU_OK, "slot_width": None})
    _refused(Gpu, **{**GPU_OK, "nvlink_kind": "nvswitch-sxm", "nvlink_gbs": Decimal("900")})
    _refused(Gpu, **{**GPU_OK, "nvlink_kind": "bridge-2way", "nvlink_gbs": None})


@pytest.mark.django_db
def test_duplicate_sku_is_refused() -> None:
    Gpu.objects.create(**GPU_OK)
    _refused(Gpu, **{**GPU_OK, "name": "Other"})
    assert list(Gpu.objects.filter(sku="test-gpu").values_list("name", flat=True)) == ["Test GPU"]


@pytest.mark.django_db
def test_psu_low_line_above_high_line_and_zero_watts_are_refused() -> None:
    base = {"sku": "psu-x", "name": "PSU", "vendor": "X", "list_price": 1, "source": "t", "form_factor": "crps"}
    _refused(Psu, **base, watts_high_line=0, efficiency="titanium")
    _refused(Psu, **base, watts_high_line=2000, watts_low_line=2400, efficiency="titanium")
    _refused(Psu, **base, watts_high_line=2000, watts_low_line=0, efficiency="titanium")
    Psu.objects.create(**base, watts_high_line=2000, watts_low_line=1000, efficiency="titanium")
    assert Psu.objects.get(sku="psu-x").watts_low_line == 1000


@pytest.mark.django_db
def test_negative_watts_are_refused_by_the_database() -> None:
    base = {"sku": "psu-neg", "name": "PSU", "vendor": "X", "list_price": 1, "source": "t", "form_factor": "atx"}
    _refused(Psu, **base, watts_high_line=-1600, efficiency="platinum")
    assert not Psu.objects.filter(sku="psu-neg").exists()


@pytest.mark.django_db
def test_cpu_one_socket_parts_need_no_2p_lanes_but_2p_parts_do() -> None:
    base = {
        "name": "CPU", "vendor": "AMD", "list_price": 1, "source": "t", "family": "EPYC", "socket": "SP5",
        "cores": 64, "threads": 128, "tdp_w": 360, "pcie_lanes_1p": 128, "pcie_gen": 5, "memory_channels": 12,
        "memory_speed_mts": 4800,
    }  # fmt: skip
    Cpu.objects.create(sku="cpu-1p", max_sockets=1, **base)
    _refused(Cpu, sku="cpu-2p", max_sockets=2, **base)
    _refused(Cpu, sku="cpu-threads", max_sockets=1, **{**base, "threads": 32})
    assert list(Cpu.objects.filter(sku__startswith="cpu-").values_list("sku", flat=True)) == ["cpu-1p"]


@pytest.mark.django_db
def test_chassis_max_gpus_above_bays_and_rack_without_units_are_refused() -> None:
    base = {
        "sku": "ch", "name": "Chassis", "vendor": "X", "list_price": 1, "source": "t", "kind": "rack-server",
        "rack_units": Decimal("4"), "cpu_socket": "SP5", "cpu_sockets": 2, "gpu_bays": 8, "max_gpu_count": 8,
        "max_gpu_tdp_w": 600, "server_airflow": True, "gpu_slot_lanes": 64, "memory_channels": 24,
        "dimm_slots": 24, "psu_bays": 4, "psu_form_factor": "crps", "psu_redundancy_modes": "n+1,n+n",
        "drive_bays": 8, "base_power_w": 300,
    }  # fmt: skip
    _refused(Chassis, **{**base, "max_gpu_count": 10})
    _refused(Chassis, **{**base, "rack_units": None})
    _refused(Chassis, **{**base, "kind": "hgx"})  # HGX takes SXM/OAM modules, not PCIe cards
    Chassis.objects.create(**base)
    assert Chassis.objects.get(sku="ch").redundancy_modes == ["n+1", "n+n"]


@pytest.mark.django_db
def test_rdimm_must_be_registered() -> None:
    base = {"name": "DIMM", "vendor": "X", "list_price": 1, "source": "t", "capacity_gb": 64, "speed_mts": 4800}
    _refused(MemoryModule, sku="dimm-bad", kind="rdimm", ecc=True, registered=False, **base)
    _refused(MemoryModule, sku="dimm-zero", kind="udimm", ecc=False, registered=False, **{**base, "capacity_gb": 0})
    MemoryModule.objects.create(sku="dimm-ok", kind="rdimm", ecc=True, registered=True, **base)
    assert list(MemoryModule.objects.filter(sku__startswith="dimm-").values_list("sku", flat=True)) == ["dimm-ok"]
