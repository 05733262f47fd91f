"""Facility figures of a server (engine.facility): amps per feed at the site voltage, BTU/h, rack units."""

from __future__ import annotations

import math

import pytest
from django.utils import translation

from configurator.engine.budgets.power import WALL_EFFICIENCY
from configurator.engine.facility import BTU_PER_WATT_HOUR, facility_figures
from configurator.wording import facility_rows


def test_an_n_plus_1_server_splits_its_load_over_every_feed_and_over_the_rest_when_one_fails() -> None:
    # 4 PSUs under N+1 at 230 V: 4 cords share the load; when one unit fails, 3 carry it.
    figures = facility_figures(load_w=5060.0, psu_count=4, redundancy="n+1", site_voltage=230, rack_units=4)
    wall = 5060.0 / WALL_EFFICIENCY
    assert figures.wall_w == pytest.approx(wall)
    assert figures.amps_total == pytest.approx(wall / 230)
    assert figures.feeds == 4 and figures.redundant_feeds == 1
    assert figures.amps_per_feed == pytest.approx(wall / 230 / 4)
    assert figures.amps_per_feed_failover == pytest.approx(wall / 230 / 3)
    assert figures.btu_per_hour == pytest.approx(wall * 3.412)
    assert figures.rack_units == 4


def test_btu_per_watt_is_the_nist_factor() -> None:
    # NIST SP 811 Appendix B.8: 1 BTU_IT/h = 0.2930711 W
    assert pytest.approx(1 / 0.2930711, abs=5e-4) == BTU_PER_WATT_HOUR


def test_n_plus_n_leaves_half_the_feeds_and_a_lower_voltage_draws_more_amps() -> None:
    at_230 = facility_figures(load_w=3000.0, psu_count=4, redundancy="n+n", site_voltage=230)
    at_120 = facility_figures(load_w=3000.0, psu_count=4, redundancy="n+n", site_voltage=120)
    assert at_230.redundant_feeds == 2
    assert at_230.amps_per_feed_failover == pytest.approx(2 * at_230.amps_per_feed)
    assert at_120.amps_total == pytest.approx(at_230.amps_total * 230 / 120)
    assert at_120.btu_per_hour == pytest.approx(at_230.btu_per_hour)  # heat does not depend on the voltage


def test_a_single_supply_has_one_feed_and_no_failover_and_bad_voltage_is_refused() -> None:
    one = facility_figures(load_w=900.0, psu_count=1)
    assert one.site_voltage == 230 and one.feeds == 1 and not one.is_redundant
    assert one.amps_per_feed == one.amps_total == one.amps_per_feed_failover
    with pytest.raises(ValueError, match="site voltage"):
        facility_figures(load_w=900.0, psu_count=1, site_voltage=0)


def test_rows_say_the_figures_in_each_language_with_plural_feeds() -> None:
    figures = facility_figures(load_w=5060.0, psu_count=4, redundancy="n+1", site_voltage=230, rack_units=4)
    with translation.override("en"):
        english = dict(facility_rows(figures))
    with translation.override("ru"):
        russian = dict(facility_rows(figures))
    assert english["Rack space"] == "4 U"
    assert "per feed over 4 feeds" in english["Current"]
    assert "on the 3 feeds left" in english["If a redundant supply fails"]
    assert english["Heat to remove"] == f"{math.floor(figures.btu_per_hour + 0.5):,} BTU/h"
    assert "линиям" in " ".join(russian.values()) or "линии" in " ".join(russian.values())
    assert "BTU/ч" in " ".join(russian.values())
