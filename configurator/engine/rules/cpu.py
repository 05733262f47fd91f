"""CPUs: socket, socket count, 1P-only parts, identical CPUs in 2P.

Numbers and sources: ../shared/reference/validation-rules.md §6 (AMD "P" EPYC SKUs are 1P-only [S3];
Xeon W and Threadripper are single-socket [V1]; 2P boards need two identical CPUs [V24]).
"""

from __future__ import annotations

from collections.abc import Iterator

from configurator.engine.fixes import make_fix, replace_op
from configurator.engine.phrase import Phrase
from configurator.engine.rules.context import Rule, RuleContext, fix_options, part_fix, use_chassis_fixes
from configurator.engine.types import CpuSpec, Finding, Fix


def _cpus_for(ctx: RuleContext, *, like: CpuSpec | None, sockets: int) -> list[CpuSpec]:
    """Active CPUs for the chassis socket that run in `sockets`-socket mode, closest in cores first."""
    chassis = ctx.build.chassis
    cores = like.cores if like else 0
    options = [
        cpu for cpu in fix_options(ctx.snapshot.cpus) if cpu.socket == chassis.cpu_socket and cpu.max_sockets >= sockets
    ]
    return sorted(options, key=lambda cpu: (abs(cpu.cores - cores), cpu.price, cpu.sku))


def _use_cpu(cpu: CpuSpec, qty: int) -> Fix:
    return make_fix(replace_op("cpus", cpu.sku, qty))


def cpu_present(ctx: RuleContext) -> Iterator[Finding]:
    """A build needs at least one CPU."""
    build = ctx.build
    if build.cpus:
        return
    options = sorted(_cpus_for(ctx, like=None, sockets=1), key=lambda cpu: (cpu.price, cpu.sku))
    yield Finding(
        code="cpu.none",
        severity="error",
        message=Phrase(
            "The build has no CPU; %(chassis)s takes %(socket)s CPUs.",
            chassis=build.chassis.sku,
            socket=build.chassis.cpu_socket,
        ),
        measured=0,
        limit=1,
        unit="CPUs",
        components=(build.chassis.sku,),
        fixes=tuple(part_fix("add", "cpus", cpu.sku, 1) for cpu in options[:1]),
    )


def cpu_socket(ctx: RuleContext) -> Iterator[Finding]:
    """CPU socket = the chassis board's socket."""
    build = ctx.build
    chassis = build.chassis
    for line in build.cpus:
        cpu = line.spec
        if cpu.socket == chassis.cpu_socket:
            continue
        boards = [
            c
            for c in fix_options(ctx.snapshot.chassis)
            if c.cpu_socket == cpu.socket and c.cpu_sockets >= line.qty and c.is_rack == chassis.is_rack
        ]
        yield Finding(
            code="cpu.socket",
            severity="error",
            message=Phrase(
                "%(cpu)s is a %(socket)s CPU; %(chassis)s has a %(chassis_socket)s socket.",
                cpu=cpu.sku,
                socket=cpu.socket,
                chassis=chassis.sku,
                chassis_socket=chassis.cpu_socket,
            ),
            measured=cpu.socket,
            limit=chassis.cpu_socket,
            components=(cpu.sku, chassis.sku),
            fixes=(
                *(_use_cpu(option, line.qty) for option in _cpus_for(ctx, like=cpu, sockets=line.qty)[:1]),
                *use_chassis_fixes(boards, current=chassis.sku)[:1],
            ),
        )


def cpu_count(ctx: RuleContext) -> Iterator[Finding]:
    """CPU count ≤ the chassis' sockets."""
    build = ctx.build
    sockets = build.chassis.cpu_sockets
    if build.cpu_count > sockets:
        extra = build.cpu_count - sockets
        cpu = build.cpus[-1].spec
        message = (
            Phrase(
                "%(chassis)s has 1 socket; the build has %(count)s CPUs.",
                chassis=build.chassis.sku,
                count=build.cpu_count,
            )
            if sockets == 1
            else Phrase(
                "%(chassis)s has %(sockets)s sockets; the build has %(count)s CPUs.",
                chassis=build.chassis.sku,
                sockets=sockets,
                count=build.cpu_count,
            )
        )
        yield Finding(
            code="cpu.count",
            severity="error",
            message=message,
            measured=build.cpu_count,
            limit=sockets,
            unit="CPUs",
            components=(build.chassis.sku, *(line.spec.sku for line in build.cpus)),
            fixes=(part_fix("remove", "cpus", cpu.sku, extra),),
        )


def one_socket_parts(ctx: RuleContext) -> Iterator[Finding]:
    """§6 ERROR: 1P-only parts (EPYC …P "Socket Count 1P" [S3], Threadripper, Xeon W [V1]) never in 2P."""
    build = ctx.build
    count = build.cpu_count
    if count < 2:
        return
    for line in build.cpus:
        cpu = line.spec
        if cpu.max_sockets >= count:
            continue
        sockets = min(count, build.chassis.cpu_sockets)
        message = (
            Phrase(
                "%(cpu)s runs in at most 1 socket; the build puts %(count)s CPUs on one board.",
                cpu=cpu.sku,
                count=count,
            )
            if cpu.max_sockets == 1
            else Phrase(
                "%(cpu)s runs in at most %(sockets)s sockets; the build puts %(count)s CPUs on one board.",
                cpu=cpu.sku,
                sockets=cpu.max_sockets,
                count=count,
            )
        )
        yield Finding(
            code="cpu.one_socket_part",
            severity="error",
            message=message,
            measured=count,
            limit=cpu.max_sockets,
            unit="sockets",
            components=(cpu.sku,),
            fixes=(
                *(_use_cpu(option, sockets) for option in _cpus_for(ctx, like=cpu, sockets=sockets)[:1]),
                part_fix("remove", "cpus", cpu.sku, count - cpu.max_sockets),
            ),
        )


def identical_cpus(ctx: RuleContext) -> Iterator[Finding]:
    """§6 ERROR: a 2P board needs two identical CPUs [V24]."""
    build = ctx.build
    if len(build.cpus) > 1:
        first = build.cpus[0].spec
        yield Finding(
            code="cpu.mixed",
            severity="error",
            message=Phrase(
                "The CPUs of one board must be the same model: %(cpus)s.",
                cpus=", ".join(line.spec.sku for line in build.cpus),
            ),
            measured=len(build.cpus),
            limit=1,
            unit="CPU models",
            components=tuple(line.spec.sku for line in build.cpus),
            fixes=(_use_cpu(first, build.cpu_count),),
        )


def empty_socket(ctx: RuleContext) -> Iterator[Finding]:
    """WARN: one CPU in a 2-socket board — the PCIe slots and DIMM channels wired to the empty socket do not
    work (memory populated on both sockets [V24])."""
    build = ctx.build
    sockets = build.chassis.cpu_sockets
    if 1 <= build.cpu_count < sockets:
        cpu = build.cpus[0].spec
        fixes: tuple[Fix, ...] = ()
        if cpu.max_sockets >= sockets:
            fixes = (part_fix("add", "cpus", cpu.sku, sockets - build.cpu_count),)
        message = (
            Phrase(
                "%(chassis)s has %(sockets)s sockets and the build 1 CPU: "
                "slots and memory channels of the empty socket are not usable.",
                chassis=build.chassis.sku,
                sockets=sockets,
            )
            if build.cpu_count == 1
            else Phrase(
                "%(chassis)s has %(sockets)s sockets and the build %(count)s CPUs: "
                "slots and memory channels of the empty socket are not usable.",
                chassis=build.chassis.sku,
                sockets=sockets,
                count=build.cpu_count,
            )
        )
        yield Finding(
            code="cpu.socket_empty",
            severity="warning",
            message=message,
            measured=build.cpu_count,
            limit=sockets,
            unit="CPUs",
            components=(build.chassis.sku, cpu.sku),
            fixes=fixes,
        )


RULES = (cpu_present, cpu_socket, cpu_count, one_socket_parts, identical_cpus, empty_socket)
# the build fields these rules (findings and fixes) read: after a fix that changes none, they are not re-run
READS = frozenset({"chassis", "cpus"})
# rules that read fewer fields than the module's READS (the same check covers them): a fix that changes
# none of these leaves their findings standing
READS_BY_RULE: dict[Rule, frozenset[str]] = {
    identical_cpus: frozenset({"cpus"}),
}
