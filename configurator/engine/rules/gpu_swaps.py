"""GPU replacements the fit and cooling rules (rules/fit.py) suggest: a catalog card the chassis takes that does
the same job, or the same card in a server (passive) or blower edition.
"""

from __future__ import annotations

from configurator.engine.fixes import make_fix, replace_op
from configurator.engine.rules.context import RuleContext, chassis_takes_gpu, fix_options
from configurator.engine.types import Fix, GpuSpec

SIMILAR_SPEED_SHARE = 0.5  # a replacement card keeps at least half the bandwidth and compute (HEURISTIC)


def gpu_swaps(ctx: RuleContext, gpu: GpuSpec) -> tuple[Fix, ...]:
    """Catalog GPUs the current chassis takes that do this one's job: at least its VRAM and at least half its
    memory bandwidth and FP16 compute (no 72 W inference card for a 4090, issue 12); the same vendor first
    (the software stack stays), then the closest VRAM, then price."""
    chassis, count = ctx.build.chassis, ctx.build.gpu_count
    options = [
        other
        for other in fix_options(ctx.snapshot.gpus)
        if other.sku != gpu.sku
        and other.vram_gib >= gpu.vram_gib
        and other.bandwidth_gbs >= SIMILAR_SPEED_SHARE * gpu.bandwidth_gbs
        and other.fp16_tflops >= SIMILAR_SPEED_SHARE * gpu.fp16_tflops
        and chassis_takes_gpu(chassis, other, count)
    ]
    options.sort(key=lambda other: (other.vendor != gpu.vendor, other.vram_gib - gpu.vram_gib, other.price, other.sku))
    chosen = options[:1]
    # in a chassis built for server airflow, also the passive (Server Edition) card of the same class: what
    # an integrator fits in a 2U GPU server (issue 34)
    passive = next(
        (o for o in options if o.cooling == "passive" and o.vram_gib == gpu.vram_gib and o not in chosen), None
    )
    if chassis.server_airflow and passive is not None and gpu.cooling != "passive":
        chosen.append(passive)
    return tuple(make_fix(replace_op("gpus", other.sku, count, old_sku=gpu.sku)) for other in chosen)


def cooler_swaps(ctx: RuleContext, gpu: GpuSpec, count: int) -> tuple[Fix, ...]:
    """The same card in a server (passive) or blower edition the chassis takes: the same vendor and VRAM, at
    least half the bandwidth and compute (RTX PRO 6000 Workstation → Server Edition or Max-Q)."""
    options = [
        other
        for other in fix_options(ctx.snapshot.gpus)
        if other.cooling in ("passive", "blower")
        and other.vendor == gpu.vendor
        and other.vram_gib >= gpu.vram_gib
        and other.bandwidth_gbs >= SIMILAR_SPEED_SHARE * gpu.bandwidth_gbs
        and other.fp16_tflops >= SIMILAR_SPEED_SHARE * gpu.fp16_tflops
        and chassis_takes_gpu(ctx.build.chassis, other, ctx.build.gpu_count)
    ]
    options.sort(key=lambda other: (other.vram_gib - gpu.vram_gib, other.cooling != "passive", other.price, other.sku))
    return tuple(make_fix(replace_op("gpus", other.sku, count, old_sku=gpu.sku)) for other in options[:2])
