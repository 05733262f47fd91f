"""Power rules (configurator/engine/rules/power.py, budgets/power.py): one passing and one failing build per rule.

Figures: load = (Σ TDP + DIMMs + drives + NICs + chassis base) × 1.10, usable = (N − R) × PSU watts at the
site voltage (validation-rules.md §1.1-1.2; fixtures/catalog.json `_meta.platform_checks`).
"""

from __future__ import annotations

from typing import Any

import pytest

from configurator.engine.types import CatalogSnapshot, Verdict
from tests.configurator.helpers import body_of, lines, only, validate_body

# srv-4gpu-2u-epyc at its advertised maximum: no finding at all
SERVER = body_of(
    "srv-4gpu-2u-epyc: 2 epyc-9554, 4 h200-nvl, 4 psu-crps-2700w, 24 ddr5-rdimm-64gb, 2 nvme-4tb, "
    "1 nic-100g, 1 nvlink-bridge-h200-4way",
    psu_redundancy="n+n",
)
# ws-tower-am5 with one RTX 5090: no finding at all
TOWER = body_of("ws-tower-am5: 1 ryzen-9-9950x, 1 rtx-5090, 1 psu-atx-1300w, 2 ddr5-udimm-48gb, 1 nvme-2tb")
EIGHT_H200_NVL = body_of(
    "srv-8gpu-4u-epyc: 2 epyc-9755, 8 h200-nvl, 4 psu-crps-3000w, 16 ddr5-rdimm-128gb, 2 nvme-4tb, 1 nic-200g",
    psu_redundancy="n+1",
)
EIGHT_H200_NVL_LOAD_W = round((8 * 600 + 2 * 500 + 16 * 8 + 2 * 12 + 30 + 400) * 1.10, 1)  # 7,020.2 W


def check(snapshot: CatalogSnapshot, body: dict[str, Any], **changes: Any) -> Verdict:
    return validate_body(snapshot, body, **changes)


def codes(verdict: Verdict) -> set[str]:
    return {finding.code for finding in verdict.findings if finding.code.startswith("power.")}


def test_base_builds_have_no_power_finding(snapshot: CatalogSnapshot) -> None:
    assert check(snapshot, SERVER).findings == ()
    assert check(snapshot, TOWER).findings == ()
    verdict = check(snapshot, EIGHT_H200_NVL)
    assert codes(verdict) == set()
    assert (verdict.power.load_w, verdict.power.capacity_w) == (EIGHT_H200_NVL_LOAD_W, 9000.0)  # 78 %


def test_psu_capacity(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, EIGHT_H200_NVL, psus=lines(("psu-crps-1600w", 2))), "power.psu_capacity")
    assert finding.severity == "error"
    assert (finding.measured, finding.limit, finding.unit) == (EIGHT_H200_NVL_LOAD_W, 1600.0, "W")  # (2 − 1) × 1600
    assert finding.components == ("psu-crps-1600w",)
    first = finding.fixes[0]
    # the smallest PSU set inside the 80 % headroom: 4 × 3000 W under N+1 = 9,000 W (2700 W would be 87 %)
    assert (first.ops[0].op, first.ops[0].kind, first.ops[0].sku, first.ops[0].qty) == (
        "replace",
        "psus",
        "psu-crps-3000w",
        4,
    )
    assert first.text == "replace psus with 4× psu-crps-3000w"


def test_psu_capacity_without_psus(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, TOWER, psus=[]), "power.psu_capacity")
    assert (finding.measured, finding.limit) == (955.9, 0.0)  # (575 + 170 + 16 + 8 + 100) × 1.1
    assert finding.fixes[0].ops[0].sku == "psu-atx-1300w"


def test_psu_capacity_more_of_the_same_psu_is_an_add(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, EIGHT_H200_NVL, psus=lines(("psu-crps-3000w", 2))), "power.psu_capacity")
    assert (finding.measured, finding.limit) == (EIGHT_H200_NVL_LOAD_W, 3000.0)
    assert (finding.fixes[0].ops[0].op, finding.fixes[0].ops[0].sku, finding.fixes[0].ops[0].qty) == (
        "add",
        "psu-crps-3000w",
        2,
    )


def test_headroom(snapshot: CatalogSnapshot) -> None:
    assert "power.headroom" not in codes(check(snapshot, SERVER))  # 3,972 W of 5,400 W = 74 %
    hgx = body_of(
        "srv-hgx-h200-5u: 2 epyc-9754, 8 h200-sxm, 6 psu-crps-3000w, 16 ddr5-rdimm-128gb, 2 nvme-4tb, 1 nic-400g",
        psu_redundancy="n+n",
    )
    finding = only(check(snapshot, hgx), "power.headroom")
    assert finding.severity == "warning"
    load = (5600 + 720 + 128 + 24 + 35 + 1200) * 1.1  # 8,477.7 W on 3 × 3000 W
    assert (finding.measured, finding.limit, finding.unit) == (round(load / 9000 * 100, 1), 80.0, "%")
    assert finding.measured == 94.2


def test_mixed_psu_models(snapshot: CatalogSnapshot) -> None:
    assert "power.psu_mixed" not in codes(check(snapshot, SERVER))
    mixed = check(snapshot, SERVER, psus=lines(("psu-crps-2700w", 2), ("psu-crps-3000w", 2)))
    finding = only(mixed, "power.psu_mixed")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 2, 1)
    assert (finding.fixes[0].ops[0].sku, finding.fixes[0].ops[0].qty) == ("psu-crps-3000w", 4)


def test_psu_form_factor(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, psus=lines(("psu-atx-2200w", 4))), "power.psu_form_factor")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "atx", "crps")
    assert (finding.fixes[0].ops[0].sku or "").startswith("psu-crps-")


def test_psu_bays(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, psus=lines(("psu-crps-2700w", 6))), "power.psu_bays")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 6, 4, "PSUs")


def test_redundancy_mode_supported_by_chassis(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, psu_redundancy="none"), "power.redundancy_unsupported")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "none", "n+1, n+n")
    assert [fix.text for fix in finding.fixes] == ["set psu_redundancy n+1", "set psu_redundancy n+n"]


@pytest.mark.parametrize(("redundancy", "count", "limit"), [("n+n", 3, 4), ("n+1", 1, 2)])
def test_redundancy_count(snapshot: CatalogSnapshot, redundancy: str, count: int, limit: int) -> None:
    assert "power.redundancy_count" not in codes(check(snapshot, SERVER, psu_redundancy=redundancy))
    verdict = check(snapshot, SERVER, psu_redundancy=redundancy, psus=lines(("psu-crps-3000w", count)))
    finding = only(verdict, "power.redundancy_count")
    assert (finding.severity, finding.measured, finding.limit) == ("error", count, limit)


def test_input_voltage_high_line_only_psu_at_120v(snapshot: CatalogSnapshot) -> None:
    assert "power.input_voltage" not in codes(check(snapshot, SERVER, site_voltage=230))
    verdict = check(snapshot, SERVER, site_voltage=120)
    finding = only(verdict, "power.input_voltage")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 120, 200, "V")
    assert finding.components == ("psu-crps-2700w",)
    assert "set site_voltage 230" in finding.fixes[-1].text
    assert verdict.power.capacity_w == 0.0  # a high-line-only unit gives nothing at 120 V


def test_low_line_rating_at_120v(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SERVER, site_voltage=120, psus=lines(("psu-crps-2000w", 4)))
    assert "power.input_voltage" not in codes(verdict)
    assert verdict.power.capacity_w == 2000.0  # (4 − 2) × 1000 W low-line
    assert only(verdict, "power.psu_capacity").limit == 2000.0


def test_gpu_power_connectors_tower_counts_psu_cables(snapshot: CatalogSnapshot) -> None:
    body = body_of("ws-tower-trx50: 1 tr-7980x, 2 rtx-pro-6000-blackwell-maxq, 1 psu-atx-2200w, 4 ddr5-rdimm-128gb")
    assert "power.gpu_connectors" not in codes(check(snapshot, body))
    # 3 × 12V-2x6 cards on the 2200 W ATX unit's 2 such cables: the third (a 300 W Max-Q) takes a 2 × 8-pin
    # adapter from two of its 6 PCIe leads (issue 34), a note, not an error
    verdict = check(snapshot, body, gpus=lines(("rtx-pro-6000-blackwell-maxq", 3)))
    assert "power.gpu_connectors" not in codes(verdict)
    note = only(verdict, "power.gpu_adapters")
    assert (note.severity, note.measured, note.unit) == ("info", 1, "adapters")
    # 600 W cards take no adapter: the third one has no cable
    finding = only(check(snapshot, body, gpus=lines(("rtx-pro-6000-blackwell", 3))), "power.gpu_connectors")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 3, 2, "12v-2x6 cables")
    assert (finding.fixes[-1].ops[0].op, finding.fixes[-1].ops[0].qty) == ("remove", 1)


def test_gpu_power_connectors_rack_uses_the_power_board(snapshot: CatalogSnapshot) -> None:
    # rack chassis feed GPUs from their board, whatever the CRPS units (which have no GPU cables)
    assert "power.gpu_connectors" not in codes(check(snapshot, EIGHT_H200_NVL))


def test_circuit_120v_workstation(snapshot: CatalogSnapshot) -> None:
    assert "power.circuit_120v" not in codes(check(snapshot, TOWER, site_voltage=120))  # 956 W / 0.92 = 1,039 W
    body = body_of(
        "ws-tr-pro-2gpu-4u5: 1 tr-pro-9995wx, 2 h200-nvl, 2 psu-crps-2000w, 8 ddr5-rdimm-128gb, 2 nvme-4tb, 1 nic-100g",
        site_voltage=120,
    )
    verdict = check(snapshot, body)
    finding = only(verdict, "power.circuit_120v")
    load = (1200 + 350 + 64 + 24 + 25 + 150) * 1.1  # 1,994.3 W
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == (
        "error",
        round(load / 0.92, 1),
        1440.0,
        "W",
    )
    assert "120 V/15 A" in finding.message
    assert finding.fixes[0].text.startswith("set site_voltage 230")
    # the PSUs themselves carry it (2 × 1000 W low-line): only the headroom warning from the PSU budget
    assert only(verdict, "power.headroom").measured == round(load / 2000 * 100, 1)


def test_circuit_rule_leaves_rack_servers_to_the_pdu(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SERVER, site_voltage=120, psus=lines(("psu-crps-2000w", 4)))
    assert "power.circuit_120v" not in codes(verdict)


def test_atx_transients(snapshot: CatalogSnapshot) -> None:
    assert "power.transient" not in codes(check(snapshot, TOWER))  # 956 W on 1300 W = 73.5 %
    verdict = check(snapshot, TOWER, psus=lines(("psu-atx-1000w", 1)))
    finding = only(verdict, "power.transient")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 955.9, 750.0)
    assert finding.fixes[0].ops[0].sku == "psu-atx-1600w"  # 956 / 0.75 = 1,275 W: the smallest ATX unit within 80 %
