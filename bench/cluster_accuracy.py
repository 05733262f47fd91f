"""Multi-node training throughput against published runs (fixtures/cluster_training.csv), leave-one-source-out.

For every row: the published TFLOP/s per GPU, turned into tokens/s per GPU with the source's own FLOP count
(`megatron_recompute`: Narayanan et al. 2021 eq. (3), 96·l·h²·(1 + s/6h + V/16lh) per token, activation
recompute counted; `model`: 6·P + 6·L·h·s), against configurator.engine.cluster.estimate.training_speed for the
same layout. The efficiency (CLUSTER_MFU) is fitted on the other sources for each source in turn (the
leave-one-source-out error), and on all rows for the shipped constant.

Run: .venv/bin/python bench/cluster_accuracy.py
"""

from __future__ import annotations

import csv
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from configurator.engine.cluster.estimate import CLUSTER_MFU, TrainingLayout, training_speed  # noqa: E402

ROWS = ROOT / "fixtures" / "cluster_training.csv"
GRID = [round(0.20 + 0.005 * i, 3) for i in range(141)]  # 0.20 … 0.90


@dataclass(frozen=True)
class Row:
    source: str
    run: str
    peak: float
    nic: float
    params: float
    layers: int
    hidden: int
    vocab: int
    layout: TrainingLayout
    published_tokens_per_gpu: float


def published_flops_per_token(convention: str, params: float, layers: int, hidden: int, vocab: int, seq: int) -> float:
    if convention == "megatron_recompute":
        return 96.0 * layers * hidden**2 * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))
    if convention == "model":
        return 6.0 * params + 6.0 * layers * hidden * seq
    raise ValueError(convention)


def read_rows(path: Path = ROWS) -> list[Row]:
    rows = []
    with path.open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            layers, hidden, vocab, seq = int(r["layers"]), int(r["hidden"]), int(r["vocab"]), int(r["sequence"])
            params = float(r["params"])
            layout = TrainingLayout(
                gpus=int(r["gpus"]),
                tp=int(r["tp"]),
                pp=int(r["pp"]),
                global_batch=int(r["global_batch"]),
                sequence=seq,
                micro_batch=int(r["micro_batch"]),
                virtual_stages=int(r["virtual_stages"]),
                sharded=r["sharded"] == "true",
                recompute=r["recompute"] == "true",
            )
            per_token = published_flops_per_token(r["flops_convention"], params, layers, hidden, vocab, seq)
            published = float(r["published_tflops_per_gpu"]) * 1e12 / per_token
            rows.append(
                Row(r["source"], r["run"], float(r["peak_tflops"]), float(r["nic_gbps_per_gpu"]), params, layers,
                    hidden, vocab, layout, published)
            )  # fmt: skip
    return rows


def predicted(row: Row, mfu: float) -> float:
    speed = training_speed(row.params, row.layers, row.hidden, row.layout, row.peak, row.nic, mfu=mfu)
    return speed.tokens_per_s / row.layout.gpus


def error(row: Row, mfu: float) -> float:
    return abs(predicted(row, mfu) / row.published_tokens_per_gpu - 1.0)


def fit(rows: list[Row]) -> float:
    """The efficiency of GRID with the smallest median relative error over `rows`."""
    return min(GRID, key=lambda mfu: (statistics.median(error(r, mfu) for r in rows), mfu))


@dataclass(frozen=True)
class Result:
    run: str
    source: str
    fitted_mfu: float  # fitted without this row's source
    error: float
    shipped_error: float


def leave_one_source_out(rows: list[Row]) -> list[Result]:
    out = []
    for source in sorted({r.source for r in rows}):
        others = [r for r in rows if r.source != source]
        mfu = fit(others)
        for r in rows:
            if r.source == source:
                out.append(Result(r.run, source, mfu, error(r, mfu), error(r, CLUSTER_MFU)))
    return out


def main() -> int:
    rows = read_rows()
    results = leave_one_source_out(rows)
    print(f"{'run':24s} {'source':14s} {'published':>10s} {'LOSO mfu':>8s} {'LOSO err':>8s} {'shipped err':>11s}")
    by_run = {r.run: r for r in rows}
    for res in results:
        row = by_run[res.run]
        print(
            f"{res.run:24s} {res.source:14s} {row.published_tokens_per_gpu:10.1f} {res.fitted_mfu:8.3f} "
            f"{res.error:8.1%} {res.shipped_error:11.1%}"
        )
    per_source = {s: statistics.median(r.error for r in results if r.source == s) for s in {r.source for r in results}}
    print("\nper-source median LOSO error:", ", ".join(f"{s} {e:.1%}" for s, e in sorted(per_source.items())))
    print(f"median LOSO error over rows: {statistics.median(r.error for r in results):.1%}")
    print(f"median of per-source medians: {statistics.median(per_source.values()):.1%}")
    print(f"fit on all rows: {fit(rows):.3f} (shipped CLUSTER_MFU = {CLUSTER_MFU})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
