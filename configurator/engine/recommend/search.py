"""The search: lazy streams of policy builds with lower bounds (the heap over them: `picking`).

Per GPU model the counts worth trying (`counts_to_try`); per GPU option and form-factor class a `Stream`
of its builds, cheapest first, priced only when it reaches the front; `picking._best` finds the valid
candidate with the smallest key without opening streams or validating builds that cannot win;
`picking.pick_distinct` picks the cheapest and the alternatives that differ in kind.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from heapq import heappop, heappush
from operator import attrgetter, itemgetter
from typing import Any, cast

from configurator.engine.builds import CENT, HUNDRED
from configurator.engine.estimate import min_gpus_to_fit
from configurator.engine.recommend.assembly import Judge, policy_bases, with_psus
from configurator.engine.recommend.parts import Parts, snapshot_parts
from configurator.engine.recommend.policy import (
    DEFAULT_RESERVE,
    GpuOption,
    VramReserve,
    count_quoted,
    ecc_memory,
    fits,
    max_gpus,
    speed_target,
    takes,
)
from configurator.engine.recommend.ranking import weighing
from configurator.engine.recommend.sizing import cores_needed, ram_needed_gb
from configurator.engine.types import (
    BuildSpec,
    Candidate,
    CatalogSnapshot,
    ChassisSpec,
    Constraints,
    Finding,
    Fix,
    GpuSpec,
    Line,
    PsuSpec,
    StorageSpec,
    Workload,
)

# Builds a stream validates looking for one without warnings once it has one with warnings: a bound on the
# work a catalog of look-alike parts can cause (beyond it the stream answers with its warned build).
CLEAN_TRIES_PER_STREAM = 6
# Warnings that depend only on the GPU option (its GPUs, their count, their link) and the workload, never on
# the chassis, CPUs, memory or PSUs of the policy build: once a stream's build has one, every build of the
# stream has it, so the stream stops looking for a clean one (rules: tensor parallel without NVLink; four or
# more axial consumer cards side by side).
OPTION_WARNINGS = frozenset({"interconnect.tp_over_pcie", "interconnect.tp_partly_bridged", "cooling.axial_density"})
# Errors that depend only on the chassis and the stream's GPUs, bridges and drives, never on the CPUs, memory
# or PSUs: once a build of a chassis has only such errors, the stream's other builds in that chassis are not
# validated (rules fit.*, cooling.*, interconnect.*: sizes, airflow, bridges and their spacing).
CHASSIS_ERRORS = ("fit.", "cooling.", "interconnect.")
# Warnings that depend only on the chassis and the stream's GPUs (their count, their sockets' PCIe paths, the
# chassis' airflow), never on the CPU model, memory or PSUs: once a build of a chassis has only such warnings
# left that matter, the stream's other builds in that chassis cannot be clean, so they are not validated in
# the search for a clean one (tensor parallel across the two sockets of a dual-socket board; flow-through
# workstation cards in a server).
CHASSIS_WARNINGS = frozenset({"interconnect.tp_over_sockets", "cooling.flow_through_server"})
CPU_OPTIONS_PER_CHASSIS = 3  # the cheapest CPUs with enough lanes; a cheaper CPU with a higher TDP can
# need a larger PSU set, so a few are priced out completely rather than only the cheapest


def counts_to_try(
    snapshot: CatalogSnapshot,
    workload: Workload,
    gpu: GpuSpec,
    most: int,
    reserve: VramReserve = DEFAULT_RESERVE,
    pool: Sequence[ChassisSpec] = (),
    constraints: Constraints | None = None,
) -> list[GpuOption]:
    """The smallest count that fits and, when that is slower than the speed target, the smallest count
    that meets it (tensor parallel on 2, 4, 8 GPUs speeds one stream up; a layer split does not). Counts in
    between are dearer than the first and slower than the second, so they can never rank first — in a
    chassis that takes them: a fixed baseboard of the `pool` (HGX: 4 or 8) that does not take a count gets
    the next count it takes instead (never a partial board)."""
    parts = snapshot_parts(snapshot)
    # within a snapshot a SKU names one spec (parts.build_key): the GPU by its SKU, cheaper to hash than its spec
    key = (workload, gpu.sku, most, reserve, _pool_skus(parts, pool), constraints)
    return parts.remembered(
        "counts", key, lambda: _counts_to_try(parts, workload, gpu, most, reserve, pool, constraints)
    )


def _pool_skus(parts: Parts, pool: Sequence[ChassisSpec]) -> tuple[str, ...]:
    """The pool's chassis SKUs, remembered per pool list (`Parts.chassis_pool`'s: a request asks once per GPU)."""
    cache = parts.memo("pool_skus")
    found = cache.get(id(pool))
    if found is None or found[0] is not pool:  # a list the cache has not seen (ids are reused once freed)
        if len(cache) >= 256:
            cache.clear()
        found = cache[id(pool)] = (pool, tuple(chassis.sku for chassis in pool))
    return cast(tuple[str, ...], found[1])


def _counts_to_try(
    parts: Parts,
    workload: Workload,
    gpu: GpuSpec,
    most: int,
    reserve: VramReserve,
    pool: Sequence[ChassisSpec],
    constraints: Constraints | None,
) -> list[GpuOption]:
    if constraints is not None and constraints.gpu_count:
        # the customer names the count (trial 34 U09, "full fine-tune on 8 GPUs"): that count only, odd or not
        exact = parts.option(workload, gpu, constraints.gpu_count)
        return [exact] if constraints.gpu_count <= most and fits(exact, reserve) else []
    smallest = min_gpus_to_fit(workload, gpu, max_gpus=most)
    if smallest is None and workload.task != "inference":
        smallest = min_gpus_to_fit(replace(workload, zero_stage=3), gpu, max_gpus=most)
    if smallest is None:
        return []
    target = speed_target(workload)
    options: list[GpuOption] = []
    for count in range(smallest, most + 1):
        if not count_quoted(workload, count):
            continue  # tensor parallel on 1, 2, 4 or 8 GPUs (policy.count_quoted)
        option = parts.option(workload, gpu, count)
        if not fits(option, reserve):
            continue
        if not options or option.meets(target):
            options.append(option)
        if option.meets(target):
            break
    counts = {option.count for option in options}
    for chassis in pool:
        limit = min(most, max_gpus(chassis, constraints or Constraints()))
        for count in sorted(counts):
            if takes(chassis, gpu, count):
                continue
            board = next((n for n in range(count + 1, limit + 1) if takes(chassis, gpu, n)), None)
            if board is not None and board not in counts:
                option = parts.option(workload, gpu, board)
                if fits(option, reserve):
                    options.append(option)
                    counts.add(board)
    return sorted(options, key=lambda option: option.count)


def _gross(net: Decimal, vat_percent: Decimal) -> Decimal:
    # money(net) + money(net × VAT / 100), the calls inlined (every PSU set of every entered chassis is priced)
    return net.quantize(CENT, ROUND_HALF_UP) + (net * vat_percent / HUNDRED).quantize(CENT, ROUND_HALF_UP)


def _option_net(option: GpuOption, drive: Line[StorageSpec]) -> Decimal:
    """What every build of the option pays whatever the chassis: GPUs, bridges, the drives."""
    bridges = sum((bridge.price * sets for bridge, sets in option.bridges), Decimal(0))
    return option.gpu.price * option.count + bridges + drive.spec.price * drive.qty


# what the rules see of a PSU (ratings, cables): sets that look alike are one choice (`Stream._price`)
_PSU_LOOK = attrgetter(
    "form_factor", "watts_high_line", "watts_low_line", "connectors_12v2x6", "connectors_eps8", "connectors_pcie8"
)


def distinct_psus(parts: Parts, carrying: list[Line[PsuSpec]]) -> tuple[tuple[Line[PsuSpec], Decimal], ...]:
    """The PSU sets of `carrying` (a remembered `Parts.policy_psus` list), one per look — count, ratings and
    cables (`_PSU_LOOK`) —, the first of each (the list is cheapest first), with its net price; remembered per
    list (the catalog's: every request that prices the chassis with such a CPU load reads the same list)."""
    cache = parts.memo("distinct_psus")
    found = cache.get(id(carrying))
    if found is None or found[0] is not carrying:  # a list the cache has not seen (ids are reused once freed)
        if len(cache) >= 4096:
            cache.clear()
        seen: set[tuple[object, ...]] = set()
        distinct = []
        for psu in carrying:
            look = (psu.qty, _PSU_LOOK(psu.spec))
            if look not in seen:
                seen.add(look)
                distinct.append((psu, psu.spec.price * psu.qty))
        found = cache[id(carrying)] = (carrying, tuple(distinct))
    return cast(tuple[tuple[Line[PsuSpec], Decimal], ...], found[1])


# a CPU's policy build without PSUs in one chassis, priced: its label, its net without PSUs, the build, and its
# distinct PSU sets with their net prices, cheapest first (`Stream._psu_groups`)
_PsuGroup = tuple[str, Decimal, BuildSpec, tuple[tuple[Line[PsuSpec], Decimal], ...]]


class _Pending:
    """A priced policy build not made yet: its build without PSUs and its PSU set (`assembly.with_psus`), made
    when it reaches the front of its stream (most priced builds never do). `more`: [its CPU's group, the index
    of the next dearer PSU sets there] (0 once entered), shared by the sets of its price (`Stream._enter`)."""

    __slots__ = ("_base", "_build", "_psus", "more")

    def __init__(self, base: BuildSpec, psus: Line[PsuSpec], more: list[object] | None = None) -> None:
        self._base, self._psus, self.more = base, psus, more
        self._build: BuildSpec | None = None

    @property
    def build(self) -> BuildSpec:
        if self._build is None:
            self._build = with_psus(self._base, self._psus)
        return self._build


class _StockRank:
    """`Judge.in_stock_rank(build)` as a heap key, worked out only when two builds tie on price: most priced
    builds never reach the front, and reading a build's availability cost as much as pricing it."""

    __slots__ = ("_build", "_judge", "_rank")

    def __init__(self, judge: Judge, build: BuildSpec | _Pending) -> None:
        self._judge, self._build, self._rank = judge, build, -1

    def rank(self) -> int:
        if self._rank < 0:
            build = self._build
            self._rank = self._judge.in_stock_rank(build.build if isinstance(build, _Pending) else build)
        return self._rank

    @staticmethod
    def _of(other: object) -> Any:
        return other.rank() if isinstance(other, _StockRank) else other

    def __eq__(self, other: object) -> bool:
        return bool(self.rank() == self._of(other))

    def __lt__(self, other: object) -> bool:
        return bool(self.rank() < self._of(other))

    def __gt__(self, other: object) -> bool:
        return bool(self.rank() > self._of(other))

    __hash__ = None  # type: ignore[assignment]


StreamBounds = tuple[Decimal, int, list[tuple[Decimal, str, ChassisSpec]], Decimal | None]


def stream_bounds(
    parts: Parts, judge: Judge, option: GpuOption, workstation: bool, drive: Line[StorageSpec]
) -> StreamBounds:
    """A stream's option net, cores needed, chassis that take its GPUs (with their least spend) and floor
    (`Stream(bounds=…)` takes them remembered)."""
    option_net = _option_net(option, drive)
    # data-centre servers are sized by the reference designs (issue 34, recommend/sizing.py)
    cores = cores_needed(option.workload, option.count, server=not workstation)
    ram_gb = ram_needed_gb(option.workload, option.gpu.vram_gib * option.count, server=not workstation)
    takers = parts.takers(
        option.gpu, option.count, workstation, judge.constraints, ecc_memory(option.workload),
        ram_gb=ram_gb, cores=cores,
    )  # fmt: skip
    floor = _gross(option_net + takers[0][0], judge.vat_percent) if takers else None
    return option_net, cores, takers, floor


class Stream:
    """The policy builds of one GPU option in one form-factor class, cheapest first, priced lazily.

    `floor` bounds every build of the stream from below (the cheapest chassis that takes the GPUs, with
    its cheapest CPUs, memory and PSUs), so a stream that cannot compete is never opened. Opened, its
    chassis are entered in order of their own lower bound; their builds wait in a price heap, whose top
    is final once no unentered chassis could undercut it. `valid()` validates from the top until a build
    has no error — the answer that pricing every chassis and validating every build would give, at the
    cost of the few that can compete.

    A request makes one per GPU option and class (about a hundred on the fixture catalog) and opens a few:
    slotted, its signature and ranking (`picking.pick_distinct` sets it) worked out once (issue 34)."""

    __slots__ = (
        "_dead", "_entered", "_heap", "_serial", "_takers", "_tries", "_valid", "_warned", "_warned_chassis",
        "cores", "drive", "floor", "judge", "opened", "option", "option_net", "parts", "ranking", "resolved",
        "signature", "workstation",
    )  # fmt: skip

    def __init__(
        self,
        judge: Judge,
        option: GpuOption,
        workstation: bool,
        drive: Line[StorageSpec],
        bounds: StreamBounds | None = None,
        parts: Parts | None = None,
    ) -> None:
        self.judge, self.option, self.drive, self.workstation = judge, option, drive, workstation
        self.parts = parts or snapshot_parts(judge.snapshot)
        self.signature: tuple[str, int] = (option.gpu.sku, option.count)
        # picking's ranking of the stream's builds apart from price and warnings (slow, −speed, name)
        self.ranking: tuple[int, float, str] = (0, 0.0, "")
        self.option_net, self.cores, self._takers, self.floor = bounds or stream_bounds(
            self.parts, judge, option, workstation, drive
        )
        self._entered = 0
        # (gross, stock rank, label, serial, build, the build validated with its warning fixes applied)
        self._heap: list[
            tuple[Decimal, _StockRank | int, str, int, BuildSpec | _Pending, tuple[Candidate, tuple[Fix, ...]] | None]
        ] = []
        self._serial = 0
        self._valid: Candidate | None = None  # the cheapest build without an error or a warning
        self._warned: Candidate | None = None  # the cheapest without an error, when it has warnings
        self._tries = 0  # builds validated after the warned one
        self.opened = False
        self.resolved = False
        self._dead: set[str] = set()  # chassis whose builds in this stream all have the same chassis-level error
        self._warned_chassis: set[str] = set()  # chassis whose builds in this stream all keep a chassis warning

    def weighing(self, candidate: Candidate) -> tuple[Finding, ...]:
        """The candidate's warnings that matter to the stream's workload (`ranking.matters`)."""
        return weighing(candidate, self.option.workload, speed_target(self.option.workload))

    def warned(self, candidate: Candidate) -> int:
        return int(bool(self.weighing(candidate)))

    @property
    def candidate(self) -> Candidate | None:
        """The stream's answer: its cheapest clean build, else its cheapest build with warnings."""
        return self._valid or self._warned

    def gross(self, build: BuildSpec) -> Decimal:
        """`build_price(build).gross` of a policy build of this stream, from the option's net (catalog prices
        are whole kopecks, so no line rounds): chassis, CPUs, memory and PSUs added to it, and the build's own
        drives and network cards in place of the stream's drive (servers get mirrored boot drives and NICs)."""
        lines: tuple[Line[Any], ...] = (*build.cpus, *build.memory, *build.psus, *build.storage, *build.nics)
        net = self.option_net - self.drive.spec.price * self.drive.qty + build.chassis.price
        net += sum((line.spec.price * line.qty for line in lines), Decimal(0))
        return _gross(net, self.judge.vat_percent)

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
            # each CPU's cheapest PSU set; the next enters when it leaves the heap (`_enter`)
            for group in self._psu_groups(chassis):
                self._enter(group, 0)
        return self._heap[0][0] if self._heap else None

    def _enter(self, group: _PsuGroup, index: int) -> None:
        """Push the PSU sets of a CPU's group from `index` on that cost what it costs, priced; the first of
        them to leave the heap pushes the next dearer ones. A group's sets are cheapest first, so the heap
        pops the stream's builds in the order it would with all of them in it (equal prices: by stock rank,
        label, then order of entry, which within a group is the group's order)."""
        label, net, base, sets = group
        price = _gross(net + sets[index][1], self.judge.vat_percent)
        end = index + 1
        while end < len(sets) and sets[end][1] == sets[index][1]:
            end += 1
        more = [group, end] if end < len(sets) else None  # shared: the next sets are entered once
        stocked = self.judge.availability is not None
        for psus, _ in sets[index:end]:
            pending = _Pending(base, psus, more)
            self._serial += 1
            # without offers every build's stock rank is 0 (`Judge.in_stock_rank`): the heap compares plain 0s
            rank = _StockRank(self.judge, pending) if stocked else 0
            heappush(self._heap, (price, rank, label, self._serial, pending, None))

    def _psu_groups(self, chassis: ChassisSpec) -> tuple[_PsuGroup, ...]:
        """The chassis' policy builds of this stream by CPU, remembered per catalog snapshot (Parts) and what
        they are made of — the option's workload, GPU and count (the cores follow from them), the drive, the
        constraints and the VAT — so requests about the same workload price them once."""
        option, drive = self.option, self.drive
        key = (
            chassis.sku, option.workload, option.gpu.sku, option.count, drive.spec.sku, drive.qty,
            self.judge.constraints, self.judge.vat_percent,
        )  # fmt: skip
        return self.parts.remembered("priced", key, lambda: tuple(self._groups(chassis)))

    def _price(self, chassis: ChassisSpec) -> Iterator[tuple[Decimal, str, BuildSpec | _Pending]]:
        """The chassis' policy builds of this stream with their prices (every PSU set of every CPU's group)."""
        vat = self.judge.vat_percent
        for label, net, base, sets in self._psu_groups(chassis):
            for psus, psus_net in sets:
                yield _gross(net + psus_net, vat), label, _Pending(base, psus)

    def _groups(self, chassis: ChassisSpec) -> Iterator[_PsuGroup]:
        bases = policy_bases(
            self.judge.snapshot, chassis, self.option, self.parts.cpus(chassis, self.cores), self.drive,
            self.judge.constraints,
            every_psu_set=True, most_cpus=CPU_OPTIONS_PER_CHASSIS,
        )  # fmt: skip
        # every carrying PSU set of the first few CPUs: a larger set can clear a warning (transient
        # power) that the cheapest leaves; they are priced now (from the CPU's build without PSUs) and
        # made into builds and validated only when at the front (PSU sets that look alike to the rules —
        # same ratings, cables, count — are one choice: the cheapest, which comes first)
        cpus_seen: set[str] = set()
        for base, carrying in bases:
            if not carrying:
                continue
            cpu = base.cpus[0].spec.sku
            if cpu in cpus_seen:  # a CPU's sets are priced once (`distinct_psus` per CPU)
                continue
            cpus_seen.add(cpu)
            if len(cpus_seen) > CPU_OPTIONS_PER_CHASSIS:
                break
            # cheapest first (catalog prices are whole kopecks: a dearer set is a dearer build, gross too), in
            # the list's order where they cost the same
            sets = tuple(sorted(distinct_psus(self.parts, carrying), key=itemgetter(1)))
            yield f"{chassis.sku}/{cpu}", self._net_without_psus(base), base, sets

    def _net_without_psus(self, base: BuildSpec) -> Decimal:
        """`gross`'s net of a policy build of this stream before its PSUs are added."""
        lines: tuple[Line[Any], ...] = (*base.cpus, *base.memory, *base.storage, *base.nics)
        net = self.option_net - self.drive.spec.price * self.drive.qty + base.chassis.price
        return net + sum((line.spec.price * line.qty for line in lines), Decimal(0))

    def valid(self) -> Candidate | None:
        """The cheapest build of the stream without an error or a warning — what will be signed — else
        the cheapest without an error (validated once, then remembered)."""
        while not self.resolved:
            if self.head_price() is None:
                self.resolved = True
                break
            *_, entry, fixed = heappop(self._heap)
            if isinstance(entry, _Pending):
                more = entry.more
                if more is not None and more[1]:  # the next dearer PSU sets of its CPU enter (once)
                    group, index = cast(_PsuGroup, more[0]), cast(int, more[1])
                    more[1] = 0
                    self._enter(group, index)
                build = entry.build
            else:
                build = entry
            if fixed is not None:  # validated clean with its warning fixes applied
                self._valid, self.resolved = fixed[0], True
                self.judge.applied[id(fixed[0])] = fixed[1]
                break
            if build.chassis.sku in self._dead or (
                self._warned is not None and build.chassis.sku in self._warned_chassis
            ):
                continue
            self.judge.refused = frozenset()
            candidate = self.judge.candidate(build, self.option)
            if candidate is None:
                refused = self.judge.refused
                if refused and all(code.startswith(CHASSIS_ERRORS) for code in refused):
                    self._dead.add(build.chassis.sku)
                continue
            weighing = self.weighing(candidate)
            if not weighing:  # no warning that matters to this workload (ranking)
                self._valid, self.resolved = candidate, True
                break
            if all(f.code in CHASSIS_WARNINGS for f in weighing):
                self._warned_chassis.add(build.chassis.sku)
            if self._warned is None:
                self._warned = candidate
                # its proven warning fixes applied: a clean build, dearer, that waits for its turn by price
                repaired = self.judge.fixed(candidate, self.option)
                if any(f.code in OPTION_WARNINGS for f in weighing):
                    # no other build of this stream can be clean: the fixed one is its clean answer, if any
                    if repaired is not None:
                        self._valid = repaired[0]
                        self.judge.applied[id(repaired[0])] = repaired[1]
                    self.resolved = True
                elif repaired is not None:
                    self._serial += 1
                    label = f"{repaired[0].build.chassis.sku}/fixed"
                    heappush(self._heap, (repaired[0].price.gross, 0, label, self._serial, repaired[0].build, repaired))
            else:
                self._tries += 1
                self.resolved = self._tries >= CLEAN_TRIES_PER_STREAM
        return self.candidate
