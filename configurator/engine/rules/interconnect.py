"""Interconnect: NVLink bridges and NVSwitch, and tensor parallelism over PCIe.

Numbers and sources: ../shared/reference/validation-rules.md §4 (which GPUs take which bridge and at what
bandwidth [V19][V21][S1][S6], NVSwitch only on SXM/HGX baseboards [S1]). A bridge SKU is one complete set
for one group of `ways` GPUs (an H200 NVL 4-way set joins four cards). The sets a build needs and their fixes:
rules/bridge_sets.py; the tensor-parallel findings: rules/tensor_parallel.py.
"""

from __future__ import annotations

from collections.abc import Iterator

from configurator.engine.budgets.links import (
    BRIDGE_KINDS,
    MAX_WAYS,
    bridge_groups,
    bridge_targets,
)
from configurator.engine.fixes import make_fix, replace_op
from configurator.engine.phrase import Num, Phrase, PhraseValue
from configurator.engine.rules.bridge_sets import add_bridge_fixes, bridge_plan, remove_bridge, remove_bridges
from configurator.engine.rules.context import (
    MAX_FIXES,
    Rule,
    RuleContext,
    chassis_takes_gpu,
    fix_options,
    use_chassis_fixes,
)
from configurator.engine.rules.tensor_parallel import tp_findings
from configurator.engine.types import Finding, Fix


def no_nvlink(ctx: RuleContext) -> Iterator[Finding]:
    """§4 ERROR: a bridge on GPUs without an NVLink connector (RTX 40/50, RTX 6000 Ada, every RTX PRO 6000
    edition [S6][V22], L4/L40/L40S [V15]; SXM modules link through NVSwitch, not bridges)."""
    build = ctx.build
    if not build.bridges:
        return
    if any(line.spec.nvlink_kind in BRIDGE_KINDS for line in build.gpus):
        return
    gpus = [line.spec for line in build.gpus]
    names = ", ".join(gpu.sku for gpu in gpus)
    bridges = ", ".join(line.spec.sku for line in build.bridges)
    if not gpus:
        message = Phrase("The build has no NVLink bridge connector; %(bridges)s cannot be fitted.", bridges=bridges)
    elif len(gpus) == 1:
        message = Phrase(
            "%(gpus)s has no NVLink bridge connector; %(bridges)s cannot be fitted.", gpus=names, bridges=bridges
        )
    else:
        message = Phrase(
            "%(gpus)s have no NVLink bridge connector; %(bridges)s cannot be fitted.", gpus=names, bridges=bridges
        )
    yield Finding(
        code="interconnect.no_nvlink",
        severity="error",
        message=message,
        measured=", ".join(sorted({gpu.nvlink_kind for gpu in gpus})) or "no GPU",
        limit=" or ".join(BRIDGE_KINDS),
        components=(*(gpu.sku for gpu in gpus), *(line.spec.sku for line in build.bridges)),
        # no GPU takes a bridge: every bridge goes, in one fix (one removal alone leaves the error)
        fixes=(make_fix(*(op for fix in remove_bridges(build) for op in fix.ops)),),
    )


def bridge_mismatch(ctx: RuleContext) -> Iterator[Finding]:
    """§4 ERROR: NVIDIA sells bridges per product family; a bridge joins only the GPUs it lists."""
    build = ctx.build
    capable = [line for line in build.gpus if line.spec.nvlink_kind in BRIDGE_KINDS]
    if not capable:
        return
    for line in build.bridges:
        if bridge_targets(build, line.spec):
            continue
        fixes: list[Fix] = [remove_bridge(line)]
        for gpu_line in capable:
            # the wrong bridge out and the right one in only work together: one replace
            fixes.extend(
                make_fix(replace_op("bridges", bridge.sku, sets, old_sku=line.spec.sku))
                for bridge, sets in bridge_plan(ctx, gpu_line.spec, gpu_line.qty)
            )
        yield Finding(
            code="interconnect.bridge_mismatch",
            severity="error",
            message=Phrase(
                "%(bridge)s joins %(joins)s, not %(gpus)s.",
                bridge=line.spec.sku,
                joins=", ".join(line.spec.gpu_skus),
                gpus=", ".join(gpu_line.spec.sku for gpu_line in capable),
            ),
            measured=", ".join(gpu_line.spec.sku for gpu_line in capable),
            limit=", ".join(line.spec.gpu_skus),
            components=(line.spec.sku, *(gpu_line.spec.sku for gpu_line in capable)),
            fixes=tuple(fixes[:MAX_FIXES]),
        )


def mixed_models(ctx: RuleContext) -> Iterator[Finding]:
    """§4 ERROR (HEURISTIC: same model and memory size): bridged GPUs must be one model."""
    build = ctx.build
    for line in build.bridges:
        targets = bridge_targets(build, line.spec)
        if len(targets) > 1:
            yield Finding(
                code="interconnect.mixed_models",
                severity="error",
                message=Phrase(
                    "%(bridge)s would join different GPU models (%(gpus)s); bridged GPUs must be identical.",
                    bridge=line.spec.sku,
                    gpus=", ".join(g.sku for g in targets),
                ),
                measured=len(targets),
                limit=1,
                unit="GPU models",
                components=(line.spec.sku, *(g.sku for g in targets)),
            )


def bridge_ways(ctx: RuleContext) -> Iterator[Finding]:
    """§4 ERROR: a 2-way-only GPU cannot take a 4-way bridge (only H200 NVL takes 2- or 4-way [S1])."""
    for group in bridge_groups(ctx.build):
        allowed = MAX_WAYS.get(group.gpu.nvlink_kind, 0)
        for line in group.bridges:
            if line.spec.ways > allowed:
                yield Finding(
                    code="interconnect.bridge_ways",
                    severity="error",
                    message=Phrase(
                        "%(gpu)s links at most %(allowed)s GPUs; %(bridge)s is a %(ways)s-way bridge.",
                        gpu=group.gpu.sku,
                        allowed=allowed,
                        bridge=line.spec.sku,
                        ways=line.spec.ways,
                    ),
                    measured=line.spec.ways,
                    limit=allowed,
                    unit="GPUs per bridge",
                    components=(line.spec.sku, group.gpu.sku),
                    fixes=add_bridge_fixes(bridge_plan(ctx, group.gpu, group.gpu_count)),
                )


def bridge_count(ctx: RuleContext) -> Iterator[Finding]:
    """§4: a set joins `ways` GPUs, so n GPUs take n // ways sets. Sets for more GPUs than the build has
    → ERROR; a group of GPUs left without its set → WARN; an odd GPU left over runs over PCIe → WARN.
    Measured and limit count bridged GPUs (sets × ways) so 2-way and 4-way sets add up."""
    build = ctx.build
    for group in bridge_groups(build):
        gpu, count, covered = group.gpu, group.gpu_count, group.covered
        sets = sum(line.qty for line in group.bridges)
        components = (*(line.spec.sku for line in group.bridges), gpu.sku)
        if covered > count:
            keep = bridge_plan(ctx, gpu, count)
            expected = ", ".join(f"{n}× {b.sku}" for b, n in keep)
            facts: dict[str, PhraseValue] = {"sets": sets, "covered": covered, "count": count, "gpu": gpu.sku}
            if sets == 1 and expected:
                message = Phrase(
                    "1 bridge set joins %(covered)s GPUs; the build has %(count)s× %(gpu)s (expected: %(expected)s).",
                    expected=expected,
                    **facts,
                )
            elif sets == 1:
                message = Phrase(
                    "1 bridge set joins %(covered)s GPUs; the build has %(count)s× %(gpu)s (expected: none).",
                    **facts,
                )
            elif expected:
                message = Phrase(
                    "%(sets)s bridge sets join %(covered)s GPUs; the build has %(count)s× %(gpu)s "
                    "(expected: %(expected)s).",
                    expected=expected,
                    **facts,
                )
            else:
                message = Phrase(
                    "%(sets)s bridge sets join %(covered)s GPUs; the build has %(count)s× %(gpu)s (expected: none).",
                    **facts,
                )
            yield Finding(
                code="interconnect.bridge_count",
                severity="error",
                message=message,
                measured=covered,
                limit=count,
                unit="bridged GPUs",
                components=components,
                fixes=(*remove_bridges(build), *add_bridge_fixes(keep))[:MAX_FIXES],
            )
            continue
        left = count - covered
        plan = bridge_plan(ctx, gpu, left)
        if plan:
            bridgeable = covered + sum(b.ways * n for b, n in plan)
            yield Finding(
                code="interconnect.bridge_missing",
                severity="warning",
                message=(
                    Phrase(
                        "1 GPU of %(count)s× %(gpu)s has no NVLink bridge set and talks over PCIe.",
                        count=count,
                        gpu=gpu.sku,
                    )
                    if left == 1
                    else Phrase(
                        "%(left)s GPUs of %(count)s× %(gpu)s have no NVLink bridge set and talk over PCIe.",
                        left=left,
                        count=count,
                        gpu=gpu.sku,
                    )
                ),
                measured=covered,
                limit=bridgeable,
                unit="bridged GPUs",
                components=components,
                fixes=add_bridge_fixes(plan),
            )
        elif left:
            yield Finding(
                code="interconnect.unbridged_gpu",
                severity="warning",
                message=(
                    Phrase(
                        "1× %(gpu)s is left without an NVLink partner and talks to the others over PCIe.",
                        gpu=gpu.sku,
                    )
                    if left == 1
                    else Phrase(
                        "%(left)s× %(gpu)s are left without an NVLink partner and talk to the others over PCIe.",
                        left=left,
                        gpu=gpu.sku,
                    )
                ),
                measured=left,
                limit=0,
                unit="GPUs",
                components=components,
            )


def _served_groups(ctx: RuleContext) -> tuple[int, int] | None:
    """(GPUs per replica, replicas) when the estimate serves the workload's users as data-parallel replicas
    (their own split, users_*: the one the per-user speed and tp_findings read; trial tr34: 4× H100 NVL whose
    users run as 2 replicas of 2 had no bridge note because the full-load split is 4 replicas of 1): the
    interconnect then matters inside each replica only; None when one instance spans every GPU or there is no
    serving estimate."""
    estimate = ctx.estimate
    throughput = estimate.throughput if estimate is not None else None
    if throughput is None or throughput.users_replicas < 2:
        return None
    return throughput.users_tensor_parallel, throughput.users_replicas


def bridge_suggested(ctx: RuleContext) -> Iterator[Finding]:
    """INFO: two or more identical NVLink-capable cards without any bridge (they still work over PCIe)."""
    build = ctx.build
    if build.bridges:
        return
    served = _served_groups(ctx)
    if served is not None and served[0] < 2:
        return  # trial 34 U01: replicas of one GPU each exchange nothing between GPUs; a bridge would not help
    for line in build.gpus:
        if line.spec.nvlink_kind in BRIDGE_KINDS and line.qty >= 2:
            plan = bridge_plan(ctx, line.spec, line.qty)
            if plan:
                gbs = Num(line.spec.nvlink_gbs or 0, None)
                message = (
                    Phrase(
                        "%(count)s× %(gpu)s serve as %(replicas)s replicas of %(size)s GPUs: NVLink bridges "
                        "(%(gbs)s GB/s) would join each replica's %(size)s GPUs instead of PCIe.",
                        count=line.qty,
                        gpu=line.spec.sku,
                        replicas=served[1],
                        size=served[0],
                        gbs=gbs,
                    )
                    if served is not None
                    else Phrase(
                        "%(count)s× %(gpu)s can be joined by NVLink (%(gbs)s GB/s) instead of PCIe.",
                        count=line.qty,
                        gpu=line.spec.sku,
                        gbs=gbs,
                    )
                )
                yield Finding(
                    code="interconnect.no_bridge",
                    severity="info",
                    message=message,
                    measured=0,
                    limit=sum(sets for _, sets in plan),
                    unit="bridge sets",
                    components=(line.spec.sku,),
                    fixes=add_bridge_fixes(plan),
                )


def nvswitch(ctx: RuleContext) -> Iterator[Finding]:
    """§4 ERROR: NVSwitch exists only on SXM/HGX baseboards; SXM modules need an HGX-certified chassis [S1]."""
    chassis = ctx.build.chassis
    for line in ctx.build.gpus:
        if line.spec.nvlink_kind == "nvswitch-sxm" and not chassis.has_nvswitch:
            hosts = [
                c
                for c in fix_options(ctx.snapshot.chassis)
                if c.has_nvswitch and chassis_takes_gpu(c, line.spec, ctx.build.gpu_count)
            ]
            yield Finding(
                code="interconnect.nvswitch",
                severity="error",
                message=Phrase(
                    "%(gpu)s links through NVSwitch on an HGX baseboard; %(chassis)s has none.",
                    gpu=line.spec.sku,
                    chassis=chassis.sku,
                ),
                measured="no nvswitch",
                limit="nvswitch",
                components=(line.spec.sku, chassis.sku),
                fixes=use_chassis_fixes(hosts, current=chassis.sku, why=Phrase("HGX baseboard with NVSwitch")),
            )


def bridge_spacing(ctx: RuleContext) -> Iterator[Finding]:
    """§4 ERROR: the bridge's slot spacing must match the slot pitch (RTX A6000: 2- or 3-slot bridges [V21]): a
    rigid bridge does not reach cards further apart (nor fit closer ones), so the GPUs talk over PCIe and the
    estimate assumes no NVLink (budgets.links.effective_link_gbs)."""
    pitch = ctx.build.chassis.gpu_slot_pitch
    if pitch is None:
        return
    for line in ctx.build.bridges:
        bridge = line.spec
        if bridge.slot_spacing != pitch and bridge_targets(ctx.build, bridge):
            others = [
                b
                for b in fix_options(ctx.snapshot.bridges)
                if b.slot_spacing == pitch and b.ways == bridge.ways and set(bridge.gpu_skus) & set(b.gpu_skus)
            ]
            yield Finding(
                code="interconnect.bridge_spacing",
                severity="error",
                message=Phrase(
                    "%(bridge)s spans %(spacing)s slots; the GPU slots of %(chassis)s are %(pitch)s slots apart.",
                    bridge=bridge.sku,
                    spacing=bridge.slot_spacing,
                    chassis=ctx.build.chassis.sku,
                    pitch=pitch,
                ),
                measured=bridge.slot_spacing,
                limit=pitch,
                unit="slots",
                components=(bridge.sku, ctx.build.chassis.sku),
                fixes=tuple(make_fix(replace_op("bridges", b.sku, line.qty, old_sku=bridge.sku)) for b in others[:1]),
            )


def tensor_parallel_over_pcie(ctx: RuleContext) -> Iterator[Finding]:
    """§4 / estimator: tensor parallelism does 2 all-reduces per layer per token, as a ring that runs at its
    slowest link (estimate.topology). When that link is not NVLink they slow decode. The loss is the
    estimator's own: decode speed at the ring's bound vs with NVLink between all the GPUs (the GPU's own
    NVLink or, for GPUs without NVLink, a 900 GB/s NVLink 4 link [S1]).

    Three findings: `tp_partly_bridged` (WARN, whatever the loss: the bridges were bought for this and do not
    carry it) when bridges join only some of the TP group, naming the link that bounds the ring; `tp_over_sockets`
    when the ring crosses the CPU sockets' link and that is slower than PCIe; `tp_over_pcie` otherwise."""
    yield from tp_findings(ctx)


def mixed_gpus(ctx: RuleContext) -> Iterator[Finding]:
    """§4 WARN (issue 12): different GPU models in one build work, but NVLink never joins two models (bridges
    and NVSwitch are per product) and tensor parallelism runs every shard at the pace of the slowest card
    (decode is memory-bandwidth bound, so the card with the least bandwidth sets it)."""
    build = ctx.build
    if len(build.gpus) < 2:
        return
    slowest = min((line.spec for line in build.gpus), key=lambda gpu: (gpu.bandwidth_gbs, gpu.sku))
    # the model the others become: the build's main one that is still sold (a part no longer sold is never bought)
    main = max(build.gpus, key=lambda line: (line.spec.is_active, line.qty, line.spec.bandwidth_gbs, line.spec.sku))
    fixes = [
        make_fix(replace_op("gpus", main.spec.sku, line.qty, old_sku=line.spec.sku))
        for line in build.gpus
        if line.spec.sku != main.spec.sku and main.spec.is_active
    ]
    yield Finding(
        code="interconnect.mixed_gpus",
        severity="warning",
        message=Phrase(
            "%(gpus)s in one build: no NVLink across different models, and tensor parallelism runs at the pace "
            "of the slowest card (%(slowest)s, %(bandwidth)s GB/s); split the models into separate jobs or "
            "use one model.",
            gpus=", ".join(f"{line.qty}× {line.spec.sku}" for line in build.gpus),
            slowest=slowest.sku,
            bandwidth=Num(slowest.bandwidth_gbs),
        ),
        measured=len(build.gpus),
        limit=1,
        unit="models",
        components=tuple(line.spec.sku for line in build.gpus),
        fixes=tuple(fixes[:1]),
    )


RULES = (
    no_nvlink,
    mixed_gpus,
    bridge_mismatch,
    mixed_models,
    bridge_ways,
    bridge_count,
    bridge_suggested,
    nvswitch,
    bridge_spacing,
    tensor_parallel_over_pcie,
)
# the build fields these rules (findings and fixes) read: after a fix that changes none, they are not re-run
READS = frozenset({"bridges", "chassis", "cpus", "gpus"})
# rules that read fewer fields than the module's READS (the same check covers them): a fix that changes
# none of these leaves their findings standing
READS_BY_RULE: dict[Rule, frozenset[str]] = {
    no_nvlink: frozenset({"bridges", "gpus"}),
    bridge_mismatch: frozenset({"bridges", "gpus"}),
    mixed_models: frozenset({"bridges", "gpus"}),
    bridge_ways: frozenset({"bridges", "gpus"}),
    bridge_count: frozenset({"bridges", "gpus"}),
    # bridge_suggested reads the estimate (its served layout), which reads the chassis and CPUs: the module READS
    mixed_gpus: frozenset({"gpus"}),
    nvswitch: frozenset({"chassis", "gpus"}),
}
