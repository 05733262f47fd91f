"""System memory: DIMM kind and ECC, slots, channel population, DIMMs per channel, RAM against VRAM.

Numbers and sources: ../shared/reference/validation-rules.md §5 (RDIMM ECC on server/workstation platforms,
no ECC/non-ECC mix [V23]; 1 DPC full speed, 2 DPC slower [V24][V1]; symmetric 12-channel population on
EPYC [V25]; RAM ≥ 2× VRAM advice [V26][V27], reference systems at 1.3-1.8× [S15][S23]).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from configurator.engine.fixes import make_fix, remove_op, replace_op
from configurator.engine.phrase import Num, Phrase
from configurator.engine.rules.context import Rule, RuleContext, fix_options, part_fix
from configurator.engine.rules.platform import datacenter_server
from configurator.engine.types import Finding, Fix, MemorySpec, Workload

RAM_VRAM_WARN = 1.0  # §5.3 WARN below 1× total VRAM (workstations); ERROR below it in a data-centre GPU server
RAM_VRAM_INFO = 2.0  # §5.3 INFO below 2× total VRAM (workstations)
# Data-centre GPU servers (rack-server, HGX; issue 34): RAM ≥ 1.5 × total VRAM, WARN below it. Reference
# designs: DGX H200 2 TB for 1,128 GB HBM = 1.8 ×, DGX B200 2 TB for 1,440 GB = 1.4 ×, DGX H100 2 TB for 640 GB
# = 3.2 × (docs.nvidia.com/dgx-basepod/.../core-components.html; docs.nvidia.com/dgx/dgxb200-user-guide/
# introduction-to-dgxb200.html); NVIDIA AI Enterprise RA, H200 NVL PCIe-optimised 2-8-5: "minimum 128 GB of
# system memory per GPU" = 0.9 × of 141 GB (docs.nvidia.com/ai-enterprise/reference-architecture/latest/
# compute-node-hardware.html). 1.5 × is the middle of that range and the sales engineers' rule (issue 34).
SERVER_RAM_VRAM = 1.5


def populated_sockets(ctx: RuleContext) -> int:
    return max(1, min(ctx.build.cpu_count, ctx.build.chassis.cpu_sockets))


def channels_per_socket(ctx: RuleContext) -> int:
    """Board channels per socket (chassis channels / sockets), no more than the CPU's own."""
    chassis = ctx.build.chassis
    channels = max(1, chassis.memory_channels // max(1, chassis.cpu_sockets))
    if ctx.build.cpus:
        channels = min(channels, ctx.build.cpus[0].spec.memory_channels)
    return channels


def usable_dimm_slots(ctx: RuleContext) -> int:
    """Slots of the populated sockets (a 2P board with one CPU uses half its slots)."""
    chassis = ctx.build.chassis
    if not ctx.build.cpus:
        return chassis.dimm_slots
    return chassis.dimm_slots * populated_sockets(ctx) // max(1, chassis.cpu_sockets)


def _dimms_of_kind(ctx: RuleContext, kind: str, capacity_gb: int) -> list[MemorySpec]:
    """Active DIMMs of `kind`, the capacity closest to `capacity_gb` first (not smaller when possible)."""
    options = [dimm for dimm in fix_options(ctx.snapshot.memory) if dimm.kind == kind]
    return sorted(
        options, key=lambda d: (d.capacity_gb < capacity_gb, abs(d.capacity_gb - capacity_gb), d.price, d.sku)
    )


def _fill_fix(ctx: RuleContext, *, replace: bool, ratio: float = RAM_VRAM_INFO) -> Fix | None:
    """One DIMM per channel of the chassis' kind, the smallest size giving ≥ `ratio` × VRAM (else the largest)."""
    build = ctx.build
    count = channels_per_socket(ctx) * populated_sockets(ctx)
    wanted_gb = ratio * build.total_vram_gib
    options = sorted(
        (d for d in fix_options(ctx.snapshot.memory) if d.kind == build.chassis.memory_kind),
        key=lambda d: (d.capacity_gb, d.price, d.sku),
    )
    if not options:
        return None
    enough = [d for d in options if d.capacity_gb * count >= wanted_gb]
    dimm = enough[0] if enough else options[-1]
    if replace:
        return make_fix(replace_op("memory", dimm.sku, count))
    return part_fix("add", "memory", dimm.sku, count)


def memory_present(ctx: RuleContext) -> Iterator[Finding]:
    """A build needs memory."""
    if ctx.build.memory:
        return
    fix = _fill_fix(ctx, replace=False)
    yield Finding(
        code="memory.none",
        severity="error",
        message=Phrase("The build has no memory modules."),
        measured=0,
        limit=1,
        unit="DIMMs",
        components=(ctx.build.chassis.sku,),
        fixes=(fix,) if fix else (),
    )


def memory_kind(ctx: RuleContext) -> Iterator[Finding]:
    """§5.1 ERROR: EPYC, Xeon, Xeon W and Threadripper platforms take DDR5 ECC RDIMM [V23]; desktop AM5
    boards take UDIMM."""
    chassis = ctx.build.chassis
    for line in ctx.build.memory:
        dimm = line.spec
        if dimm.kind == chassis.memory_kind:
            continue
        replacement = _dimms_of_kind(ctx, chassis.memory_kind, dimm.capacity_gb)[:1]
        rdimm_needed = chassis.memory_kind == "rdimm"
        if not rdimm_needed:
            message = Phrase(
                "%(chassis)s takes %(takes)s modules, not %(kind)s (%(dimm)s).",
                chassis=chassis.sku,
                takes=chassis.memory_kind.upper(),
                kind=dimm.kind.upper(),
                dimm=dimm.sku,
            )
        elif dimm.ecc:
            message = Phrase(
                "%(chassis)s takes ECC RDIMMs; %(dimm)s is an unbuffered ECC module.",
                chassis=chassis.sku,
                dimm=dimm.sku,
            )
        else:
            message = Phrase(
                "%(chassis)s takes ECC RDIMMs; %(dimm)s is an unbuffered non-ECC module.",
                chassis=chassis.sku,
                dimm=dimm.sku,
            )
        yield Finding(
            code="memory.ecc_rdimm_required" if rdimm_needed else "memory.kind",
            severity="error",
            message=message,
            measured=dimm.kind,
            limit=chassis.memory_kind,
            components=(dimm.sku, chassis.sku),
            fixes=tuple(make_fix(replace_op("memory", other.sku, line.qty, old_sku=dimm.sku)) for other in replacement),
        )


def memory_mix(ctx: RuleContext) -> Iterator[Finding]:
    """§5.1 ERROR: ECC and non-ECC DIMMs cannot coexist [V23]; WARN for different modules (identical DIMMs
    on every channel for full bandwidth [V24])."""
    lines = ctx.build.memory
    if len(lines) < 2:
        return
    skus = tuple(line.spec.sku for line in lines)
    if len({line.spec.ecc for line in lines}) > 1:
        yield Finding(
            code="memory.ecc_mixed",
            severity="error",
            message=Phrase("ECC and non-ECC modules cannot be mixed: %(skus)s.", skus=", ".join(skus)),
            measured="ecc + non-ecc",
            limit="one kind",
            components=skus,
        )
    else:
        biggest = max(lines, key=lambda line: (line.spec.capacity_gb, line.spec.sku)).spec
        yield Finding(
            code="memory.mixed_modules",
            severity="warning",
            message=Phrase(
                "Different memory modules (%(skus)s) break channel interleaving; use one model.", skus=", ".join(skus)
            ),
            measured=len(lines),
            limit=1,
            unit="DIMM models",
            components=skus,
            fixes=(make_fix(replace_op("memory", biggest.sku, ctx.build.dimm_count)),),
        )


def _balanced(ctx: RuleContext, need: int) -> int:
    """`need` DIMMs rounded up to every channel of the populated sockets alike, when the slots take that many
    (trial tr34: 32× 64 GB on 24 slots was offered 22× 96 GB, which `population` then warned about)."""
    step = channels_per_socket(ctx) * populated_sockets(ctx)
    fill = step * math.ceil(need / step)
    return fill if fill <= usable_dimm_slots(ctx) else need


def dimm_slots(ctx: RuleContext) -> Iterator[Finding]:
    """DIMM count ≤ the slots of the populated sockets."""
    build = ctx.build
    slots = usable_dimm_slots(ctx)
    if build.dimm_count > slots:
        biggest = max(build.memory, key=lambda line: (line.spec.capacity_gb, line.spec.sku)).spec
        larger = [
            d
            for d in _dimms_of_kind(ctx, biggest.kind, 0)
            if d.capacity_gb * slots >= build.ram_gb and d.capacity_gb >= biggest.capacity_gb
        ]
        larger.sort(key=lambda d: (d.capacity_gb, d.price, d.sku))
        fixes = [
            make_fix(replace_op("memory", d.sku, _balanced(ctx, math.ceil(build.ram_gb / d.capacity_gb))))
            for d in larger[:1]
        ]
        # or fewer DIMMs: the surplus out of the largest line (issue 12: too many DIMMs had no fix)
        most = max(build.memory, key=lambda line: (line.qty, line.spec.sku))
        surplus = build.dimm_count - slots
        if surplus < most.qty:
            fixes.append(make_fix(remove_op("memory", most.spec.sku, surplus)))
        message = Phrase.plural(
            "%(count)s DIMM does not fit the %(slots)s usable slots of %(chassis)s.",
            "%(count)s DIMMs do not fit the %(slots)s usable slots of %(chassis)s.",
            "count",
            count=build.dimm_count,
            slots=slots,
            chassis=build.chassis.sku,
        )
        yield Finding(
            code="memory.dimm_slots",
            severity="error",
            message=message,
            measured=build.dimm_count,
            limit=slots,
            unit="DIMMs",
            components=tuple(line.spec.sku for line in build.memory),
            fixes=tuple(fixes),
        )


def population(ctx: RuleContext) -> Iterator[Finding]:
    """§5.2 WARN: DIMMs per socket should be a multiple of its channels (12 EPYC, 8 Xeon SPR/EMR and TR PRO),
    identical on both sockets; a partly populated socket gets that share of peak bandwidth (10× 48 GB on
    2× EPYC: ~64 vs ~99 GB/s [S7]; symmetric population keeps NPS1 interleaving [V25])."""
    build = ctx.build
    count = build.dimm_count
    if not count or count > usable_dimm_slots(ctx):
        return
    sockets = populated_sockets(ctx)
    channels = channels_per_socket(ctx)
    per_socket = count / sockets
    if count % sockets == 0 and count // sockets % channels == 0:
        return
    share = min(per_socket, channels) / channels
    fill = channels * sockets * max(1, math.ceil(per_socket / channels))
    dimm = build.memory[0].spec
    if dimm.kind != build.chassis.memory_kind:  # the module the board takes (trial tr34: UDIMMs in a server)
        dimm = next(iter(_dimms_of_kind(ctx, build.chassis.memory_kind, dimm.capacity_gb)), dimm)
    yield Finding(
        code="memory.population",
        severity="warning",
        message=_population_message(count, sockets, channels, per_socket, share),
        measured=per_socket,
        limit=channels,
        unit="DIMMs per socket",
        components=tuple(line.spec.sku for line in build.memory),
        fixes=(
            (make_fix(replace_op("memory", dimm.sku, fill), reason=Phrase("every channel alike")),)
            if fill <= usable_dimm_slots(ctx)
            else ()
        ),
    )


def _population_message(count: int, sockets: int, channels: int, per_socket: float, share: float) -> Phrase:
    """The population warning: how many DIMMs on how many sockets of how many channels (a whole sentence per
    plural form), then how the channels are used (a nested phrase: per socket or not, bandwidth share or not)."""
    used = Num(min(per_socket, channels), None)
    usage: Phrase
    if sockets == 1 and share < 1:
        usage = Phrase(
            "%(used)s of %(channels)s channels used (~%(share)s%% of peak memory bandwidth)",
            used=used,
            channels=channels,
            share=Num(share * 100),
        )
    elif sockets == 1:
        usage = Phrase("%(used)s of %(channels)s channels used, unevenly", used=used, channels=channels)
    elif share < 1:
        usage = Phrase(
            "%(per_socket)s per socket, %(used)s of %(channels)s channels used (~%(share)s%% of peak memory bandwidth)",
            per_socket=Num(per_socket, None),
            used=used,
            channels=channels,
            share=Num(share * 100),
        )
    else:
        usage = Phrase(
            "%(per_socket)s per socket, %(used)s of %(channels)s channels used, unevenly",
            per_socket=Num(per_socket, None),
            used=used,
            channels=channels,
        )
    if count == 1 and sockets == 1:
        return Phrase(
            "1 DIMM on 1 socket of %(channels)s channels: %(usage)s; populate every channel alike.",
            channels=channels,
            usage=usage,
        )
    if count == 1:
        return Phrase(
            "1 DIMM on %(sockets)s sockets of %(channels)s channels: %(usage)s; populate every channel alike.",
            sockets=sockets,
            channels=channels,
            usage=usage,
        )
    if sockets == 1:
        return Phrase(
            "%(count)s DIMMs on 1 socket of %(channels)s channels: %(usage)s; populate every channel alike.",
            count=count,
            channels=channels,
            usage=usage,
        )
    return Phrase(
        "%(count)s DIMMs on %(sockets)s sockets of %(channels)s channels: %(usage)s; populate every channel alike.",
        count=count,
        sockets=sockets,
        channels=channels,
        usage=usage,
    )


def dimms_per_channel(ctx: RuleContext) -> Iterator[Finding]:
    """§5.2 WARN: 2 DIMMs per channel trade speed for capacity (Xeon 4th gen DDR5-4800 → 4400 [V1])."""
    build = ctx.build
    if not build.memory or build.dimm_count > usable_dimm_slots(ctx):
        return
    dpc = math.ceil(build.dimm_count / populated_sockets(ctx) / channels_per_socket(ctx))
    if dpc < 2:
        return
    cpu = build.cpus[0].spec if build.cpus else None
    if cpu and cpu.memory_speed_2dpc_mts:
        message = Phrase(
            "%(dpc)s DIMMs per channel: memory runs at %(slow)s MT/s instead of %(fast)s MT/s (%(cpu)s).",
            dpc=dpc,
            slow=Num(cpu.memory_speed_2dpc_mts),
            fast=Num(cpu.memory_speed_mts),
            cpu=cpu.sku,
        )
    elif cpu:
        message = Phrase(
            "%(dpc)s DIMMs per channel: memory runs below %(fast)s MT/s "
            "(the 2 DPC speed of %(cpu)s is not in the catalog).",
            dpc=dpc,
            fast=Num(cpu.memory_speed_mts),
            cpu=cpu.sku,
        )
    else:
        message = Phrase("%(dpc)s DIMMs per channel: memory runs at a lower speed.", dpc=dpc)
    yield Finding(
        code="memory.2dpc",
        severity="warning",
        message=message,
        measured=dpc,
        limit=1,
        unit="DIMMs per channel",
        components=tuple(line.spec.sku for line in build.memory),
    )


def _more_ram(ctx: RuleContext, sku: str, qty: int) -> bool:
    return qty <= usable_dimm_slots(ctx) and ctx.snapshot.memory[sku].capacity_gb * qty > ctx.build.ram_gb


def ram_vs_vram(ctx: RuleContext) -> Iterator[Finding]:
    """Workstations, §5.3 HEURISTIC: system RAM below 1× total VRAM → WARN, below 2× → INFO (DGX H200 ships
    1.8× [S15], SR685a V3 1.33× [S23]). Data-centre GPU servers (issue 34, SERVER_RAM_VRAM): below 1× → ERROR
    (the weights cannot be staged through host memory, no pinned buffers), below 1.5× → WARN, else clean."""
    build = ctx.build
    vram = build.total_vram_gib
    if not vram or not build.memory:
        return
    ram = build.ram_gb
    ratio = ram / vram
    server = datacenter_server(build)
    workload = ctx.workload
    covered = ratio < (SERVER_RAM_VRAM if server else RAM_VRAM_WARN)  # the warning/error below says it already
    if workload is not None and workload.task != "inference" and not covered:
        yield from _ram_for_training(ctx, workload, ram, vram)
        return
    enough = SERVER_RAM_VRAM if server else RAM_VRAM_INFO
    if ratio >= enough:
        return
    below_vram = ratio < RAM_VRAM_WARN
    fix = _fill_fix(ctx, replace=True, ratio=SERVER_RAM_VRAM if server else RAM_VRAM_INFO)
    amounts = {"ram": Num(ram, None), "vram": Num(vram, None), "ratio": Num(ratio, 2)}
    if server:
        code = "memory.ram_below_vram" if below_vram else "memory.ram_below_1_5x_vram"
        severity = "error" if below_vram else "warning"
        limit = (RAM_VRAM_WARN if below_vram else SERVER_RAM_VRAM) * vram
        message = (
            Phrase(
                "%(ram)s GB of RAM for %(vram)s GB of VRAM (%(ratio)s×): a GPU server needs at least as much "
                "system memory as GPU memory to load the model and pin its buffers; reference designs ship "
                "1.4-1.8× (DGX B200, DGX H200).",
                **amounts,
            )
            if below_vram
            else Phrase(
                "%(ram)s GB of RAM for %(vram)s GB of VRAM (%(ratio)s×): a GPU server should have at least 1.5× "
                "its GPU memory in a balanced DIMM population (DGX H200 ships 1.8×, DGX B200 1.4×).",
                **amounts,
            )
        )
    else:
        code = "memory.ram_below_vram" if below_vram else "memory.ram_below_2x_vram"
        severity = "warning" if below_vram else "info"
        limit = (RAM_VRAM_WARN if below_vram else RAM_VRAM_INFO) * vram
        message = (
            Phrase(
                "%(ram)s GB of RAM for %(vram)s GB of VRAM (%(ratio)s×): less RAM than VRAM slows model loading "
                "and leaves no room for offload.",
                **amounts,
            )
            if below_vram
            else Phrase(
                "%(ram)s GB of RAM for %(vram)s GB of VRAM (%(ratio)s×): common advice is at least 2× VRAM "
                "(reference 8-GPU systems ship 1.3-1.8×).",
                **amounts,
            )
        )
    yield Finding(
        code=code,
        severity=severity,
        message=message,
        measured=round(ram, 1),
        limit=round(limit, 1),
        unit="GB",
        components=tuple(line.spec.sku for line in build.memory),
        fixes=(fix,) if fix and _adds_ram(ctx, fix) else (),
    )


def _ram_for_training(ctx: RuleContext, workload: Workload, ram: float, vram: float) -> Iterator[Finding]:
    """Training asks host RAM of its own (trial 34 U09): the data loaders' workers and pinned batches and the
    checkpoint saves (recommend.sizing.TRAINING_RAM_PER_VRAM, the lower end of DGX H100/H200/A100's 1.8-3.2×),
    and under ZeRO-Offload the optimizer states (and weights and gradients) the estimate moves there. A build
    short of it gets a WARNING with the DIMMs that reach it, where the platform takes them."""
    from configurator.engine.recommend.sizing import TRAINING_RAM_PER_VRAM

    need = TRAINING_RAM_PER_VRAM * vram
    memory = ctx.estimate.memory if ctx.estimate is not None else None
    host = 0.0
    if memory is not None and workload.offload != "none":
        host = memory.optimizer + (memory.weights + memory.gradients if workload.offload == "parameters" else 0.0)
    need = max(need, host + vram)  # what is offloaded, and a staging copy of the GPUs' memory beside it
    if ram >= need:
        return
    fix = _fill_fix(ctx, replace=True, ratio=need / vram)
    amounts = {"ram": Num(ram, None), "need": Num(need), "vram": Num(vram, None)}
    message = (
        Phrase(
            "%(ram)s GB of RAM for training with ZeRO-Offload: %(host)s GiB of the training state live in host RAM; "
            "the build should have at least %(need)s GB.",
            host=Num(host),
            **amounts,
        )
        if host
        else Phrase(
            "%(ram)s GB of RAM for training on %(vram)s GB of VRAM: the data loaders, pinned batches and checkpoint "
            "saves ask at least %(need)s GB (2× VRAM; DGX H100/H200 ship 1.8-3.2×).",
            **amounts,
        )
    )
    yield Finding(
        code="memory.ram_below_2x_vram",
        severity="warning",
        message=message,
        measured=round(ram, 1),
        limit=round(need, 1),
        unit="GB",
        components=tuple(line.spec.sku for line in ctx.build.memory),
        fixes=(fix,) if fix and _adds_ram(ctx, fix) else (),
    )


def _adds_ram(ctx: RuleContext, fix: Fix) -> bool:
    step = fix.ops[0]
    return bool(step.qty and step.sku) and _more_ram(ctx, str(step.sku), int(step.qty or 0))


RULES = (memory_present, memory_kind, memory_mix, dimm_slots, population, dimms_per_channel, ram_vs_vram)
# the build fields these rules (findings and fixes) read: after a fix that changes none, they are not re-run
READS = frozenset({"chassis", "cpus", "gpus", "memory"})
# rules that read fewer fields than the module's READS (the same check covers them): a fix that changes
# none of these leaves their findings standing
READS_BY_RULE: dict[Rule, frozenset[str]] = {
    memory_kind: frozenset({"chassis", "memory"}),
    memory_mix: frozenset({"memory"}),
    dimm_slots: frozenset({"chassis", "cpus", "memory"}),
    population: frozenset({"chassis", "cpus", "memory"}),
    dimms_per_channel: frozenset({"chassis", "cpus", "memory"}),
}
