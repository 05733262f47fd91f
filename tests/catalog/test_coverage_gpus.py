"""Issue 33 item 5: the GPUs the fresh measurement rows asked for (L20, RTX 4070, RTX 2080 Ti, HGX B300), each
with its sources beside the figures and its price marked an estimate where no price was found."""

from __future__ import annotations

import pytest

from catalog.fixture import read_catalog_fixture
from configurator.engine.types import CatalogSnapshot

NEW_GPUS = ("l20", "rtx-4070", "rtx-2080-ti", "b300-sxm")


def _rows() -> dict[str, dict]:
    return {row["sku"]: row for row in read_catalog_fixture()["gpus"] if row["sku"] in NEW_GPUS}


@pytest.mark.parametrize("sku", NEW_GPUS)
def test_each_new_gpu_names_a_source_url_and_marks_its_price_an_estimate(sku: str) -> None:
    row = _rows()[sku]
    assert "https://" in row["source"]
    assert "PRICE ESTIMATE (not a quote)" in row["notes"]


def test_l20_is_an_l40_memory_system_with_capped_compute(snapshot: CatalogSnapshot) -> None:
    """technical.city: 48 GB GDDR6, 864 GB/s, 275 W, passive; press-quoted China spec: 119.5 FP16 dense."""
    l20, l40s = snapshot.gpus["l20"], snapshot.gpus["l40s"]
    assert (l20.vram_gib, l20.bandwidth_gbs, l20.tdp_w, l20.cooling) == (48, 864, 275, "passive")
    assert l20.bandwidth_gbs == l40s.bandwidth_gbs
    assert l20.fp16_tflops == pytest.approx(l40s.fp16_tflops * 0.33, rel=0.01)


def test_rtx_4070_and_2080_ti(snapshot: CatalogSnapshot) -> None:
    """RTX 4070: 12 GB, 504 GB/s, 200 W (The FPS Review, Club386). RTX 2080 Ti: 11 GB, 616 GB/s, 250 W, Turing:
    no FP8, PCIe 3.0, a 2-way NVLink connector."""
    rtx4070 = snapshot.gpus["rtx-4070"]
    assert (rtx4070.vram_gib, rtx4070.bandwidth_gbs, rtx4070.tdp_w) == (12, 504, 200)
    assert rtx4070.fp8_tflops == pytest.approx(184 * 2.475e9 * 256 / 1e12, abs=0.1)
    turing = snapshot.gpus["rtx-2080-ti"]
    assert (turing.vram_gib, turing.bandwidth_gbs, turing.tdp_w, turing.pcie_gen) == (11, 616, 250, 3)
    assert turing.fp8_tflops is None
    assert (turing.nvlink_kind, turing.nvlink_gbs) == ("bridge-2way", 100)


def test_b300_is_an_hgx_module_no_chassis_hosts_yet(snapshot: CatalogSnapshot) -> None:
    b300 = snapshot.gpus["b300-sxm"]
    assert (b300.vram_gib, b300.form_factor, b300.nvlink_kind, b300.fp8_tflops) == (288, "sxm", "nvswitch-sxm", 4500)
    assert not any(
        chassis.gpu_form_factor == "sxm" and chassis.max_gpu_tdp_w >= b300.tdp_w
        for chassis in snapshot.chassis.values()
    )


def test_a10g_is_estimable_but_never_on_sale(snapshot: CatalogSnapshot) -> None:
    """AWS's A10G (EC2 G5 only): 24 GB GDDR6 at 600 GB/s as the A10, 70 dense FP16 tensor TFLOPS against the A10's
    125 (Baseten), 300 W (nvidia-smi on G5); off sale (is_active false), so the recommender never offers it and
    no supplier sells it."""
    from configurator.engine.rules.context import active

    a10g, a10 = snapshot.gpus["a10g"], snapshot.gpus["a10"]
    assert (a10g.vram_gib, a10g.bandwidth_gbs, a10g.tdp_w) == (24, 600, 300)
    assert (a10g.fp16_tflops, a10g.fp8_tflops) == (70, None)
    assert (a10g.vram_gib, a10g.bandwidth_gbs) == (a10.vram_gib, a10.bandwidth_gbs)
    assert a10g.is_active is False
    assert a10g not in active(snapshot.gpus)
    row = next(r for r in read_catalog_fixture()["gpus"] if r["sku"] == "a10g")
    assert "NOT FOR SALE" in row["notes"] and "PRICE ESTIMATE (not a quote)" in row["notes"]
    assert "https://" in row["source"]


def test_mi325x_is_the_mi300x_die_with_hbm3e(snapshot: CatalogSnapshot) -> None:
    """AMD Instinct MI325X: 256 GB HBM3E, 6.0 TB/s, 1,000 W, the MI300X's CDNA3 peaks (FP16 1,307, FP8 2,615
    dense), OAM on the UBB baseboard: no catalog chassis hosts it (as the MI300X)."""
    mi325x, mi300x = snapshot.gpus["mi325x"], snapshot.gpus["mi300x"]
    assert (mi325x.vram_gib, mi325x.bandwidth_gbs, mi325x.tdp_w) == (256, 6000, 1000)
    assert (mi325x.fp16_tflops, mi325x.fp8_tflops) == (mi300x.fp16_tflops, mi300x.fp8_tflops)
    assert (mi325x.form_factor, mi325x.module_socket, mi325x.nvlink_kind) == ("oam", "oam", "infinity-fabric-oam")
    assert not any(chassis.gpu_form_factor == "oam" for chassis in snapshot.chassis.values())
    row = next(r for r in read_catalog_fixture()["gpus"] if r["sku"] == "mi325x")
    assert "https://" in row["source"] and "PRICE ESTIMATE (not a quote)" in row["notes"]
