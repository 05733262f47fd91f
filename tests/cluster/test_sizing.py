"""Cluster sizing against hand calculations: switch and port counts, rack kW, amps per feed, cable runs."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from configurator.engine.budgets.power import power_budget
from configurator.engine.cluster.parts import ClusterCatalog
from configurator.engine.cluster.sizing import (
    RUN_IN_RACK_M,
    RUN_SLACK_M,
    RUN_TRAY_M,
    choose_cable,
    plan_fabric,
    size_cluster,
)
from configurator.engine.cluster.types import CONTINUOUS_SHARE, POWER_FACTOR, ClusterSpec
from configurator.engine.errors import DomainError
from configurator.engine.types import BuildSpec


def test_hgx_node_has_one_400g_nic_per_gpu(h200_node: BuildSpec) -> None:
    assert h200_node.gpu_count == 8
    assert sum(line.qty for line in h200_node.nics) == 8
    assert {line.spec.speed_gbps for line in h200_node.nics} == {400}


def test_32_nodes_on_qm9700_is_one_superpod_su(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    """64-port switch, non-blocking: 32 down + 32 up per leaf; 8 rails × 32 nodes = 256 NIC ports on 8 leaves;
    256 uplinks / 64 ports = 4 spines, 8 links from every leaf to every spine."""
    build = size_cluster(ClusterSpec(node=h200_node, nodes=32, compute_switch="ib-qm9700"), cat)
    fabric = build.fabric
    assert fabric is not None
    assert (fabric.tiers, fabric.leaves, fabric.spines, fabric.nodes_per_su) == (2, 8, 4, 32)
    links = Counter(link.network for link in build.links)
    assert links["compute"] == 32 * 8
    assert links["uplink"] == 8 * 32
    for leaf in (d for d in build.devices if d.kind == "leaf"):
        used = sum(1 for link in build.links if leaf.id in (link.a, link.b) and link.network in ("compute", "uplink"))
        assert used == 64 == fabric.switch.ports_at(400)
    pairs = Counter((link.a, link.b) for link in build.links if link.network == "uplink")
    assert set(pairs.values()) == {8}


def test_oversubscribed_leaf_gives_more_ports_to_nodes(cat: ClusterCatalog) -> None:
    """2:1 on 64 ports: ⌊64·2/3⌋ = 42 down, ⌈42/2⌉ = 21 up."""
    fabric = plan_fabric(cat.switches["ib-qm9700"], 400, 8, 64, 2.0)
    assert fabric.downlinks_per_leaf == 42
    assert fabric.leaves == 8 * math.ceil(64 / 42)


def test_small_cluster_is_one_switch(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    build = size_cluster(ClusterSpec(node=h200_node, nodes=4, compute_switch="ib-qm9700"), cat)
    assert build.fabric is not None
    assert (build.fabric.tiers, build.fabric.leaves, build.fabric.spines) == (1, 1, 0)


def test_three_tier_fabric_is_refused(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    with pytest.raises(DomainError):
        size_cluster(ClusterSpec(node=h200_node, nodes=300, compute_switch="ib-qm9700"), cat)


def test_rack_power_and_amps_per_feed_by_hand(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    """Node = its PSU budget load + the BlueField-3 (150 W); 40 kW racks of 42U take
    min(⌊(42 − 1)/5⌋, ⌊40000/node⌋) nodes; amps per phase = P / (√3 × 400 V × 0.95)."""
    spec = ClusterSpec(node=h200_node, nodes=32, compute_switch="ib-qm9700", rack_kw_limit=40.0)
    build = size_cluster(spec, cat)
    node_w = power_budget(h200_node).load_w + cat.adapters["dpu-bluefield3-b3220"].power_w
    assert build.node_load_w == pytest.approx(node_w)
    per_rack = min((42 - 1) // 5, int(40000 // node_w))
    compute = [r for r in build.racks if r.role == "compute"]
    assert len(compute) == math.ceil(32 / per_rack)
    oob = cat.switches["eth-sn2201"].power_w
    first = compute[0]
    load = per_rack * node_w + oob
    assert first.load_w == pytest.approx(load)
    assert first.load_w <= 40000
    amps = load / (math.sqrt(3) * 400 * POWER_FACTOR)
    assert first.amps_per_feed == pytest.approx(amps)
    assert first.amps_per_pdu <= first.pdu.current_a * CONTINUOUS_SHARE
    assert first.feeds == 2


def test_cable_runs_follow_the_row(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    """In a rack 2 m; between racks the centre distance + 2 × 2 m of tray drop + 1 m loop; copper only
    where it reaches, optics beyond."""
    build = size_cluster(ClusterSpec(node=h200_node, nodes=32, compute_switch="ib-qm9700"), cat)
    racks = {d.id: d.rack for d in build.devices}
    for link in build.links:
        if racks[link.a] == racks[link.b]:
            assert link.length_m == RUN_IN_RACK_M
        else:
            assert link.length_m >= 0.6 + 2 * RUN_TRAY_M + RUN_SLACK_M
        if link.medium == "dac":
            assert link.length_m <= (build.cables[link.cable].length_m or 0)
        if link.medium == "optical":
            assert all(build.cables[m].reach_m >= link.length_m for m in link.modules)
    media = Counter(link.medium for link in build.links if link.network == "compute")
    assert media == {"optical": 256}  # nodes and leaves never share a rack at 32 nodes


def test_choose_cable_prefers_copper_then_optics(cat: ClusterCatalog) -> None:
    assert choose_cable(cat, 400, 2.0, False, True)[0] == "dac"
    medium, fiber, modules = choose_cable(cat, 400, 20.0, False, True)
    assert fiber == "fiber-mpo12-om4"
    assert medium == "optical"
    assert modules == ("xcvr-osfp-400g-sr4", "xcvr-osfp-800g-2xsr4")
    assert choose_cable(cat, 400, 200.0, True, True)[1:] == (
        "fiber-mpo12-os2",
        ("xcvr-osfp-800g-2xdr4", "xcvr-osfp-800g-2xdr4"),
    )
    assert choose_cable(cat, 400, 900.0, True, True)[0] == "none"


def test_storage_sized_by_capacity_and_checkpoint_write(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    """300 TB nodes writing 65 GB/s: 700 TB needs ⌈700/300⌉ = 3; a 60 TB checkpoint in 300 s needs
    ⌈60000 / (65 × 300)⌉ = 4."""
    assert size_cluster(ClusterSpec(node=h200_node, nodes=2, storage_tb=700), cat).storage.count == 3  # type: ignore[union-attr]
    plan = size_cluster(ClusterSpec(node=h200_node, nodes=2, storage_tb=1, checkpoint_tb=60), cat).storage
    assert plan is not None and plan.count == 4


def test_bill_counts_every_switch_and_transceiver(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    build = size_cluster(ClusterSpec(node=h200_node, nodes=32, compute_switch="ib-qm9700"), cat)
    bom = {line.sku: line.qty for line in build.bom}
    assert bom["ib-qm9700"] == 12
    assert bom[h200_node.chassis.sku] == 32
    assert bom["dpu-bluefield3-b3220"] == 32
    # 256 node ends (single-port SR4) and 256 leaf ends (twin-port: 128 modules)
    assert bom["xcvr-osfp-400g-sr4"] == 256
    assert bom["xcvr-osfp-800g-2xsr4"] >= 128
    assert build.price == sum(line.unit_price * line.qty for line in build.bom)


def test_bill_lines_carry_the_russian_names(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    """t39 a): every bill line has a Russian name, the catalog's for cluster parts, a made one for the node."""
    build = size_cluster(ClusterSpec(node=h200_node, nodes=6, compute_switch="ib-qm9700"), cat)
    by_sku = {line.sku: line for line in build.bom}
    assert by_sku["ib-qm9700"].name_ru == cat.switches["ib-qm9700"].name_ru
    assert all(line.name_ru for line in build.bom), [line.sku for line in build.bom if not line.name_ru]
    assert by_sku[h200_node.chassis.sku].name_ru.startswith("GPU-узел: ")
