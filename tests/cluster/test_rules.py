"""Cluster rules: a sized cluster passes; each rule fails the build that breaks it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from configurator.engine.cluster.parts import ClusterCatalog
from configurator.engine.cluster.rules import ClusterFindingCode, check_cluster
from configurator.engine.cluster.sizing import size_cluster
from configurator.engine.cluster.types import ClusterBuild, ClusterSpec, Link
from configurator.engine.types import BuildSpec


@pytest.fixture(scope="module")
def build(h200_node: BuildSpec, cat: ClusterCatalog) -> ClusterBuild:
    return size_cluster(ClusterSpec(node=h200_node, nodes=32, compute_switch="ib-qm9700", storage_tb=100), cat)


def codes(build: ClusterBuild) -> set[str]:
    return {f.code for f in check_cluster(build) if f.severity == "error"}


def test_sized_cluster_has_no_errors(build: ClusterBuild) -> None:
    assert codes(build) == set()


def test_sizes_from_2_to_128_nodes_pass(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    for nodes in (1, 2, 3, 8, 17, 64, 128):
        sized = size_cluster(ClusterSpec(node=h200_node, nodes=nodes, storage_tb=50), cat)
        assert codes(sized) == set(), nodes


def test_miswired_rail_is_an_error(build: ClusterBuild) -> None:
    links = list(build.links)
    i = next(k for k, link in enumerate(links) if link.network == "compute" and link.rail == 0)
    other = next(d.id for d in build.devices if d.kind == "leaf" and 0 not in d.rails)
    links[i] = replace(links[i], b=other)
    assert ClusterFindingCode.RAIL_ALIGNMENT in codes(replace(build, links=tuple(links)))


def test_too_many_links_on_a_leaf(build: ClusterBuild) -> None:
    extra = Link("compute", "node-00", "leaf-0", 400, 2.0, "dac", "dac-osfp-400g-2m", (), 0)
    assert ClusterFindingCode.PORTS in codes(replace(build, links=(*build.links, extra)))


def test_copper_past_its_length_is_an_error(build: ClusterBuild) -> None:
    links = list(build.links)
    i = next(k for k, link in enumerate(links) if link.network == "compute")
    links[i] = replace(links[i], medium="dac", cable="dac-osfp-400g-2m", modules=())
    found = [f for f in check_cluster(replace(build, links=tuple(links))) if f.code == ClusterFindingCode.CABLE_REACH]
    assert found and found[0].limit == 2.0 and found[0].measured == links[i].length_m


def test_rack_over_the_site_limit(build: ClusterBuild) -> None:
    spec = replace(build.spec, rack_kw_limit=20.0)
    assert ClusterFindingCode.RACK_POWER in codes(replace(build, spec=spec))


def test_pdu_over_80_percent(build: ClusterBuild) -> None:
    rack = build.racks[0]
    hot = replace(rack, amps_per_pdu=rack.pdu.current_a * 0.81)
    assert ClusterFindingCode.FEED_CURRENT in codes(replace(build, racks=(hot, *build.racks[1:])))


def test_floor_rating(build: ClusterBuild) -> None:
    """A rack of ~700 kg on 0.72 m² is ~970 kg/m²: within TIA-942's 12 kPa, over a 7.2 kPa (734 kg/m²) floor."""
    heaviest = max(r.weight_kg / (r.rack.width_mm * r.rack.depth_mm / 1e6) for r in build.racks)
    assert 734 < heaviest < 1224
    assert ClusterFindingCode.FLOOR_WEIGHT in codes(replace(build, spec=replace(build.spec, floor_kg_m2=734)))


def test_training_without_rdma_fabric(h200_node: BuildSpec, cat: ClusterCatalog) -> None:
    """Nodes without their 400G NICs get no compute fabric: an error for training, a warning for serving."""
    bare = replace(h200_node, nics=())
    training = size_cluster(ClusterSpec(node=bare, nodes=4), cat)
    assert training.fabric is None
    assert ClusterFindingCode.RDMA_FABRIC in codes(training)
    serving = size_cluster(ClusterSpec(node=bare, nodes=4, purpose="inference"), cat)
    assert ClusterFindingCode.RDMA_FABRIC not in codes(serving)
    assert any(f.code == ClusterFindingCode.RDMA_FABRIC for f in check_cluster(serving))
