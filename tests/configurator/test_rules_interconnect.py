"""Interconnect rules (configurator/rules/interconnect.py): NVLink bridges, NVSwitch, TP over PCIe.

Which GPU takes which bridge: validation-rules.md §4 ([V19][V21][S1][S6]). A bridge SKU is one complete
set for one group of `ways` GPUs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from configurator.engine.budgets.links import build_link, effective_link_gbs
from configurator.engine.builds import build_from_payload
from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, Line, Verdict, Workload
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, lines, only

SERVER = body_of(
    "srv-4gpu-2u-epyc: 2 epyc-9554, 4 h200-nvl, 4 psu-crps-2700w, 24 ddr5-rdimm-64gb, 1 nvlink-bridge-h200-4way",
    psu_redundancy="n+n",
)
EIGHT = body_of(
    "srv-8gpu-4u-epyc: 2 epyc-9755, 8 h200-nvl, 4 psu-crps-3000w, 24 ddr5-rdimm-128gb, 2 nvlink-bridge-h200-4way",
    psu_redundancy="n+1",
)
TRX50_3090 = body_of(
    "ws-tower-trx50: 1 tr-7960x, 2 rtx-3090, 1 psu-atx-1600w, 4 ddr5-rdimm-32gb, 1 nvlink-bridge-rtx-3090-2way"
)


def check(snapshot: CatalogSnapshot, body: dict[str, Any], workload: Workload | None = None, **changes: Any) -> Verdict:
    return validate(build_from_payload({**body, **changes}, snapshot), snapshot=snapshot, workload=workload)


def links(verdict: Verdict) -> set[str]:
    return {f.code for f in verdict.findings if f.code.startswith("interconnect.")}


def test_passing_bridge_sets(snapshot: CatalogSnapshot) -> None:
    assert links(check(snapshot, SERVER)) == set()  # 4 × H200 NVL, one 4-way set
    assert links(check(snapshot, EIGHT)) == set()  # 8 × H200 NVL, two 4-way sets
    six = check(
        snapshot,
        EIGHT,
        gpus=lines(("h200-nvl", 6)),
        bridges=lines(("nvlink-bridge-h200-4way", 1), ("nvlink-bridge-h200-2way", 1)),
    )
    assert links(six) == set()
    assert links(check(snapshot, TRX50_3090)) == set()


def test_bridge_on_gpu_without_nvlink(snapshot: CatalogSnapshot) -> None:
    body = body_of(
        "ws-tr-pro-6gpu-6u5: 1 tr-pro-9995wx, 2 rtx-pro-6000-blackwell, 2 psu-crps-2000w, 8 ddr5-rdimm-64gb, "
        "1 nvlink-bridge-h200-2way"
    )
    finding = only(check(snapshot, body), "interconnect.no_nvlink")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "none", "bridge-2way or bridge-2or4way")
    assert finding.fixes[0].text == "remove 1× nvlink-bridge-h200-2way"
    assert links(check(snapshot, body, bridges=[])) == set()


def test_bridge_of_another_family(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SERVER, bridges=lines(("nvlink-bridge-h100-2way", 2)))
    finding = only(verdict, "interconnect.bridge_mismatch")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "h200-nvl", "h100-nvl, h100-pcie")
    assert [fix.text for fix in finding.fixes] == [
        "remove 2× nvlink-bridge-h100-2way",
        # issue 12: the wrong bridge out and the right one in, as one replace (an add alone fixed nothing)
        "replace nvlink-bridge-h100-2way with 1× nvlink-bridge-h200-4way",
    ]


def test_bridged_gpus_must_be_one_model(snapshot: CatalogSnapshot) -> None:
    body = {**SERVER, "gpus": lines(("a100-40gb-pcie", 2)), "bridges": lines(("nvlink-bridge-a100-2way", 1))}
    assert links(check(snapshot, body)) == set()
    mixed = check(snapshot, body, gpus=lines(("a100-40gb-pcie", 1), ("a100-80gb-pcie", 1)))
    finding = only(mixed, "interconnect.mixed_models")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 2, 1)


def test_two_way_gpu_cannot_take_a_four_way_bridge(snapshot: CatalogSnapshot) -> None:
    build = build_from_payload({**TRX50_3090, "gpus": lines(("rtx-3090", 3))}, snapshot)
    four_way = replace(snapshot.bridges["nvlink-bridge-rtx-3090-2way"], sku="nvlink-bridge-rtx-3090-4way", ways=4)
    verdict = validate(replace(build, bridges=(Line(four_way, 1),)), snapshot=snapshot)
    finding = only(verdict, "interconnect.bridge_ways")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 4, 2)


def test_too_many_bridge_sets(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, bridges=lines(("nvlink-bridge-h200-4way", 2))), "interconnect.bridge_count")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 8, 4, "bridged GPUs")
    assert "expected: 1× nvlink-bridge-h200-4way" in finding.message


def test_too_few_bridge_sets(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, EIGHT, bridges=lines(("nvlink-bridge-h200-4way", 1)))
    finding = only(verdict, "interconnect.bridge_missing")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 4, 8)
    assert finding.fixes[0].text == "add 1× nvlink-bridge-h200-4way"


def test_odd_gpu_left_over(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, TRX50_3090, gpus=lines(("rtx-3090", 3))), "interconnect.unbridged_gpu")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 1, 0)


def test_bridge_suggested_when_none_is_fitted(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, EIGHT, bridges=[]), "interconnect.no_bridge")
    assert (finding.severity, finding.measured, finding.limit) == ("info", 0, 2)
    assert finding.fixes[0].text == "add 2× nvlink-bridge-h200-4way"
    pair = only(check(snapshot, SERVER, gpus=lines(("h200-nvl", 2)), bridges=[]), "interconnect.no_bridge")
    assert pair.fixes[0].text == "add 1× nvlink-bridge-h200-2way"


def test_nvswitch_gpu_outside_hgx(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, gpus=lines(("h200-sxm", 4)), bridges=[]), "interconnect.nvswitch")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "no nvswitch", "nvswitch")
    # issue 34: the card's PCIe edition that fits the chassis before a chassis swap to the HGX board
    assert finding.fixes[0].ops[0].sku == "h200-nvl"
    hgx = body_of(
        "srv-hgx-h200-5u: 2 epyc-9754, 8 h200-sxm, 6 psu-crps-3000w, 24 ddr5-rdimm-128gb", psu_redundancy="n+1"
    )
    assert links(check(snapshot, hgx)) == set()


def test_bridge_slot_spacing(snapshot: CatalogSnapshot) -> None:
    body = {**TRX50_3090, "gpus": lines(("rtx-a6000", 2)), "bridges": lines(("nvlink-bridge-rtx-a6000-2way", 1))}
    verdict = check(snapshot, body)
    finding = only(verdict, "interconnect.bridge_spacing")  # 2-slot bridge, 3-slot pitch
    # issue 12: an error now (was a warning): the rigid bridge does not reach the next card
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 2, 3, "slots")
    assert [fix.text for fix in finding.fixes] == [
        "replace nvlink-bridge-rtx-a6000-2way with 1× nvlink-bridge-rtx-a6000-3slot-2way"
    ]
    assert effective_link_gbs(build_from_payload({**body}, snapshot)) is None  # the estimate assumes PCIe
    fixed = check(snapshot, body, bridges=lines(("nvlink-bridge-rtx-a6000-3slot-2way", 1)))
    assert "interconnect.bridge_spacing" not in fixed.codes()
    three_slot = snapshot.bridges["nvlink-bridge-rtx-a6000-3slot-2way"]
    gpu = snapshot.gpus["rtx-a6000"]
    linked = build_from_payload({**body, "bridges": lines((three_slot.sku, 1))}, snapshot)
    assert effective_link_gbs(linked) == gpu.nvlink_gbs
    assert links(check(snapshot, TRX50_3090)) == set()  # the 3090 bridge spans 3 slots


def test_mixed_gpu_models_in_one_server(snapshot: CatalogSnapshot) -> None:
    body = {**SERVER, "chassis": "srv-8gpu-4u-epyc", "bridges": [], "psus": lines(("psu-crps-3000w", 4))}
    assert "interconnect.mixed_gpus" not in check(snapshot, body).codes()
    mixed = check(snapshot, body, gpus=lines(("h200-nvl", 4), ("l40s", 4)))
    finding = only(mixed, "interconnect.mixed_gpus")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 2, 1)
    slowest = min((snapshot.gpus[sku] for sku in ("h200-nvl", "l40s")), key=lambda gpu: gpu.bandwidth_gbs)
    assert "no NVLink across different models" in finding.message
    assert slowest.sku in finding.message and "slowest card" in finding.message


def test_tensor_parallel_over_pcie(snapshot: CatalogSnapshot) -> None:
    # 80 users of 16k tokens: only tensor parallelism over all 4 GPUs holds them (estimate.serving tries no split
    # whose replicas cannot hold their share of the users)
    workload = Workload(
        model=model_get("llama-3.1-70b"), precision="fp8", kv_cache_precision="bf16", engine="vllm",
        concurrent_users=80, context_tokens=16384,
    )  # fmt: skip
    assert links(check(snapshot, SERVER, workload)) == set()  # the 4-way set links them: NVLink all-reduce
    verdict = check(snapshot, SERVER, workload, bridges=[])
    # issue 33: the 2U EPYC server wires 2 GPU positions to each socket, so TP-4 crosses the sockets' xGMI
    # (NCCL's 24 GB/s for Zen 4 = 31.5 on the estimator's scale), slower than the cards' PCIe 5.0 x16
    finding = only(verdict, "interconnect.tp_over_sockets")
    assert "xGMI (EPYC Zen 4) (31.5 GB/s)" in finding.message
    gpu = snapshot.gpus["h200-nvl"]
    sockets = build_link(build_from_payload({**SERVER, "bridges": []}, snapshot))
    over_pcie = estimate(workload, gpu, 4, link_gbs=sockets).throughput
    over_nvlink = estimate(workload, gpu, 4, link_gbs=900.0).throughput
    assert over_pcie is not None and over_nvlink is not None
    assert finding.measured == round(over_pcie.decode_tokens_per_s_per_user, 2)
    assert finding.limit == round(over_nvlink.decode_tokens_per_s_per_user, 2)
    assert isinstance(finding.measured, float) and isinstance(finding.limit, float)
    assert finding.measured < finding.limit
    assert finding.severity == ("warning" if finding.measured / finding.limit <= 0.95 else "info")
    assert finding.fixes[0].text == "add 1× nvlink-bridge-h200-4way"
