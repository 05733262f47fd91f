"""`configurator.engine.fixes`: fixes are data; `apply_fix` makes each kind of step on a BuildSpec and
`fix_sentence` is the one place they become words."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.fixture import fixture_snapshot
from configurator.engine.builds import build_from_payload, build_to_payload
from configurator.engine.fixes import (
    FixNotApplicable,
    add_op,
    apply_fix,
    chassis_op,
    fix_from_data,
    fix_op_data,
    make_fix,
    remove_op,
    replace_op,
    set_op,
    workload_fix,
)
from configurator.engine.phrase import Phrase
from configurator.engine.types import Fix, FixOp, FixOpKind
from configurator.engine.validate import validate

SNAPSHOT = fixture_snapshot()
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


def made(fix: Fix, body: dict[str, Any] | None = None) -> dict[str, Any]:
    return build_to_payload(apply_fix(build_from_payload(body or BODY, SNAPSHOT), fix, SNAPSHOT))


def test_add_raises_an_existing_line_or_adds_one() -> None:
    assert made(make_fix(add_op("psus", "psu-crps-3000w", 2)))["psus"] == [{"sku": "psu-crps-3000w", "qty": 4}]
    assert made(make_fix(add_op("storage", "nvme-4tb", 1)))["storage"] == [{"sku": "nvme-4tb", "qty": 1}]
    assert BODY["psus"] == [{"sku": "psu-crps-3000w", "qty": 2}]  # the input is not changed


def test_remove_lowers_a_line_and_drops_it_at_zero() -> None:
    assert made(make_fix(remove_op("gpus", "h200-nvl", 1)))["gpus"] == [{"sku": "h200-nvl", "qty": 7}]
    assert made(make_fix(remove_op("cpus", "epyc-9554", 2)))["cpus"] == []


def test_replace_a_kind_or_a_named_line() -> None:
    kind = made(make_fix(replace_op("psus", "psu-crps-2000w", 4)))
    named = made(make_fix(replace_op("psus", "psu-crps-2000w", 4, old_sku="psu-crps-3000w")))
    assert kind["psus"] == named["psus"] == [{"sku": "psu-crps-2000w", "qty": 4}]


def test_replace_a_named_line_keeps_the_others_and_merges_the_same_part() -> None:
    mixed = {**BODY, "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 12}, {"sku": "ddr5-rdimm-32gb", "qty": 12}]}
    body = made(make_fix(replace_op("memory", "ddr5-rdimm-64gb", 12, old_sku="ddr5-rdimm-32gb")), mixed)
    assert body["memory"] == [{"sku": "ddr5-rdimm-64gb", "qty": 24}]


def test_replace_without_a_quantity_keeps_the_count() -> None:
    assert made(make_fix(replace_op("cpus", "epyc-9654")))["cpus"] == [{"sku": "epyc-9654", "qty": 2}]


def test_a_chassis_swap_carries_the_lines_it_needs() -> None:
    plain = made(make_fix(chassis_op("srv-8gpu-4u-xeon")))
    assert plain["chassis"] == "srv-8gpu-4u-xeon" and plain["cpus"] == BODY["cpus"]
    with_cpu = made(make_fix(chassis_op("srv-8gpu-4u-xeon"), replace_op("cpus", "xeon-8480plus", 2)))
    assert (with_cpu["chassis"], with_cpu["cpus"]) == ("srv-8gpu-4u-xeon", [{"sku": "xeon-8480plus", "qty": 2}])
    hgx = made(make_fix(chassis_op("srv-hgx-h200-5u"), replace_op("gpus", "h200-sxm", 8)))
    assert hgx["gpus"] == [{"sku": "h200-sxm", "qty": 8}]


def test_settings() -> None:
    assert made(make_fix(set_op("psu_redundancy", "n+n")))["psu_redundancy"] == "n+n"
    assert made(make_fix(set_op("site_voltage", 230)), {**BODY, "site_voltage": 120})["site_voltage"] == 230


@pytest.mark.parametrize(
    "bad",
    [
        workload_fix(Phrase("use llama.cpp or vLLM (ROCm), or NVIDIA GPUs")),
        make_fix(set_op("psu_redundancy", "n+7")),
        make_fix(set_op("site_voltage", 110)),
        make_fix(FixOp(op=FixOpKind.ADD, kind="gpus", sku=None, qty=1)),
        make_fix(FixOp(op=FixOpKind.ADD, kind="spaceship", sku="x", qty=1)),
        make_fix(remove_op("gpus", "rtx-4090", 1)),  # the build has none
        make_fix(replace_op("memory", "ddr5-rdimm-64gb", 4, old_sku="ddr5-rdimm-32gb")),  # nor this line
        make_fix(chassis_op("no-such-chassis")),
        Fix(ops=()),
    ],
)
def test_fixes_that_cannot_be_made(bad: Fix) -> None:
    with pytest.raises(FixNotApplicable):
        made(bad)


@pytest.mark.parametrize(
    ("fix", "text"),
    [
        (make_fix(add_op("psus", "psu-crps-3000w", 2)), "add 2× psu-crps-3000w"),
        (make_fix(remove_op("gpus", "l40s", 1), reason=Phrase("3 GPUs left")), "remove 1× l40s (3 GPUs left)"),
        (make_fix(replace_op("psus", "psu-crps-3000w", 4)), "replace psus with 4× psu-crps-3000w"),
        (make_fix(replace_op("cpus", "epyc-9654", 2)), "use cpu epyc-9654 ×2"),
        (make_fix(replace_op("memory", "a", 2, old_sku="b")), "replace b with 2× a"),
        (make_fix(chassis_op("x"), replace_op("cpus", "y", 1)), "use chassis x with cpu y"),
        (make_fix(chassis_op("x"), replace_op("gpus", "g", 8)), "use chassis x with 8× g"),
        (
            make_fix(set_op("psu_redundancy", "n+1"), replace_op("psus", "p", 4)),
            "set psu_redundancy n+1; replace psus with 4× p",
        ),
        (
            make_fix(set_op("site_voltage", 230), reason=Phrase("a 200-240 V circuit")),
            "set site_voltage 230 (a 200-240 V circuit)",
        ),
        (workload_fix(Phrase("use vLLM")), "use vLLM"),
    ],
)
def test_one_function_makes_the_sentence(fix: Fix, text: str) -> None:
    assert fix.text == text
    assert isinstance(fix.text, Phrase)  # so a page says it in its language


def test_a_fix_survives_its_json() -> None:
    fix = make_fix(chassis_op("srv-8gpu-4u-xeon"), replace_op("cpus", "xeon-8480plus", 2), set_op("site_voltage", 230))
    data = {"ops": [fix_op_data(op) for op in fix.ops], "text": "ignored"}
    assert fix_from_data(data).ops == fix.ops


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({}, "fix.ops"),
        ({"ops": []}, "fix.ops"),
        ({"ops": ["add"]}, "fix.ops[0]"),
        ({"ops": [{"op": "teleport"}]}, "fix.ops[0].op"),
        ({"ops": [{"op": "add", "kind": "gpus", "sku": "l4", "qty": "2"}]}, "fix.ops[0].qty"),
        ({"ops": [{"op": "add", "kind": ["gpus"], "sku": "l4"}]}, "fix.ops[0].kind"),
        ({"ops": [{"op": "set", "field": "site_voltage", "value": True}]}, "fix.ops[0].value"),
    ],
)
def test_malformed_fix_data_names_the_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(FixNotApplicable) as raised:
        fix_from_data(data)
    assert field in raised.value.fields


def test_every_fix_the_rules_offer_on_a_broken_build_can_be_made_or_is_a_workload_change() -> None:
    broken = {**BODY, "psus": [], "memory": [], "cpus": [], "psu_redundancy": "none", "bridges": []}
    build = build_from_payload(broken, SNAPSHOT)
    fixes = [fix for finding in validate(build, snapshot=SNAPSHOT).findings for fix in finding.fixes]
    assert len(fixes) >= 3
    for fix in fixes:
        if fix.applicable:
            apply_fix(build, fix, SNAPSHOT)
        else:
            assert all(op.op == FixOpKind.CHANGE_WORKLOAD for op in fix.ops)
