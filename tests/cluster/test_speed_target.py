"""A per-user speed target for cluster serving (issue 39): the request's `target_tokens_per_s` (the single-server
estimate's field; its default recommend.policy.DEFAULT_TOKENS_PER_S_PER_USER = 10) is never undercut by a
passing option; when no cluster reaches it, the recommendation says the best it can do and by how much it misses."""

from __future__ import annotations

from dataclasses import replace

import pytest

from configurator.engine.cluster.estimate import cluster_serving, nodes_to_hold
from configurator.engine.cluster.nodes import hgx_node
from configurator.engine.cluster.parts import ClusterCatalog
from configurator.engine.cluster.recommend import SPEED_TARGET_CODE, recommend_cluster
from configurator.engine.models_library import model_get
from configurator.engine.recommend.policy import DEFAULT_TOKENS_PER_S_PER_USER
from configurator.engine.types import CatalogSnapshot, Workload

LLAMA_405B = Workload(model=model_get("llama-3.1-405b"), precision="bf16", concurrent_users=200)


@pytest.fixture(scope="module")
def with_a100(snapshot: CatalogSnapshot) -> CatalogSnapshot:
    """The fixture catalog plus an HGX A100 8-GPU chassis (the H200 platform on an SXM4 baseboard, cheaper), so
    the A100 80 GB SXM is a cluster node as it is in catalogs that sell HGX A100 servers."""
    a100 = snapshot.gpus["a100-80gb-sxm"]
    h200 = snapshot.chassis["srv-hgx-h200-5u"]
    chassis = replace(
        h200, sku="srv-hgx-a100-test", baseboard_socket=a100.module_socket, max_gpu_tdp_w=400, price=h200.price / 2
    )
    return replace(snapshot, chassis={**snapshot.chassis, chassis.sku: chassis})


def test_a100_at_the_fewest_nodes_is_far_below_10_tokens_per_s(with_a100: CatalogSnapshot) -> None:
    """What the recommender offered before the target: the fewest A100 nodes that hold the model, well under 10."""
    node = hgx_node(with_a100, "a100-80gb-sxm")
    least = nodes_to_hold(LLAMA_405B, node, max_nodes=64)
    assert least is not None
    assert cluster_serving(LLAMA_405B, node, least).decode_tokens_per_s_per_user < 5


def test_405b_for_200_users_at_10_tokens_per_s(with_a100: CatalogSnapshot, cat: ClusterCatalog) -> None:
    found = recommend_cluster(with_a100, cat, replace(LLAMA_405B, target_tokens_per_s=10.0))
    assert found.target_tokens_per_s == 10.0
    gpus = {o.build.spec.node.gpus[0].spec.sku: o for o in found.options}
    assert "a100-80gb-sxm" in gpus
    for option in found.options:
        assert option.serving is not None
        speed = option.serving.decode_tokens_per_s_per_user
        if option.valid:
            assert speed >= 10.0, option.build.spec.node.gpus[0].spec.sku
        else:
            assert any(f.code == SPEED_TARGET_CODE for f in option.findings) or speed >= 10.0
    a100 = gpus["a100-80gb-sxm"]
    assert a100.serving is not None
    assert not (a100.valid and a100.serving.decode_tokens_per_s_per_user < 10.0)
    passing = [o for o in found.options if o.valid]
    assert passing or found.speed_miss is not None
    best = found.options[0]
    assert best.valid and best.serving is not None and best.serving.decode_tokens_per_s_per_user >= 10.0


def test_the_default_target_is_the_single_server_default(snapshot: CatalogSnapshot, cat: ClusterCatalog) -> None:
    found = recommend_cluster(snapshot, cat, LLAMA_405B)
    assert found.target_tokens_per_s == DEFAULT_TOKENS_PER_S_PER_USER
    assert all(o.serving and o.serving.decode_tokens_per_s_per_user >= 10.0 for o in found.options if o.valid)


def test_an_unreachable_target_says_the_best_and_the_miss(snapshot: CatalogSnapshot, cat: ClusterCatalog) -> None:
    found = recommend_cluster(snapshot, cat, replace(LLAMA_405B, target_tokens_per_s=500.0))
    assert not any(o.valid for o in found.options)
    miss = found.speed_miss
    assert miss is not None
    fastest = max(o.serving.decode_tokens_per_s_per_user for o in found.options if o.serving)
    assert miss.tokens_per_s == pytest.approx(fastest)
    assert miss.miss_percent == pytest.approx((1 - fastest / 500.0) * 100)
    finding = next(f for f in found.options[0].findings if f.code == SPEED_TARGET_CODE)
    assert finding.limit == 500.0 and finding.severity == "error"


def test_a_node_count_asked_is_kept_and_judged(snapshot: CatalogSnapshot, cat: ClusterCatalog) -> None:
    found = recommend_cluster(snapshot, cat, replace(LLAMA_405B, target_tokens_per_s=10.0), nodes=2)
    assert {o.build.spec.nodes for o in found.options} == {2}
    h200 = next(o for o in found.options if o.build.spec.node.gpus[0].spec.sku == "h200-sxm")
    assert not h200.valid and any(f.code == SPEED_TARGET_CODE for f in h200.findings)
