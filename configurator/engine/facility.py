"""What a data-centre team plans a server by: amps per power feed at the site voltage, heat in BTU/h, rack units.

Numbers and sources:
- the load is the power budget's (budgets/power.py: parts × (1 + COOLING_MARGIN)), drawn from the wall through the
  PSUs at WALL_EFFICIENCY (~92 %, 80 PLUS Platinum/Titanium 90-94 % [V9][V10] of
  ../shared/reference/validation-rules.md §1.3);
- every watt a server draws leaves it as heat: 1 BTU_IT/h = 0.293 071 1 W (NIST SP 811, 2008 edition, Appendix
  B.8, "British thermal unit_IT per hour"), so BTU/h = W × 3.412 (BTU_PER_WATT_HOUR);
- amps = watts / volts (single phase, power factor taken as 1: server PSUs correct it to ≥ 0.9 at 20 % load and
  above, 80 PLUS Platinum [V9], so the figure errs by at most that on the low side);
- each PSU takes its own cord, so a server has as many feeds as PSUs; they share the load, and under N+1 or N+N
  the feeds that remain when the redundant units fail carry it all (R of §1.2, `redundant_units`).
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.budgets.power import WALL_EFFICIENCY, redundant_units
from configurator.engine.frozen import direct_init

#: 1 / 0.2930711 W per BTU_IT/h (NIST SP 811 Appendix B.8) = 3.41214…, written as the customary 3.412.
BTU_PER_WATT_HOUR = 3.412
#: The site voltage a quote assumes when none is given: single phase 230 V (IEC 60038 nominal voltage).
DEFAULT_SITE_VOLTAGE = 230


@direct_init
@dataclass(frozen=True, slots=True)
class FacilityFigures:
    """One server's figures for the room: wall watts, amps per feed shared and after a redundant PSU fails."""

    wall_w: float  # drawn from the wall: the load / WALL_EFFICIENCY
    site_voltage: int
    feeds: int  # one per PSU (0: a build without PSUs)
    redundant_feeds: int  # feeds the redundancy lets fail (0 / 1 / half for none / N+1 / N+N)
    amps_total: float  # wall_w / site_voltage
    amps_per_feed: float  # the load split over every feed
    amps_per_feed_failover: float  # split over the feeds left when the redundant ones fail
    btu_per_hour: float  # wall_w × BTU_PER_WATT_HOUR
    rack_units: float | None  # None: a desk-side workstation

    @property
    def is_redundant(self) -> bool:
        return self.redundant_feeds > 0


def facility_figures(
    *,
    load_w: float,
    psu_count: int,
    redundancy: str = "none",
    site_voltage: int = DEFAULT_SITE_VOLTAGE,
    rack_units: float | None = None,
) -> FacilityFigures:
    """The figures of a server whose power budget says `load_w` with `psu_count` PSUs under `redundancy`
    (none / n+1 / n+n) at `site_voltage` volts. A site voltage ≤ 0 is refused (ValueError)."""
    if site_voltage <= 0:
        raise ValueError(f"site voltage must be positive, got {site_voltage}")
    wall = max(load_w, 0.0) / WALL_EFFICIENCY
    amps = wall / site_voltage
    feeds = max(psu_count, 0)
    redundant = redundant_units(redundancy, feeds)
    shared = amps / feeds if feeds else amps
    surviving = feeds - redundant
    return FacilityFigures(
        wall_w=wall,
        site_voltage=site_voltage,
        feeds=feeds,
        redundant_feeds=redundant,
        amps_total=amps,
        amps_per_feed=shared,
        amps_per_feed_failover=amps / surviving if surviving > 0 else amps,
        btu_per_hour=wall * BTU_PER_WATT_HOUR,
        rack_units=rack_units,
    )
