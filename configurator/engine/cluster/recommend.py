"""A cluster for a workload one server cannot hold (or for a node count asked): per SXM GPU an HGX node
(cluster.nodes), the fewest nodes that hold the workload (cluster.estimate.nodes_to_hold, the single-server
memory model), storage from the workload, the cluster sized (cluster.sizing) and checked (cluster.rules); the
cheapest cluster without errors first.

Storage (HEURISTIC where marked):
- training: a checkpoint is the model's bf16 weights and fp32 master weights and Adam moments, 2 + 4 + 8 =
  14 B per parameter (Megatron-LM distributed checkpoints hold exactly these); CHECKPOINTS_KEPT are kept, plus
  the dataset (`dataset_tb`);
- serving: the model files at the served precision (estimate.weight_bytes), MODEL_COPIES of them (the one
  served and the next version being rolled out).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from configurator.engine.cluster.estimate import (
    ClusterServing,
    ClusterTraining,
    cluster_serving,
    cluster_training,
    nodes_to_hold,
    one_more_node,
)
from configurator.engine.cluster.nodes import hgx_node, node_gpus
from configurator.engine.cluster.parts import ClusterCatalog
from configurator.engine.cluster.rules import check_cluster
from configurator.engine.cluster.sizing import size_cluster
from configurator.engine.cluster.types import ClusterBuild, ClusterSpec
from configurator.engine.errors import DomainError
from configurator.engine.estimate import weight_bytes
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Phrase
from configurator.engine.recommend.policy import speed_target
from configurator.engine.types import BuildSpec, CatalogSnapshot, Finding, Workload

CHECKPOINT_BYTES_PER_PARAM = 2 + 4 + 8
CHECKPOINTS_KEPT = 5  # HEURISTIC: the last few checkpoints a run keeps to roll back a loss spike
MODEL_COPIES = 2
MAX_NODES = 64


@direct_init
@dataclass(frozen=True, slots=True)
class ClusterOption:
    build: ClusterBuild
    findings: tuple[Finding, ...]
    serving: ClusterServing | None
    training: ClusterTraining | None
    one_more_node_tokens_per_s: float | None  # training: what one more node adds

    @property
    def valid(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)


@direct_init
@dataclass(frozen=True, slots=True)
class ClusterRecommendation:
    options: tuple[ClusterOption, ...]  # valid ones first, cheapest first
    elapsed_ms: float
    target_tokens_per_s: float | None = None  # serving: the per-user decode speed asked (or the default)
    speed_miss: SpeedMiss | None = None  # serving: no cluster reaches the target; the best one and its miss


@direct_init
@dataclass(frozen=True, slots=True)
class SpeedMiss:
    """The fastest cluster (per user) when none reaches the target, and how far below it is (percent)."""

    gpu: str
    nodes: int
    tokens_per_s: float
    target_tokens_per_s: float

    @property
    def miss_percent(self) -> float:
        return (1 - self.tokens_per_s / self.target_tokens_per_s) * 100


SPEED_TARGET_CODE = "cluster.speed_target"


def _speed_finding(serving: ClusterServing, target: float) -> Finding:
    got = serving.decode_tokens_per_s_per_user
    return Finding(
        SPEED_TARGET_CODE,
        "error",
        Phrase(
            "%(speed)s tokens/s per user, below the %(target)s tokens/s asked (%(miss)s %% short)",
            speed=f"{got:.1f}",
            target=f"{target:g}",
            miss=f"{(1 - got / target) * 100:.0f}",
        ),
        measured=round(got, 2),
        limit=target,
        unit="tokens/s",
    )


def _serving_nodes(workload: Workload, node: BuildSpec, least: int, target: float) -> int:
    """The fewest nodes from `least` whose serving reaches `target` per user; else the count (≤ MAX_NODES) with
    the fastest per-user speed (the best this node can do)."""
    best, best_speed = least, -1.0
    for count in range(least, MAX_NODES + 1):
        speed = cluster_serving(workload, node, count).decode_tokens_per_s_per_user
        if speed >= target:
            return count
        if speed > best_speed + 1e-9:
            best, best_speed = count, speed
    return best


def storage_for(workload: Workload, dataset_tb: float) -> tuple[float, float]:
    """(usable TB, one checkpoint's TB) the workload keeps on the cluster's storage."""
    if workload.task == "inference":
        files = weight_bytes(workload.model, workload.precision) * MODEL_COPIES / 1e12
        return files + dataset_tb, 0.0
    checkpoint = workload.model.total_params * CHECKPOINT_BYTES_PER_PARAM / 1e12
    return CHECKPOINTS_KEPT * checkpoint + dataset_tb, checkpoint


def recommend_cluster(
    snapshot: CatalogSnapshot,
    cat: ClusterCatalog,
    workload: Workload,
    *,
    nodes: int | None = None,
    dataset_tb: float = 0.0,
    rack_kw_limit: float = 40.0,
    site_voltage_v: int = 400,
    compute_switch: str | None = None,
    oversubscription: float = 1.0,
) -> ClusterRecommendation:
    started = time.perf_counter()
    training = workload.task != "inference"
    storage_tb, checkpoint_tb = storage_for(workload, dataset_tb)
    target = speed_target(workload)
    options = []
    for gpu in sorted(node_gpus(snapshot), key=lambda g: (g.price, g.sku)):
        node = hgx_node(snapshot, gpu.sku)
        count = nodes if nodes is not None else nodes_to_hold(workload, node, max_nodes=MAX_NODES)
        if count is None:
            continue
        if target is not None and nodes is None:
            count = _serving_nodes(workload, node, count, target)
        spec = ClusterSpec(
            node=node,
            nodes=count,
            purpose="training" if training else "inference",
            compute_switch=compute_switch,
            oversubscription=oversubscription,
            storage_tb=storage_tb,
            checkpoint_tb=checkpoint_tb,
            rack_kw_limit=rack_kw_limit,
            site_voltage_v=site_voltage_v,
        )
        build = size_cluster(spec, cat)
        serving = None if training else cluster_serving(workload, node, count)
        findings = check_cluster(build)
        if serving is not None and target is not None and serving.decode_tokens_per_s_per_user < target:
            findings = (_speed_finding(serving, target), *findings)
        option = ClusterOption(
            build=build,
            findings=findings,
            serving=serving,
            training=cluster_training(workload, node, count) if training else None,
            one_more_node_tokens_per_s=one_more_node(workload, node, count) if training else None,
        )
        options.append(option)
    if not options:
        raise DomainError(
            Phrase("no HGX node of the catalog holds this workload in %(most)s nodes", most=MAX_NODES),
            fields={"workload": [Phrase("Too large for the catalog's nodes.")]},
        )
    options.sort(key=lambda o: (not o.valid, o.build.price))
    miss = None
    speeds = [(o.serving.decode_tokens_per_s_per_user, o) for o in options if o.serving is not None]
    if target is not None and speeds and all(speed < target for speed, _ in speeds):
        speed, fastest = max(speeds, key=lambda pair: pair[0])
        miss = SpeedMiss(
            gpu=fastest.build.spec.node.gpus[0].spec.sku,
            nodes=fastest.build.spec.nodes,
            tokens_per_s=speed,
            target_tokens_per_s=target,
        )
    elapsed = (time.perf_counter() - started) * 1000
    return ClusterRecommendation(tuple(options), elapsed, target_tokens_per_s=target, speed_miss=miss)


def needs_cluster(workload: Workload, snapshot: CatalogSnapshot) -> bool:
    """True when no HGX node of the catalog holds the workload alone."""
    counts = [nodes_to_hold(workload, hgx_node(snapshot, g.sku), max_nodes=MAX_NODES) for g in node_gpus(snapshot)]
    return all(c is None or c > 1 for c in counts)


__all__ = [
    "SPEED_TARGET_CODE",
    "ClusterOption",
    "ClusterRecommendation",
    "SpeedMiss",
    "needs_cluster",
    "recommend_cluster",
    "storage_for",
]
