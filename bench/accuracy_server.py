"""Server-engine half of `make accuracy` (bench/accuracy.py runs it): fixtures/server_speed.csv, judged
leave-one-source-out.

- Per-user decode (vLLM, SGLang): each publication is predicted by `server_calibration.fit_server` fitted on
  the other publications' current-build rows, next to a constant-η rule (median bytes/time of the same rows).
- Full-load output tokens/s (TensorRT-LLM, SGLang, vLLM): each publication is predicted with the prefill MFU and
  the MoE grouped-GEMM efficiency fitted (`fit_server_prefill`) on the other publications, next to the same
  model with prefill ignored (what estimate() said before prefill shared the GPUs). Runs of variable-length
  requests no larger than what the engine runs at once (`single_wave`) are listed apart and not judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from configurator.engine import calibration as cal
from configurator.engine import server_calibration as srv
from configurator.engine.estimate.engines import MOE_GEMM_EFFICIENCY
from configurator.engine.estimate.speed import max_running_sequences, served_throughput

TARGET_MEDIAN = 0.20
TARGET_P90 = 0.40


@dataclass(frozen=True, slots=True)
class Judged:
    engine: str
    figure: str
    errors: list[float]

    def line(self) -> str:
        median, p90 = cal.percentile(self.errors, 0.5), cal.percentile(self.errors, 0.9)
        return f"{self.engine:<14} {self.figure:<62} {len(self.errors):>4} {median * 100:>7.1f}% {p90 * 100:>7.1f}%"


_link = srv.nvswitch_gbs
_workload = srv.row_workload


def per_user(gpus: dict[str, Any]) -> tuple[list[Judged], bool]:
    rows = [r for r in srv.read_server_rows() if r.metric == "per_user"]
    samples = srv.server_samples(rows, gpus)
    groups = [cal.source_group(r.source) for r in rows]
    current = [s for s in samples if s.era == "current"]
    shipped = srv.ServerFit(cal.SERVER_ETA_HBM, cal.SERVER_TAU_LAYER_S)
    mfu = cal.SERVER_MFU
    print("\n== Server engines, decode tokens/s per user (fixtures/server_speed.csv) ==")
    print(f"{'row':<66} {'measured':>9} {'ours':>8} {'err':>7}")
    for sample, row in zip(samples, rows, strict=True):
        speed = 1 / shipped.seconds_per_token(sample, mfu)
        mark = "" if sample.era == "current" else "  (old build)"
        error = (speed * sample.seconds_per_token - 1) * 100
        print(f"{sample.label[:66]:<66} {row.tokens_per_s:>9.1f} {speed:>8.1f} {error:>+6.1f}%{mark}")
    fit = srv.fit_server(current)
    print(f"fit on the {len(current)} current-build rows: η_bw {fit.eta:.3f}, τ_layer {fit.tau_layer_s * 1e6:.1f} µs "
          f"(calibration.py: {cal.SERVER_ETA_HBM}, {cal.SERVER_TAU_LAYER_S * 1e6:.1f} µs)")  # fmt: skip
    print(f"\n{'held-out source':<58} {'rows':>4} {'ours med':>9} {'ours p90':>9} {'const-η med':>12} {'p90':>7}")
    ours_by_engine: dict[str, list[float]] = {}
    ours_all: list[float] = []
    base_all: list[float] = []
    old_errors: list[float] = []
    for held in dict.fromkeys(groups):
        test = [(s, r) for s, r, g in zip(samples, rows, groups, strict=True) if g == held]
        train = [s for s, g in zip(current, [g for s, g in zip(samples, groups, strict=True) if s.era == "current"],
                                   strict=True) if g != held]  # fmt: skip
        if cal.era_of(held) == "old":
            old_errors += [abs(1 / shipped.seconds_per_token(s, mfu) * s.seconds_per_token - 1) for s, _ in test]
            continue
        loso = srv.fit_server(train)
        eta = srv.constant_eta_server(train)
        ours = [abs(s.seconds_per_token / loso.seconds_per_token(s, mfu) - 1) for s, _ in test]
        base = [abs(s.seconds_per_token * eta / s.bytes_s - 1) for s, _ in test]
        for error, (_, row) in zip(ours, test, strict=True):
            ours_by_engine.setdefault(row.engine, []).append(error)
        ours_all += ours
        base_all += base
        print(f"{held[:58]:<58} {len(ours):>4} {cal.percentile(ours, 0.5) * 100:>8.1f}% "
              f"{cal.percentile(ours, 0.9) * 100:>8.1f}% {cal.percentile(base, 0.5) * 100:>11.1f}% "
              f"{cal.percentile(base, 0.9) * 100:>6.1f}%")  # fmt: skip
    judged = [Judged("server pooled", "ours, leave-one-source-out (judged)", ours_all),
              Judged("", "constant η refitted leave-one-source-out (baseline)", base_all)]  # fmt: skip
    for engine, errors in sorted(ours_by_engine.items()):
        judged.append(Judged(f"  {engine}", "ours, leave-one-source-out (its rows of the pooled figure)", errors))
    if old_errors:
        judged.append(Judged("", "old builds (cal.OLD_BUILDS) by the shipped constants, NOT judged", old_errors))
    median, p90 = cal.percentile(ours_all, 0.5), cal.percentile(ours_all, 0.9)
    ok = median <= TARGET_MEDIAN and p90 <= TARGET_P90
    return judged, ok


def single_wave(row: srv.ServerRow, gpu: Any) -> bool:
    """A run of variable-length requests (ShareGPT) no larger than what the engine runs at once: every request
    starts in the first seconds and the run lasts until its longest reply is done, decoding alone at the end;
    its output rate is set by that tail, which a steady state at the mean lengths does not describe."""
    variable = "sharegpt" in (row.source + row.notes).lower()
    return variable and 0 < row.requests <= max_running_sequences(cal.engine_family(row.engine), gpu)


def full_load(gpus: dict[str, Any]) -> list[Judged]:
    every = [r for r in srv.read_server_rows() if r.metric == "total_output"]
    waves = [r for r in every if single_wave(r, gpus[cal.GPU_SKU_BY_NAME[r.gpu_name]])]
    rows = [r for r in every if r not in waves]
    groups = [cal.source_group(r.source) for r in rows]

    def ratios(mfu: float, efficiency: float, subset: list[srv.ServerRow], prefill: bool = True) -> list[float]:
        result = []
        for row in subset:
            gpu = gpus[cal.GPU_SKU_BY_NAME[row.gpu_name]]
            served = served_throughput(_workload(row, 1, row.prompt_tokens), gpu, row.gpu_count,
                                       prompt_tokens=row.prompt_tokens, output_tokens=row.output_tokens,
                                       link_gbs=_link(gpu), mfu=mfu, with_prefill=prefill,
                                       max_sequences=row.requests or None, moe_efficiency=efficiency)  # fmt: skip
            result.append(served.tokens_per_s / row.tokens_per_s)
        return result

    print("\n== Server engines, output tokens/s of the whole build at full load (prefill shares the GPUs) ==")
    shipped = ratios(cal.SERVER_MFU, MOE_GEMM_EFFICIENCY, rows)
    print(f"({len(waves)} single-wave ShareGPT runs listed apart below)")
    for row, ratio in zip(rows, shipped, strict=True):
        label = f"{row.gpu_name} ×{row.gpu_count} {row.model} {row.precision} {row.engine}"
        label += f" {row.prompt_tokens}/{row.output_tokens}"
        predicted = ratio * row.tokens_per_s
        print(f"{label[:66]:<66} {row.tokens_per_s:>9.0f} {predicted:>8.0f} {(ratio - 1) * 100:>+6.1f}%")
    fitted = srv.fit_server_prefill(lambda m, e: ratios(m, e, rows))
    print(f"MFU, MoE GEMM efficiency fitted on all these rows: {fitted[0]:.2f}, {fitted[1]:.1f} "
          f"(calibration.SERVER_MFU {cal.SERVER_MFU}, engines.MOE_GEMM_EFFICIENCY {MOE_GEMM_EFFICIENCY})")  # fmt: skip
    ours_all: list[float] = []
    base_all: list[float] = []
    by_engine: dict[str, list[float]] = {}
    print(f"\n{'held-out source':<58} {'rows':>4} {'ours med':>9} {'ours p90':>9} {'no-prefill med':>15} {'p90':>7}")
    for held in dict.fromkeys(groups):
        train = [r for r, g in zip(rows, groups, strict=True) if g != held]
        test = [r for r, g in zip(rows, groups, strict=True) if g == held]
        mfu, efficiency = srv.fit_server_prefill(lambda m, e, train=train: ratios(m, e, train))  # type: ignore[misc]
        ours = [abs(x - 1) for x in ratios(mfu, efficiency, test)]
        base = [abs(x - 1) for x in ratios(mfu, efficiency, test, prefill=False)]
        for error, row in zip(ours, test, strict=True):
            by_engine.setdefault(row.engine, []).append(error)
        ours_all += ours
        base_all += base
        print(f"{held[:58]:<58} {len(ours):>4} {cal.percentile(ours, 0.5) * 100:>8.1f}% "
              f"{cal.percentile(ours, 0.9) * 100:>8.1f}% {cal.percentile(base, 0.5) * 100:>14.1f}% "
              f"{cal.percentile(base, 0.9) * 100:>6.1f}%   (fitted without it: MFU {mfu:.2f}, "
              f"MoE {efficiency:.1f})")  # fmt: skip
    print(f"\nsingle-wave ShareGPT runs (all requests at once: set by the longest reply), NOT judged, by the "
          f"constants fitted on all judged rows (MFU {fitted[0]:.2f}, MoE {fitted[1]:.1f}):")  # fmt: skip
    wave_errors = []
    for row, ratio in zip(waves, ratios(fitted[0], fitted[1], waves), strict=True):
        wave_errors.append(abs(ratio - 1))
        label = f"{row.gpu_name} ×{row.gpu_count} {row.model} {row.precision} {row.engine} {row.requests} requests"
        predicted = ratio * row.tokens_per_s
        print(f"  {label[:64]:<64} {row.tokens_per_s:>9.0f} {predicted:>8.0f} {(ratio - 1) * 100:>+6.1f}%")
    judged = [Judged("full load", "ours, leave-one-source-out (reported, no target)", ours_all),
              Judged("", "prefill ignored (the old estimate), same MFU (baseline)", base_all)]  # fmt: skip
    if wave_errors:
        judged.append(Judged("", "single-wave ShareGPT runs, all-row fit (NOT judged)", wave_errors))
    for engine, errors in sorted(by_engine.items()):
        judged.append(Judged(f"  {engine}", "ours, leave-one-source-out (its rows)", errors))
    if not math.isfinite(sum(ours_all)):
        raise SystemExit("full-load prediction failed")
    return judged
