"""Physical fit and cooling: GPU count, width, length, TDP and form factor against the chassis, airflow, drives.

Numbers and sources: ../shared/reference/validation-rules.md §3 (card widths and lengths [S2][S12], 2U needs
horizontal risers and passive DW cards [S13], passive cards need system airflow [S1][V20], per-slot TDP
ceilings [S31], axial cards packed 4+ run hot [S7]).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from configurator.domain import ChassisSpec, Finding, Fix, GpuSpec
from configurator.phrase import Phrase
from configurator.rules.context import (
    RuleContext,
    active,
    build_gpus,
    chassis_for_gpus,
    chassis_takes_gpu,
    exceeds,
    plural,
    use_chassis_fixes,
)

AXIAL_SIDE_BY_SIDE = 4  # §3.3: 4+ axial consumer cards side by side → WARN [S7]
CONSUMER_MIN_RACK_UNITS = 3.0  # §3.2: consumer cards (top-edge 16-pin, >111 mm tall) do not fit 2U [S13]


def _chassis_fixes(ctx: RuleContext, why: Phrase | None = None) -> tuple[Fix, ...]:
    return use_chassis_fixes(
        chassis_for_gpus(ctx.snapshot, build_gpus(ctx.build), like=ctx.build.chassis),
        current=ctx.build.chassis.sku,
        why=why,
    )


def _per_gpu_limit(
    ctx: RuleContext,
    *,
    code: str,
    value: Callable[[GpuSpec], float | int | None],
    limit: Callable[[ChassisSpec], float | int | None],
    unit: str,
    what: str,
) -> Iterator[Finding]:
    """ERROR per GPU model whose `value` exceeds the chassis' `limit` (either unknown: no finding)."""
    chassis = ctx.build.chassis
    for line in ctx.build.gpus:
        gpu = line.spec
        if exceeds(value(gpu), limit(chassis)):
            yield Finding(
                code=code,
                severity="error",
                message=f"{gpu.sku} {what} {value(gpu)}{(' ' + unit) if unit else ''}; {chassis.sku} takes "
                f"at most {limit(chassis)}{(' ' + unit) if unit else ''}.",
                measured=value(gpu),
                limit=limit(chassis),
                unit=unit,
                components=(gpu.sku, chassis.sku),
                fixes=_chassis_fixes(ctx) + _gpu_fixes(ctx, gpu),
            )


def _gpu_fixes(ctx: RuleContext, gpu: GpuSpec) -> tuple[Fix, ...]:
    """Catalog GPUs with at least this one's VRAM that the current chassis takes (closest VRAM, then price)."""
    chassis, count = ctx.build.chassis, ctx.build.gpu_count
    options = [
        other
        for other in active(ctx.snapshot.gpus)
        if other.sku != gpu.sku and other.vram_gib >= gpu.vram_gib and chassis_takes_gpu(chassis, other, count)
    ]
    options.sort(key=lambda other: (other.vram_gib - gpu.vram_gib, other.price, other.sku))
    return tuple(
        Fix(
            action="replace",
            detail=f"replace {gpu.sku} with {count}× {other.sku}",
            sku=other.sku,
            target="gpus",
            qty=count,
        )
        for other in options[:1]
    )


def gpu_count(ctx: RuleContext) -> Iterator[Finding]:
    """GPU count ≤ the chassis' GPU bays and its vendor maximum (§3.1 max_gpus_per_platform)."""
    build = ctx.build
    chassis = build.chassis
    most = min(chassis.max_gpu_count, chassis.gpu_bays)
    if build.gpu_count > most:
        heaviest = max(build.gpus, key=lambda line: (line.spec.tdp_w, line.spec.sku)).spec
        extra = build.gpu_count - most
        remove = Fix(
            action="remove",
            detail=f"remove {extra}× {heaviest.sku}",
            sku=heaviest.sku,
            target="gpus",
            qty=extra,
        )
        yield Finding(
            code="fit.gpu_count",
            severity="error",
            message=f"{chassis.sku} takes at most {plural(most, 'GPU')}; the build has {build.gpu_count}.",
            measured=build.gpu_count,
            limit=most,
            unit="GPUs",
            components=(chassis.sku, *(line.spec.sku for line in build.gpus)),
            fixes=(*_chassis_fixes(ctx)[:2], remove),
        )


def gpu_slot_width(ctx: RuleContext) -> Iterator[Finding]:
    """Card width ≤ what the slot spacing allows: RTX 4090 / 3090 FE are 3-slot, DW datacenter cards 2 (§3.1)."""
    yield from _per_gpu_limit(
        ctx,
        code="fit.gpu_slot_width",
        value=lambda gpu: gpu.slot_width,
        limit=lambda chassis: chassis.max_gpu_slot_width,
        unit="slots",
        what="is",
    )


def gpu_length(ctx: RuleContext) -> Iterator[Finding]:
    """Card length ≤ the GPU bay: DW datacenter cards are FHFL 267 mm, consumer cards 304-336 mm (§3.2)."""
    yield from _per_gpu_limit(
        ctx,
        code="fit.gpu_length",
        value=lambda gpu: gpu.length_mm,
        limit=lambda chassis: chassis.max_gpu_length_mm,
        unit="mm",
        what="is",
    )


def gpu_tdp(ctx: RuleContext) -> Iterator[Finding]:
    """GPU TDP ≤ the chassis' per-slot cooling limit (Lenovo SR650a V4: DW up to 400 W [S31]) (§3.3)."""
    yield from _per_gpu_limit(
        ctx,
        code="fit.gpu_tdp",
        value=lambda gpu: gpu.tdp_w,
        limit=lambda chassis: chassis.max_gpu_tdp_w,
        unit="W",
        what="draws",
    )


def gpu_form_factor(ctx: RuleContext) -> Iterator[Finding]:
    """SXM/OAM modules only on their baseboard (HGX), PCIe cards never on one (§4, [S1])."""
    chassis = ctx.build.chassis
    for line in ctx.build.gpus:
        gpu = line.spec
        if gpu.form_factor != chassis.gpu_form_factor:
            yield Finding(
                code="fit.gpu_form_factor",
                severity="error",
                message=f"{gpu.sku} is a {gpu.form_factor.upper()} GPU; {chassis.sku} takes "
                f"{chassis.gpu_form_factor.upper()} GPUs only.",
                measured=gpu.form_factor,
                limit=chassis.gpu_form_factor,
                components=(gpu.sku, chassis.sku),
                fixes=_chassis_fixes(ctx),
            )


def gpu_height(ctx: RuleContext) -> Iterator[Finding]:
    """§3.2: consumer cards (top-edge 16-pin, taller than 111 mm plus the cable bend) do not fit a 2U chassis."""
    chassis = ctx.build.chassis
    if chassis.rack_units is None or chassis.rack_units >= CONSUMER_MIN_RACK_UNITS:
        return
    for line in ctx.build.gpus:
        if line.spec.is_consumer:
            yield Finding(
                code="fit.gpu_height",
                severity="error",
                message=f"{line.spec.sku} is a consumer card with a top-edge power connector; it does not fit "
                f"the {chassis.rack_units:g}U height of {chassis.sku}.",
                measured=chassis.rack_units,
                limit=CONSUMER_MIN_RACK_UNITS,
                unit="U",
                components=(line.spec.sku, chassis.sku),
                fixes=_chassis_fixes(ctx),
            )


def passive_airflow(ctx: RuleContext) -> Iterator[Finding]:
    """§3.3 ERROR: a passive card "requires system airflow" (NVIDIA H100 PCIe / A100 briefs [S1][V20]);
    a tower or desktop without validated server fans cannot cool it."""
    chassis = ctx.build.chassis
    if chassis.server_airflow:
        return
    passive = [line.spec for line in ctx.build.gpus if line.spec.cooling == "passive"]
    if passive:
        racks = [
            c for c in chassis_for_gpus(ctx.snapshot, build_gpus(ctx.build), like=ctx.build.chassis) if c.server_airflow
        ]
        yield Finding(
            code="cooling.passive_airflow",
            severity="error",
            message=", ".join(gpu.sku for gpu in passive)
            + f" {'is' if len(passive) == 1 else 'are'} passively cooled and need front-to-back server airflow; "
            f"{chassis.sku} has none.",
            measured="passive",
            limit="server airflow",
            components=(*(gpu.sku for gpu in passive), chassis.sku),
            fixes=use_chassis_fixes(racks, current=chassis.sku, why=Phrase("server airflow")),
        )


def axial_density(ctx: RuleContext) -> Iterator[Finding]:
    """§3.3 WARN: 4+ axial consumer cards side by side recirculate hot air (80-85 °C at 600 W, 88 °C slot
    temperatures cause instability, throttle ~95 °C [S7]); blower or passive cards suit dense builds."""
    axial = [line for line in ctx.build.gpus if line.spec.cooling == "active" and line.spec.is_consumer]
    count = sum(line.qty for line in axial)
    if count >= AXIAL_SIDE_BY_SIDE:
        yield Finding(
            code="cooling.axial_density",
            severity="warning",
            message=f"{count} axial-fan consumer cards side by side: the inner cards breathe the outer cards' "
            "exhaust; expect throttling without strong chassis airflow.",
            measured=count,
            limit=AXIAL_SIDE_BY_SIDE - 1,
            unit="GPUs",
            components=tuple(line.spec.sku for line in axial),
        )


def drive_bays(ctx: RuleContext) -> Iterator[Finding]:
    """Drives ≤ the chassis' drive bays."""
    build = ctx.build
    drives = sum(line.qty for line in build.storage)
    if drives > build.chassis.drive_bays:
        extra = drives - build.chassis.drive_bays
        fixes: tuple[Fix, ...] = ()
        if build.storage:
            smallest = min(build.storage, key=lambda line: (line.spec.capacity_tb, line.spec.sku)).spec
            fixes = (
                Fix(
                    action="remove",
                    detail=f"remove {extra}× {smallest.sku}",
                    sku=smallest.sku,
                    target="storage",
                    qty=extra,
                ),
            )
        yield Finding(
            code="fit.drive_bays",
            severity="error",
            message=f"{plural(drives, 'drive')} do not fit the {build.chassis.drive_bays} drive bays of "
            f"{build.chassis.sku}.",
            measured=drives,
            limit=build.chassis.drive_bays,
            unit="drives",
            components=tuple(line.spec.sku for line in build.storage),
            fixes=fixes,
        )


def chassis_kind(ctx: RuleContext) -> Iterator[Finding]:
    """Rack units and kind agree: rack kinds have a height in U, towers do not (catalog consistency)."""
    chassis = ctx.build.chassis
    if chassis.is_rack == (chassis.rack_units is not None):
        return
    yield Finding(
        code="fit.chassis_kind",
        severity="error",
        message=f"{chassis.sku} is a {chassis.kind} but its rack units are "
        f"{'missing' if chassis.rack_units is None else f'{chassis.rack_units:g}U'}; fix the catalog row.",
        measured=chassis.rack_units if chassis.rack_units is not None else "none",
        limit=chassis.kind,
        components=(chassis.sku,),
    )


RULES = (
    gpu_count,
    gpu_slot_width,
    gpu_length,
    gpu_tdp,
    gpu_form_factor,
    gpu_height,
    passive_airflow,
    axial_density,
    drive_bays,
    chassis_kind,
)
