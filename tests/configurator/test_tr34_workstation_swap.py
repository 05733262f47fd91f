"""Trial tr34: a Puget-style build, 4× RTX 6000 Ada in a TRX50 tower that takes 3. The chassis fix went to a 2U
rack server with server fans before the Threadripper PRO workstation that takes 4-6 cards; and once the
workstation was offered, which alone leaves the build valid, "the proposed fixes together" added "remove 1×
rtx-6000-ada" to it, a card lost for nothing."""

from __future__ import annotations

from configurator.engine.builds import build_from_payload
from configurator.engine.rules.context import build_gpus, chassis_for_gpus
from configurator.engine.types import CatalogSnapshot
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, only

TOWER = body_of("ws-tower-trx50: 1 tr-7980x, 4 rtx-6000-ada, 1 psu-atx-1600w, 4 ddr5-rdimm-64gb, 1 nvme-2tb")


def test_a_workstation_is_offered_a_workstation_first(snapshot: CatalogSnapshot) -> None:
    build = build_from_payload(TOWER, snapshot)
    options = chassis_for_gpus(snapshot, build_gpus(build), like=build.chassis)
    assert options[0].sku == "ws-tr-pro-6gpu-6u5"
    assert all(not c.is_workstation for c in options[1:])
    server = build_from_payload({**TOWER, "chassis": "srv-4gpu-2u-epyc"}, snapshot)
    assert not chassis_for_gpus(snapshot, build_gpus(server), like=server.chassis)[0].is_workstation


def test_no_combined_fix_adds_steps_to_a_fix_that_alone_leaves_the_build_valid(snapshot: CatalogSnapshot) -> None:
    verdict = validate(build_from_payload(TOWER, snapshot), snapshot=snapshot)
    fixes = only(verdict, "fit.gpu_count").fixes
    assert fixes[0].ops[0].op == "swap_chassis" and fixes[0].ops[0].sku == "ws-tr-pro-6gpu-6u5"
    every = [fix for finding in verdict.findings for fix in finding.fixes]
    assert not any("the proposed fixes together" in (fix.text or "") for fix in every)
    assert not any(
        any(op.op == "swap_chassis" for op in fix.ops or ()) and any(op.op == "remove" for op in fix.ops or ())
        for fix in every
    )


def test_the_swap_keeps_the_cores_of_the_builds_cpu(snapshot: CatalogSnapshot) -> None:
    """The lanes rule's swap took the cheapest CPU of the most lanes (a 16-core 9955WX for a 64-core 7980X);
    it now keeps the cores closest to the build's, as the socket fix does."""
    verdict = validate(build_from_payload(TOWER, snapshot), snapshot=snapshot)
    swap = only(verdict, "pcie.slot_lanes").fixes[0]
    cpu = next(op for op in swap.ops or () if op.kind == "cpus")
    assert snapshot.cpus[str(cpu.sku)].cores == 64
