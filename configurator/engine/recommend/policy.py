"""The recommendation policy: which parts a build gets for a set of GPUs.

The search space is the one an integrator would quote (shared by `recommend` and the exhaustive
reference search, so both answer the same question):

- GPUs: one model, `count` of them, in a chassis that takes them (`rules.context.chassis_takes_gpu`);
- CPUs: every socket filled with the same model (a 2P board with one CPU loses half its lanes and slots);
- CPU cores, system RAM and storage sized from the workload (`sizing`: data-loader cores per GPU for
  training, RAM ≥ VRAM and the weights for inference and ≥ 2 × VRAM for training, NVMe for the model
  files, the dataset and the checkpoints), the cheapest parts that reach it;
- memory: every channel filled evenly with one DIMM model at 1 or 2 DIMMs per channel, with the sized RAM
  when any such set reaches it (validation-rules.md §5.2-5.3);
- storage: one NVMe model, as few drives as hold the sized need;
- power: the chassis' redundancy (N+1 for rack chassis that support it, none for towers) and the PSU
  set keeping the load ≤ 80 % of usable capacity when any set within the bays does (§1.2);
- NVLink: bridge sets for every GPU when the engine runs tensor parallel on bridge-capable cards;
  NVSwitch comes with the HGX baseboard.

The pools (which GPUs and chassis the constraints allow) are constraints, not heuristics; a GPU option
is `count` × one GPU model, estimated once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from configurator.engine.budgets.links import BRIDGE_KINDS, MAX_WAYS
from configurator.engine.budgets.power import (
    HEADROOM_SHARE,
    brings_connectors,
    gpu_connector_needs,
    power_budget,
    redundant_units,
    valid_psu_counts,
)
from configurator.engine.estimate import estimate
from configurator.engine.estimate.topology import Topology, bridged, tp_bound
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Num, Phrase
from configurator.engine.recommend.sizing import drive_line, storage_needed_tb
from configurator.engine.rules.context import active, chassis_takes_gpu
from configurator.engine.types import (
    BridgeSpec,
    BuildSpec,
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

TENSOR_ENGINES = ("vllm", "sglang", "tensorrt-llm")
# Without a target, an interactive service should still stream faster than people read: silent reading
# averages 238 words/min (Brysbaert 2019, J. Memory and Language 109) ≈ 4 words/s ≈ 5.3 tokens/s at
# ~1.33 tokens per English word; 10 tokens/s per user leaves room for skimming and non-English text.
DEFAULT_TOKENS_PER_S_PER_USER = 10.0


def speed_target(workload: Workload) -> float | None:
    """The per-user decode speed a recommendation should reach (inference only)."""
    if workload.task != "inference":
        return None
    return workload.target_tokens_per_s or DEFAULT_TOKENS_PER_S_PER_USER


@direct_init
@dataclass(frozen=True, slots=True)
class GpuOption:
    gpu: GpuSpec
    count: int
    workload: Workload  # the workload as estimated (training may switch on ZeRO-3 across GPUs)
    estimate: Estimate
    link_gbs: float | Topology | None  # a bandwidth every GPU reaches every other at, or the bridges' graph
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


def needs_ecc(workload: Workload, constraints: Constraints) -> bool:
    return constraints.require_ecc or workload.require_ecc or workload.production


def ecc_memory(workload: Workload) -> bool:
    """ECC end to end: the ecc rules require ECC DIMMs too when the workload requires ECC GPUs."""
    return workload.require_ecc or workload.production


def working(workload: Workload, constraints: Constraints) -> Workload:
    """The workload as the search validates it: an ECC constraint becomes the workload's requirement, so
    the same rules that refuse non-ECC parts in a hand-made build refuse them here."""
    return replace(workload, require_ecc=True) if constraints.require_ecc and not workload.require_ecc else workload


# Classes of machine as the article sorts them (gpu-guide-2026.ru.txt): a desktop tower, a rack-mounted
# workstation, a GPU server, an HGX board with NVSwitch.
MACHINE_CLASSES = {
    "tower-workstation": "desktop-workstation",
    "rack-workstation": "rack-workstation",
    "rack-server": "gpu-server",
    "hgx": "hgx-server",
}
# A beginner's or enthusiast's workload: one user, not production, a model up to the article's «30B на
# рабочей станции» size class (Qwen-32B, Yi-34B included).
PERSONAL_MAX_PARAMS = 35e9


def machine_class(chassis: ChassisSpec) -> str:
    """The class's stable id: desktop-workstation, rack-workstation, gpu-server or hgx-server."""
    return MACHINE_CLASSES.get(chassis.kind, chassis.kind)


def personal(workload: Workload, constraints: Constraints) -> bool:
    """One person's workload (small model, one user, no production or ECC): no datacenter GPU for it."""
    return (
        not needs_ecc(workload, constraints)
        and workload.concurrent_users <= 1
        and workload.model.total_params <= PERSONAL_MAX_PARAMS
    )


def datacenter_gpu(gpu: GpuSpec) -> bool:
    """A card made for server airflow (passive) or a baseboard (SXM, OAM)."""
    return gpu.form_factor in ("sxm", "oam") or gpu.cooling == "passive"


def server_grade(chassis: ChassisSpec) -> bool:
    """What production asks of the box: a server chassis (GPU server or HGX, not a workstation in a rack),
    registered ECC DIMMs, a redundant PSU mode."""
    redundant = any(mode in ("n+1", "n+n") for mode in chassis.psu_redundancy_modes)
    return chassis.is_rack and not chassis.is_workstation and chassis.memory_kind == "rdimm" and redundant


def profiled(workload: Workload, constraints: Constraints) -> Constraints:
    """The constraints the workload's profile adds: production or ECC ⇒ `require_ecc`, which keeps the pools
    to ECC GPUs and server-grade chassis (the article: production under load needs server accelerators
    with ECC)."""
    if needs_ecc(workload, constraints) and not constraints.require_ecc:
        constraints = replace(constraints, require_ecc=True)
    if workload.noise != "any" and constraints.noise == "any":  # where it stands, said on the workload
        constraints = replace(constraints, noise=workload.noise)
    return constraints


def quiet_enough(chassis: ChassisSpec, noise: str) -> bool:
    """Issue 34: an office takes a desktop tower only; a lab takes towers and rack workstations (no rack
    servers with server fans); a server room (or nothing said) takes anything."""
    if noise == "office":
        return chassis.kind == "tower-workstation"
    if noise == "lab":
        return chassis.is_workstation
    return True


def stack_supported(gpu: GpuSpec, workload: Workload, constraints: Constraints) -> bool:
    """Policy: non-NVIDIA GPUs are recommended only for llama.cpp inference outside production. ROCm runs
    llama.cpp well, but training libraries and production serving need checking per tool, and «если
    задача — обучение и серьёзный продакшн … дорога по-прежнему ведёт к NVIDIA» (gpu-guide-2026.ru.txt).
    A sales engineer can still build and validate AMD systems by hand (rule workload.rocm_stack warns)."""
    if gpu.vendor == "NVIDIA":
        return True
    return workload.task == "inference" and workload.engine == "llama.cpp" and not needs_ecc(workload, constraints)


def gpu_pool(snapshot: CatalogSnapshot, workload: Workload, constraints: Constraints) -> list[GpuSpec]:
    ecc = needs_ecc(workload, constraints)
    small = personal(workload, constraints)
    return [
        gpu
        for gpu in active(snapshot.gpus)
        if (gpu.ecc or not ecc) and stack_supported(gpu, workload, constraints) and not (small and datacenter_gpu(gpu))
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
        if constraints.require_ecc and not server_grade(chassis):
            continue
        if not quiet_enough(chassis, constraints.noise):
            continue
        found.append(chassis)
    return found


def takes(chassis: ChassisSpec, gpu: GpuSpec, count: int) -> bool:
    """The chassis takes `count` × `gpu` as built: it fits and cools them, and a fixed baseboard (HGX: 4 or
    8) is never offered partly filled (rule fit.baseboard_count)."""
    if chassis.baseboard_gpu_counts and count not in chassis.baseboard_gpu_counts:
        return False
    return chassis_takes_gpu(chassis, gpu, count)


# GPU counts an integrator quotes for tensor parallel: the engines split the attention heads and the MLP
# evenly, so the tensor-parallel size must divide the model's heads (vLLM: "Total number of attention heads
# must be divisible by tensor parallel size", https://docs.vllm.ai/en/latest/serving/distributed_serving.html);
# 8-GPU servers balance 4 GPUs per CPU socket, and reference designs ship 1, 2, 4 or 8 (NVIDIA-Certified
# Systems, HGX 4/8). Odd counts would fall back to a pipeline split and unbalance the sockets.
TENSOR_PARALLEL_COUNTS = (1, 2, 4, 8, 16)


def count_quoted(workload: Workload, count: int) -> bool:
    """Whether the recommender offers `count` GPUs for this workload: a tensor-parallel engine serving
    inference gets 1, 2, 4 or 8 GPUs; a layer split (llama.cpp) and training take any count."""
    if workload.task == "inference" and workload.engine in TENSOR_ENGINES:
        return count in TENSOR_PARALLEL_COUNTS
    return True


def max_gpus(chassis: ChassisSpec, constraints: Constraints) -> int:
    limit = min(chassis.max_gpu_count, chassis.gpu_bays)
    if constraints.gpu_count:  # exactly so many: a chassis that takes fewer takes none of these builds
        return constraints.gpu_count if chassis_holds_count(chassis, constraints.gpu_count) else 0
    return min(limit, constraints.max_gpus) if constraints.max_gpus else limit


def chassis_holds_count(chassis: ChassisSpec, count: int) -> bool:
    """The chassis has room for `count` GPUs (bays and rated count; a fixed baseboard only its counts)."""
    if chassis.baseboard_gpu_counts and count not in chassis.baseboard_gpu_counts:
        return False
    return count <= min(chassis.max_gpu_count, chassis.gpu_bays)


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


def sized_cpus(cpus: Iterable[CpuSpec], sockets: int, cores: int) -> list[CpuSpec]:
    """The CPUs (cheapest first, as given) whose `sockets` together have the `cores` the workload asks
    (`sizing.cores_needed`); when none has, those with the most cores."""
    cpus = list(cpus)
    enough = [cpu for cpu in cpus if cpu.cores * sockets >= cores]
    if enough or not cpus:
        return enough
    most = max(cpu.cores for cpu in cpus)
    return [cpu for cpu in cpus if cpu.cores == most]


def policy_memory(sets: Iterable[Line[MemorySpec]], need_gb: float) -> list[Line[MemorySpec]]:
    """The sets the policy allows: RAM ≥ what the workload needs (`sizing.ram_needed_gb`) when any set
    reaches it, else the largest ones."""
    sets = list(sets)
    if not sets:
        return []
    enough = [line for line in sets if line.spec.capacity_gb * line.qty >= need_gb]
    if enough:
        return enough
    largest = max(line.spec.capacity_gb * line.qty for line in sets)
    return [line for line in sets if line.spec.capacity_gb * line.qty == largest]


def drive_for(snapshot: CatalogSnapshot, workload: Workload) -> Line[StorageSpec] | None:
    """The cheapest NVMe set holding what the workload stores (`sizing.storage_needed_tb`)."""
    return drive_line(active(snapshot.storage), storage_needed_tb(workload))


def psu_sets(snapshot: CatalogSnapshot, chassis: ChassisSpec, redundancy: str) -> list[Line[PsuSpec]]:
    lines: list[Line[PsuSpec]] = []
    for psu in active(snapshot.psus):
        if psu.form_factor != chassis.psu_form_factor:
            continue
        lines.extend(Line(spec=psu, qty=count) for count in valid_psu_counts(redundancy, chassis.psu_bays))
    return sorted(lines, key=lambda line: (line.spec.price * line.qty, line.spec.sku, line.qty))


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
    """Training across several GPUs is run sharded (full fine-tuning, LoRA and QLoRA alike: FSDP / ZeRO-3
    shard the frozen base weights too): without a stage chosen, assume ZeRO-3."""
    if workload.task != "inference" and count > 1 and workload.zero_stage == 0:
        return replace(workload, zero_stage=3)
    return workload


def gpu_option(snapshot: CatalogSnapshot, workload: Workload, gpu: GpuSpec, count: int) -> GpuOption:
    """Estimate `count` × `gpu`, joined by NVLink where the engine would use it."""
    run = _training_variant(workload, count)
    link: float | Topology | None = None
    bridges: tuple[tuple[BridgeSpec, int], ...] = ()
    if count > 1 and gpu.nvlink_gbs:
        if gpu.nvlink_kind in ("nvswitch-sxm", "infinity-fabric-oam"):
            link = gpu.nvlink_gbs
        elif gpu.nvlink_kind in BRIDGE_KINDS and run.engine in TENSOR_ENGINES:
            bridges = bridge_sets(snapshot, gpu, count)
            # the graph the sets make (pairs or quads): TP over more GPUs than one set joins runs at PCIe
            link = bridged(gpu, count, tuple((bridge.ways, sets) for bridge, sets in bridges)) if bridges else None
    result = estimate(run, gpu, count, link_gbs=link)
    if bridges and result.layout is not None and result.layout.parallelism not in ("tensor", "dp_attention"):
        bridges, link = (), None  # the engine splits layers here: the bridge would not be used
        result = estimate(run, gpu, count)
    elif isinstance(link, Topology) and not tp_bound(link, count).nvlink:
        # TP over more GPUs than one set joins: its ring runs at PCIe whether the pairs are bridged or not, so
        # the sets are not bought for a speed they do not give (the same estimate without them)
        bridges, link = (), None
        result = estimate(run, gpu, count)
    return GpuOption(gpu=gpu, count=count, workload=run, estimate=result, link_gbs=link, bridges=bridges)


@direct_init
@dataclass(frozen=True, slots=True)
class VramReserve:
    """The VRAM every recommended build leaves free on each GPU, whatever the engine: `share` of the card and
    at least `min_gib`. Allocator fragmentation, a second process (a monitor, a desktop) and the estimate's
    own error live in it; vLLM's gpu_memory_utilization 0.9 already leaves more, llama.cpp and training
    frameworks leave nothing of their own."""

    share: float = 0.05
    min_gib: float = 1.0

    def gib(self, vram_gib: float) -> float:
        return max(self.share * vram_gib, self.min_gib)

    def usable_gib(self, vram_gib: float) -> float:
        return vram_gib - self.gib(vram_gib)


DEFAULT_RESERVE = VramReserve()


def fits(option: GpuOption, reserve: VramReserve = DEFAULT_RESERVE) -> bool:
    """The estimate fits the engine's usable memory and leaves the reserve free on every GPU."""
    layout = option.estimate.layout
    if layout is None or not layout.fits:
        return False
    return layout.per_gpu_gib <= min(layout.usable_gib, reserve.usable_gib(option.gpu.vram_gib))


def reserve_assumption(reserve: VramReserve) -> Phrase:
    return Phrase(
        "recommended builds keep %(share)s%% of each GPU's memory (at least %(min)s GiB) free",
        share=Num(reserve.share * 100, None),
        min=Num(reserve.min_gib, None),
    )
