"""The power budget of a build: its load, what its PSUs deliver under the redundancy at the site voltage, and
the GPU cables it needs and has. The rules (rules/power.py) and the recommender both read these facts.

Numbers and sources: ../shared/reference/validation-rules.md §1 (tags [Sx] → platforms.md, [Vx] → the end of
validation-rules.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from configurator.engine.frozen import direct_init
from configurator.engine.types import BuildSpec, PsuSpec

COOLING_MARGIN = 0.10  # "plus 10-20 % for cooling" — STH 8-GPU EPYC rule of thumb [S33]; low end, as the catalog
HEADROOM_SHARE = 0.80  # warn above 80 % of usable capacity (§1.2; desktop practice ~60 % typical load [V5])
ATX_TRANSIENT_SHARE = 0.75  # HEURISTIC §1.5: ATX PSUs warn above 75 % (GPU transients 2.2-3.1× TDP [S29])
WALL_EFFICIENCY = 0.92  # ASSUMPTION: ~92 % PSU efficiency at load (80 PLUS Platinum/Titanium 90-94 % [V9][V10])
CIRCUIT_120V_15A_W = 1440.0  # 120 V × 15 A × 80 % continuous [V7]
CIRCUIT_120V_20A_W = 1920.0  # 120 V × 20 A × 80 % continuous [V7]
CIRCUIT_230V_16A_W = 2944.0  # 230 V × 16 A × 80 % continuous, "~2,950 W" [V8]
REDUNDANCY_STRICTNESS = {"none": 0, "n+1": 1, "n+n": 2}
CONNECTOR_KINDS: tuple[str, ...] = ("12v-2x6", "eps-8pin", "pcie-8pin")  # 600 W / EPS / 150 W [V12][V14]


@direct_init
@dataclass(frozen=True, slots=True)
class PowerBudget:
    """Watts of a build (§1.1) and what its PSUs deliver under the redundancy at the site voltage (§1.2-1.3)."""

    gpu_w: float
    cpu_w: float
    memory_w: float
    storage_w: float
    nic_w: float
    base_w: float
    load_w: float  # (sum of the above) × (1 + COOLING_MARGIN)
    psu_count: int
    redundant_count: int
    installed_w: float  # every PSU at the site voltage (0 W for a unit that does not run on it)
    usable_w: float  # (N − R) PSUs, the largest R assumed failed

    @property
    def raw_w(self) -> float:
        return self.gpu_w + self.cpu_w + self.memory_w + self.storage_w + self.nic_w + self.base_w

    @property
    def wall_w(self) -> float:
        return self.load_w / WALL_EFFICIENCY

    @property
    def utilization(self) -> float | None:
        return self.load_w / self.usable_w if self.usable_w > 0 else None


def redundant_units(redundancy: str, count: int) -> int:
    """R of §1.2: none 0, N+1 one, N+N half (rounded up, so an odd N+N count is never optimistic)."""
    if redundancy == "n+1":
        return min(1, count)
    if redundancy == "n+n":
        return math.ceil(count / 2)
    return 0


def load_w(build: BuildSpec) -> float:
    return power_budget(build).load_w


# the build fields the PSU side of the budget is made of
_SUPPLY_INPUTS = frozenset({"psus", "site_voltage", "psu_redundancy"})


def power_budget(
    build: BuildSpec, *, like: PowerBudget | None = None, same: frozenset[str] = frozenset()
) -> PowerBudget:
    """load = (Σ GPU TDP + Σ CPU TDP + Σ DIMM W + Σ drive W + Σ NIC W + chassis base) × 1.10 [S33];
    usable = (N − R) × PSU watts at the site voltage, R = 0 / 1 / N/2 for none / N+1 / N+N (§1.2).
    `like`: the budget of a build whose fields named in `same` are these (a build a fix made): the parts of
    it those fields make are taken as they are."""
    if like is None:
        like, same = _NO_BUDGET, frozenset()
    gpu_w = like.gpu_w if "gpus" in same else float(sum(line.spec.tdp_w * line.qty for line in build.gpus))
    cpu_w = like.cpu_w if "cpus" in same else float(sum(line.spec.tdp_w * line.qty for line in build.cpus))
    memory_w = like.memory_w if "memory" in same else float(sum(line.spec.power_w * line.qty for line in build.memory))
    storage_w = (
        like.storage_w if "storage" in same else float(sum(line.spec.power_w * line.qty for line in build.storage))
    )
    nic_w = like.nic_w if "nics" in same else float(sum(line.spec.power_w * line.qty for line in build.nics))
    base_w = like.base_w if "chassis" in same else float(build.chassis.base_power_w)
    raw = gpu_w + cpu_w + memory_w + storage_w + nic_w + base_w
    if same >= _SUPPLY_INPUTS:
        count, redundant, installed, usable = like.psu_count, like.redundant_count, like.installed_w, like.usable_w
    else:
        ratings = sorted(
            float(line.spec.watts_at(build.site_voltage) or 0) for line in build.psus for _ in range(line.qty)
        )
        count = len(ratings)
        redundant = redundant_units(build.psu_redundancy, count)
        installed, usable = sum(ratings), sum(ratings[: count - redundant])
    return PowerBudget(
        gpu_w=gpu_w,
        cpu_w=cpu_w,
        memory_w=memory_w,
        storage_w=storage_w,
        nic_w=nic_w,
        base_w=base_w,
        load_w=raw * (1 + COOLING_MARGIN),
        psu_count=count,
        redundant_count=redundant,
        installed_w=installed,
        usable_w=usable,
    )


_NO_BUDGET = PowerBudget(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0.0, 0.0)  # `like` of a budget made from scratch


def valid_psu_counts(redundancy: str, bays: int) -> list[int]:
    if redundancy == "n+n":
        return list(range(2, bays + 1, 2))
    if redundancy == "n+1":
        return list(range(2, bays + 1))
    return list(range(1, bays + 1))


@direct_init
@dataclass(frozen=True, slots=True)
class PsuOption:
    psu: PsuSpec
    count: int
    usable_w: float
    redundancy: str


# Issue 34: a 12V-2x6 plug of a card drawing at most 300 W can be fed by a 2 × 8-pin PCIe → 12V-2x6 adapter
# (two PCIe 8-pin leads carry 2 × 150 W = 300 W, validation-rules.md §1.6 [V12]; the standard answer for the
# 300 W RTX PRO 6000 Max-Q and similar cards on PSUs with fewer native 12V-2x6 cables). Each adapter takes two
# of the PSU's (or power board's) PCIe 8-pin leads.
ADAPTABLE = "12v-2x6-adaptable"  # key in gpu_connector_needs: the 12V-2x6 plugs an adapter may feed
ADAPTER_MAX_W = 300
ADAPTER_PCIE8_LEADS = 2


def effective_needs(needs: dict[str, int], have: dict[str, int]) -> tuple[dict[str, int], int]:
    """The leads the GPUs draw once 2 × 8-pin adapters feed the 12V-2x6 plugs the native cables do not (cards
    ≤ 300 W only, and only as far as the spare PCIe 8-pin leads go), and how many adapters that takes."""
    short = max(0, needs.get("12v-2x6", 0) - have.get("12v-2x6", 0))
    spare_pcie = max(0, have.get("pcie-8pin", 0) - needs.get("pcie-8pin", 0))
    adapters = min(short, needs.get(ADAPTABLE, 0), spare_pcie // ADAPTER_PCIE8_LEADS)
    effective = {kind: needs.get(kind, 0) for kind in CONNECTOR_KINDS}
    effective["12v-2x6"] -= adapters
    effective["pcie-8pin"] += ADAPTER_PCIE8_LEADS * adapters
    return effective, adapters


def connectors_suffice(needs: dict[str, int], have: dict[str, int]) -> bool:
    """Every GPU plug gets a lead: native, or through a 2 × 8-pin adapter (`effective_needs`)."""
    effective, _ = effective_needs(needs, have)
    return all(have.get(kind, 0) >= effective[kind] for kind in CONNECTOR_KINDS)


def brings_connectors(psu: PsuSpec, count: int, needed: dict[str, int] | None) -> bool:
    if not needed:
        return True
    return connectors_suffice(needed, psu_connectors(psu, count))


def psu_connectors(psu: PsuSpec, count: int) -> dict[str, int]:
    return {
        "12v-2x6": psu.connectors_12v2x6 * count,
        "eps-8pin": psu.connectors_eps8 * count,
        "pcie-8pin": psu.connectors_pcie8 * count,
    }


def gpu_connector_needs(build: BuildSpec) -> dict[str, int]:
    """The GPUs' native plugs per kind, and (ADAPTABLE) how many of the 12V-2x6 ones an adapter may feed."""
    needs = dict.fromkeys(CONNECTOR_KINDS, 0)
    needs[ADAPTABLE] = 0
    for line in build.gpus:
        if line.spec.power_connector in needs:
            plugs = line.spec.power_connector_count * line.qty
            needs[line.spec.power_connector] += plugs
            if line.spec.power_connector == "12v-2x6" and line.spec.tdp_w <= ADAPTER_MAX_W:
                needs[ADAPTABLE] += plugs
    return needs


def gpu_connectors_available(build: BuildSpec) -> dict[str, int]:
    """Rack chassis feed GPUs from their power distribution board; towers from the PSUs' own cables."""
    chassis = build.chassis
    if chassis.is_rack:
        return {
            "12v-2x6": chassis.gpu_power_12v2x6,
            "eps-8pin": chassis.gpu_power_eps8,
            "pcie-8pin": chassis.gpu_power_pcie8,
        }
    have = dict.fromkeys(CONNECTOR_KINDS, 0)
    for line in build.psus:
        for kind, count in psu_connectors(line.spec, line.qty).items():
            have[kind] += count
    return have
