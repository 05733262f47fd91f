"""Recommendations: the cheapest valid builds for a workload, with the reasons shown.

Pure: a CatalogSnapshot, a Workload and Constraints in; ranked Candidates out. Every candidate returned
has been run through `validate()` and has no error.

The search space is the one an integrator would quote (the *recommendation policy*, shared with the
exhaustive reference search below so both answer the same question):

- GPUs: one model, `count` of them, in a chassis that takes them (`rules.context.chassis_takes_gpu`);
- CPUs: every socket filled with the same model (a 2P board with one CPU loses half its lanes and slots);
- memory: every channel filled evenly with one DIMM model at 1 or 2 DIMMs per channel, system RAM at
  least equal to total VRAM when any such set reaches it (validation-rules.md §5.2-5.3);
- storage: one NVMe drive for the OS and the model: ≥ 0.9 TB and ≥ 2 × the weight file;
- power: the chassis' redundancy (N+1 for rack chassis that support it, none for towers) and the PSU
  set keeping the load ≤ 80 % of usable capacity when any set within the bays does (§1.2);
- NVLink: bridge sets for every GPU when the engine runs tensor parallel on bridge-capable cards;
  NVSwitch comes with the HGX baseboard.

Search (`recommend`): estimate once per GPU model to get the smallest count that fits (and, with a
speed target, the smallest tensor-parallel count that meets it), keep the chassis that take that many,
then per chassis the cheapest CPUs that give the lanes, the cheapest policy memory and drive, and the
cheapest PSU set for the resulting load; validate; rank. `exhaustive_search` walks every GPU count,
chassis, CPU and PSU set of the same space and validates each survivor — the reference the tests and
`make bench` compare against.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from decimal import Decimal
from heapq import heapify, heappop, heappush
from itertools import islice

from configurator.engine.builds import build_price, money
from configurator.engine.estimate import estimate, min_gpus_to_fit, weight_bytes
from configurator.engine.phrase import Num, Phrase, PhraseValue
from configurator.engine.rules.context import active, chassis_takes_gpu
from configurator.engine.rules.interconnect import BRIDGE_KINDS, MAX_WAYS
from configurator.engine.rules.pcie import lane_plan
from configurator.engine.rules.power import (
    HEADROOM_SHARE,
    brings_connectors,
    gpu_connector_needs,
    gpu_connectors_available,
    power_budget,
    redundant_units,
    valid_psu_counts,
)
from configurator.engine.types import (
    BridgeSpec,
    BuildSpec,
    Candidate,
    CatalogSnapshot,
    ChassisSpec,
    Constraints,
    CpuSpec,
    Estimate,
    GpuSpec,
    Line,
    MemorySpec,
    PsuSpec,
    StorageSpec,
    Workload,
)
from configurator.engine.validate import validate

BOOT_DRIVE_MIN_TB = 0.9  # OS + one model; datacenter NVMe comes in 0.96 / 1.92 / 3.84 … TB
MODEL_COPIES_ON_DISK = 2.0  # the download and a converted / quantized copy side by side
CPU_OPTIONS_PER_CHASSIS = 3  # the cheapest CPUs with enough lanes; a cheaper CPU with a higher TDP can
# need a larger PSU set, so a few are priced out completely rather than only the cheapest
TENSOR_ENGINES = ("vllm", "tensorrt-llm")
# Without a target, an interactive service should still stream faster than people read: silent reading
# averages 238 words/min (Brysbaert 2019, J. Memory and Language 109) ≈ 4 words/s ≈ 5.3 tokens/s at
# ~1.33 tokens per English word; 10 tokens/s per user leaves room for skimming and non-English text.
DEFAULT_TOKENS_PER_S_PER_USER = 10.0


def speed_target(workload: Workload) -> float | None:
    """The per-user decode speed a recommendation should reach (inference only)."""
    if workload.task != "inference":
        return None
    return workload.target_tokens_per_s or DEFAULT_TOKENS_PER_S_PER_USER


@dataclass(frozen=True, slots=True)
class Recommendation:
    estimate: Estimate  # the workload without a GPU (memory breakdown, assumptions)
    candidates: tuple[Candidate, ...]
    considered: int  # builds priced and validated
    suggestions: tuple[str, ...]  # when nothing fits: what would
    elapsed_ms: float


@dataclass(frozen=True, slots=True)
class _GpuOption:
    gpu: GpuSpec
    count: int
    workload: Workload  # the workload as estimated (training may switch on ZeRO-3 across GPUs)
    estimate: Estimate
    link_gbs: float | None
    bridges: tuple[tuple[BridgeSpec, int], ...]

    @property
    def per_user(self) -> float:
        return self.estimate.throughput.decode_tokens_per_s_per_user if self.estimate.throughput else 0.0

    @property
    def total(self) -> float:
        return self.estimate.throughput.decode_tokens_per_s_total if self.estimate.throughput else 0.0

    def meets(self, target: float | None) -> bool:
        return target is None or self.workload.task != "inference" or self.per_user >= target


# --------------------------------------------------------------------------- pools (constraints, not heuristics)


def _needs_ecc(workload: Workload, constraints: Constraints) -> bool:
    return constraints.require_ecc or workload.require_ecc or workload.production


def _ecc_memory(workload: Workload) -> bool:
    """ECC end to end: the ecc rules require ECC DIMMs too when the workload requires ECC GPUs."""
    return workload.require_ecc or workload.production


def _working(workload: Workload, constraints: Constraints) -> Workload:
    """The workload as the search validates it: an ECC constraint becomes the workload's requirement, so
    the same rules that refuse non-ECC parts in a hand-made build refuse them here."""
    return replace(workload, require_ecc=True) if constraints.require_ecc and not workload.require_ecc else workload


def stack_supported(gpu: GpuSpec, workload: Workload, constraints: Constraints) -> bool:
    """Policy: non-NVIDIA GPUs are recommended only for llama.cpp inference outside production. ROCm runs
    llama.cpp well, but training libraries and production serving need checking per tool, and «если
    задача — обучение и серьёзный продакшн … дорога по-прежнему ведёт к NVIDIA» (gpu-guide-2026.ru.txt).
    A sales engineer can still build and validate AMD systems by hand (rule workload.rocm_stack warns)."""
    if gpu.vendor == "NVIDIA":
        return True
    return workload.task == "inference" and workload.engine == "llama.cpp" and not _needs_ecc(workload, constraints)


def gpu_pool(snapshot: CatalogSnapshot, workload: Workload, constraints: Constraints) -> list[GpuSpec]:
    ecc = _needs_ecc(workload, constraints)
    return [
        gpu for gpu in active(snapshot.gpus) if (gpu.ecc or not ecc) and stack_supported(gpu, workload, constraints)
    ]


def chassis_pool(snapshot: CatalogSnapshot, constraints: Constraints) -> list[ChassisSpec]:
    allowed = set(constraints.chassis)
    found = []
    for chassis in active(snapshot.chassis):
        if allowed and chassis.sku not in allowed:
            continue
        if constraints.form_factor == "workstation" and not chassis.is_workstation:
            continue
        if constraints.form_factor == "rack" and not chassis.is_rack:
            continue
        found.append(chassis)
    return found


def _max_gpus(chassis: ChassisSpec, constraints: Constraints) -> int:
    limit = min(chassis.max_gpu_count, chassis.gpu_bays)
    return min(limit, constraints.max_gpus) if constraints.max_gpus else limit


# --------------------------------------------------------------------------- policy parts


def redundancy_for(chassis: ChassisSpec) -> str:
    """N+1 where a rack chassis supports it (one PSU may fail), else the chassis' first mode."""
    if chassis.is_rack and "n+1" in chassis.psu_redundancy_modes:
        return "n+1"
    if "none" in chassis.psu_redundancy_modes:
        return "none"
    return chassis.psu_redundancy_modes[0]


def _sockets_ok(cpu: CpuSpec, chassis: ChassisSpec) -> bool:
    return cpu.socket == chassis.cpu_socket and cpu.max_sockets >= chassis.cpu_sockets


def cpu_options(snapshot: CatalogSnapshot, chassis: ChassisSpec) -> list[CpuSpec]:
    return sorted(
        (cpu for cpu in active(snapshot.cpus) if _sockets_ok(cpu, chassis)), key=lambda cpu: (cpu.price, cpu.sku)
    )


def memory_sets(snapshot: CatalogSnapshot, chassis: ChassisSpec, *, ecc: bool = False) -> list[Line[MemorySpec]]:
    """Every even population: one DIMM model on every channel at 1 or 2 DIMMs per channel (ECC modules
    only on RDIMM platforms and for workloads that require ECC end to end)."""
    sets = []
    for dimm in active(snapshot.memory):
        if dimm.kind != chassis.memory_kind or ((ecc or chassis.memory_kind == "rdimm") and not dimm.ecc):
            continue
        for per_channel in (1, 2):
            count = chassis.memory_channels * per_channel
            if count <= chassis.dimm_slots:
                sets.append(Line(spec=dimm, qty=count))
    return sets


def policy_memory(sets: Iterable[Line[MemorySpec]], vram_gib: float) -> list[Line[MemorySpec]]:
    """The sets the policy allows: RAM ≥ total VRAM when any set reaches it, else the largest ones."""
    sets = list(sets)
    if not sets:
        return []
    enough = [line for line in sets if line.spec.capacity_gb * line.qty >= vram_gib]
    if enough:
        return enough
    largest = max(line.spec.capacity_gb * line.qty for line in sets)
    return [line for line in sets if line.spec.capacity_gb * line.qty == largest]


def drive_tb_needed(workload: Workload) -> float:
    weights_tb = weight_bytes(workload.model, workload.precision) / 1e12
    return max(BOOT_DRIVE_MIN_TB, MODEL_COPIES_ON_DISK * weights_tb)


def drive_options(snapshot: CatalogSnapshot, workload: Workload) -> list[StorageSpec]:
    need = drive_tb_needed(workload)
    return [d for d in active(snapshot.storage) if d.interface == "nvme" and d.capacity_tb >= need]


def psu_sets(snapshot: CatalogSnapshot, chassis: ChassisSpec, redundancy: str) -> list[Line[PsuSpec]]:
    lines: list[Line[PsuSpec]] = []
    for psu in active(snapshot.psus):
        if psu.form_factor != chassis.psu_form_factor:
            continue
        lines.extend(Line(spec=psu, qty=count) for count in valid_psu_counts(redundancy, chassis.psu_bays))
    return sorted(lines, key=lambda line: (line.spec.price * line.qty, line.spec.sku, line.qty))


class _Parts:
    """Per-snapshot lists the search asks for again and again (CPUs, DIMM sets, PSU sets per chassis)."""

    def __init__(self, snapshot: CatalogSnapshot) -> None:
        self.snapshot = snapshot
        self._cpus: dict[str, list[CpuSpec]] = {}
        self._memory: dict[tuple[str, bool], list[Line[MemorySpec]]] = {}
        self._psus: dict[tuple[str, str], list[Line[PsuSpec]]] = {}
        self._memory_choice: dict[tuple[str, float, bool], Line[MemorySpec] | None] = {}
        self._pools: dict[Constraints, list[ChassisSpec]] = {}
        self._hosts: dict[tuple[str, Constraints], bool] = {}
        self._chassis_floor: dict[str, Decimal | None] = {}
        self._takers: dict[tuple[object, ...], list[tuple[Decimal, str, ChassisSpec]]] = {}
        self._policy_psus: dict[tuple[object, ...], list[Line[PsuSpec]]] = {}

    def cpus(self, chassis: ChassisSpec) -> list[CpuSpec]:
        if chassis.sku not in self._cpus:
            self._cpus[chassis.sku] = cpu_options(self.snapshot, chassis)
        return self._cpus[chassis.sku]

    def memory(self, chassis: ChassisSpec, ecc: bool) -> list[Line[MemorySpec]]:
        key = (chassis.sku, ecc)
        if key not in self._memory:
            self._memory[key] = memory_sets(self.snapshot, chassis, ecc=ecc)
        return self._memory[key]

    def chassis_pool(self, constraints: Constraints) -> list[ChassisSpec]:
        if constraints not in self._pools:
            self._pools[constraints] = chassis_pool(self.snapshot, constraints)
        return self._pools[constraints]

    def hosts(self, gpu: GpuSpec, constraints: Constraints) -> bool:
        """Some chassis of the pool takes at least one of this GPU."""
        key = (gpu.sku, constraints)
        if key not in self._hosts:
            self._hosts[key] = any(chassis_takes_gpu(c, gpu, 1) for c in self.chassis_pool(constraints))
        return self._hosts[key]

    def chassis_floor(self, chassis: ChassisSpec) -> Decimal | None:
        """Chassis + cheapest compatible CPUs on every socket + cheapest PSU set (net)."""
        if chassis.sku not in self._chassis_floor:
            cpus, psus = self.cpus(chassis), self.psus(chassis, redundancy_for(chassis))
            self._chassis_floor[chassis.sku] = (
                chassis.price + cpus[0].price * chassis.cpu_sockets + min(line.spec.price * line.qty for line in psus)
                if cpus and psus
                else None
            )
        return self._chassis_floor[chassis.sku]

    def takers(
        self, gpu: GpuSpec, count: int, workstation: bool, constraints: Constraints, ecc: bool
    ) -> list[tuple[Decimal, str, ChassisSpec]]:
        """Chassis of the pool and class that take `count` × `gpu`, with the least a policy build spends on
        each (net, without the GPUs), cheapest first. GPUs that look alike to the fit rules share the list,
        so a catalog with many variants of a card pays for it once."""
        fit = (gpu.form_factor, gpu.cooling, gpu.slot_width, gpu.length_mm, gpu.tdp_w, gpu.nvlink_kind, gpu.is_consumer)
        key = (fit, count, gpu.vram_gib, workstation, constraints, ecc)
        if key not in self._takers:
            rows = []
            for chassis in self.chassis_pool(constraints):
                if chassis.is_workstation != workstation or count > _max_gpus(chassis, constraints):
                    continue
                if not chassis_takes_gpu(chassis, gpu, count):
                    continue
                net = _chassis_net(self, chassis, gpu.vram_gib * count, ecc)
                if net is not None:
                    rows.append((net, chassis.sku, chassis))
            self._takers[key] = sorted(rows, key=lambda row: (row[0], row[1]))
        return self._takers[key]

    def memory_choice(self, chassis: ChassisSpec, vram_gib: float, ecc: bool) -> Line[MemorySpec] | None:
        """The cheapest policy DIMM set for this chassis and VRAM (what `_complete` installs)."""
        key = (chassis.sku, vram_gib, ecc)
        if key not in self._memory_choice:
            options = policy_memory(self.memory(chassis, ecc), vram_gib)
            self._memory_choice[key] = (
                min(options, key=lambda line: (line.spec.price * line.qty, line.spec.sku, line.qty))
                if options
                else None
            )
        return self._memory_choice[key]

    def policy_psus(self, build: BuildSpec, *, first_only: bool) -> list[Line[PsuSpec]]:
        """`policy_psus` for the build, remembered by what it depends on: chassis, redundancy, voltage,
        load and (towers) GPU cables — CPUs with the same TDP ask the same question."""
        cables = None if build.chassis.is_rack else tuple(sorted(gpu_connector_needs(build).items()))
        key = (
            build.chassis.sku,
            build.psu_redundancy,
            build.site_voltage,
            power_budget(build).load_w,
            cables,
            first_only,
        )
        if key not in self._policy_psus:
            sets = self.psus(build.chassis, build.psu_redundancy)
            self._policy_psus[key] = policy_psus(build, sets, first_only=first_only)
        return self._policy_psus[key]

    def psus(self, chassis: ChassisSpec, redundancy: str) -> list[Line[PsuSpec]]:
        key = (chassis.sku, redundancy)
        if key not in self._psus:
            self._psus[key] = psu_sets(self.snapshot, chassis, redundancy)
        return self._psus[key]


_PARTS: dict[str, _Parts] = {}


def _parts(snapshot: CatalogSnapshot) -> _Parts:
    """The cache for this snapshot version (a changed catalog gets a new version and a new cache)."""
    parts = _PARTS.get(snapshot.version)
    if parts is None or parts.snapshot is not snapshot:
        if len(_PARTS) > 8:
            _PARTS.clear()
        parts = _PARTS[snapshot.version] = _Parts(snapshot)
    return parts


def policy_psus(build: BuildSpec, sets: Iterable[Line[PsuSpec]], *, first_only: bool = False) -> list[Line[PsuSpec]]:
    """PSU sets that carry the load (and, in a tower, bring the GPUs' cables): within 80 % of usable when
    any set does, else within 100 %. `sets` come cheapest first; with `first_only` the scan stops at the
    first set inside the headroom (the cheapest answer), else it lists them all.

    The load does not depend on the PSUs, so it is computed once; usable capacity is the power rule's
    (N − R) × rating at the site voltage."""
    load = power_budget(build).load_w
    cables = None if build.chassis.is_rack else gpu_connector_needs(build)  # towers: GPU cables from the PSUs
    comfortable: list[Line[PsuSpec]] = []
    carrying: list[Line[PsuSpec]] = []
    for line in sets:
        watts = line.spec.watts_at(build.site_voltage) or 0
        usable = (line.qty - redundant_units(build.psu_redundancy, line.qty)) * watts
        if usable <= 0 or load > usable or not brings_connectors(line.spec, line.qty, cables):
            continue
        carrying.append(line)
        if load <= HEADROOM_SHARE * usable:
            comfortable.append(line)
            if first_only:
                break
    return comfortable or carrying


def bridge_sets(snapshot: CatalogSnapshot, gpu: GpuSpec, count: int) -> tuple[tuple[BridgeSpec, int], ...]:
    """Bridge sets joining all `count` GPUs (widest first), or () when they cannot all be joined."""
    ways_allowed = MAX_WAYS.get(gpu.nvlink_kind, 0)
    bridges = sorted(
        (b for b in active(snapshot.bridges) if gpu.sku in b.gpu_skus and b.ways <= ways_allowed),
        key=lambda b: (-b.ways, b.price, b.sku),
    )
    plan, left = [], count
    for bridge in bridges:
        sets = left // bridge.ways
        if sets:
            plan.append((bridge, sets))
            left -= sets * bridge.ways
    return tuple(plan) if left == 0 and plan else ()


# --------------------------------------------------------------------------- GPU options


def _training_variant(workload: Workload, count: int) -> Workload:
    """Full fine-tuning across several GPUs is run sharded: without a stage chosen, assume ZeRO-3."""
    if workload.task == "full_finetune" and count > 1 and workload.zero_stage == 0:
        return replace(workload, zero_stage=3)
    return workload


def gpu_option(snapshot: CatalogSnapshot, workload: Workload, gpu: GpuSpec, count: int) -> _GpuOption:
    """Estimate `count` × `gpu`, joined by NVLink where the engine would use it."""
    run = _training_variant(workload, count)
    link: float | None = None
    bridges: tuple[tuple[BridgeSpec, int], ...] = ()
    if count > 1 and gpu.nvlink_gbs:
        if gpu.nvlink_kind in ("nvswitch-sxm", "infinity-fabric-oam"):
            link = gpu.nvlink_gbs
        elif gpu.nvlink_kind in BRIDGE_KINDS and run.engine in TENSOR_ENGINES:
            bridges = bridge_sets(snapshot, gpu, count)
            link = gpu.nvlink_gbs if bridges else None
    result = estimate(run, gpu, count, link_gbs=link)
    if bridges and result.layout is not None and result.layout.parallelism != "tensor":
        bridges, link = (), None  # the engine splits layers here: the bridge would not be used
        result = estimate(run, gpu, count)
    return _GpuOption(gpu=gpu, count=count, workload=run, estimate=result, link_gbs=link, bridges=bridges)


def _fits(option: _GpuOption) -> bool:
    return option.estimate.layout is not None and option.estimate.layout.fits


# --------------------------------------------------------------------------- assembling one build


def _base_build(chassis: ChassisSpec, option: _GpuOption, cpu: CpuSpec, site_voltage: int) -> BuildSpec:
    return BuildSpec(
        chassis=chassis,
        cpus=(Line(spec=cpu, qty=chassis.cpu_sockets),),
        gpus=(Line(spec=option.gpu, qty=option.count),),
        bridges=tuple(Line(spec=bridge, qty=sets) for bridge, sets in option.bridges),
        psu_redundancy=redundancy_for(chassis),
        site_voltage=site_voltage,
    )


def _lanes_ok(build: BuildSpec) -> bool:
    plan = lane_plan(build)
    return plan.links_fit and plan.needed <= plan.available


def _complete(
    snapshot: CatalogSnapshot,
    chassis: ChassisSpec,
    option: _GpuOption,
    cpus: Iterable[CpuSpec],
    drive: StorageSpec,
    constraints: Constraints,
    *,
    every_psu_set: bool,
) -> Iterator[BuildSpec]:
    """Policy builds for this chassis and GPU option: per CPU (with enough lanes), the cheapest policy
    memory, then the cheapest carrying PSU set (or every carrying set when `every_psu_set`)."""
    parts = _parts(snapshot)
    dimms = parts.memory_choice(chassis, option.gpu.vram_gib * option.count, _ecc_memory(option.workload))
    if dimms is None:
        return
    if chassis.is_rack:  # the power board brings the GPU cables; no PSU choice adds any
        probe = BuildSpec(chassis=chassis, gpus=(Line(spec=option.gpu, qty=option.count),))
        needs, have = gpu_connector_needs(probe), gpu_connectors_available(probe)
        if any(needs[kind] > have[kind] for kind in needs):
            return
    for cpu in cpus:
        base = replace(
            _base_build(chassis, option, cpu, constraints.site_voltage),
            memory=(dimms,),
            storage=(Line(spec=drive, qty=1),),
        )
        if not _lanes_ok(base):
            continue
        carrying = parts.policy_psus(base, first_only=not every_psu_set)
        for psus in carrying if every_psu_set else carrying[:1]:
            yield replace(base, psus=(psus,))


@dataclass
class _Judge:
    """Prices and validates builds, counting them; keeps only error-free ones within the constraints."""

    snapshot: CatalogSnapshot
    constraints: Constraints
    vat_percent: Decimal
    considered: int = 0

    def candidate(self, build: BuildSpec, option: _GpuOption, *, beat: Decimal | None = None) -> Candidate | None:
        """The build as a candidate, or None when it breaks a constraint, has an error, or (with `beat`)
        costs more than that — a build that cannot win is not worth validating."""
        price = build_price(build, vat_percent=self.vat_percent)
        if beat is not None and price.gross > beat:
            return None
        self.considered += 1
        if self.constraints.max_price is not None and price.gross > self.constraints.max_price:
            return None
        if self.constraints.max_power_w is not None and power_budget(build).load_w > self.constraints.max_power_w:
            return None
        verdict = validate(build, snapshot=self.snapshot, workload=option.workload)
        if verdict.errors:
            return None
        throughput = verdict.estimate.throughput if verdict.estimate else option.estimate.throughput
        return Candidate(
            build=build,
            verdict=verdict,
            price=price,
            decode_tokens_per_s_per_user=throughput.decode_tokens_per_s_per_user if throughput else 0.0,
            decode_tokens_per_s_total=throughput.decode_tokens_per_s_total if throughput else 0.0,
        )


def _rank_key(candidate: Candidate, target: float | None, task: str) -> tuple[int, Decimal, float, str]:
    slow = int(task == "inference" and target is not None and candidate.decode_tokens_per_s_per_user < target)
    gpu = candidate.build.gpus[0].spec.sku
    return (slow, candidate.price.gross, -candidate.decode_tokens_per_s_total, f"{gpu}/{candidate.build.chassis.sku}")


# --------------------------------------------------------------------------- the smart search


def _counts_to_try(snapshot: CatalogSnapshot, workload: Workload, gpu: GpuSpec, most: int) -> list[_GpuOption]:
    """The smallest count that fits and, when that is slower than the speed target, the smallest count
    that meets it (tensor parallel on 2, 4, 8 GPUs speeds one stream up; a layer split does not). Counts in
    between are dearer than the first and slower than the second, so they can never rank first."""
    smallest = min_gpus_to_fit(workload, gpu, max_gpus=most)
    if smallest is None and workload.task == "full_finetune":
        smallest = min_gpus_to_fit(replace(workload, zero_stage=3), gpu, max_gpus=most)
    if smallest is None:
        return []
    target = speed_target(workload)
    options: list[_GpuOption] = []
    for count in range(smallest, most + 1):
        option = gpu_option(snapshot, workload, gpu, count)
        if not _fits(option):
            continue
        if not options or option.meets(target):
            options.append(option)
        if option.meets(target):
            break
    return options


def _gross(net: Decimal, vat_percent: Decimal) -> Decimal:
    return money(net) + money(net * vat_percent / Decimal(100))


def _option_net(option: _GpuOption, drive: StorageSpec) -> Decimal:
    """What every build of the option pays whatever the chassis: GPUs, bridges, the drive."""
    bridges = sum((bridge.price * sets for bridge, sets in option.bridges), Decimal(0))
    return option.gpu.price * option.count + bridges + drive.price


def _chassis_net(parts: _Parts, chassis: ChassisSpec, vram_gib: float, ecc: bool) -> Decimal | None:
    """The least a policy build spends on this chassis: the chassis, its cheapest socket-compatible CPUs,
    the policy memory for this VRAM and the cheapest PSU set its bays take (None: no such build)."""
    base = parts.chassis_floor(chassis)
    memory = parts.memory_choice(chassis, vram_gib, ecc)
    if base is None or memory is None:
        return None
    return base + memory.spec.price * memory.qty


class _Stream:
    """The policy builds of one GPU option in one form-factor class, cheapest first, priced lazily.

    `floor` bounds every build of the stream from below (the cheapest chassis that takes the GPUs, with
    its cheapest CPUs, memory and PSUs), so a stream that cannot compete is never opened. Opened, its
    chassis are entered in order of their own lower bound; their builds wait in a price heap, whose top
    is final once no unentered chassis could undercut it. `valid()` validates from the top until a build
    has no error — the answer that pricing every chassis and validating every build would give, at the
    cost of the few that can compete."""

    def __init__(self, judge: _Judge, option: _GpuOption, workstation: bool, drive: StorageSpec) -> None:
        self.judge, self.option, self.drive, self.workstation = judge, option, drive, workstation
        self.parts = _parts(judge.snapshot)
        self.option_net = _option_net(option, drive)
        self._takers = self.parts.takers(
            option.gpu, option.count, workstation, judge.constraints, _ecc_memory(option.workload)
        )
        self.floor = _gross(self.option_net + self._takers[0][0], judge.vat_percent) if self._takers else None
        self._entered = 0
        self._heap: list[tuple[Decimal, str, int, BuildSpec]] = []
        self._serial = 0
        self._valid: Candidate | None = None
        self.opened = False
        self.resolved = False

    @property
    def signature(self) -> tuple[str, int]:
        return (self.option.gpu.sku, self.option.count)

    @property
    def candidate(self) -> Candidate | None:
        return self._valid

    def head_price(self) -> Decimal | None:
        """The price of the cheapest build not yet refused (None: no build left)."""
        self.opened = True
        budget = self.judge.constraints.max_price
        while self._entered < len(self._takers):
            chassis_net, _, chassis = self._takers[self._entered]
            bound = _gross(self.option_net + chassis_net, self.judge.vat_percent)
            if (self._heap and self._heap[0][0] <= bound) or (budget is not None and bound > budget):
                break
            self._entered += 1
            builds = _complete(
                self.judge.snapshot, chassis, self.option, self.parts.cpus(chassis), self.drive, self.judge.constraints,
                every_psu_set=False,
            )  # fmt: skip
            for build in islice(builds, CPU_OPTIONS_PER_CHASSIS):
                self._serial += 1
                price = build_price(build, vat_percent=self.judge.vat_percent).gross
                heappush(self._heap, (price, f"{chassis.sku}/{build.cpus[0].spec.sku}", self._serial, build))
        return self._heap[0][0] if self._heap else None

    def valid(self) -> Candidate | None:
        """The cheapest build of the stream without an error (validated once, then remembered)."""
        while not self.resolved:
            if self.head_price() is None:
                self.resolved = True
                break
            _, _, _, build = heappop(self._heap)
            candidate = self.judge.candidate(build, self.option)
            if candidate is not None:
                self._valid, self.resolved = candidate, True
        return self._valid


# Queue states of a stream in `_best`: resolved (its valid build's price), opened (its head price),
# unopened (its floor). At equal keys the more certain state comes first.
_RESOLVED, _OPENED, _UNOPENED = 0, 1, 2


def _best(streams: Iterable[_Stream], key: Callable[[_Stream, Decimal], tuple[object, ...]]) -> Candidate | None:
    """The valid candidate with the smallest key among the streams, where key(stream, price) grows with
    price. Streams wait under the key of a price no build of theirs can undercut (floor, then head, then
    the validated build) and do more work only when they reach the front, so a stream that cannot win is
    never opened, and a build that cannot win is never validated."""
    heap: list[tuple[tuple[object, ...], int, int]] = []
    members = list(streams)
    for index, stream in enumerate(members):
        if stream.resolved:
            if stream.candidate is not None:
                heap.append((key(stream, stream.candidate.price.gross), _RESOLVED, index))
        elif stream.opened:
            price = stream.head_price()
            if price is not None:
                heap.append((key(stream, price), _OPENED, index))
        elif stream.floor is not None:
            heap.append((key(stream, stream.floor), _UNOPENED, index))
    heapify(heap)
    while heap:
        _, state, index = heappop(heap)
        stream = members[index]
        if state == _RESOLVED:
            return stream.candidate
        if state == _UNOPENED:
            price = stream.head_price()
            if price is not None:
                heappush(heap, (key(stream, price), _OPENED, index))
            continue
        found = stream.valid()
        if found is not None:
            heappush(heap, (key(stream, found.price.gross), _RESOLVED, index))
    return None


def recommend(
    snapshot: CatalogSnapshot,
    workload: Workload,
    constraints: Constraints,
    *,
    limit: int = 5,
    vat_percent: Decimal = Decimal(22),
) -> Recommendation:
    started = time.perf_counter()
    workload = _working(workload, constraints)
    judge = _Judge(snapshot, constraints, vat_percent)
    drives = drive_options(snapshot, workload)
    drive = min(drives, key=lambda d: (d.price, d.sku)) if drives else None
    parts = _parts(snapshot)
    streams: list[_Stream] = []
    pool = parts.chassis_pool(constraints)
    most = max((_max_gpus(c, constraints) for c in pool), default=0)
    classes = sorted({c.is_workstation for c in pool}, reverse=True)
    for gpu in gpu_pool(snapshot, workload, constraints):
        if drive is None or not parts.hosts(gpu, constraints):
            continue
        for option in _counts_to_try(snapshot, workload, gpu, most):
            streams.extend(_Stream(judge, option, workstation, drive) for workstation in classes)
    chosen = _pick_distinct(streams, limit, workload)
    suggestions = () if chosen else _suggestions(snapshot, workload, constraints, vat_percent)
    return Recommendation(
        estimate=estimate(workload),
        candidates=tuple(chosen),
        considered=judge.considered,
        suggestions=suggestions,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


# --------------------------------------------------------------------------- ranking and reasons


def _is_workstation(candidate: Candidate) -> bool:
    return candidate.build.chassis.is_workstation


def _signature(candidate: Candidate) -> tuple[str, int]:
    line = candidate.build.gpus[0]
    return (line.spec.sku, line.qty)


def _pick_distinct(streams: list[_Stream], limit: int, workload: Workload) -> list[Candidate]:
    """Cheapest first, then alternatives that differ in kind: faster per rouble, ECC, fewer GPUs, the other
    form factor; then the next cheapest GPU choices. Each carries why it is there. Candidates are
    validated lazily: only streams that reach the front of a choice are."""
    if limit < 1:
        return []
    target = speed_target(workload)

    def by_rank(stream: _Stream, price: Decimal) -> tuple[object, ...]:
        slow = int(workload.task == "inference" and not stream.option.meets(target))
        return (
            slow,
            price,
            -stream.option.total,
            f"{stream.option.gpu.sku}/{stream.option.count}/{stream.workstation}",
        )

    def by_value(stream: _Stream, price: Decimal) -> tuple[object, ...]:
        return (-(stream.option.total / float(price)), price, stream.option.gpu.sku, stream.option.count)

    cheapest = _best(streams, by_rank)
    if cheapest is None:
        return []
    picks: list[tuple[Candidate, Phrase]] = [(cheapest, Phrase("the cheapest valid build"))]
    seen = {_signature(cheapest)}

    def fresh(keep: Callable[[_Stream], bool] = lambda stream: True) -> Iterator[_Stream]:
        return (stream for stream in streams if stream.signature not in seen and keep(stream))

    def add(candidate: Candidate | None, reason: Phrase) -> None:
        if candidate is not None and _signature(candidate) not in seen and len(picks) < limit:
            picks.append((candidate, reason))
            seen.add(_signature(candidate))

    if workload.task == "inference" and len(picks) < limit:
        add(_best(fresh(), by_value), Phrase("the most tokens/s per rouble"))
    if not all(line.spec.ecc for line in cheapest.build.gpus) and len(picks) < limit:
        add(_best(fresh(lambda s: s.option.gpu.ecc), by_rank), Phrase("the cheapest with ECC GPU memory"))
    if len(picks) < limit:
        add(_best(fresh(lambda s: s.option.count < cheapest.build.gpu_count), by_rank), Phrase("fewer, larger GPUs"))
    if len(picks) < limit:
        other = not _is_workstation(cheapest)
        add(_best(fresh(lambda s: s.workstation == other), by_rank), Phrase("the cheapest in the other form factor"))
    while len(picks) < limit:
        following = _best(fresh(), by_rank)
        if following is None:
            break
        add(following, Phrase("the next cheapest GPU choice"))
    return [replace(candidate, why=_why(candidate, reason, workload)) for candidate, reason in picks]


PARALLEL_WORDS = {
    "tensor": Phrase("under tensor parallel"),
    "pipeline": Phrase("with the layers split across GPUs"),
    "data": Phrase("sharded (ZeRO)"),
}
REDUNDANCY_WORDS = {"none": Phrase("no redundancy"), "n+1": "N+1", "n+n": "N+N"}


def _why(candidate: Candidate, reason: Phrase, workload: Workload) -> tuple[Phrase, ...]:
    build = candidate.build
    line = build.gpus[0]
    gpu, count = line.spec, line.qty
    verdict_estimate = candidate.verdict.estimate
    layout = verdict_estimate.layout if verdict_estimate else None
    link: Phrase | None = None
    if build.bridges:
        kinds = " + ".join(f"{line.spec.ways}-way" for line in build.bridges)
        link = Phrase("%(sets)s× %(kinds)s NVLink bridge", sets=sum(line.qty for line in build.bridges), kinds=kinds)
    elif gpu.nvlink_kind == "nvswitch-sxm" and count > 1:
        link = Phrase("NVSwitch")
    reasons = [
        Phrase(
            "%(reason)s (%(price)s %(currency)s incl. VAT)",
            reason=reason,
            price=Num(candidate.price.gross),
            currency=candidate.price.currency,
        )
    ]
    if layout is not None:
        fits: dict[str, PhraseValue] = {
            "model": workload.model.name,
            "precision": workload.precision.upper(),
            "per_gpu": Num(layout.per_gpu_gib, 1),
            "how": PARALLEL_WORDS.get(layout.parallelism, Phrase("on one GPU")),
            "usable": Num(layout.usable_gib, 1),
        }
        if link is None:
            reasons.append(
                Phrase(
                    "%(count)s× %(gpu)s: %(model)s at %(precision)s needs %(per_gpu)s GiB per GPU %(how)s, "
                    "%(usable)s GiB usable",
                    count=count,
                    gpu=gpu.sku,
                    **fits,
                )
            )
        else:
            reasons.append(
                Phrase(
                    "%(count)s× %(gpu)s with %(link)s: %(model)s at %(precision)s needs %(per_gpu)s GiB per GPU "
                    "%(how)s, %(usable)s GiB usable",
                    count=count,
                    gpu=gpu.sku,
                    link=link,
                    **fits,
                )
            )
    if workload.task == "inference":
        reasons.append(
            Phrase(
                "decode ≈ %(per_user)s tokens/s per user, %(total)s tokens/s for %(users)s user(s)",
                per_user=Num(candidate.decode_tokens_per_s_per_user, 1),
                total=Num(candidate.decode_tokens_per_s_total),
                users=workload.concurrent_users,
            )
        )
        target = speed_target(workload)
        if target and candidate.decode_tokens_per_s_per_user < target:
            reasons.append(
                Phrase(
                    "below the %(target)s tokens/s per user asked for: no build in the catalog meets it",
                    target=Num(target, None),
                )
                if workload.target_tokens_per_s
                else Phrase(
                    "below the default interactive %(target)s tokens/s per user: no build in the catalog meets it",
                    target=Num(target, None),
                )
            )
        elif target and not workload.target_tokens_per_s:
            reasons.append(
                Phrase(
                    "meets the default interactive speed of %(target)s tokens/s per user (≈ 2× reading speed)",
                    target=Num(target, None),
                )
            )
    power = candidate.verdict.power
    reasons.append(
        Phrase(
            "%(chassis)s; %(load)s W load on %(capacity)s W usable (%(redundancy)s)",
            chassis=build.chassis.sku,
            load=Num(power.load_w),
            capacity=Num(power.capacity_w),
            redundancy=REDUNDANCY_WORDS.get(power.redundancy, power.redundancy),
        )
    )
    if gpu.ecc:
        reasons.append(Phrase("ECC GPU memory"))
    if candidate.verdict.warnings:
        codes = ", ".join(sorted({f.code for f in candidate.verdict.warnings}))
        reasons.append(Phrase("warnings to acknowledge: %(codes)s", codes=codes))
    return tuple(reasons)


# --------------------------------------------------------------------------- when nothing fits


def _suggestions(
    snapshot: CatalogSnapshot, workload: Workload, constraints: Constraints, vat_percent: Decimal
) -> tuple[Phrase, ...]:
    """Say what would work. First the constraints: the cheapest build with every limit lifted, and which
    limits it needs lifted (budget, form factor, GPU count, power, chassis list, site voltage). Then the
    workload: a lighter precision, a shorter context, LoRA instead of full fine-tuning, no ECC."""
    tips: list[Phrase] = []

    def cheapest(w: Workload, c: Constraints) -> Candidate | None:
        found = recommend(snapshot, w, c, limit=1, vat_percent=vat_percent).candidates
        return found[0] if found else None

    open_limits = replace(
        constraints,
        max_price=None,
        form_factor="any",
        max_power_w=None,
        max_gpus=None,
        chassis=(),
        site_voltage=230,
    )
    lifted = cheapest(workload, open_limits) if open_limits != constraints else None
    if lifted is not None:
        build, gross = lifted.build, lifted.price.gross
        what = Phrase(
            "%(count)s× %(gpu)s in %(chassis)s",
            count=build.gpu_count,
            gpu=build.gpus[0].spec.sku,
            chassis=build.chassis.sku,
        )
        if constraints.max_price is not None and gross > constraints.max_price:
            tips.append(
                Phrase(
                    "raise the budget to %(amount)s %(currency)s (%(what)s)",
                    amount=Num(gross),
                    currency=lifted.price.currency,
                    what=what,
                )
            )
        if constraints.form_factor == "workstation" and not build.chassis.is_workstation:
            tips.append(Phrase("allow rack servers (%(what)s)", what=what))
        if constraints.form_factor == "rack" and not build.chassis.is_rack:
            tips.append(Phrase("allow tower workstations (%(what)s)", what=what))
        if constraints.max_gpus is not None and build.gpu_count > constraints.max_gpus:
            tips.append(Phrase("allow %(count)s GPUs (%(what)s)", count=build.gpu_count, what=what))
        if constraints.max_power_w is not None and lifted.verdict.power.load_w > constraints.max_power_w:
            tips.append(Phrase("allow %(load)s W of load (%(what)s)", load=Num(lifted.verdict.power.load_w), what=what))
        if constraints.chassis and build.chassis.sku not in constraints.chassis:
            tips.append(Phrase("allow chassis %(chassis)s", chassis=build.chassis.sku))
        if constraints.site_voltage == 120:
            tips.append(Phrase("use a 200–240 V circuit (%(what)s)", what=what))
    heavier = ("fp32", "bf16", "fp16", "fp8", "int8", "q8_0", "q6_k", "q5_k_m", "q5_k_s")
    if workload.task == "inference" and workload.precision in heavier:
        for lighter, engine in (("q4_k_m", "llama.cpp"), ("int4", "vllm")):
            smaller = cheapest(replace(workload, precision=lighter, engine=engine), constraints)
            if smaller:
                tips.append(
                    Phrase(
                        "quantize to %(precision)s (%(engine)s): %(count)s× %(gpu)s from %(amount)s %(currency)s",
                        precision=lighter.upper(),
                        engine=engine,
                        count=smaller.build.gpu_count,
                        gpu=smaller.build.gpus[0].spec.sku,
                        amount=Num(smaller.price.gross),
                        currency=smaller.price.currency,
                    )
                )
                break
    if workload.task == "inference" and workload.context_tokens > 8192:
        shorter = cheapest(replace(workload, context_tokens=8192), constraints)
        if shorter:
            tips.append(
                Phrase("shorten the context to %(tokens)s tokens (the KV cache shrinks with it)", tokens=Num(8192))
            )
    if workload.task == "full_finetune":
        lora = cheapest(replace(workload, task="lora"), constraints)
        if lora:
            tips.append(
                Phrase(
                    "fine-tune with LoRA instead: %(count)s× %(gpu)s",
                    count=lora.build.gpu_count,
                    gpu=lora.build.gpus[0].spec.sku,
                )
            )
    if _needs_ecc(workload, constraints):
        relaxed = cheapest(
            replace(workload, require_ecc=False, production=False), replace(constraints, require_ecc=False)
        )
        if relaxed:
            tips.append(
                Phrase("without the ECC requirement %(gpu)s builds would fit", gpu=relaxed.build.gpus[0].spec.sku)
            )
    if not tips:
        tips.append(Phrase("no catalog build fits this workload; ask a sales engineer for a multi-node cluster"))
    return tuple(tips)


# --------------------------------------------------------------------------- the exhaustive reference


def exhaustive_search(
    snapshot: CatalogSnapshot, workload: Workload, constraints: Constraints, *, vat_percent: Decimal = Decimal(22)
) -> tuple[Candidate | None, int]:
    """Reference for tests and benchmarks: every GPU model × every count × every chassis × every CPU ×
    every carrying PSU set of the policy space, each priced and validated; the cheapest valid build
    (speed target first, as in `recommend`). Returns it and the number of builds validated."""
    workload = _working(workload, constraints)
    judge = _Judge(snapshot, constraints, vat_percent)
    drives = drive_options(snapshot, workload)
    if not drives:
        return None, 0
    drive = min(drives, key=lambda d: (d.price, d.sku))
    target = speed_target(workload)
    best: Candidate | None = None
    chassis_list = chassis_pool(snapshot, constraints)
    for gpu in gpu_pool(snapshot, workload, constraints):
        most = max((_max_gpus(c, constraints) for c in chassis_list), default=0)
        for count in range(1, most + 1):
            option = gpu_option(snapshot, workload, gpu, count)
            if not _fits(option):
                continue  # the workload.vram rule would refuse every build of this option
            for chassis in chassis_list:
                if count > _max_gpus(chassis, constraints) or not chassis_takes_gpu(chassis, gpu, count):
                    continue  # the fit/cooling rules would refuse it
                cpus = _parts(snapshot).cpus(chassis)
                for build in _complete(snapshot, chassis, option, cpus, drive, constraints, every_psu_set=True):
                    # exact pruning: a build in a slower class than the best, or dearer in the same class,
                    # cannot win, so it is not validated
                    beat = None
                    if best is not None:
                        slow = int(not option.meets(target))
                        best_slow = _rank_key(best, target, workload.task)[0]
                        if slow > best_slow:
                            continue
                        if slow == best_slow:
                            beat = best.price.gross
                    candidate = judge.candidate(build, option, beat=beat)
                    if candidate is None:
                        continue
                    if best is None or _rank_key(candidate, target, workload.task) < _rank_key(
                        best, target, workload.task
                    ):
                        best = candidate
    return best, judge.considered
