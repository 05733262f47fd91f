"""Issue 33, item 3: the GPU link graph (configurator/engine/estimate/topology.py).

Tensor parallelism's all-reduce is a ring that runs at its slowest edge. Pairwise NVLink bridges are not a
fabric: 8 × A100 PCIe with four 2-way bridges ran TP-8 as if every GPU had NVLink to every other (the issue:
26.5 tok/s per user against 15.3 without the bridges); most of that ring still crosses PCIe. Bandwidths:
NVLink from the catalog (A100 PCIe bridge 600 GB/s [S1]), PCIe from the generation and lanes (PCI-SIG), the
CPU sockets' link from NCCL's topo.h (Sapphire Rapids SRP_QPI_BW 22 GB/s, Zen 4 AMD_ZEN34_BW 24 GB/s, on
NCCL's scale where PCIe Gen3 x16 is 12 GB/s), Intel root-complex P2P at 5/6 (NCCL INTEL_P2P_OVERHEAD).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from configurator.engine.budgets.links import build_link
from configurator.engine.builds import build_from_payload
from configurator.engine.estimate import estimate, serving
from configurator.engine.estimate.engines import request_tokens
from configurator.engine.estimate.speed import LinkArg
from configurator.engine.estimate.topology import (
    BRIDGE,
    NVSWITCH,
    ROOT,
    SOCKET,
    SWITCH,
    Topology,
    best_groups,
    tp_bound,
)
from configurator.engine.models_library import model_get
from configurator.engine.recommend.policy import gpu_option
from configurator.engine.types import CatalogSnapshot, Estimate, GpuSpec, Workload
from tests.configurator.helpers import body_of, codes, lines, only, validate_body

# 8 × A100 80GB PCIe on a 2-socket EPYC 9004 server with PCIe switches, four 2-way bridge sets (one per pair)
A100_PAIRS = body_of(
    "srv-8gpu-4u-epyc: 2 epyc-9554, 8 a100-80gb-pcie, 4 psu-crps-3000w, 24 ddr5-rdimm-64gb, 4 nvlink-bridge-a100-2way",
    psu_redundancy="n+1",
)
# a 1-socket Threadripper PRO workstation: every GPU on one CPU's root ports, 2-slot pitch
TR_PRO = body_of("ws-tr-pro-6gpu-6u5: 1 tr-pro-9995wx, 2 a100-80gb-pcie, 2 psu-crps-2000w, 8 ddr5-rdimm-64gb")
# 8 × H100 NVL (PCIe 5.0 x16) on 2 × Xeon Sapphire Rapids, 4 GPU positions per socket, no switches
XEON_H100 = body_of(
    "srv-8gpu-4u-xeon: 2 xeon-8480plus, 8 h100-nvl, 4 psu-crps-3000w, 16 ddr5-rdimm-64gb", psu_redundancy="n+1"
)

LLAMA_70B = Workload(
    model=model_get("llama-3.1-70b"), precision="bf16", kv_cache_precision="bf16", engine="vllm", concurrent_users=32
)
LLAMA_8B = Workload(
    model=model_get("llama-3.1-8b"), precision="bf16", kv_cache_precision="bf16", engine="vllm", concurrent_users=32
)

# users that only one instance on all 8 GPUs holds at once (estimate.serving.best_served_layout tries no split whose
# replicas cannot hold their share), so the speeds and the sentences are TP-8's
FULL_70B_A100 = replace(LLAMA_70B, concurrent_users=150, context_tokens=8192)
FULL_70B_H100 = replace(LLAMA_70B, concurrent_users=180, context_tokens=8192)


def graph(snapshot: CatalogSnapshot, body: dict[str, Any], **changes: Any) -> Topology:
    link = build_link(build_from_payload({**body, **changes}, snapshot))
    assert isinstance(link, Topology)
    return link


def per_user(result: Estimate) -> float:
    assert result.throughput is not None
    return result.throughput.decode_tokens_per_s_per_user


def ring_per_user(workload: Workload, gpu: GpuSpec, count: int, link: LinkArg) -> float:
    """Each user's decode speed with tensor parallelism over all `count` GPUs (the ring these tests measure),
    whatever layout estimate() would serve them on."""
    prompt, output = request_tokens(workload)
    return serving.decode_per_user(
        workload, gpu, count, prompt_tokens=prompt, output_tokens=output, link_gbs=link, parallelism="tensor"
    ).tokens_per_s


def test_pair_bridges_do_not_make_tp8_a_fabric(snapshot: CatalogSnapshot) -> None:
    a100 = snapshot.gpus["a100-80gb-pcie"]
    bridged = graph(snapshot, A100_PAIRS)
    assert bridged.bridges == ((0, 1), (2, 3), (4, 5), (6, 7))
    bound = tp_bound(bridged, 8)
    # the ring leaves every pair over PCIe 4.0 x16: 16 × 1.969 GB/s (the EPYC's xGMI, 24 × 15.76/12 = 31.5, is
    # no slower), not the bridges' 600 GB/s
    assert (bound.kind, bound.nvlink, round(bound.gbs, 1)) == (ROOT, False, 31.5)
    with_bridges = ring_per_user(LLAMA_70B, a100, 8, bridged)
    without = ring_per_user(LLAMA_70B, a100, 8, graph(snapshot, A100_PAIRS, bridges=[]))
    assert with_bridges == pytest.approx(without, rel=0.03)
    # what the old model said: the bridges' 600 GB/s between every GPU
    as_fabric = ring_per_user(LLAMA_70B, a100, 8, 600.0)
    assert as_fabric > 1.4 * with_bridges
    # an NVSwitch build (8 × A100 SXM on HGX, 600 GB/s all-to-all) is far above
    nvswitch = ring_per_user(LLAMA_70B, snapshot.gpus["a100-80gb-sxm"], 8, 600.0)
    assert with_bridges < 0.7 * nvswitch
    # the old figures: 26.5 tok/s said with the bridges as a fabric, 15.3 without bridges
    assert 8.0 < with_bridges < 15.3


def test_tp2_inside_a_bridged_pair_gets_the_bridge(snapshot: CatalogSnapshot) -> None:
    a100 = snapshot.gpus["a100-80gb-pcie"]
    paired = graph(snapshot, TR_PRO, bridges=lines(("nvlink-bridge-a100-2way", 1)))
    bound = tp_bound(paired, 2)
    assert (bound.kind, bound.gbs, bound.nvlink) == (BRIDGE, 600.0, True)
    linked = per_user(estimate(LLAMA_8B, a100, 2, link_gbs=paired))
    alone = per_user(estimate(LLAMA_8B, a100, 2, link_gbs=graph(snapshot, TR_PRO)))
    assert linked > 1.05 * alone
    # and the same as the GPUs joined all-to-all at the bridge's rate: a pair is a complete graph
    assert linked == pytest.approx(per_user(estimate(LLAMA_8B, a100, 2, link_gbs=600.0)))


def test_tp4_over_two_bridged_pairs_is_bound_by_pcie(snapshot: CatalogSnapshot) -> None:
    a100 = snapshot.gpus["a100-80gb-pcie"]
    two_pairs = graph(
        snapshot, TR_PRO, gpus=lines(("a100-80gb-pcie", 4)), bridges=lines(("nvlink-bridge-a100-2way", 2))
    )
    bound = tp_bound(two_pairs, 4)
    assert (bound.kind, bound.nvlink, round(bound.gbs, 2)) == (ROOT, False, round(16 * 1.969, 2))
    assert "PCIe 4.0 x16 through the CPU (31.5 GB/s)" in bound.label
    assert "NVLink bridges join only 2 GPUs each" in bound.label
    # the best groups of 2 are the bridged pairs; the layout can run TP-2 in them and replicas across
    assert [(g.members, g.bound.kind) for g in best_groups(two_pairs, 2)] == [((0, 1), BRIDGE), ((2, 3), BRIDGE)]
    bridged = per_user(estimate(LLAMA_70B, a100, 4, link_gbs=two_pairs))
    plain = per_user(estimate(LLAMA_70B, a100, 4, link_gbs=graph(snapshot, TR_PRO, gpus=lines(("a100-80gb-pcie", 4)))))
    assert bridged == pytest.approx(plain)


def test_the_assumptions_name_the_link_that_bounds_tp(snapshot: CatalogSnapshot) -> None:
    a100 = snapshot.gpus["a100-80gb-pcie"]
    said = [str(s) for s in estimate(FULL_70B_A100, a100, 8, link_gbs=graph(snapshot, A100_PAIRS)).assumptions]
    tensor = next(s for s in said if s.startswith("tensor parallel over 8 GPUs"))
    assert "via PCIe 4.0 x16 through the CPU (31.5 GB/s), the slowest link of its ring" in tensor
    assert "NVLink bridges join only 2 GPUs each, so the ring between the bridged groups crosses PCIe" in tensor
    paired = graph(snapshot, TR_PRO, bridges=lines(("nvlink-bridge-a100-2way", 1)))
    said = [str(s) for s in estimate(LLAMA_8B, a100, 2, link_gbs=paired).assumptions]
    assert any("via an NVLink bridge (600 GB/s): all 2 GPUs share one bridge set" in s for s in said)


def test_the_assumptions_say_it_in_russian(snapshot: CatalogSnapshot) -> None:
    from django.utils import translation

    from configurator.wording import say

    a100 = snapshot.gpus["a100-80gb-pcie"]
    said = estimate(FULL_70B_A100, a100, 8, link_gbs=graph(snapshot, A100_PAIRS)).assumptions
    tensor = next(s for s in said if s.startswith("tensor parallel over 8 GPUs"))
    with translation.override("ru"):
        russian = say(tensor)
    assert "самое медленное звено кольца" in russian
    assert "мосты NVLink соединяют только по 2 GPU" in russian


def test_tp_across_the_sockets_is_bound_by_the_socket_link(snapshot: CatalogSnapshot) -> None:
    h100 = snapshot.gpus["h100-nvl"]
    eight = graph(snapshot, XEON_H100)
    assert eight.sockets == (0, 0, 0, 0, 1, 1, 1, 1)
    bound = tp_bound(eight, 8)
    # UPI of Sapphire Rapids: NCCL's 22 GB/s × 15.76 / 12 = 28.9 GB/s, below PCIe 5.0 x16 (63.0 / 1.2 through
    # the Intel root complex = 52.5)
    assert (bound.kind, round(bound.gbs, 1)) == (SOCKET, 28.9)
    assert "UPI 2.0 (Sapphire Rapids) (28.9 GB/s)" in bound.label
    # a TP-4 inside one socket runs at PCIe through the CPU; the four GPUs of a 4-GPU build sit on socket 1
    assert (tp_bound(eight, 4).kind, round(tp_bound(eight, 4).gbs, 1)) == (ROOT, 52.5)
    four = graph(snapshot, XEON_H100, gpus=lines(("h100-nvl", 4)))
    assert four.sockets == () and tp_bound(four, 4).kind == ROOT
    crossing = ring_per_user(LLAMA_70B, h100, 8, eight)
    over_pcie = ring_per_user(LLAMA_70B, h100, 8, None)  # PCIe 5.0 x16 everywhere, no sockets
    assert crossing < 0.95 * over_pcie
    said = [str(s) for s in estimate(FULL_70B_H100, h100, 8, link_gbs=eight).assumptions]
    assert any("via the CPU sockets' link UPI 2.0 (Sapphire Rapids) (28.9 GB/s)" in s for s in said)


def test_switches_and_nvswitch(snapshot: CatalogSnapshot) -> None:
    pairs = graph(snapshot, A100_PAIRS, bridges=[])
    # 8 positions behind 4 switch uplinks: 2 GPUs a switch, P2P inside one at the full x16
    assert pairs.switches == (0, 0, 1, 1, 2, 2, 3, 3)
    assert tp_bound(pairs, 2).kind == SWITCH
    hgx = graph(
        snapshot,
        body_of("srv-hgx-h200-5u: 2 epyc-9754, 8 h200-sxm, 6 psu-crps-3000w, 16 ddr5-rdimm-128gb"),
    )
    assert (tp_bound(hgx, 8).kind, tp_bound(hgx, 8).gbs) == (NVSWITCH, 900.0)


def test_validation_warns_when_tp_spans_partial_bridges(snapshot: CatalogSnapshot) -> None:
    verdict = validate_body(snapshot, A100_PAIRS, LLAMA_70B)
    finding = only(verdict, "interconnect.tp_partly_bridged")
    assert finding.severity == "warning"
    assert "NVLink bridges join only 2 at a time" in finding.message
    assert "PCIe 4.0 x16 through the CPU (31.5 GB/s)" in finding.message
    assert "inside the bridged groups of 2" in finding.message
    a100 = snapshot.gpus["a100-80gb-pcie"]
    assert finding.measured == round(per_user(estimate(LLAMA_70B, a100, 8, link_gbs=graph(snapshot, A100_PAIRS))), 2)
    assert finding.limit == round(per_user(estimate(LLAMA_70B, a100, 8, link_gbs=600.0)), 2)
    # one bridged pair running TP-2: no link warning at all
    pair = validate_body(snapshot, TR_PRO, LLAMA_8B, bridges=lines(("nvlink-bridge-a100-2way", 1)))
    assert not codes(pair, "interconnect.tp_")


def test_the_recommender_does_not_buy_pair_bridges_for_tp8(snapshot: CatalogSnapshot) -> None:
    a100 = snapshot.gpus["a100-80gb-pcie"]
    eight = gpu_option(snapshot, LLAMA_70B, a100, 8)
    assert (eight.bridges, eight.link_gbs) == ((), None)  # the sets would not speed TP-8 up
    assert eight.per_user == pytest.approx(per_user(estimate(LLAMA_70B, a100, 8)))
    two = gpu_option(snapshot, LLAMA_8B, a100, 2)
    assert [(bridge.sku, sets) for bridge, sets in two.bridges] == [("nvlink-bridge-a100-2way", 1)]
    assert isinstance(two.link_gbs, Topology) and tp_bound(two.link_gbs, 2).kind == BRIDGE
    assert two.per_user == pytest.approx(per_user(estimate(LLAMA_8B, a100, 2, link_gbs=600.0)))


def test_no_bridge_fix_is_offered_for_a_ring_wider_than_a_bridge_set(snapshot: CatalogSnapshot) -> None:
    # 8 × H100 NVL on one Xeon's 4 live positions (an error of its own) and no bridges: TP-8 over PCIe; its 2-way
    # bridges would not carry an 8-GPU ring, so the finding says so and offers no bridge sets
    verdict = validate_body(snapshot, XEON_H100, FULL_70B_H100, cpus=lines(("xeon-8480plus", 1)))
    finding = only(verdict, "interconnect.tp_over_pcie")
    assert "Its NVLink bridges join at most 2 cards, so they would not carry this ring." in finding.message
    assert finding.fixes == ()
    # 32 users are served as 4 replicas of TP2 (estimate.serving): that ring is a pair a 2-way bridge carries
    pairs = only(
        validate_body(snapshot, XEON_H100, LLAMA_70B, cpus=lines(("xeon-8480plus", 1))), "interconnect.tp_over_pcie"
    )
    assert "Tensor parallelism over 2 h100-nvl" in pairs.message and pairs.fixes
    from django.utils import translation

    from configurator.wording import say

    with translation.override("ru"):
        assert "Мосты NVLink этих карт соединяют не больше 2" in say(finding.message)
        bridged = only(validate_body(snapshot, A100_PAIRS, LLAMA_70B), "interconnect.tp_partly_bridged")
        russian = say(bridged.message)
    assert "мосты NVLink соединяют только по 2" in russian and "31,5 ГБ/с" in russian


def test_mixed_models_share_no_nvlink_and_the_slowest_card_sets_pcie(snapshot: CatalogSnapshot) -> None:
    # A100 PCIe (4.0 x16) beside RTX A6000s: no bridges across models, PCIe of the slower card
    mixed = graph(
        snapshot,
        TR_PRO,
        gpus=lines(("a100-80gb-pcie", 2), ("rtx-a6000", 2)),
        bridges=lines(("nvlink-bridge-a100-2way", 1)),
    )
    assert mixed.bridges == () and mixed.fabric_gbs is None
    a6000, a100 = snapshot.gpus["rtx-a6000"], snapshot.gpus["a100-80gb-pcie"]
    slowest = min(g.pcie_lanes * {3: 0.985, 4: 1.969, 5: 3.938}[g.pcie_gen] for g in (a100, a6000))
    assert tp_bound(mixed, 4).gbs == pytest.approx(slowest)


def test_cards_dropped_to_x8_by_the_slots_talk_at_x8(snapshot: CatalogSnapshot) -> None:
    # AM5: 16 CPU lanes for the GPU slots, so two cards run x8/x8 (budgets.lanes; validation-rules.md §2.1)
    am5 = body_of("ws-tower-am5: 1 ryzen-9-9950x, 2 rtx-4090, 1 psu-atx-1600w, 2 ddr5-udimm-48gb")
    two = graph(snapshot, am5)
    bound = tp_bound(two, 2)
    assert (bound.kind, round(bound.gbs, 2), two.pcie_lanes) == (ROOT, round(8 * 1.969, 2), 8)
    assert "PCIe 4.0 x8 through the CPU (15.8 GB/s)" in bound.label
    one_each = graph(snapshot, TR_PRO)  # the Threadripper PRO wires x16 to each slot
    assert one_each.pcie_lanes == 0 and round(tp_bound(one_each, 2).gbs, 1) == 31.5


def test_best_groups_keep_tp_inside_bridges_and_sockets(snapshot: CatalogSnapshot) -> None:
    pairs = graph(snapshot, A100_PAIRS)
    assert [(g.members, g.bound.kind) for g in best_groups(pairs, 2)] == [
        ((0, 1), BRIDGE),
        ((2, 3), BRIDGE),
        ((4, 5), BRIDGE),
        ((6, 7), BRIDGE),
    ]
    # groups of 4 stay on one socket each (PCIe through the CPU), never straddling the xGMI
    assert [g.members for g in best_groups(pairs, 4)] == [(0, 1, 2, 3), (4, 5, 6, 7)]
    quads = graph(
        snapshot,
        body_of(
            "srv-8gpu-4u-epyc: 2 epyc-9755, 8 h200-nvl, 4 psu-crps-3000w, 24 ddr5-rdimm-128gb, "
            "2 nvlink-bridge-h200-4way"
        ),
    )
    assert [(g.bound.kind, g.bound.gbs) for g in best_groups(quads, 4)] == [(BRIDGE, 900.0), (BRIDGE, 900.0)]
    # TP-8 over the two quads crosses the EPYC 9005 sockets' xGMI: NCCL's 32 GB/s x 15.76 / 12 = 42.0 GB/s
    assert (tp_bound(quads, 8).kind, round(tp_bound(quads, 8).gbs, 1)) == (SOCKET, 42.0)
