"""Physical fit and cooling: GPU count, width, length, TDP and form factor against the chassis, airflow, drives.

Numbers and sources: ../shared/reference/validation-rules.md §3 (card widths and lengths [S2][S12], 2U needs
horizontal risers and passive DW cards [S13], passive cards need system airflow [S1][V20], per-slot TDP
ceilings [S31], axial cards packed 4+ run hot [S7]).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from configurator.engine.fixes import make_fix, remove_op
from configurator.engine.phrase import Num, Phrase
from configurator.engine.rules.context import (
    Rule,
    RuleContext,
    build_gpus,
    chassis_for_gpus,
    exceeds,
    other_generation,
    part_fix,
    remove_heaviest_gpus_fix,
    use_chassis_fixes,
)
from configurator.engine.rules.gpu_swaps import cooler_swaps, gpu_swaps
from configurator.engine.types import ChassisSpec, Finding, Fix, GpuSpec

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
    say: Callable[[str, Num, str, Num], Phrase],
) -> Iterator[Finding]:
    """ERROR per GPU model whose `value` exceeds the chassis' `limit` (either unknown: no finding).
    `say(gpu, value, chassis, limit)` words the message."""
    chassis = ctx.build.chassis
    for line in ctx.build.gpus:
        gpu = line.spec
        size, most = value(gpu), limit(chassis)
        if size is not None and most is not None and exceeds(size, most):
            yield Finding(
                code=code,
                severity="error",
                message=say(gpu.sku, Num(size, None), chassis.sku, Num(most, None)),
                measured=value(gpu),
                limit=limit(chassis),
                unit=unit,
                components=(gpu.sku, chassis.sku),
                fixes=_chassis_fixes(ctx) + gpu_swaps(ctx, gpu),
            )


def gpu_count(ctx: RuleContext) -> Iterator[Finding]:
    """GPU count ≤ the chassis' GPU bays and its vendor maximum (§3.1 max_gpus_per_platform)."""
    build = ctx.build
    chassis = build.chassis
    most = min(chassis.max_gpu_count, chassis.gpu_bays)
    if build.gpu_count > most:
        remove = remove_heaviest_gpus_fix(build, build.gpu_count - most)
        message = (
            Phrase(
                "%(chassis)s takes at most 1 GPU; the build has %(count)s.", chassis=chassis.sku, count=build.gpu_count
            )
            if most == 1
            else Phrase(
                "%(chassis)s takes at most %(most)s GPUs; the build has %(count)s.",
                chassis=chassis.sku,
                most=most,
                count=build.gpu_count,
            )
        )
        yield Finding(
            code="fit.gpu_count",
            severity="error",
            message=message,
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
        say=lambda gpu, width, chassis, most: Phrase(
            "%(gpu)s is %(width)s slots; %(chassis)s takes at most %(most)s slots.",
            gpu=gpu,
            width=width,
            chassis=chassis,
            most=most,
        ),
    )


def gpu_length(ctx: RuleContext) -> Iterator[Finding]:
    """Card length ≤ the GPU bay: DW datacenter cards are FHFL 267 mm, consumer cards 304-336 mm (§3.2)."""
    yield from _per_gpu_limit(
        ctx,
        code="fit.gpu_length",
        value=lambda gpu: gpu.length_mm,
        limit=lambda chassis: chassis.max_gpu_length_mm,
        unit="mm",
        say=lambda gpu, length, chassis, most: Phrase(
            "%(gpu)s is %(length)s mm; %(chassis)s takes at most %(most)s mm.",
            gpu=gpu,
            length=length,
            chassis=chassis,
            most=most,
        ),
    )


def gpu_tdp(ctx: RuleContext) -> Iterator[Finding]:
    """GPU TDP ≤ the chassis' per-slot cooling limit (Lenovo SR650a V4: DW up to 400 W [S31]) (§3.3)."""
    yield from _per_gpu_limit(
        ctx,
        code="fit.gpu_tdp",
        value=lambda gpu: gpu.tdp_w,
        limit=lambda chassis: chassis.max_gpu_tdp_w,
        unit="W",
        say=lambda gpu, tdp, chassis, most: Phrase(
            "%(gpu)s draws %(tdp)s W; %(chassis)s takes at most %(most)s W.",
            gpu=gpu,
            tdp=tdp,
            chassis=chassis,
            most=most,
        ),
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
                message=Phrase(
                    "%(gpu)s is a %(kind)s GPU; %(chassis)s takes %(takes)s GPUs only.",
                    gpu=gpu.sku,
                    kind=gpu.form_factor.upper(),
                    chassis=chassis.sku,
                    takes=chassis.gpu_form_factor.upper(),
                ),
                measured=gpu.form_factor,
                limit=chassis.gpu_form_factor,
                components=(gpu.sku, chassis.sku),
                fixes=_chassis_fixes(ctx),
            )


SOCKET_NAMES = {
    "sxm4": "SXM4", "sxm5": "SXM5", "sxm6": "SXM6", "hgx-b300": "Blackwell Ultra SXM", "hgx-h100": "H100 SXM5",
    "hgx-h200": "H200 SXM5", "oam": "OAM",
}  # fmt: skip
#: the baseboard each module generation sits on (NVIDIA HGX A100 / H100-H200 / B200; AMD Instinct UBB)
SOCKET_BOARDS = {
    "sxm4": "HGX A100",
    "sxm5": "HGX H100/H200",
    "sxm6": "HGX B200",
    "hgx-b300": "HGX B300",
    "hgx-h100": "HGX H100 8-GPU",
    "hgx-h200": "HGX H200 8-GPU",
    "oam": "AMD Instinct UBB",
}


def gpu_generation(ctx: RuleContext) -> Iterator[Finding]:
    """ERROR: an SXM/OAM module sits only on a baseboard of its own generation — SXM4 (HGX A100), SXM5
    (HGX H100/H200), SXM6 (HGX B200), OAM (AMD UBB); the sockets, power and NVLink generations differ
    (fixtures/catalog.json module_socket / baseboard_socket sources). The form factor alone (`sxm`) does not
    say it."""
    chassis = ctx.build.chassis
    for line in ctx.build.gpus:
        gpu = line.spec
        if gpu.form_factor != chassis.gpu_form_factor or not other_generation(chassis, gpu):
            continue  # another form factor altogether (OAM on an SXM board) is fit.gpu_form_factor's error
        yield Finding(
            code="fit.gpu_generation",
            severity="error",
            message=Phrase(
                "%(gpu)s is an %(socket)s module for the %(board)s baseboard; %(chassis)s has an %(chassis_board)s "
                "baseboard for %(chassis_socket)s modules only.",
                gpu=gpu.sku,
                socket=SOCKET_NAMES.get(gpu.module_socket, gpu.module_socket),
                board=SOCKET_BOARDS.get(gpu.module_socket, gpu.module_socket),
                chassis=chassis.sku,
                chassis_board=chassis.gpu_baseboard or SOCKET_BOARDS.get(chassis.baseboard_socket, ""),
                chassis_socket=SOCKET_NAMES.get(chassis.baseboard_socket, chassis.baseboard_socket),
            ),
            measured=gpu.module_socket,
            limit=chassis.baseboard_socket,
            components=(gpu.sku, chassis.sku),
            fixes=_chassis_fixes(ctx) + gpu_swaps(ctx, gpu),
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
                message=Phrase(
                    "%(gpu)s is a consumer card with a top-edge power connector; it does not fit "
                    "the %(units)sU height of %(chassis)s.",
                    gpu=line.spec.sku,
                    units=Num(chassis.rack_units, None),
                    chassis=chassis.sku,
                ),
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
        gpus = ", ".join(gpu.sku for gpu in passive)
        message = (
            Phrase(
                "%(gpu)s is passively cooled and needs front-to-back server airflow; %(chassis)s has none.",
                gpu=gpus,
                chassis=chassis.sku,
            )
            if len(passive) == 1
            else Phrase(
                "%(gpus)s are passively cooled and need front-to-back server airflow; %(chassis)s has none.",
                gpus=gpus,
                chassis=chassis.sku,
            )
        )
        yield Finding(
            code="cooling.passive_airflow",
            severity="error",
            message=message,
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
            message=Phrase(
                "%(count)s axial-fan consumer cards side by side: the inner cards breathe the outer cards' "
                "exhaust; expect throttling without strong chassis airflow.",
                count=count,
            ),
            measured=count,
            limit=AXIAL_SIDE_BY_SIDE - 1,
            unit="GPUs",
            components=tuple(line.spec.sku for line in axial),
        )


def flow_through_in_server(ctx: RuleContext) -> Iterator[Finding]:
    """Issue 34: workstation cards with axial / flow-through coolers (RTX PRO 6000 Workstation Edition, 600 W)
    blow their heat into the chassis instead of along the server's front-to-back airflow; packed 4+ in a
    rack server the inner cards breathe the others' exhaust (80-85 °C at 600 W, instability from 88 °C slot
    temperatures, throttling ~95 °C [S7]; validation-rules.md §3.3). Servers take passive Server Edition or
    blower (Max-Q) cards. WARN at 4+ such cards, INFO below. Consumer axial cards: `axial_density`."""
    chassis = ctx.build.chassis
    if chassis.is_workstation:
        return
    lines = [line for line in ctx.build.gpus if line.spec.cooling == "active" and not line.spec.is_consumer]
    count = sum(line.qty for line in lines)
    if not count:
        return
    dense = count >= AXIAL_SIDE_BY_SIDE
    fixes = tuple(fix for line in lines for fix in cooler_swaps(ctx, line.spec, line.qty)) if dense else ()
    yield Finding(
        code="cooling.flow_through_server",
        severity="warning" if dense else "info",
        message=Phrase.plural(
            "%(count)s workstation card with a flow-through (axial) cooler in the %(chassis)s server: it "
            "exhausts into the chassis, not along the server's front-to-back airflow; servers take passive "
            "(Server Edition) or blower (Max-Q) cards.",
            "%(count)s workstation cards with flow-through (axial) coolers in the %(chassis)s server: they "
            "exhaust into the chassis and the inner cards breathe the others' hot air (80-85 °C at 600 W, "
            "throttling near 95 °C); servers take passive (Server Edition) or blower (Max-Q) cards.",
            "count",
            count=count,
            chassis=chassis.sku,
        ),
        measured=count,
        limit=AXIAL_SIDE_BY_SIDE - 1,
        unit="GPUs",
        components=tuple(line.spec.sku for line in lines),
        fixes=fixes,
    )


def _drive_removals(ctx: RuleContext, extra: int) -> tuple[Fix, ...]:
    """Remove `extra` drives, the smallest first, but never the mirrored boot pair of a GPU server or a production
    build (rules/platform.boot_mirror asks for it): the two smallest drives stay, the data drives go."""
    from configurator.engine.rules.platform import BOOT_MIRROR_DRIVES, datacenter_server

    build = ctx.build
    production = ctx.workload is not None and ctx.workload.production and build.gpu_count > 0
    units = sorted((line.spec.capacity_tb, line.spec.sku) for line in build.storage for _ in range(line.qty))
    boot = BOOT_MIRROR_DRIVES if datacenter_server(build) or production else 0
    removable = units[boot:] if len(units) - boot >= extra else units
    taken: dict[str, int] = {}
    for _, sku in removable[:extra]:
        taken[sku] = taken.get(sku, 0) + 1
    return (make_fix(*(remove_op("storage", sku, qty) for sku, qty in taken.items())),) if taken else ()


def drive_bays(ctx: RuleContext) -> Iterator[Finding]:
    """Drives ≤ the chassis' drive bays plus its M.2 sockets (where the boot pair goes; the recommender's sizing
    and rules/platform count them alike)."""
    build = ctx.build
    drives = sum(line.qty for line in build.storage)
    slots = build.chassis.drive_bays + build.chassis.chipset_m2_slots
    if drives > slots:
        extra = drives - slots
        fixes = _drive_removals(ctx, extra) if build.storage else ()
        bays, chassis = slots, build.chassis.sku
        message = Phrase.plural(
            "%(count)s drive does not fit the %(bays)s drive bays of %(chassis)s.",
            "%(count)s drives do not fit the %(bays)s drive bays of %(chassis)s.",
            "count",
            count=drives,
            bays=bays,
            chassis=chassis,
        )
        yield Finding(
            code="fit.drive_bays",
            severity="error",
            message=message,
            measured=drives,
            limit=slots,
            unit="drives",
            components=tuple(line.spec.sku for line in build.storage),
            fixes=fixes,
        )


def chassis_kind(ctx: RuleContext) -> Iterator[Finding]:
    """Rack units and kind agree: rack kinds have a height in U, towers do not (catalog consistency)."""
    chassis = ctx.build.chassis
    if chassis.is_rack == (chassis.rack_units is not None):
        return
    message = (
        Phrase(
            "%(chassis)s is a %(kind)s but its rack units are missing; fix the catalog row.",
            chassis=chassis.sku,
            kind=chassis.kind,
        )
        if chassis.rack_units is None
        else Phrase(
            "%(chassis)s is a %(kind)s but its rack units are %(units)sU; fix the catalog row.",
            chassis=chassis.sku,
            kind=chassis.kind,
            units=Num(chassis.rack_units, None),
        )
    )
    yield Finding(
        code="fit.chassis_kind",
        severity="error",
        message=message,
        measured=chassis.rack_units if chassis.rack_units is not None else "none",
        limit=chassis.kind,
        components=(chassis.sku,),
    )


def baseboard_count(ctx: RuleContext) -> Iterator[Finding]:
    """ERROR (issue 12): a fixed GPU baseboard (HGX H200 8-GPU) is built for certain counts only (4 or 8 SXM
    modules, platforms.md §5 [S1]); any other count cannot be ordered."""
    build = ctx.build
    chassis = build.chassis
    counts = chassis.baseboard_gpu_counts
    if not counts or not build.gpus or build.gpu_count in counts or build.gpu_count > max(counts):
        return
    main = max(build.gpus, key=lambda line: (line.qty, line.spec.sku)).spec
    fixes = []
    above = [count for count in counts if count > build.gpu_count]
    below = [count for count in counts if count < build.gpu_count]
    if above and main.is_active:  # more of a GPU no longer sold is never proposed
        fixes.append(part_fix("add", "gpus", main.sku, min(above) - build.gpu_count))
    if below and main.sku in {line.spec.sku for line in build.gpus}:
        fixes.append(part_fix("remove", "gpus", main.sku, build.gpu_count - max(below)))
    yield Finding(
        code="fit.baseboard_count",
        severity="error",
        message=Phrase(
            "%(chassis)s has an %(board)s baseboard, built for %(counts)s GPUs; the build has %(count)s.",
            chassis=chassis.sku,
            board=chassis.gpu_baseboard,
            counts="/".join(str(count) for count in counts),
            count=build.gpu_count,
        ),
        measured=build.gpu_count,
        limit=", ".join(str(count) for count in counts),
        unit="GPUs",
        components=(chassis.sku, *(line.spec.sku for line in build.gpus)),
        fixes=tuple(fixes),
    )


RULES = (
    gpu_count,
    baseboard_count,
    gpu_slot_width,
    gpu_length,
    gpu_tdp,
    gpu_form_factor,
    gpu_generation,
    gpu_height,
    passive_airflow,
    axial_density,
    flow_through_in_server,
    drive_bays,
    chassis_kind,
)
# the build fields these rules (findings and fixes) read: after a fix that changes none, they are not re-run
READS = frozenset({"chassis", "gpus", "storage"})
# rules that read fewer fields than the module's READS (the same check covers them): a fix that changes
# none of these leaves their findings standing
READS_BY_RULE: dict[Rule, frozenset[str]] = {
    gpu_count: frozenset({"chassis", "gpus"}),
    baseboard_count: frozenset({"chassis", "gpus"}),
    gpu_slot_width: frozenset({"chassis", "gpus"}),
    gpu_length: frozenset({"chassis", "gpus"}),
    gpu_tdp: frozenset({"chassis", "gpus"}),
    gpu_form_factor: frozenset({"chassis", "gpus"}),
    gpu_generation: frozenset({"chassis", "gpus"}),
    gpu_height: frozenset({"chassis", "gpus"}),
    passive_airflow: frozenset({"chassis", "gpus"}),
    axial_density: frozenset({"gpus"}),
    flow_through_in_server: frozenset({"chassis", "gpus"}),
    drive_bays: frozenset({"chassis", "gpus", "storage"}),  # the fixes keep a GPU server's boot pair
    chassis_kind: frozenset({"chassis"}),
}
