"""validate() p50 with every offered fix proven (issue 12) next to the old path in the same run.

The old path is `validate(..., prove=False)`: the rules' fixes as they come, nothing re-validated. Two build
sets, each timed interleaved (old, new, old, new …) so both see the same machine:

1. the catalog's platform checks (`_meta.platform_checks`: the builds we sell, at and beyond their maximum);
2. random builds of catalog parts, drawn as the property tests draw them (many errors at once: the worst case
   for proving, since every error offers fixes to prove);
3. those random builds with 1-3 errors (what a sales engineer sends: a build close to right).

Target: proving within 3× of the old path's p50.

Run: .venv/bin/python bench/bench_validate.py
"""

from __future__ import annotations

import json
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import django_setup  # noqa: F401 - first: the project on sys.path and Django set up

from catalog.fixture import CATALOG_FIXTURE, fixture_snapshot
from configurator.engine.builds import build_from_payload
from configurator.engine.types import REDUNDANCY_MODES, SITE_VOLTAGES, BuildSpec, CatalogSnapshot, Line
from configurator.engine.validate import validate

TARGET_RATIO = 3.0
REPEATS = 5
RANDOM_BUILDS = 300
PART = re.compile(r"(\d+)x ([a-z0-9-]+)")
PSUS = re.compile(r"PSUs (\d+)x ([a-z0-9-]+) (none|n\+1|n\+n) @ (\d+) V")


def platform_builds(snapshot: CatalogSnapshot) -> list[BuildSpec]:
    builds = []
    for line in json.loads(CATALOG_FIXTURE.read_text(encoding="utf-8"))["_meta"]["platform_checks"]:
        chassis, label_parts = line.split(" | ")[:2]
        parts: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for qty, sku in PART.findall(label_parts.split(":", 1)[1]):
            kind = next((k for k in ("gpus", "cpus", "memory", "storage", "nics") if sku in snapshot.kind(k)), None)
            if kind:
                parts[kind].append({"sku": sku, "qty": int(qty)})
        psu = PSUS.search(line)
        if psu is None:
            continue
        body = {
            "chassis": chassis,
            **parts,
            "psus": [{"sku": psu[2], "qty": int(psu[1])}],
            "psu_redundancy": psu[3],
            "site_voltage": int(psu[4]),
        }
        builds.append(build_from_payload(body, snapshot))
    return builds


def random_builds(snapshot: CatalogSnapshot, count: int, seed: int = 12) -> list[BuildSpec]:
    rng = random.Random(seed)

    def lines(kind: str, most: int, max_qty: int) -> tuple[Line[Any], ...]:
        parts = snapshot.kind(kind)
        chosen = rng.sample(sorted(parts), rng.randint(0, most))
        return tuple(Line(parts[sku], rng.randint(1, max_qty)) for sku in sorted(chosen))

    builds = []
    for _ in range(count):
        chassis = snapshot.chassis[rng.choice(sorted(snapshot.chassis))]
        fitting_cpus = sorted(sku for sku, cpu in snapshot.cpus.items() if cpu.socket == chassis.cpu_socket)
        fitting_psus = sorted(sku for sku, p in snapshot.psus.items() if p.form_factor == chassis.psu_form_factor)
        if fitting_cpus and rng.random() < 0.5:
            cpus: tuple[Line[Any], ...] = (
                Line(snapshot.cpus[rng.choice(fitting_cpus)], rng.randint(1, chassis.cpu_sockets)),
            )
        else:
            cpus = lines("cpus", 2, 3)
        if rng.random() < 0.5:
            psus: tuple[Line[Any], ...] = (
                Line(snapshot.psus[rng.choice(fitting_psus)], rng.randint(1, chassis.psu_bays)),
            )
        else:
            psus = lines("psus", 2, 8)
        builds.append(
            BuildSpec(
                chassis=chassis,
                cpus=cpus,
                gpus=lines("gpus", 2, 9),
                psus=psus,
                memory=lines("memory", 2, 32),
                storage=lines("storage", 2, 6),
                nics=lines("nics", 2, 3),
                bridges=lines("bridges", 2, 3),
                psu_redundancy=rng.choice(REDUNDANCY_MODES),
                site_voltage=rng.choice(SITE_VOLTAGES),
            )
        )
    return builds


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def compare(name: str, builds: list[BuildSpec], snapshot: CatalogSnapshot) -> float:
    old: list[float] = []
    new: list[float] = []
    for _ in range(REPEATS):
        for build in builds:
            old.append(timed(lambda b=build: validate(b, snapshot=snapshot, prove=False)))  # type: ignore[misc]
            new.append(timed(lambda b=build: validate(b, snapshot=snapshot)))  # type: ignore[misc]
    p50_old, p50_new = statistics.median(old), statistics.median(new)
    p90_old, p90_new = (statistics.quantiles(xs, n=10)[-1] for xs in (old, new))
    ratio = p50_new / p50_old
    print(f"{name}: {len(builds)} builds × {REPEATS}")
    print(f"  {'':<26}{'p50 ms':>10}{'p90 ms':>10}")
    print(f"  {'old: fixes unproven':<26}{p50_old * 1e3:>10.3f}{p90_old * 1e3:>10.3f}")
    print(f"  {'new: every fix proven':<26}{p50_new * 1e3:>10.3f}{p90_new * 1e3:>10.3f}")
    within = "within" if ratio <= TARGET_RATIO else "OVER"
    print(f"  p50 ratio {ratio:.2f}× ({within} the {TARGET_RATIO:.0f}× target)\n")
    return ratio


def main() -> int:
    snapshot = fixture_snapshot()
    compare("platform checks (the builds we sell)", platform_builds(snapshot), snapshot)
    drawn = random_builds(snapshot, RANDOM_BUILDS)
    compare("random catalog builds (property-test mix)", drawn, snapshot)
    near = [b for b in drawn if 1 <= len(validate(b, snapshot=snapshot, prove=False).errors) <= 3]
    near += [b for b in random_builds(snapshot, 3000, seed=13) if 1 <= len(validate(b, snapshot=snapshot).errors) <= 3]
    compare("random builds with 1-3 errors (what a person sends)", near[:RANDOM_BUILDS], snapshot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
