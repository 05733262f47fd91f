"""estimate() calls per second on one core, next to baselines from the same run (`make bench`).

Baselines: a bare Python function call (the floor of any call) and the llmfit one-line formula
(tok/s = 0.55 × bandwidth / model bytes). The workload mix is what the recommender sends: several models,
tasks and engines, each estimated against every catalog GPU at 1, 2 and 4 GPUs.

Run: .venv/bin/python bench/bench_estimate.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from catalog.fixture import fixture_snapshot  # noqa: E402
from configurator.engine.estimate import estimate, min_gpus_to_fit, weight_bytes  # noqa: E402
from configurator.engine.models_library import model_get  # noqa: E402
from configurator.engine.types import GpuSpec, Workload  # noqa: E402

TARGET_PER_S = 5000


def _mix() -> list[Workload]:
    return [
        Workload(model_get("llama-3.1-8b"), precision="q4_k_m", engine="llama.cpp", context_tokens=8192),
        Workload(model_get("llama-3.1-70b"), precision="q4_k_m", engine="llama.cpp", context_tokens=8192),
        Workload(model_get("qwen3-32b"), precision="fp8", engine="vllm", concurrent_users=16),
        Workload(model_get("deepseek-v3"), precision="fp8", engine="vllm", concurrent_users=32),
        Workload(model_get("gpt-oss-120b"), precision="mxfp4", engine="vllm", concurrent_users=8),
        Workload(model_get("gemma-2-27b"), precision="bf16", engine="transformers", context_tokens=8192),
        Workload(model_get("llama-3.1-8b"), task="lora", precision="bf16", sequence_length=4096),
        Workload(model_get("qwen2.5-72b"), task="full_finetune", precision="bf16", zero_stage=3),
    ]


def _rate(fn: Any, calls: int) -> float:
    start = time.perf_counter()
    done = fn(calls)
    return done / (time.perf_counter() - start)


def main() -> int:
    gpus: list[GpuSpec] = list(fixture_snapshot().gpus.values())
    mix = _mix()
    jobs = [(w, g, n) for w in mix for g in gpus for n in (1, 2, 4)]
    for w, g, n in jobs:  # warm the per-workload caches once, as a long-running server would be
        estimate(w, g, n, link_gbs=g.nvlink_gbs)

    def run_estimate(calls: int) -> int:
        done = 0
        while done < calls:
            for w, g, n in jobs:
                estimate(w, g, n, link_gbs=g.nvlink_gbs)
            done += len(jobs)
        return done

    def run_min_gpus(calls: int) -> int:
        done = 0
        while done < calls:
            for w, g, _ in jobs:
                min_gpus_to_fit(w, g)
            done += len(jobs)
        return done

    def run_llmfit(calls: int) -> int:
        done = 0
        while done < calls:
            for w, g, _ in jobs:
                _ = 0.55 * g.bandwidth_gbs * 1e9 / weight_bytes(w.model, w.precision)
            done += len(jobs)
        return done

    def bare(w: Workload, g: GpuSpec, n: int) -> None:
        return None

    def run_bare(calls: int) -> int:
        done = 0
        while done < calls:
            for w, g, n in jobs:
                bare(w, g, n)
            done += len(jobs)
        return done

    calls = 60_000
    rates = {
        "bare function call (floor)": _rate(run_bare, calls),
        "llmfit one-line formula": _rate(run_llmfit, calls),
        "min_gpus_to_fit()": _rate(run_min_gpus, calls),
        "estimate()": _rate(run_estimate, calls),
    }
    print(f"estimate() throughput on one core: {len(mix)} workloads × {len(gpus)} GPUs × 1/2/4 GPUs\n")
    for name, rate in rates.items():
        print(f"  {name:<28} {rate:>12,.0f} calls/s")
    ok = rates["estimate()"] >= TARGET_PER_S
    verdict = "meets" if ok else "MISSES"
    print(f"\nestimate(): {rates['estimate()']:,.0f} calls/s ({verdict} the ≥ {TARGET_PER_S:,}/s target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
