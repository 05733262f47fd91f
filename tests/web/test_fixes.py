"""`configurator.engine.fixes.build_apply_fix`: each kind of fix the rules offer, applied to a build body."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.fixture import fixture_snapshot
from configurator.engine.fixes import FixNotApplicable, build_apply_fix, fix_is_applicable
from configurator.engine.types import Fix
from configurator.engine.validate import validate
from configurator.presenters import fix_to_dict

BODY: dict[str, Any] = {
    "chassis": "srv-8gpu-4u-epyc",
    "cpus": [{"sku": "epyc-9554", "qty": 2}],
    "gpus": [{"sku": "h200-nvl", "qty": 8}],
    "psus": [{"sku": "psu-crps-3000w", "qty": 2}],
    "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 24}],
    "storage": [],
    "psu_redundancy": "n+1",
    "site_voltage": 230,
}


def fix(**kwargs: Any) -> dict[str, Any]:
    return fix_to_dict(Fix(**kwargs))


def test_add_raises_an_existing_line_or_adds_one() -> None:
    more = build_apply_fix(BODY, fix(action="add", sku="psu-crps-3000w", target="psus", qty=2, detail="add 2×"))
    assert more["psus"] == [{"sku": "psu-crps-3000w", "qty": 4}]
    new = build_apply_fix(BODY, fix(action="add", sku="nvme-4tb", target="storage", qty=1, detail="add 1×"))
    assert new["storage"] == [{"sku": "nvme-4tb", "qty": 1}]
    assert BODY["psus"] == [{"sku": "psu-crps-3000w", "qty": 2}]  # the input is not changed


def test_remove_lowers_a_line_and_drops_it_at_zero() -> None:
    fewer = build_apply_fix(BODY, fix(action="remove", sku="h200-nvl", target="gpus", qty=1, detail="remove 1×"))
    assert fewer["gpus"] == [{"sku": "h200-nvl", "qty": 7}]
    gone = build_apply_fix(BODY, fix(action="remove", sku="epyc-9554", target="cpus", qty=2, detail="remove 2×"))
    assert gone["cpus"] == []


@pytest.mark.parametrize(
    ("detail", "expected"),
    [
        ("replace psus with 4× psu-crps-2000w", [{"sku": "psu-crps-2000w", "qty": 4}]),
        ("replace psu-crps-3000w with 4× psu-crps-2000w", [{"sku": "psu-crps-2000w", "qty": 4}]),
    ],
)
def test_replace_a_kind_or_a_named_line(detail: str, expected: list[dict[str, Any]]) -> None:
    body = build_apply_fix(BODY, fix(action="replace", sku="psu-crps-2000w", target="psus", qty=4, detail=detail))
    assert body["psus"] == expected


def test_replace_a_named_line_keeps_the_others() -> None:
    mixed = {**BODY, "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 12}, {"sku": "ddr5-rdimm-32gb", "qty": 12}]}
    detail = "replace ddr5-rdimm-32gb with 12× ddr5-rdimm-64gb"
    body = build_apply_fix(mixed, fix(action="replace", sku="ddr5-rdimm-64gb", target="memory", qty=12, detail=detail))
    assert body["memory"] == [{"sku": "ddr5-rdimm-64gb", "qty": 12}, {"sku": "ddr5-rdimm-64gb", "qty": 12}]


def test_use_cpu_keeps_the_socket_count_when_no_qty_is_given() -> None:
    body = build_apply_fix(BODY, fix(action="replace", sku="epyc-9654", target="cpus", detail="use cpu epyc-9654"))
    assert body["cpus"] == [{"sku": "epyc-9654", "qty": 2}]


def test_chassis_replacements_with_their_extra_parts() -> None:
    plain = build_apply_fix(BODY, fix(action="replace", sku="srv-8gpu-4u-xeon", target="chassis", detail="use chassis"))
    assert plain["chassis"] == "srv-8gpu-4u-xeon" and plain["cpus"] == BODY["cpus"]
    with_cpu = build_apply_fix(
        BODY,
        fix(
            action="replace",
            sku="srv-8gpu-4u-xeon",
            target="chassis",
            detail="use chassis srv-8gpu-4u-xeon with cpu xeon-8480plus",
        ),
    )
    assert with_cpu["cpus"] == [{"sku": "xeon-8480plus", "qty": 2}]
    with_gpus = build_apply_fix(
        BODY,
        fix(
            action="replace",
            sku="srv-hgx-h200-5u",
            target="chassis",
            detail="use chassis srv-hgx-h200-5u with 8× h200-sxm",
        ),
    )
    assert with_gpus["gpus"] == [{"sku": "h200-nvl", "qty": 8}, {"sku": "h200-sxm", "qty": 8}]


def test_settings_come_from_the_detail() -> None:
    body = build_apply_fix(BODY, fix(action="set", target="psu_redundancy", detail="set psu_redundancy n+n"))
    assert body["psu_redundancy"] == "n+n"
    volts = {**BODY, "site_voltage": 120}
    body = build_apply_fix(
        volts, fix(action="set", target="site_voltage", detail="set site_voltage 230 (a 230 V circuit)")
    )
    assert body["site_voltage"] == 230


@pytest.mark.parametrize(
    "bad",
    [
        {"action": "change", "target": "workload", "detail": "use llama.cpp or vLLM (ROCm), or NVIDIA GPUs"},
        {"action": "set", "target": "psu_redundancy", "detail": "set psu_redundancy n+7"},
        {"action": "add", "target": "gpus", "detail": "add something", "sku": None},
        {"action": "add", "target": "spaceship", "detail": "add 1× x", "sku": "x"},
    ],
)
def test_fixes_that_cannot_be_applied(bad: dict[str, Any]) -> None:
    with pytest.raises(FixNotApplicable):
        build_apply_fix(BODY, fix(**bad))


def test_every_fix_the_rules_offer_on_a_broken_build_is_applicable_or_a_workload_change() -> None:
    from configurator.engine.builds import build_from_payload

    snapshot = fixture_snapshot()
    broken = {**BODY, "psus": [], "memory": [], "cpus": [], "psu_redundancy": "none", "bridges": []}
    verdict = validate(build_from_payload(broken, snapshot), snapshot=snapshot)
    fixes = [fix_to_dict(f) for finding in verdict.findings for f in finding.fixes]
    assert fixes
    for one in fixes:
        assert fix_is_applicable(one) or one["target"] == "workload", one
        build_apply_fix(broken, one)
