"""The policy's part lists per catalog snapshot, computed once and remembered (`snapshot_parts`)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any, TypeVar, cast

from configurator.engine.budgets.lanes import lane_plan
from configurator.engine.budgets.power import gpu_connector_needs, power_budget
from configurator.engine.recommend.policy import (
    GpuOption,
    chassis_pool,
    cpu_options,
    gpu_option,
    max_gpus,
    memory_sets,
    policy_memory,
    policy_psus,
    psu_sets,
    redundancy_for,
    sized_cpus,
    takes,
)
from configurator.engine.rules.context import chassis_takes_gpu
from configurator.engine.types import (
    BuildSpec,
    CatalogSnapshot,
    ChassisSpec,
    Constraints,
    CpuSpec,
    GpuSpec,
    Line,
    MemorySpec,
    PsuSpec,
    Verdict,
    Workload,
)
from configurator.engine.validate import validate, validate_unproven

T = TypeVar("T")

MAX_REMEMBERED = 4096  # entries per cache keyed by what requests ask (constraints, loads): a bound, not a tuning


#: entries of the search's memos (SEARCH_MEMOS), by their size measured on the fixture catalog: a plan
#: (a request's streams) ~43 KB, a chassis' priced builds ~10 KB, a verdict ~5 KB — about 10 MB each at most;
#: "estimates": the estimates the search's validations make (`estimate.remembering_estimates`, bounded there)
#: "likes": per chassis and workload, the last build validated unproven with its rules' findings (`_unproven`)
MOST_REMEMBERED = {"plans": 256, "priced": 1024, "verdicts": 2048, "estimates": 2048, "likes": 512}


def _room(cache: dict[Any, Any], most: int = MAX_REMEMBERED) -> None:
    """Forget everything once a cache keyed by request input is full, so a long-running server's memory stays
    bounded whatever its callers ask (the catalog-keyed caches are bounded by the catalog itself)."""
    if len(cache) >= most:
        cache.clear()


def build_key(build: BuildSpec) -> tuple[object, ...]:
    """What a build is made of, by SKU and quantity (within one snapshot a SKU names one spec), with its
    redundancy and voltage; a bridge also by the GPUs it joins (a grouped catalog narrows them)."""
    return (
        build.chassis.sku,
        tuple((line.spec.sku, line.qty) for line in build.cpus),
        tuple((line.spec.sku, line.qty) for line in build.gpus),
        tuple((line.spec.sku, line.qty) for line in build.psus),
        tuple((line.spec.sku, line.qty) for line in build.memory),
        tuple((line.spec.sku, line.qty) for line in build.storage),
        tuple((line.spec.sku, line.qty) for line in build.nics),
        tuple((line.spec.sku, line.spec.gpu_skus, line.qty) for line in build.bridges),
        build.psu_redundancy,
        build.site_voltage,
    )


class Parts:
    """Per-snapshot lists the search asks for again and again (CPUs, DIMM sets, PSU sets per chassis)."""

    def __init__(self, snapshot: CatalogSnapshot) -> None:
        self.snapshot = snapshot
        self._cpus: dict[tuple[str, int], list[CpuSpec]] = {}
        self._memory: dict[tuple[str, bool], list[Line[MemorySpec]]] = {}
        self._psus: dict[tuple[str, str], list[Line[PsuSpec]]] = {}
        self._memory_choice: dict[tuple[str, float, bool], Line[MemorySpec] | None] = {}
        self._pools: dict[Constraints, list[ChassisSpec]] = {}
        self._hosts: dict[tuple[str, Constraints], bool] = {}
        self._chassis_floor: dict[tuple[str, int], Decimal | None] = {}
        self._options: dict[tuple[Workload, str, int], GpuOption] = {}
        self._lanes: dict[tuple[object, ...], bool] = {}
        self._remembered: dict[str, dict[Any, Any]] = {}
        self._takers: dict[tuple[object, ...], list[tuple[Decimal, str, ChassisSpec]]] = {}
        self._policy_psus: dict[tuple[object, ...], list[Line[PsuSpec]]] = {}

    def cpus(self, chassis: ChassisSpec, cores: int = 0) -> list[CpuSpec]:
        """The socket's CPUs, cheapest first, with `cores` on the chassis' sockets (`sized_cpus`)."""
        key = (chassis.sku, cores)
        if key not in self._cpus:
            _room(self._cpus)
            every = cpu_options(self.snapshot, chassis)
            self._cpus[key] = sized_cpus(every, chassis.cpu_sockets, cores) if cores else every
        return self._cpus[key]

    def remembered(self, name: str, key: Any, compute: Callable[[], T]) -> T:
        """`compute()` remembered under `key` in the cache `name` (bounded like the others, or by
        MOST_REMEMBERED)."""
        cache = self._remembered.setdefault(name, {})
        if key not in cache:
            _room(cache, MOST_REMEMBERED.get(name, MAX_REMEMBERED))
            cache[key] = compute()
        return cast(T, cache[key])

    def memo(self, name: str) -> dict[Any, Any]:
        """The cache `name` itself (for a memo filled elsewhere, such as the search's estimates)."""
        return self._remembered.setdefault(name, {})

    def verdict(self, build: BuildSpec, workload: Workload | None, *, prove: bool) -> Verdict:
        """`validate(build, workload, prove)` on this snapshot, remembered per (the build's parts by SKU and
        quantity, its redundancy and voltage, the workload, prove): a verdict depends on nothing else, and
        the search meets the same policy builds for every request about the same workload and GPUs. The
        verdict is shared: callers must not change it (it is a frozen dataclass of tuples)."""
        if prove:
            return self.remembered(
                "verdicts",
                (build_key(build), workload, prove),
                lambda: validate(build, snapshot=self.snapshot, workload=workload, prove=prove),
            )
        return self.remembered("verdicts", (build_key(build), workload, prove), lambda: self._unproven(build, workload))

    def _unproven(self, build: BuildSpec, workload: Workload | None) -> Verdict:
        """`validate(build, prove=False)`, from the last build of its chassis validated so for this workload
        when there is one (`validate_unproven(like=…)`: the search's builds of one chassis differ in their PSU
        set or CPU, and only the rules that read those run again)."""
        likes = self._remembered.setdefault("likes", {})
        key = (build.chassis.sku, workload)
        done = validate_unproven(build, snapshot=self.snapshot, workload=workload, like=likes.get(key))
        if key not in likes:
            _room(likes, MOST_REMEMBERED["likes"])
        likes[key] = done
        return done.verdict

    def option(self, workload: Workload, gpu: GpuSpec, count: int) -> GpuOption:
        """`gpu_option`, remembered per (catalog version — this cache's —, workload, GPU SKU, count)."""
        key = (workload, gpu.sku, count)  # within this snapshot a SKU names one spec (build_key)
        found = self._options.get(key)
        if found is None:
            _room(self._options)
            found = self._options[key] = gpu_option(self.snapshot, workload, gpu, count)
        return found

    def lanes_ok(self, build: BuildSpec) -> bool:
        """The lane plan fits (links and count), remembered per chassis, CPU, GPUs, drives and NICs: which
        CPUs give a chassis the lanes for a GPU set is asked once (per snapshot, so SKUs name the specs)."""
        key = (
            build.chassis.sku,
            tuple((line.spec.sku, line.qty) for line in build.cpus),
            tuple((line.spec.sku, line.qty) for line in build.gpus),
            tuple((line.spec.pcie_lanes, line.spec.interface, line.qty) for line in build.storage),
            tuple((line.spec.pcie_lanes, line.qty) for line in build.nics),
        )
        found = self._lanes.get(key)
        if found is None:
            _room(self._lanes)
            plan = lane_plan(build)
            found = self._lanes[key] = plan.links_fit and plan.needed <= plan.available
        return found

    def memory(self, chassis: ChassisSpec, ecc: bool) -> list[Line[MemorySpec]]:
        key = (chassis.sku, ecc)
        if key not in self._memory:
            self._memory[key] = memory_sets(self.snapshot, chassis, ecc=ecc)
        return self._memory[key]

    def chassis_pool(self, constraints: Constraints) -> list[ChassisSpec]:
        if constraints not in self._pools:
            _room(self._pools)
            self._pools[constraints] = chassis_pool(self.snapshot, constraints)
        return self._pools[constraints]

    def hosts(self, gpu: GpuSpec, constraints: Constraints) -> bool:
        """Some chassis of the pool takes at least one of this GPU."""
        key = (gpu.sku, constraints)
        if key not in self._hosts:
            _room(self._hosts)
            self._hosts[key] = any(chassis_takes_gpu(c, gpu, 1) for c in self.chassis_pool(constraints))
        return self._hosts[key]

    def chassis_floor(self, chassis: ChassisSpec, cores: int = 0) -> Decimal | None:
        """Chassis + cheapest sized CPUs on every socket + cheapest PSU set (net)."""
        key = (chassis.sku, cores)
        if key not in self._chassis_floor:
            cpus, psus = self.cpus(chassis, cores), self.psus(chassis, redundancy_for(chassis))
            _room(self._chassis_floor)
            self._chassis_floor[key] = (
                chassis.price + cpus[0].price * chassis.cpu_sockets + min(line.spec.price * line.qty for line in psus)
                if cpus and psus
                else None
            )
        return self._chassis_floor[key]

    def takers(
        self,
        gpu: GpuSpec,
        count: int,
        workstation: bool,
        constraints: Constraints,
        ecc: bool,
        *,
        ram_gb: float = 0.0,
        cores: int = 0,
    ) -> list[tuple[Decimal, str, ChassisSpec]]:
        """Chassis of the pool and class that take `count` × `gpu`, with the least a policy build spends on
        each (net, without the GPUs), cheapest first. GPUs that look alike to the fit rules share the list,
        so a catalog with many variants of a card pays for it once."""
        fit = (gpu.form_factor, gpu.cooling, gpu.slot_width, gpu.length_mm, gpu.tdp_w, gpu.nvlink_kind, gpu.is_consumer)
        key = (fit, count, ram_gb, cores, workstation, constraints, ecc)
        if key not in self._takers:
            rows = []
            for chassis in self.chassis_pool(constraints):
                if chassis.is_workstation != workstation or count > max_gpus(chassis, constraints):
                    continue
                if not takes(chassis, gpu, count):
                    continue
                net = _chassis_net(self, chassis, ram_gb, ecc, cores)
                if net is not None:
                    rows.append((net, chassis.sku, chassis))
            _room(self._takers)
            self._takers[key] = sorted(rows, key=lambda row: (row[0], row[1]))
        return self._takers[key]

    def memory_choice(self, chassis: ChassisSpec, ram_gb: float, ecc: bool) -> Line[MemorySpec] | None:
        """The cheapest policy DIMM set for this chassis and sized RAM (what `complete_builds` installs)."""
        key = (chassis.sku, ram_gb, ecc)
        if key not in self._memory_choice:
            options = policy_memory(self.memory(chassis, ecc), ram_gb)
            _room(self._memory_choice)
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
            _room(self._policy_psus)
            self._policy_psus[key] = policy_psus(build, sets, first_only=first_only)
        return self._policy_psus[key]

    def psus(self, chassis: ChassisSpec, redundancy: str) -> list[Line[PsuSpec]]:
        key = (chassis.sku, redundancy)
        if key not in self._psus:
            self._psus[key] = psu_sets(self.snapshot, chassis, redundancy)
        return self._psus[key]


_PARTS: dict[str, Parts] = {}
MOST_SNAPSHOTS = 4


#: `Parts.remembered` caches that hold whole answers of the search for a request's workload (its streams,
#: their priced builds, the verdicts of its candidates), as opposed to the catalog's own lists
SEARCH_MEMOS = tuple(MOST_REMEMBERED)


def forget_searches() -> None:
    """Forget every snapshot's SEARCH_MEMOS (the catalog-keyed lists stay): the next request for a workload
    is searched as the first one was. For benchmarks that time a first request on a warm catalog."""
    for parts in _PARTS.values():
        for name in SEARCH_MEMOS:
            parts._remembered.pop(name, None)


def snapshot_parts(snapshot: CatalogSnapshot) -> Parts:
    """The cache for this snapshot version (a changed catalog gets a new version and a new cache). At most
    MOST_SNAPSHOTS are kept — the catalog and its grouped view, now and before the last change — so the
    memos of catalogs no request asks for any more (up to ~30 MB each) do not pile up in a worker."""
    parts = _PARTS.get(snapshot.version)
    if parts is None or parts.snapshot is not snapshot:
        if len(_PARTS) >= MOST_SNAPSHOTS:
            _PARTS.clear()
        parts = _PARTS[snapshot.version] = Parts(snapshot)
    return parts


def _chassis_net(parts: Parts, chassis: ChassisSpec, ram_gb: float, ecc: bool, cores: int) -> Decimal | None:
    """The least a policy build spends on this chassis: the chassis, its cheapest sized CPUs, the policy
    memory for this RAM need and the cheapest PSU set its bays take (None: no such build)."""
    base = parts.chassis_floor(chassis, cores)
    memory = parts.memory_choice(chassis, ram_gb, ecc)
    if base is None or memory is None:
        return None
    return base + memory.spec.price * memory.qty
