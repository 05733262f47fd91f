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
from configurator.engine.types import CatalogSnapshot, Finding, Workload

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
    options = []
    for gpu in sorted(node_gpus(snapshot), key=lambda g: (g.price, g.sku)):
        node = hgx_node(snapshot, gpu.sku)
        count = nodes if nodes is not None else nodes_to_hold(workload, node, max_nodes=MAX_NODES)
        if count is None:
            continue
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
        option = ClusterOption(
            build=build,
            findings=check_cluster(build),
            serving=None if training else cluster_serving(workload, node, count),
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
    return ClusterRecommendation(tuple(options), (time.perf_counter() - started) * 1000)


def needs_cluster(workload: Workload, snapshot: CatalogSnapshot) -> bool:
    """True when no HGX node of the catalog holds the workload alone."""
    counts = [nodes_to_hold(workload, hgx_node(snapshot, g.sku), max_nodes=MAX_NODES) for g in node_gpus(snapshot)]
    return all(c is None or c > 1 for c in counts)


__all__ = ["ClusterOption", "ClusterRecommendation", "needs_cluster", "recommend_cluster", "storage_for"]
