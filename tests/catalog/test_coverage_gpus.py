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
