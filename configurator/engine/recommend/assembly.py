"""Assembling policy builds for one chassis and GPU option, and judging them: priced, checked against the
constraints and validated (`Judge` counts what it considers)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal

from configurator.engine.availability import BuildAvailability
from configurator.engine.budgets.power import (
    connectors_suffice,
    gpu_connector_needs,
    gpu_connectors_available,
    power_budget,
)
from configurator.engine.builds import build_price
from configurator.engine.fixes import FixNotApplicable, apply_fix
from configurator.engine.proving import is_gone
from configurator.engine.recommend.parts import snapshot_parts
from configurator.engine.recommend.policy import GpuOption, ecc_memory, redundancy_for, sized_cpus
from configurator.engine.recommend.sizing import cores_needed, mirrored_storage, ram_needed_gb, server_nics
from configurator.engine.rules.context import active
from configurator.engine.rules.platform import serves_network
from configurator.engine.types import (
    BridgeSpec,
    BuildSpec,
    Candidate,
    CatalogSnapshot,
    ChassisSpec,
    Constraints,
    CpuSpec,
    Fix,
    FixOpKind,
    GpuSpec,
    Line,
    MemorySpec,
    NicSpec,
    Price,
    PsuSpec,
    StorageSpec,
    Verdict,
)


def _base_build(
    chassis: ChassisSpec,
    option: GpuOption,
    cpu: CpuSpec,
    site_voltage: int,
    memory: tuple[Line[MemorySpec], ...] = (),
    storage: tuple[Line[StorageSpec], ...] = (),
    psus: tuple[Line[PsuSpec], ...] = (),
    nics: tuple[Line[NicSpec], ...] = (),
    lines: tuple[tuple[Line[GpuSpec], ...], tuple[Line[BridgeSpec], ...]] | None = None,
) -> BuildSpec:
    """`lines`: the option's GPU and bridge lines, when the caller shares them between builds (`_option_lines`)."""
    gpus, bridges = lines or _option_lines(option)
    return BuildSpec(
        chassis=chassis,
        cpus=(Line(spec=cpu, qty=chassis.cpu_sockets),),
        gpus=gpus,
        bridges=bridges,
        psu_redundancy=redundancy_for(chassis),
        site_voltage=site_voltage,
        memory=memory,
        storage=storage,
        psus=psus,
        nics=nics,
    )


def _option_lines(option: GpuOption) -> tuple[tuple[Line[GpuSpec], ...], tuple[Line[BridgeSpec], ...]]:
    """The GPU and bridge lines of the option's builds."""
    return (
        (Line(spec=option.gpu, qty=option.count),),
        tuple(Line(spec=bridge, qty=sets) for bridge, sets in option.bridges),
    )


# Warning fixes tried on one candidate (each applied and validated again): a bound on the work
FIX_TRIES = 4


def complete_builds(
    snapshot: CatalogSnapshot,
    chassis: ChassisSpec,
    option: GpuOption,
    cpus: Iterable[CpuSpec],
    drive: Line[StorageSpec],
    constraints: Constraints,
    *,
    every_psu_set: bool,
) -> Iterator[BuildSpec]:
    """Policy builds for this chassis and GPU option: per CPU (with the cores the workload asks and
    enough lanes), the cheapest policy memory for the sized RAM, then the cheapest carrying PSU set (or
    every carrying set when `every_psu_set`)."""
    bases = policy_bases(snapshot, chassis, option, cpus, drive, constraints, every_psu_set=every_psu_set)
    for base, carrying in bases:
        for psus in carrying:
            yield with_psus(base, psus)


def with_psus(base: BuildSpec, psus: Line[PsuSpec]) -> BuildSpec:
    """The policy build `base` (no PSUs) with the PSU set `psus`: `complete_builds`' build, sharing base's lines."""
    return BuildSpec(
        chassis=base.chassis,
        cpus=base.cpus,
        gpus=base.gpus,
        bridges=base.bridges,
        psu_redundancy=base.psu_redundancy,
        site_voltage=base.site_voltage,
        memory=base.memory,
        storage=base.storage,
        psus=(psus,),
        nics=base.nics,
    )


def policy_bases(
    snapshot: CatalogSnapshot,
    chassis: ChassisSpec,
    option: GpuOption,
    cpus: Iterable[CpuSpec],
    drive: Line[StorageSpec],
    constraints: Constraints,
    *,
    every_psu_set: bool,
    most_cpus: int | None = None,
) -> Iterator[tuple[BuildSpec, list[Line[PsuSpec]]]]:
    """`complete_builds` per CPU: the policy build without PSUs, and the PSU sets that carry it (the cheapest
    only unless `every_psu_set`), so a caller can price the sets before it makes their builds. `most_cpus`:
    stop before the next CPU once that many CPUs had a carrying set (its lanes, load and PSU sets are not
    worked out for a caller that would not use them)."""
    parts = snapshot_parts(snapshot)
    server = not chassis.is_workstation
    ram_gb = ram_needed_gb(option.workload, option.gpu.vram_gib * option.count, server=server)
    dimms = parts.memory_choice(chassis, ram_gb, ecc_memory(option.workload))
    if dimms is None:
        return
    storage: tuple[Line[StorageSpec], ...] = (drive,)
    nics: tuple[Line[NicSpec], ...] = ()
    if server or option.workload.production:  # issue 34: mirrored boot + data NVMe (rules/platform.py)
        mirrored = parts.remembered(
            "storage",
            (chassis.sku, option.workload),
            lambda: mirrored_storage(active(snapshot.storage), option.workload, chassis),
        )
        if mirrored is None:
            return
        storage = mirrored
    if server or serves_network(option.workload):  # a ≥ 25 GbE card (a team served from a workstation too),
        # and the fabric adapters of a multi-node job
        nics = server_nics(active(snapshot.nics), option.workload, option.count, chassis.has_nvswitch)
    if chassis.is_rack:  # the power board brings the GPU cables; no PSU choice adds any
        probe = BuildSpec(chassis=chassis, gpus=(Line(spec=option.gpu, qty=option.count),))
        if not connectors_suffice(gpu_connector_needs(probe), gpu_connectors_available(probe)):
            return
    # the builds of every CPU share their other lines (the same objects): validating one from another
    # (validate_unproven(like=…)) then re-runs only the rules that read the CPUs or PSUs
    memory, lines = (dimms,), _option_lines(option)
    carried: set[str] = set()
    for cpu in sized_cpus(cpus, chassis.cpu_sockets, cores_needed(option.workload, option.count, server=server)):
        if most_cpus is not None and cpu.sku not in carried and len(carried) >= most_cpus:
            return
        base = _base_build(chassis, option, cpu, constraints.site_voltage, memory, storage, nics=nics, lines=lines)
        if not parts.lanes_ok(base):
            continue
        # the power cap before any PSU set is priced: the load does not depend on the PSUs
        if constraints.max_power_w is not None and power_budget(base).load_w > constraints.max_power_w:
            continue
        carrying = parts.policy_psus(base, first_only=not every_psu_set)
        if carrying:
            carried.add(cpu.sku)
        yield base, (carrying if every_psu_set else carrying[:1])


@dataclass
class Judge:
    """Prices and validates builds, counting them; keeps only error-free ones within the constraints."""

    snapshot: CatalogSnapshot
    constraints: Constraints
    vat_percent: Decimal
    considered: int = 0
    availability: Callable[[BuildSpec], BuildAvailability] | None = None  # from the suppliers' offers
    applied: dict[int, tuple[Fix, ...]] = field(default_factory=dict)  # id(candidate) → warning fixes applied
    refused: frozenset[str] = frozenset()  # the error codes of the last build refused for its errors

    def in_stock_rank(self, build: BuildSpec) -> int:
        """0 when every part is in stock (or nothing is known of stock), 1 otherwise: between equal prices
        the build that can ship sooner comes first."""
        return int(self.availability is not None and not self.availability(build).in_stock)

    def ships_in_time(self, build: BuildSpec) -> bool:
        """Whether the build ships by `constraints.deliver_by` (its ship date counted in working days)."""
        deliver_by = self.constraints.deliver_by
        if deliver_by is None or self.availability is None:
            return True
        ship_date = self.availability(build).ship_date
        return ship_date is not None and ship_date <= deliver_by

    def candidate(self, build: BuildSpec, option: GpuOption, *, beat: Decimal | None = None) -> Candidate | None:
        """The build as a candidate, or None when it breaks a constraint, has an error, or (with `beat`)
        costs more than that — a build that cannot win is not worth validating."""
        price = build_price(build, vat_percent=self.vat_percent)
        if beat is not None and price.gross > beat:
            return None
        self.considered += 1
        if not self._within(build, price):
            return None
        # unproven: the search only needs errors and warnings; the fixes are proven for what is returned
        verdict = snapshot_parts(self.snapshot).verdict(build, option.workload, prove=False)
        if verdict.errors:
            self.refused = frozenset(finding.code for finding in verdict.errors)
            return None
        return self._as_candidate(build, verdict, price, option)

    def _within(self, build: BuildSpec, price: Price) -> bool:
        """Within the constraints: budget, power cap, delivery date."""
        if self.constraints.max_price is not None and price.gross > self.constraints.max_price:
            return False
        if self.constraints.max_power_w is not None and power_budget(build).load_w > self.constraints.max_power_w:
            return False
        return self.ships_in_time(build)

    def _as_candidate(self, build: BuildSpec, verdict: Verdict, price: Price, option: GpuOption) -> Candidate:
        throughput = verdict.estimate.throughput if verdict.estimate else option.estimate.throughput
        return Candidate(
            build=build,
            verdict=verdict,
            price=price,
            decode_tokens_per_s_per_user=throughput.decode_tokens_per_s_per_user if throughput else 0.0,
            decode_tokens_per_s_total=throughput.decode_tokens_per_s_total if throughput else 0.0,
            training_tokens_per_s=throughput.training_tokens_per_s if throughput else 0.0,
            served_output_tokens_per_s=throughput.served_output_tokens_per_s if throughput else 0.0,
        )

    def proven(self, candidate: Candidate, option: GpuOption, snapshot: CatalogSnapshot | None = None) -> Candidate:
        """The candidate with its findings' fixes proven (on `snapshot`, the whole catalog, when given); as
        it is when no finding offers a fix (nothing to prove)."""
        if not any(finding.fixes for finding in candidate.verdict.findings):
            return candidate
        verdict = snapshot_parts(snapshot or self.snapshot).verdict(candidate.build, option.workload, prove=True)
        return replace(candidate, verdict=verdict)

    def fixed(self, candidate: Candidate, option: GpuOption) -> tuple[Candidate, tuple[Fix, ...]] | None:
        """The candidate after its warning fixes are applied (engine.fixes.apply_fix) when that leaves no
        warning and no error within the constraints, with the fixes applied; None otherwise.

        Each fix is proven as engine.proving proves one — applied, the build validated again, kept only when
        its finding is gone (`is_gone`) and no error appears — on the search's unproven verdicts, one
        warning at a time, at most `FIX_TRIES` fixes tried."""
        build, verdict, applied, tries = candidate.build, candidate.verdict, [], 0
        while verdict.warnings:
            step = None
            for finding in verdict.warnings:
                for fix in finding.fixes:
                    # the workload is the customer's; the GPUs are the stream's (another GPU is another stream)
                    if any(op.op == FixOpKind.CHANGE_WORKLOAD or op.kind == "gpus" for op in fix.ops):
                        continue
                    if tries >= FIX_TRIES:
                        return None
                    tries += 1
                    try:
                        trial = apply_fix(build, fix, self.snapshot)
                    except FixNotApplicable:
                        continue
                    after = snapshot_parts(self.snapshot).verdict(trial, option.workload, prove=False)
                    if not after.errors and is_gone(finding, verdict.findings, after.findings):
                        step = (fix, trial, after)
                        break
                if step is not None:
                    break
            if step is None:
                return None
            applied.append(step[0])
            build, verdict = step[1], step[2]
        price = build_price(build, vat_percent=self.vat_percent)
        if not self._within(build, price):
            return None
        return self._as_candidate(build, verdict, price, option), tuple(applied)
