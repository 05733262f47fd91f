"""The platform around the GPUs of every data-centre GPU server the recommender offers for the article's ten use
cases (issue 34): CPU cores per GPU, system RAM against VRAM, drives and network cards, next to the reference
designs' figures (NVIDIA Enterprise RA 2-8-5: ≥ 7 cores per GPU; DGX H100/H200/B200: 14 cores per GPU,
RAM 1.4-1.8 × HBM on H200/B200, 2 mirrored M.2 boot drives + data NVMe, 200-400G adapters). The figures come
from the engine's own recommend() and validate(); this script only prints them.

Run: .venv/bin/python bench/platform_table.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from catalog.fixture import fixture_snapshot  # noqa: E402
from configurator.engine.recommend import recommend  # noqa: E402
from configurator.engine.rules.platform import datacenter_server, total_cores  # noqa: E402
from configurator.engine.validate import validate  # noqa: E402
from configurator.use_cases import use_cases  # noqa: E402


def main() -> None:
    snapshot = fixture_snapshot()
    print("Data-centre GPU servers among the top-5 recommendations of the article's ten use cases (fixture catalog)")
    header = (
        f"{'use case':34s} {'chassis':17s} {'GPUs':18s} {'cores/GPU':>9s} {'RAM/VRAM':>8s} "
        f"{'drives':24s} {'NICs':18s} platform findings"
    )
    print(header)
    print("-" * len(header))
    rows = 0
    for case in use_cases():
        result = recommend(snapshot, case.workload, case.constraints, limit=5, suggest=False)
        for candidate in result.candidates:
            build = candidate.build
            if not datacenter_server(build):
                continue
            rows += 1
            gpus = " + ".join(f"{line.qty}× {line.spec.sku}" for line in build.gpus)
            drives = " + ".join(f"{line.qty}× {line.spec.sku}" for line in build.storage)
            nics = " + ".join(f"{line.qty}× {line.spec.sku}" for line in build.nics) or "none"
            verdict = validate(build, snapshot=snapshot, workload=case.workload)
            platform = sorted(c for c in verdict.codes() if c.startswith(("platform.", "memory.ram")))
            print(
                f"{case.title[:34]:34s} {build.chassis.sku:17s} {gpus[:18]:18s} "
                f"{total_cores(build) / build.gpu_count:9.1f} {build.ram_gb / build.total_vram_gib:7.2f}× "
                f"{drives:24s} {nics:18s} {', '.join(platform) or 'none'}"
            )
    print(
        f"{rows} data-centre GPU server(s); rules: ≥ 7 cores/GPU serving, ≥ 14 training; RAM ≥ 1.5 × VRAM "
        "(2 × training); ≥ 2 mirrored boot drives + data NVMe; a ≥ 25 GbE NIC"
    )


if __name__ == "__main__":
    main()
