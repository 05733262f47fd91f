"""Tensor parallelism over links slower than NVLink: the findings of rules/interconnect.py's
`tensor_parallel_over_pcie` (validation-rules.md §4; the loss is the estimator's own, estimate.topology).
"""

from __future__ import annotations

from collections.abc import Iterator

from configurator.engine.budgets.links import BRIDGE_KINDS, MAX_WAYS, REFERENCE_LINK_GBS, TP_LOSS_WARNING
from configurator.engine.estimate.topology import SOCKET, RingBound, Topology, tp_bound
from configurator.engine.phrase import Num, Phrase, PhraseValue
from configurator.engine.rules.bridge_sets import add_bridge_fixes, bridge_plan
from configurator.engine.rules.context import RuleContext
from configurator.engine.types import Finding, Fix

# layouts whose collectives cross every GPU each layer: tensor parallelism, and DP attention (estimate.layout),
# whose MoE layers stay tensor parallel (an all-gather and a reduce-scatter per layer)
TP_LAYOUTS = ("tensor", "dp_attention")


def tp_findings(ctx: RuleContext) -> Iterator[Finding]:
    """`tp_partly_bridged`, `tp_over_sockets` or `tp_over_pcie` for the workload's tensor-parallel layout when
    its all-reduce ring does not run over NVLink (interconnect.tensor_parallel_over_pcie says when each)."""
    estimate, workload = ctx.estimate, ctx.workload
    if estimate is None or workload is None:
        return
    layout, throughput = estimate.layout, estimate.throughput
    if layout is None or throughput is None or layout.parallelism not in TP_LAYOUTS or layout.count < 2:
        return
    # the ring of the layout the speeds are for: one replica's when the GPUs serve as data-parallel replicas
    # (estimate.serving.serving_throughput), e.g. tensor parallel inside each bridged pair
    size = throughput.users_tensor_parallel if throughput.users_replicas > 1 else layout.count
    if size < 2:
        return
    # the bridge fix joins every replica's GPUs, not one replica's (trial tr34: "add 1× nvlink-bridge-h100-2way"
    # for 4× H100 NVL served as 2 replicas of 2 left the other pair on PCIe, at the same speed)
    bridged = size * throughput.users_replicas if throughput.users_replicas > 1 else size
    link = ctx.link_gbs
    if isinstance(link, Topology):
        bound: RingBound | None = tp_bound(link, size)
        if bound is None or bound.nvlink:
            return
    elif link is not None:
        return
    else:
        bound = None
    from configurator.engine.estimate import estimate as run_estimate

    gpu = ctx.snapshot.gpus.get(layout.sku)
    if gpu is None:
        return
    reference = gpu.nvlink_gbs or REFERENCE_LINK_GBS
    linked = run_estimate(workload, gpu, layout.count, link_gbs=reference)
    if linked.throughput is None or linked.throughput.decode_tokens_per_s_per_user <= 0:
        return
    pcie_speed = throughput.decode_tokens_per_s_per_user
    nvlink_speed = linked.throughput.decode_tokens_per_s_per_user
    loss = max(0.0, 1 - pcie_speed / nvlink_speed)
    if round(loss * 100) == 0:
        return  # trial 34 U03: "14.9 instead of 14.9 (0% slower)" — no difference worth a note
    facts: dict[str, PhraseValue] = {
        "count": size,
        "gpu": gpu.sku,
        "pcie": Num(pcie_speed, 1),
        "nvlink": Num(nvlink_speed, 1),
        "gbs": Num(reference, None),
        "loss": Num(loss * 100),
    }
    severity = "warning" if loss >= TP_LOSS_WARNING else "info"

    def found(code: str, severity: str, message: Phrase, fixes: tuple[Fix, ...] = ()) -> Finding:
        return Finding(
            code=code,
            severity=severity,
            message=message,
            measured=round(pcie_speed, 2),
            limit=round(nvlink_speed, 2),
            unit="tokens/s",
            components=(gpu.sku,),
            fixes=fixes,
        )

    if bound is not None and isinstance(link, Topology) and link.bridges:
        yield found(
            code="interconnect.tp_partly_bridged",
            severity="warning",
            message=Phrase(
                "Tensor parallelism over %(count)s %(gpu)s spans GPUs that NVLink bridges join only %(ways)s at a "
                "time: its all-reduce ring runs at %(bound)s; about %(pcie)s tokens/s per user "
                "instead of %(nvlink)s with NVLink between all of them (%(loss)s%% slower). Run tensor "
                "parallelism inside the bridged groups of %(ways)s and replicas or pipeline stages across them.",
                ways=len(link.bridges[0]),
                bound=bound.label,
                **facts,
            ),
        )
    elif bound is not None and bound.kind == SOCKET:
        yield found(
            code="interconnect.tp_over_sockets",
            severity=severity,
            message=Phrase(
                "Tensor parallelism over %(count)s %(gpu)s crosses the CPU sockets: its all-reduce ring runs at "
                "%(bound)s, about %(pcie)s tokens/s per user instead of %(nvlink)s with NVLink (%(gbs)s GB/s) "
                "(%(loss)s%% slower).",
                bound=bound.label,
                **facts,
            ),
            fixes=add_bridge_fixes(bridge_plan(ctx, gpu, bridged)) if gpu.nvlink_kind in BRIDGE_KINDS else (),
        )
    elif gpu.nvlink_kind in BRIDGE_KINDS and MAX_WAYS[gpu.nvlink_kind] < size:
        # bridge sets join at most MAX_WAYS cards: the ring over more would still cross PCIe (estimate.topology)
        yield found(
            code="interconnect.tp_over_pcie",
            severity=severity,
            message=Phrase(
                "Tensor parallelism over %(count)s %(gpu)s runs its all-reduces over PCIe: about %(pcie)s "
                "tokens/s per user instead of %(nvlink)s if every GPU had NVLink (%(gbs)s GB/s) (%(loss)s%% "
                "slower). Its NVLink bridges join at most %(ways)s cards, so they would not carry this ring.",
                ways=MAX_WAYS[gpu.nvlink_kind],
                **facts,
            ),
        )
    elif gpu.nvlink_kind in BRIDGE_KINDS:
        yield found(
            code="interconnect.tp_over_pcie",
            severity=severity,
            message=Phrase(
                "Tensor parallelism over %(count)s %(gpu)s runs its all-reduces over PCIe: about %(pcie)s "
                "tokens/s per user instead of %(nvlink)s with its NVLink bridge (%(gbs)s GB/s) (%(loss)s%% "
                "slower).",
                **facts,
            ),
            fixes=add_bridge_fixes(bridge_plan(ctx, gpu, bridged)),
        )
    else:
        yield found(
            code="interconnect.tp_over_pcie",
            severity=severity,
            message=Phrase(
                "Tensor parallelism over %(count)s %(gpu)s runs its all-reduces over PCIe, as this GPU has no "
                "NVLink: about %(pcie)s tokens/s per user instead of %(nvlink)s on GPUs joined by NVLink 4 "
                "(%(gbs)s GB/s) (%(loss)s%% slower).",
                **facts,
            ),
        )
