"""Issue 12: PCIe per socket, switch and chipset, and fixed baseboards (the chassis' topology fields in the
fixture, each with its source)."""

from __future__ import annotations

from typing import Any

from configurator.engine.types import CatalogSnapshot
from tests.configurator.helpers import body_of, codes, lines, only, validate_body

# platform_checks: the HGX maximum (n+1)
HGX = body_of(
    "srv-hgx-h200-5u: 2 epyc-9754, 8 h200-sxm, 6 psu-crps-3000w, 16 ddr5-rdimm-128gb, 2 nvme-4tb, 1 nic-400g",
    psu_redundancy="n+1",
)
AM5 = body_of("ws-tower-am5: 1 ryzen-9-9950x, 1 rtx-5090, 1 psu-atx-1300w, 2 ddr5-udimm-48gb")
EPYC_2U = body_of("srv-4gpu-2u-epyc: 2 epyc-9654, 4 l40s, 4 psu-crps-2000w, 24 ddr5-rdimm-64gb", psu_redundancy="n+1")


def check(snapshot: CatalogSnapshot, body: dict[str, Any], **changes: Any) -> Any:
    return validate_body(snapshot, body, **changes)


def test_hgx_with_eight_400g_nics_is_valid(snapshot: CatalogSnapshot) -> None:
    assert check(snapshot, HGX).valid
    verdict = check(snapshot, HGX, nics=lines(("nic-400g", 8)))
    assert verdict.valid, verdict.errors
    chassis = snapshot.chassis["srv-hgx-h200-5u"]
    assert chassis.io_behind_switches
    # the CPUs see only the switches' uplinks: the NICs add nothing to the CPU lanes
    assert verdict.pcie.lanes_needed == chassis.pcie_switch_uplinks * 16


def test_am5_with_one_gpu_and_four_nvme_is_valid(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, AM5, storage=lines(("nvme-2tb", 4)))
    assert verdict.valid, verdict.errors
    chipset = snapshot.chassis["ws-tower-am5"].chipset_m2_slots
    assert chipset == 2
    assert verdict.pcie.lanes_needed == 16 + (4 - chipset) * 4


def test_an_empty_socket_makes_its_gpu_positions_dead(snapshot: CatalogSnapshot) -> None:
    chassis = snapshot.chassis["srv-4gpu-2u-epyc"]
    live = chassis.gpu_slots_per_socket[0]
    assert check(snapshot, EPYC_2U).valid
    verdict = check(snapshot, EPYC_2U, cpus=lines(("epyc-9654", 1)), memory=lines(("ddr5-rdimm-64gb", 12)))
    finding = only(verdict, "pcie.dead_slots")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 4, live)
    assert f"GPU positions {live + 1}-{chassis.gpu_bays} of srv-4gpu-2u-epyc" in finding.message
    assert "empty CPU socket" in finding.message
    # a lone CPU brings its socket's lanes, not its 1P figure
    assert verdict.pcie.lanes_available == snapshot.cpus["epyc-9654"].pcie_lanes_per_socket_2p
    assert finding.fixes[0].text == "add 1× epyc-9654"
    fewer = check(snapshot, EPYC_2U, cpus=lines(("epyc-9654", 1)), gpus=lines(("l40s", live)))
    assert "pcie.dead_slots" not in codes(fewer)


def test_three_sxm_modules_on_the_hgx_board(snapshot: CatalogSnapshot) -> None:
    board = snapshot.chassis["srv-hgx-h200-5u"]
    assert (board.gpu_baseboard, board.baseboard_gpu_counts) == ("HGX H200 8-GPU", (4, 8))
    verdict = check(snapshot, HGX, gpus=lines(("h200-sxm", 3)))
    finding = only(verdict, "fit.baseboard_count")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 3, "4, 8")
    assert "HGX H200 8-GPU" in finding.message
    assert [fix.text for fix in finding.fixes] == ["add 1× h200-sxm"]
    for count in board.baseboard_gpu_counts:
        assert "fit.baseboard_count" not in codes(check(snapshot, HGX, gpus=lines(("h200-sxm", count))))
