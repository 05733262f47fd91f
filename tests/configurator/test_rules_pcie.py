"""PCIe rules (engine/rules/pcie.py, budgets/lanes.py): slot wiring, x8 fallback, switch uplinks, CPU lane budget.

Lanes (validation-rules.md §2.1-2.2, fixtures/catalog.json `_meta.platform_checks`): 16 per GPU (x8 cards 8),
4 per NVMe, NIC lanes; behind switches the uplinks × 16 count instead of the GPUs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from configurator.engine.builds import build_from_payload
from configurator.engine.fixes import apply_fix
from configurator.engine.types import BuildSpec, CatalogSnapshot, Verdict
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, lines, only

TOWER = body_of("ws-tower-am5: 1 ryzen-9-9950x, 1 rtx-5090, 1 psu-atx-2200w, 2 ddr5-udimm-48gb, 1 nvme-2tb")
TRX50 = body_of("ws-tower-trx50: 1 tr-7960x, 3 rtx-4090, 1 psu-atx-2200w, 4 ddr5-rdimm-64gb, 1 nvme-2tb")
SWITCHED = body_of(
    "srv-8gpu-4u-epyc: 2 epyc-9755, 8 h200-nvl, 4 psu-crps-3000w, 16 ddr5-rdimm-128gb, 2 nvme-4tb, "
    "1 nic-200g, 2 nvlink-bridge-h200-4way",
    psu_redundancy="n+1",
)
XEON_DIRECT = body_of(
    "srv-8gpu-4u-xeon: 2 xeon-6980p, 8 h200-nvl, 4 psu-crps-3000w, 24 ddr5-rdimm-128gb, 2 nvme-4tb, 1 nic-200g",
    psu_redundancy="n+1",
)


def build(snapshot: CatalogSnapshot, body: dict[str, Any], **changes: Any) -> BuildSpec:
    return build_from_payload({**body, **changes}, snapshot)


def check(snapshot: CatalogSnapshot, body: dict[str, Any], **changes: Any) -> Verdict:
    return validate(build(snapshot, body, **changes), snapshot=snapshot)


def codes(verdict: Verdict) -> set[str]:
    return {finding.code for finding in verdict.findings if finding.code.startswith("pcie.")}


def test_slot_lanes_four_x16_gpus_on_trx50(snapshot: CatalogSnapshot) -> None:
    three = check(snapshot, TRX50)
    assert codes(three) == set()
    assert (three.pcie.lanes_needed, three.pcie.lanes_available) == (52, 88)  # 48 GPU + 4 NVMe of 88
    verdict = check(snapshot, TRX50, gpus=lines(("rtx-4090", 4)))
    finding = only(verdict, "pcie.slot_lanes")
    # 4 × x16 = 64 lanes; TRX50 wires 48 Gen5 lanes to 3 GPU slots, not enough even at x8 (4 cards > 3 bays)
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 64, 48, "lanes")
    assert finding.fixes[-1].text == "remove 1× rtx-4090 (3 GPUs get their own x16/x8 links)"


def test_x8_fallback_on_am5(snapshot: CatalogSnapshot) -> None:
    assert codes(check(snapshot, TOWER)) == set()
    verdict = check(snapshot, TOWER, gpus=lines(("rtx-5090", 2)))
    finding = only(verdict, "pcie.x8_fallback")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 32, 16)
    assert finding.message.startswith("2 of 2 GPUs run at x8")
    # issue 12: the drive sits on the chipset's M.2 (was "GPUs 16 + 4 NVMe = 20 of 24")
    assert (verdict.pcie.lanes_needed, verdict.pcie.lanes_available) == (16, 24)


def test_x8_cards_need_no_fallback(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, TOWER, gpus=lines(("rtx-5060-ti-16gb", 2)))  # two native x8 cards on 16 lanes
    assert codes(verdict) == set()
    assert verdict.pcie.lanes_needed == 16  # issue 12: the NVMe drive on the chipset's M.2


def test_shared_uplink(snapshot: CatalogSnapshot) -> None:
    base = build(snapshot, SWITCHED)
    assert codes(validate(base, snapshot=snapshot)) == {"pcie.p2p_acs"}  # 8 GPUs on 4 uplinks = 2 each
    two_uplinks = replace(base, chassis=replace(base.chassis, pcie_switch_uplinks=2))
    finding = only(validate(two_uplinks, snapshot=snapshot), "pcie.shared_uplink")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 4, 2)


def test_switched_builds_count_uplinks(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SWITCHED)
    # platform_checks: "4 uplinks x16 = 64 + 8 NVMe + 16 NIC = 88 of 128"
    assert (verdict.pcie.lanes_needed, verdict.pcie.lanes_available, verdict.pcie.topology) == (88, 128, "switched")


def test_p2p_acs_info_only_behind_switches(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SWITCHED), "pcie.p2p_acs")
    assert finding.severity == "info"
    assert "ACS" in finding.message
    assert "pcie.p2p_acs" not in codes(check(snapshot, XEON_DIRECT))  # direct slots


def test_cpu_lane_budget_one_cpu_in_a_2p_board(snapshot: CatalogSnapshot) -> None:
    two = check(snapshot, XEON_DIRECT)
    assert codes(two) == set()
    assert (two.pcie.lanes_needed, two.pcie.lanes_available) == (152, 192)  # 2 × 96 Xeon 6980P lanes
    verdict = check(snapshot, XEON_DIRECT, cpus=lines(("xeon-6980p", 1)), memory=lines(("ddr5-rdimm-128gb", 12)))
    # issue 12: the lone CPU brings its socket's 96 lanes and GPU positions 1-4; 5-8 are dead (an error that
    # names them, where one CPU used to get every slot and the lane error gave the wrong reason)
    chassis = snapshot.chassis["srv-8gpu-4u-xeon"]
    live = chassis.gpu_slots_per_socket[0]
    finding = only(verdict, "pcie.dead_slots")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 8, live, "GPUs")
    assert f"GPU positions {live + 1}-{chassis.gpu_bays}" in finding.message
    assert verdict.pcie.lanes_available == snapshot.cpus["xeon-6980p"].pcie_lanes_per_socket_2p
    assert (finding.fixes[0].ops[0].op, finding.fixes[0].ops[0].sku, finding.fixes[0].ops[0].qty) == (
        "add",
        "xeon-6980p",
        1,
    )


def test_cpu_lane_budget_desktop(snapshot: CatalogSnapshot) -> None:
    # issue 12: two of the four M.2 sockets hang off the AM5 chipset, so 1 GPU + 4 NVMe fits the 24 lanes
    four = check(snapshot, TOWER, storage=lines(("nvme-2tb", 4)))
    assert "pcie.lanes" not in codes(four) and four.valid
    assert four.pcie.lanes_needed == 16 + 2 * 4
    nic = snapshot.nics["nic-25g"]
    verdict = check(snapshot, TOWER, storage=lines(("nvme-2tb", 4)), nics=lines(("nic-25g", 1)))
    finding = only(verdict, "pcie.lanes")
    assert (finding.measured, finding.limit) == (24 + nic.pcie_lanes, 24)
    fix = finding.fixes[0]
    assert (fix.ops[0].op, fix.ops[0].sku) == ("swap_chassis", "ws-tower-trx50")  # a tower for a tower
    assert "with cpu tr-79" in fix.text


def _slot_lanes(verdict: Verdict) -> str:
    return str(only(verdict, "pcie.slot_lanes").message)


def test_four_cards_in_three_slots_blames_the_slots_with_a_proven_fix(snapshot: CatalogSnapshot) -> None:
    """Issue 12: 4 × RTX A6000 in the 3-slot TRX50 tower: at x8 the 48 lanes would carry 4 cards (32 lanes), so
    the cause is the slots, not the lanes; the fix offered removes the fourth card and is proven."""
    body = body_of("ws-tower-trx50: 1 tr-7960x, 4 rtx-a6000, 1 psu-atx-2200w, 4 ddr5-rdimm-64gb")
    verdict = check(snapshot, body)
    message = _slot_lanes(verdict)
    assert message.startswith("4 GPUs for 3 GPU slots") and "the slots are what is missing" in message
    assert "not enough even at x8" not in message
    finding = only(verdict, "pcie.slot_lanes")
    fix = next(fix for fix in finding.fixes if fix.applicable)
    fixed = validate(apply_fix(build(snapshot, body), fix, snapshot), snapshot=snapshot)
    assert "pcie.slot_lanes" not in codes(fixed)
    assert {f.code for f in fixed.errors} <= {f.code for f in verdict.errors}


def test_more_cards_than_slots_and_too_few_lanes_names_both(snapshot: CatalogSnapshot) -> None:
    """9 × L40S on the 8-slot Xeon server with one CPU: 9 cards for 8 slots, and 72 lanes at x8 for the 64 lanes
    of the filled socket's slots."""
    body = body_of("srv-8gpu-4u-xeon: 1 xeon-6980p, 9 l40s, 4 psu-crps-3000w, 12 ddr5-rdimm-64gb", psu_redundancy="n+1")
    message = _slot_lanes(check(snapshot, body))
    assert message.startswith("9 GPUs for 8 GPU slots, and 72 lanes even at x8 for the 64 GPU lanes")
    assert message.endswith("both slots and lanes are missing.")


def test_too_few_lanes_in_enough_slots_blames_the_lanes(snapshot: CatalogSnapshot) -> None:
    """3 × x16 cards in 3 slots wired with 16 lanes: 24 lanes even at x8, the lanes are the cause."""
    base = build(snapshot, TRX50)
    narrow = replace(base, chassis=replace(base.chassis, gpu_slot_lanes=16))
    message = _slot_lanes(validate(narrow, snapshot=snapshot))
    assert message == (
        "3 GPUs need 48 lanes at full width; ws-tower-trx50 wires 16 GPU lanes in 3 slots, not enough even at x8."
    )
