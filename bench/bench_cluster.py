"""Cluster benchmark (`make bench`): recommending a 32-node training cluster in process, next to its baselines
from the same run — sizing alone (the fabric, racks, cables and bill of the same 32 nodes) and the single-server
recommender on a workload one server holds. Target (issue 39): ≤ 200 ms per cluster recommendation; the
script exits 1 above it.

Run: .venv/bin/python bench/bench_cluster.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ["DATABASE_URL"] = f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.sqlite3'}"

import django  # noqa: E402

django.setup()

from catalog.fixture import cluster_fixture_catalog, fixture_snapshot  # noqa: E402
from configurator.engine.cluster.recommend import recommend_cluster  # noqa: E402
from configurator.engine.cluster.sizing import size_cluster  # noqa: E402
from configurator.engine.cluster.types import ClusterSpec  # noqa: E402
from configurator.engine.models_library import model_get  # noqa: E402
from configurator.engine.recommend import recommend  # noqa: E402
from configurator.engine.recommend.parts import forget_searches  # noqa: E402
from configurator.engine.types import Constraints, Workload  # noqa: E402

REPEATS = 7
TARGET_MS = 200.0


def timed(fn: Any) -> tuple[float, float]:
    """Median wall and CPU ms of REPEATS calls."""
    wall, cpu = [], []
    for _ in range(REPEATS):
        forget_searches()
        started, started_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def main() -> int:
    snapshot, cat = fixture_snapshot(), cluster_fixture_catalog()
    training = Workload(model=model_get("llama-3.1-70b"), task="full_finetune", sequence_length=8192)
    found = recommend_cluster(snapshot, cat, training, nodes=32)
    node = found.options[0].build.spec.node
    rows = [
        ("recommend_cluster, 32 nodes", timed(lambda: recommend_cluster(snapshot, cat, training, nodes=32))),
        ("baseline: size_cluster, 32 nodes", timed(lambda: size_cluster(ClusterSpec(node=node, nodes=32), cat))),
        (
            "baseline: recommend (one server, 70B LoRA)",
            timed(lambda: recommend(snapshot, Workload(model=model_get("llama-3.1-70b"), task="lora"), Constraints())),
        ),
    ]
    for name, (wall, cpu) in rows:
        print(f"{name:44s} {wall:8.1f} ms wall  {cpu:8.1f} ms CPU")
    wall = rows[0][1][0]
    print(
        f"target ≤ {TARGET_MS:.0f} ms: {'met' if wall <= TARGET_MS else 'MISSED'} ({len(found.options)} node options)"
    )
    return 0 if wall <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
