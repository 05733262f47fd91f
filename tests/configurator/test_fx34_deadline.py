"""Trial 34 follow-up, U05: a deadline nothing meets is answered with the earliest build, and when that build
misses the speed target the answer says by how much and when the earliest build that meets it ships."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from configurator.engine.availability import BuildAvailability, OfferInfo, Schedule, build_availability
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.recommend.suggestions import offer
from configurator.engine.types import BuildSpec, CatalogSnapshot, Constraints, Workload

TODAY = dt.date(2026, 12, 1)  # a Tuesday
PLAN = Schedule(stock_days=2, assembly_days=3, burn_in_days=2)
SLOW_GPU = "rtx-pro-6000-blackwell-maxq"


def test_the_earliest_build_below_the_speed_target_says_so_and_names_the_first_that_meets_it(
    snapshot: CatalogSnapshot,
) -> None:
    """Llama-3.3-70B FP8 for 64 users at 20 tokens/s: only the Max-Q cards are in stock, every other GPU comes
    in 20 days. The earliest build (Max-Q) misses 20 tokens/s; the answer says its speed and shortfall, and the
    date and price of the earliest build that meets the target."""
    book: dict[str, list[OfferInfo]] = {}
    for kind in ("gpus", "cpus", "chassis", "psus", "memory", "storage", "nics", "bridges"):
        for sku in getattr(snapshot, kind):
            slow_part = kind == "gpus" and sku != SLOW_GPU
            book[sku] = [
                OfferInfo(
                    sku=sku,
                    supplier="a",
                    unit_price=Decimal(100),
                    free_qty=0 if slow_part else 1000,
                    lead_time_days=20 if slow_part else 10,
                )
            ]

    def availability(build: BuildSpec) -> BuildAvailability:
        return build_availability(build, book, today=TODAY, schedule=PLAN)

    workload = Workload(
        model=model_get("llama-3.3-70b"),
        precision="fp8",
        context_tokens=8192,
        concurrent_users=64,
        target_tokens_per_s=20,
    )
    asked = TODAY + dt.timedelta(days=5)
    found = recommend(snapshot, workload, Constraints(deliver_by=asked), availability=availability)
    assert found.candidates == ()
    said = str(found.suggestions[0])
    head = re.match(
        r"nothing ships by (\S+): the earliest a build can ship is (\S+) \((.*?)\), but it serves only ([\d.]+) "
        r"tokens/s per user, (\d+)% short of the 20 asked for; the earliest build that meets it ships (\S+) "
        r"\((.*)\)$",
        said,
    )
    assert head is not None, said
    earliest, speed, share, met_date = dt.date.fromisoformat(head[2]), float(head[4]), int(head[5]), head[6]
    assert SLOW_GPU in head[3]
    assert speed < 20 and share == round((1 - speed / 20) * 100)
    first = recommend(snapshot, workload, Constraints(deliver_by=earliest), availability=availability, limit=1)
    assert first.candidates[0].decode_tokens_per_s_per_user < 20
    assert head[3] == str(offer(first.candidates[0]))
    met = recommend(
        snapshot, workload, Constraints(deliver_by=dt.date.fromisoformat(met_date)), availability=availability, limit=1
    ).candidates[0]
    assert met.decode_tokens_per_s_per_user >= 20 and SLOW_GPU not in head[7]
    assert head[7] == str(offer(met))
    # a day earlier, the top build still misses the target: the date is the earliest that meets it
    before = recommend(
        snapshot,
        workload,
        Constraints(deliver_by=dt.date.fromisoformat(met_date) - dt.timedelta(days=1)),
        availability=availability,
        limit=1,
    ).candidates
    assert not before or before[0].decode_tokens_per_s_per_user < 20
