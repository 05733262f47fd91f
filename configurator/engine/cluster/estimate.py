"""Speeds across nodes: training with data / tensor / pipeline parallelism over the compute fabric, and serving a
model that spans nodes (tensor parallel inside a node, pipeline or expert parallel across).

**Training** (one step of a `TrainingLayout`, Narayanan et al. 2021, arXiv 2104.04473 "Efficient Large-Scale
Language Model Training on GPU Clusters Using Megatron-LM"):
- compute: model FLOPs per token = 6·P (forward + backward of the weights, P = the parameters a token
  passes through: active ones of an MoE) + 6·L·h·s (causal self-attention, half of eq. (3)'s 12·L·h·s),
  × 4/3 with full activation recomputation (one more forward, eq. (3)'s 96 against 72), at CLUSTER_MFU × the
  GPUs' dense BF16 peak;
- pipeline bubble (§2.2.1, 1F1B with v interleaved stages): × (1 + (p − 1) / (v · m)), m = micro-batches per
  pipeline per step;
- data-parallel gradients over the compute fabric (each GPU on its own rail NIC): ring all-reduce moves
  2·(d − 1)/d × the GPU's gradient shard (bf16, P / (t·p) × 2 B), fully sharded (FSDP / ZeRO-3) 3·(d − 1)/d
  (Rajbhandari et al. arXiv 1910.02054 §7); overlapped with the backward pass (2/3 of compute), the rest adds.
  Tensor parallel stays inside a node on NVLink, part of CLUSTER_MFU.
CLUSTER_MFU is fitted on fixtures/cluster_training.csv (published multi-node runs, each with its source) by
bench/cluster_accuracy.py, which also reports the leave-one-source-out error.

**Serving across nodes**: a replica of `nodes_per_replica` nodes runs tensor parallel over each node's GPUs and
pipeline parallel across nodes (vLLM's distributed serving guide: "tensor parallel size = GPUs per node,
pipeline parallel size = nodes"). A decode step of a user reads every stage once, one after another: its time
is the one-node tensor-parallel step of the whole model (configurator.engine.estimate.serving, the same step
a single server is estimated with, run as if the node's memory held it) plus one hop per stage boundary: the
hidden state of every running sequence over one 400G rail and HOP_LATENCY_S. Replicas serve users side by side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from configurator.engine.estimate import min_gpus_to_fit
from configurator.engine.estimate.engines import request_tokens
from configurator.engine.estimate.serving import decode_per_user
from configurator.engine.frozen import direct_init
from configurator.engine.types import BuildSpec, GpuSpec, ModelArch, Workload

# Fitted by bench/cluster_accuracy.py on fixtures/cluster_training.csv (all rows; the leave-one-source-out
# errors are in its output and tests/cluster/test_cluster_accuracy.py): model-FLOPs utilisation of the GPUs'
# dense BF16 peak before the bubble and the exposed gradient traffic.
CLUSTER_MFU = 0.45
# Share of a step's compute the data-parallel gradient traffic hides behind (the backward pass: 2 of the
# 3 passes of 6·P; PyTorch DDP buckets and Megatron's overlap_grad_reduce start reducing during backward).
BACKWARD_SHARE = 2.0 / 3.0
# HEURISTIC: one inter-node hop of a pipeline stage boundary: NCCL send/recv of a small message over
# InfiniBand/RoCE is a few microseconds; 20 µs with the kernel launches on both sides.
HOP_LATENCY_S = 20e-6
# HEURISTIC: the global batch of a training step, 4M tokens (Llama 2 paper, Touvron et al. 2023 §2.2:
# "a global batch-size of 4M tokens"); sets micro-batches per pipeline and the gradient traffic per token.
GLOBAL_BATCH_TOKENS = 4 * 1024 * 1024


@direct_init
@dataclass(frozen=True, slots=True)
class TrainingLayout:
    gpus: int
    tp: int
    pp: int
    global_batch: int  # sequences per optimizer step
    sequence: int
    micro_batch: int = 1
    virtual_stages: int = 1
    sharded: bool = False  # FSDP / ZeRO-3 (weights gathered, gradients reduce-scattered)
    recompute: bool = False  # full activation recomputation: one more forward pass (8·P instead of 6·P)

    @property
    def dp(self) -> int:
        return max(1, self.gpus // (self.tp * self.pp))

    @property
    def micro_batches(self) -> int:
        return max(1, self.global_batch // (self.dp * self.micro_batch))


@direct_init
@dataclass(frozen=True, slots=True)
class ClusterTraining:
    tokens_per_s: float
    tflops_per_gpu: float  # model FLOPs per second per GPU achieved
    compute_s: float
    bubble_s: float
    exposed_comm_s: float
    step_s: float
    scaling_efficiency: float  # compute / step: what the bubble and the exposed traffic leave


def model_flops_per_token(params: float, layers: int, hidden: int, sequence: int) -> float:
    return 6.0 * params + 6.0 * layers * hidden * sequence


def training_speed(
    params: float,
    layers: int,
    hidden: int,
    layout: TrainingLayout,
    peak_tflops: float,
    nic_gbps_per_gpu: float,
    *,
    mfu: float = CLUSTER_MFU,
    grad_params: float | None = None,
) -> ClusterTraining:
    """One optimizer step of `layout` (module docstring). `grad_params`: parameters with gradients (an MoE's
    total), default `params`."""
    tokens = layout.global_batch * layout.sequence
    per_token = model_flops_per_token(params, layers, hidden, layout.sequence)
    done = per_token * (4.0 / 3.0 if layout.recompute else 1.0)  # the hardware's FLOPs
    compute = done * tokens / (layout.gpus * peak_tflops * 1e12 * mfu)
    bubble = compute * (layout.pp - 1) / (layout.virtual_stages * layout.micro_batches)
    d = layout.dp
    shard = (grad_params or params) / (layout.tp * layout.pp) * 2.0
    moved = (3.0 if layout.sharded else 2.0) * shard * (d - 1) / d
    comm = moved / (nic_gbps_per_gpu / 8 * 1e9) if d > 1 and nic_gbps_per_gpu > 0 else 0.0
    exposed = max(0.0, comm - BACKWARD_SHARE * compute)
    step = compute + bubble + exposed
    return ClusterTraining(
        tokens_per_s=tokens / step,
        tflops_per_gpu=per_token * tokens / step / layout.gpus / 1e12,
        compute_s=compute,
        bubble_s=bubble,
        exposed_comm_s=exposed,
        step_s=step,
        scaling_efficiency=compute / step,
    )


def _node_gpu(node: BuildSpec) -> GpuSpec:
    return node.gpus[0].spec


def _nic_gbps_per_gpu(node: BuildSpec) -> float:
    fast = sum(line.spec.speed_gbps * line.qty * line.spec.ports for line in node.nics if line.spec.speed_gbps >= 200)
    return fast / max(node.gpu_count, 1)


def training_layout(model: ModelArch, workload: Workload, node: BuildSpec, nodes: int) -> TrainingLayout:
    """Tensor parallel over a node's GPUs, data parallel across nodes, states fully sharded (ZeRO-3/FSDP, as
    the single-server estimate shards a model that needs several GPUs); the global batch GLOBAL_BATCH_TOKENS."""
    per_node = node.gpu_count
    batch = max(1, GLOBAL_BATCH_TOKENS // workload.sequence_length)
    return TrainingLayout(
        gpus=per_node * nodes,
        tp=per_node,
        pp=1,
        global_batch=batch,
        sequence=workload.sequence_length,
        sharded=True,
        recompute=workload.gradient_checkpointing,
    )


def cluster_training(workload: Workload, node: BuildSpec, nodes: int) -> ClusterTraining:
    model = workload.model
    layout = training_layout(model, workload, node, nodes)
    return training_speed(
        float(model.active_params),
        model.layers,
        model.hidden,
        layout,
        _node_gpu(node).fp16_tflops,
        _nic_gbps_per_gpu(node),
        grad_params=float(model.total_params),
    )


def one_more_node(workload: Workload, node: BuildSpec, nodes: int) -> float:
    """Training tokens/s the (nodes + 1)-th node adds."""
    return (
        cluster_training(workload, node, nodes + 1).tokens_per_s - cluster_training(workload, node, nodes).tokens_per_s
    )


@direct_init
@dataclass(frozen=True, slots=True)
class ClusterServing:
    nodes_per_replica: int
    replicas: int
    parallelism: str  # "TP8 × PP2" / "TP8 × EP2"
    users_per_replica: int
    decode_tokens_per_s_per_user: float
    decode_tokens_per_s_total: float
    hop_s: float


def nodes_to_hold(workload: Workload, node: BuildSpec, max_nodes: int = 16) -> int | None:
    """Fewest nodes whose GPUs hold the workload (memory, as the single-server estimate sizes it)."""
    run = replace(workload, zero_stage=3) if workload.task != "inference" else workload
    count = min_gpus_to_fit(run, _node_gpu(node), max_gpus=max_nodes * node.gpu_count)
    return None if count is None else math.ceil(count / node.gpu_count)


def cluster_serving(workload: Workload, node: BuildSpec, nodes: int) -> ClusterServing:
    """Replicas of the fewest nodes that hold the model with its share of users (module docstring)."""
    gpu = _node_gpu(node)
    per_node = node.gpu_count
    alone = nodes_to_hold(replace(workload, concurrent_users=1), node, max_nodes=nodes) or nodes
    replicas = max(1, nodes // alone)
    while replicas > 1:
        users = math.ceil(workload.concurrent_users / replicas)
        fits = nodes_to_hold(replace(workload, concurrent_users=users), node, max_nodes=nodes // replicas)
        if fits is not None and fits <= nodes // replicas:
            break
        replicas -= 1
    span = nodes // replicas
    users = math.ceil(workload.concurrent_users / replicas)
    prompt, output = request_tokens(workload)
    link = gpu.nvlink_gbs if gpu.nvlink_gbs else None
    user = decode_per_user(
        replace(workload, concurrent_users=users),
        gpu,
        per_node,
        prompt_tokens=prompt,
        output_tokens=output,
        link_gbs=link,
    )
    sequences = users * workload.batch_size
    nic = _nic_gbps_per_gpu(node) or 100.0
    hop = HOP_LATENCY_S + sequences * workload.model.hidden * 2.0 / (nic / 8 * 1e9)
    per_token = 1.0 / user.tokens_per_s + (span - 1) * hop
    per_user = 1.0 / per_token
    kind = "EP" if workload.model.is_moe else "PP"
    layout = f"TP{per_node} × {kind}{span}" if span > 1 else f"TP{per_node}"
    total = per_user * workload.concurrent_users * workload.batch_size
    return ClusterServing(span, replicas, layout, users, per_user, total, hop)
