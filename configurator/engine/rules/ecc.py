"""ECC need: a production or `require_ecc` workload needs ECC GPU memory (and ECC system memory).

Source: ../shared/reference/validation-rules.md §5.1 (datacenter and pro cards have ECC GDDR/HBM, GeForce
cards do not [gpus.csv]; "if the customer requires ECC end-to-end and picks GeForce → ERROR").
"""

from __future__ import annotations

from collections.abc import Iterator

from configurator.engine.fixes import chassis_op, make_fix, replace_op
from configurator.engine.phrase import Num, Phrase
from configurator.engine.rules.context import MAX_FIXES, Rule, RuleContext, chassis_takes_gpu, fix_options
from configurator.engine.types import Finding, GpuSpec

SIMILAR_VRAM_SHARE = 0.8  # "similar" capacity: at least 80 % of the replaced GPU's VRAM


def _why(ctx: RuleContext) -> Phrase:
    workload = ctx.workload
    assert workload is not None  # noqa: S101 - callers check
    return Phrase("requires ECC") if workload.require_ecc else Phrase("is marked production")


def _needs_ecc(ctx: RuleContext) -> bool:
    return ctx.workload is not None and (ctx.workload.require_ecc or ctx.workload.production)


def ecc_gpus_like(ctx: RuleContext, gpu: GpuSpec, count: int) -> list[GpuSpec]:
    """Active ECC GPUs with similar or more VRAM: those the chassis takes first, then the same vendor (a CUDA
    workload on a GeForce card goes to an NVIDIA ECC card before an AMD one, issue 12), then the closest
    capacity."""
    chassis = ctx.build.chassis
    options = [
        other
        for other in fix_options(ctx.snapshot.gpus)
        if other.ecc and other.vram_gib >= SIMILAR_VRAM_SHARE * gpu.vram_gib
    ]
    return sorted(
        options,
        key=lambda other: (
            not chassis_takes_gpu(chassis, other, count),
            other.vendor != gpu.vendor,
            abs(other.vram_gib - gpu.vram_gib),
            other.price,
            other.sku,
        ),
    )


def gpu_ecc(ctx: RuleContext) -> Iterator[Finding]:
    """ERROR: a GPU without ECC memory in a build whose workload requires ECC or is production."""
    if not _needs_ecc(ctx):
        return
    for line in ctx.build.gpus:
        gpu = line.spec
        if gpu.ecc:
            continue
        yield Finding(
            code="ecc.gpu_required",
            severity="error",
            message=Phrase("The workload %(why)s; %(gpu)s has no ECC memory.", why=_why(ctx), gpu=gpu.sku),
            measured="no ecc",
            limit="ecc",
            components=(gpu.sku,),
            fixes=tuple(
                make_fix(
                    replace_op("gpus", other.sku, line.qty, old_sku=gpu.sku),
                    reason=Phrase("%(vram)s GB with ECC", vram=Num(other.vram_gib, None)),
                )
                for other in ecc_gpus_like(ctx, gpu, ctx.build.gpu_count)[:MAX_FIXES]
            ),
        )


def memory_ecc(ctx: RuleContext) -> Iterator[Finding]:
    """ERROR: end-to-end ECC includes system memory — non-ECC DIMMs with a workload that requires ECC."""
    if not _needs_ecc(ctx):
        return
    plain = [line.spec for line in ctx.build.memory if not line.spec.ecc]
    if plain:
        racks = [
            chassis
            for chassis in fix_options(ctx.snapshot.chassis)
            if chassis.memory_kind == "rdimm"
            and all(chassis_takes_gpu(chassis, line.spec, ctx.build.gpu_count) for line in ctx.build.gpus)
        ]
        racks.sort(key=lambda chassis: (chassis.price, chassis.sku))
        yield Finding(
            code="ecc.memory_required",
            severity="error",
            message=(
                Phrase("The workload %(why)s; %(memory)s is non-ECC memory.", why=_why(ctx), memory=plain[0].sku)
                if len(plain) == 1
                else Phrase(
                    "The workload %(why)s; %(memory)s are non-ECC memory.",
                    why=_why(ctx),
                    memory=", ".join(d.sku for d in plain),
                )
            ),
            measured="no ecc",
            limit="ecc",
            components=tuple(d.sku for d in plain),
            fixes=tuple(
                make_fix(chassis_op(chassis.sku), reason=Phrase("ECC RDIMM platform"))
                for chassis in racks[:1]
                if chassis.sku != ctx.build.chassis.sku
            ),
        )


RULES = (gpu_ecc, memory_ecc)
# the build fields these rules (findings and fixes) read: after a fix that changes none, they are not re-run
READS = frozenset({"chassis", "gpus", "memory"})
# rules that read fewer fields than the module's READS (the same check covers them): a fix that changes
# none of these leaves their findings standing
READS_BY_RULE: dict[Rule, frozenset[str]] = {
    gpu_ecc: frozenset({"chassis", "gpus"}),
}
