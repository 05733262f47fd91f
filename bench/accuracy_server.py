"""Server-engine half of `make accuracy` (bench/accuracy.py runs it): fixtures/server_speed.csv, judged
leave-one-source-out, through the functions estimate() answers with (`configurator.engine.estimate.serving`,
called by module so that tests/api/test_one_path.py can see every call reach them).

- Per-user decode (vLLM, SGLang, TensorRT-LLM): each publication is predicted by `serving.decode_per_user` (a
  decode step of the row's users plus the other users' prompts prefilled meanwhile) with η_bw and τ_layer fitted
  (`server_calibration.fit_server`) on the other publications' current-build rows and the prefill MFU and MoE
  GEMM efficiency fitted on the other publications' full-load rows, next to a constant-η rule (median
  bytes/time of the same rows).
- Full-load output tokens/s (TensorRT-LLM, SGLang, vLLM): each publication is predicted by
  `serving.served_throughput` with the prefill MFU and the MoE grouped-GEMM efficiency fitted
  (`fit_server_prefill`) on the other publications, next to the same model with prefill ignored (what estimate()
  said before prefill shared the GPUs). Runs of variable-length requests no larger than what the engine runs at
  once (`single_wave`) are listed apart and not judged. Beside them, in-sample, the figure the API shows:
  estimate()'s `served_output_tokens_per_s` with the shipped constants (no cap on requests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from configurator.engine import calibration as cal
from configurator.engine import server_calibration as srv
from configurator.engine.calibration_rows import GPU_SKU_BY_NAME
from configurator.engine.estimate import estimate, serving
from configurator.engine.estimate.engines import MOE_GEMM_EFFICIENCY
from configurator.engine.estimate.speed import _peak_flops, has_fp4_tensor_cores, quantized_gemms

# issue 33's targets, judged leave-one-source-out: per-user decode ≤ 15 % median / 35 % p90, full-load output
# ≤ 20 % / 45 %
TARGET_MEDIAN = 0.15
TARGET_P90 = 0.35
FULL_LOAD_MEDIAN = 0.20
FULL_LOAD_P90 = 0.45


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


def _gpu(row: srv.ServerRow, gpus: dict[str, Any]) -> Any:
    return gpus[GPU_SKU_BY_NAME[row.gpu_name]]


def _quantized(row: srv.ServerRow, gpu: Any) -> bool:
    """Whether the row's GEMMs quantize activations: only those take the engine's MFU factor (calibration)."""
    return quantized_gemms(gpu, row.precision, row.engine)


def predict_per_user(
    row: srv.ServerRow,
    gpus: dict[str, Any],
    *,
    constants: cal.DecodeConstants | None = None,
    mfu: float | None = None,
    efficiency: float | None = None,
    engine_factor: float | None = None,
) -> float:
    """Decode tokens/s per user of a per-user row, as estimate() answers for its workload (shipped constants
    unless given; `mfu` is the pooled MFU, × the row's engine factor: `calibration.engine_mfu`)."""
    gpu = _gpu(row, gpus)
    return serving.decode_per_user(
        _workload(row, int(row.concurrency)), gpu, row.gpu_count, prompt_tokens=row.prompt_tokens,
        output_tokens=row.output_tokens, link_gbs=_link(gpu),
        mfu=mfu and cal.engine_mfu(row.engine, mfu, engine_factor, quantized=_quantized(row, gpu)),
        constants=constants, moe_efficiency=efficiency,
    ).tokens_per_s  # fmt: skip


def predict_full_load(
    row: srv.ServerRow,
    gpus: dict[str, Any],
    mfu: float,
    efficiency: float,
    *,
    prefill: bool = True,
    amd_scale: float | None = None,
    engine_factor: float | None = None,
) -> float:
    """Output tokens/s of the whole build for a full-load row (its run's request count caps the sequences): its
    replicas (`ServerRow.replicas`) each at `served_throughput` on its share of the GPUs. `mfu` is the pooled MFU,
    × the row's engine factor (`calibration.engine_mfu`; `engine_factor` replaces TensorRT-LLM's); `amd_scale`
    replaces calibration.AMD_SERVER_MFU_SCALE on an AMD GPU (leave-one-source-out refits both)."""
    gpu = _gpu(row, gpus)
    replicas = row.replicas
    scale = amd_scale if cal.is_amd(gpu.vendor) else None
    return replicas * serving.served_throughput(
        _workload(row, 1), gpu, row.gpu_count // replicas, prompt_tokens=row.prompt_tokens,
        output_tokens=row.output_tokens, link_gbs=_link(gpu),
        mfu=cal.engine_mfu(row.engine, mfu, engine_factor, quantized=_quantized(row, gpu)),
        with_prefill=prefill,
        max_sequences=row.requests or None, moe_efficiency=efficiency, mfu_scale=scale,
    ).tokens_per_s  # fmt: skip


def is_amd_row(row: srv.ServerRow, gpus: dict[str, Any]) -> bool:
    return cal.is_amd(_gpu(row, gpus).vendor)


def fp4_row(row: srv.ServerRow, gpus: dict[str, Any]) -> bool:
    """A row whose GEMMs run on FP4 tensor cores (NVFP4 on Blackwell). The pooled MFU and TensorRT-LLM's factor
    are shares of the FP8/BF16 peaks their rows ran at; an FP4 row measures how far the FP4 GEMMs get from twice
    that (speed._BLACKWELL's note), which no constant here stands for: such rows are judged, not fitted, so
    their error stays in the judged figures instead of bending the Hopper estimates."""
    return row.precision == "nvfp4" and has_fp4_tensor_cores(_gpu(row, gpus))


_ENGINE_FITS: dict[str | None, float] = {}


def engine_fit(gpus: dict[str, Any], held: str | None = None) -> float:
    """TensorRT-LLM's factor on the pooled MFU (calibration.ENGINE_MFU_FACTOR) fitted on its full-load rows of
    NVIDIA GPUs of every publication but `held`, at the pooled MFU and MoE efficiency fitted without it: 0.80 to
    1.50 in steps of 0.02, the smallest mean absolute log error (1.0 when no such row is left)."""
    if held not in _ENGINE_FITS:
        rows = [
            r for r in judged_full_load_rows(gpus)[0]
            if r.engine == "tensorrt-llm" and not is_amd_row(r, gpus) and not fp4_row(r, gpus)
            and cal.source_group(r.source) != held
        ]  # fmt: skip
        mfu, efficiency = prefill_fit(gpus, held)
        best, best_error = 1.0, math.inf
        for step in range(40, 76):
            factor = step / 50
            logs = [
                abs(math.log(predict_full_load(r, gpus, mfu, efficiency, engine_factor=factor) / r.tokens_per_s))
                for r in rows
            ]
            error = sum(logs) / len(logs) if logs else abs(math.log(factor))
            if error < best_error - 1e-12:
                best, best_error = factor, error
        _ENGINE_FITS[held] = best
    return _ENGINE_FITS[held]


_AMD_FITS: dict[str | None, float] = {}


def amd_fit(gpus: dict[str, Any], held: str | None = None) -> float:
    """The AMD share of the MFU (calibration.AMD_SERVER_MFU_SCALE) fitted on the AMD full-load rows of every
    publication but `held`, at the MFU fitted without it: 1.00 down to 0.30 in steps of 0.05, the smallest mean
    absolute log error. With no AMD row left it is 1.0: AMD GPUs then get the NVIDIA constants (unvalidated)."""
    if held not in _AMD_FITS:
        rows = [r for r in judged_full_load_rows(gpus)[0] if is_amd_row(r, gpus) and cal.source_group(r.source) != held]
        mfu, efficiency = prefill_fit(gpus, held)
        factor = engine_fit(gpus, held)
        best, best_error = 1.0, math.inf
        for step in range(20, 5, -1):
            scale = step / 20
            logs = [
                abs(
                    math.log(
                        predict_full_load(r, gpus, mfu, efficiency, amd_scale=scale, engine_factor=factor)
                        / r.tokens_per_s
                    )
                )
                for r in rows
            ]
            error = sum(logs) / len(logs) if logs else 0.0
            if error < best_error - 1e-12:
                best, best_error = scale, error
        _AMD_FITS[held] = best
    return _AMD_FITS[held]


def constant_rate(row: srv.ServerRow, gpus: dict[str, Any]) -> float:
    """The single-constant baseline's output tokens/s per unit of its constant: every token of a request (prompt
    and output) costs 2 × active params FLOPs at one fixed share of the build's dense peak (FP8 where the
    precision runs on it), whatever the engine, layout, batch or memory."""
    gpu = _gpu(row, gpus)
    peak = _peak_flops(gpu, row.precision, row.engine) * row.gpu_count
    per_output = 2 * _workload(row, 1).model.active_params * (row.prompt_tokens + row.output_tokens) / row.output_tokens
    return peak / per_output


def single_wave(row: srv.ServerRow, gpu: Any) -> bool:
    """A run of variable-length requests (ShareGPT) no larger than what the engine runs at once: every request
    starts in the first seconds and the run lasts until its longest reply is done, decoding alone at the end;
    its output rate is set by that tail, which a steady state at the mean lengths does not describe."""
    variable = "sharegpt" in (row.source + row.notes).lower()
    return variable and 0 < row.requests <= serving.max_running_sequences(cal.engine_family(row.engine), gpu)


def judged_full_load_rows(gpus: dict[str, Any]) -> tuple[list[srv.ServerRow], list[srv.ServerRow]]:
    """(judged full-load rows, single-wave rows listed apart); held-out rows (`ServerRow.held_out`) are in
    neither: `held_out_rows` judges them apart."""
    every = [r for r in srv.read_server_rows() if r.metric == "total_output" and not r.held_out]
    waves = [r for r in every if single_wave(r, _gpu(r, gpus))]
    return [r for r in every if r not in waves], waves


_PREFILL_FITS: dict[str | None, tuple[float, float]] = {}


def prefill_fit(gpus: dict[str, Any], held: str | None = None) -> tuple[float, float]:
    """(MFU, MoE GEMM efficiency) fitted on the judged full-load rows of NVIDIA GPUs of every publication but
    `held` (None: all of them); kept, as both sections ask for the same fits."""
    if held not in _PREFILL_FITS:
        rows = [
            r for r in judged_full_load_rows(gpus)[0]
            if cal.source_group(r.source) != held and not is_amd_row(r, gpus) and not fp4_row(r, gpus)
        ]  # fmt: skip  # AMD rows fit their own share of it (amd_fit); FP4 rows are judged, not fitted (fp4_row)

        def ratios(mfu: float, efficiency: float) -> list[float]:  # pooled: every engine at the same MFU
            return [predict_full_load(r, gpus, mfu, efficiency, engine_factor=1.0) / r.tokens_per_s for r in rows]

        _PREFILL_FITS[held] = srv.fit_server_prefill(ratios)
    return _PREFILL_FITS[held]


def held_out_rows(gpus: dict[str, Any]) -> list[Judged]:
    """Full-load rows no constant is fitted on (`ServerRow.held_out`), each predicted with the constants fitted on
    every judged row (none of which is held out) and with the shipped ones; printed and returned apart from the
    pooled figures, which stay the leave-one-source-out judgement of the fitted rows."""
    rows = [r for r in srv.read_server_rows() if r.held_out and r.metric == "total_output"]
    if not rows:
        return []
    mfu, efficiency = prefill_fit(gpus)
    amd, factor = amd_fit(gpus), engine_fit(gpus)
    print("\nHELD OUT full-load rows (never fitted), by the constants fitted on all judged rows | by the shipped ones:")
    fitted_errors: list[float] = []
    for row in rows:
        fitted = predict_full_load(row, gpus, mfu, efficiency, amd_scale=amd, engine_factor=factor)
        shipped = predict_full_load(row, gpus, cal.SERVER_MFU, MOE_GEMM_EFFICIENCY)
        fitted_errors.append(abs(fitted / row.tokens_per_s - 1))
        label = f"{row.gpu_name} ×{row.gpu_count} {row.model} {row.precision} {row.engine} {row.parallelism}"
        print(f"  {label[:64]:<64} {row.tokens_per_s:>9.0f} {fitted:>8.0f} "
              f"{(fitted / row.tokens_per_s - 1) * 100:>+6.1f}% | {shipped:>8.0f} "
              f"{(shipped / row.tokens_per_s - 1) * 100:>+6.1f}%")  # fmt: skip
    return [Judged("held out", "rows never fitted (server_speed.csv HELD OUT), all-row fit", fitted_errors)]


def per_user(gpus: dict[str, Any]) -> tuple[list[Judged], bool]:
    rows = [r for r in srv.read_server_rows() if r.metric == "per_user" and not r.held_out]
    groups = [cal.source_group(r.source) for r in rows]
    samples = srv.server_samples(rows, gpus, mfu=cal.SERVER_MFU, moe_efficiency=MOE_GEMM_EFFICIENCY)
    print("\n== Server engines, decode tokens/s per user (fixtures/server_speed.csv) ==")
    print(f"{'row':<58} {'measured':>9} {'ours':>8} {'err':>7} {'others prefill':>15}")
    for sample, row in zip(samples, rows, strict=True):
        speed = predict_per_user(row, gpus)
        mark = "" if sample.era == "current" else "  (old build)"
        error = (speed / row.tokens_per_s - 1) * 100
        share = sample.others_prefill_s * speed * 100
        print(f"{sample.label[:58]:<58} {row.tokens_per_s:>9.1f} {speed:>8.1f} {error:>+6.1f}% {share:>14.1f}%{mark}")
    current = [(s, r) for s, r in zip(samples, rows, strict=True) if s.era == "current"]
    fit = srv.fit_server([s for s, _ in current])
    consistency = max(
        abs(predict_per_user(r, gpus, constants=fit.constants()) * fit.seconds_per_token(s, cal.SERVER_MFU) - 1)
        for s, r in current
    )
    print(f"fit on the {len(current)} current-build rows: η_bw {fit.eta:.4f}, τ_layer {fit.tau_layer_s * 1e6:.1f} µs, "
          f"τ_mla {fit.tau_mla_layer_s * 1e6:.1f} µs (calibration.py: {cal.SERVER_ETA_HBM}, "
          f"{cal.SERVER_TAU_LAYER_S * 1e6:.1f} µs, {cal.SERVER_TAU_MLA_LAYER_S * 1e6:.1f} µs); decode_per_user() vs "
          f"the fit formula: max deviation {consistency * 100:.2f} %")  # fmt: skip
    print(f"\n{'held-out source':<58} {'rows':>4} {'ours med':>9} {'ours p90':>9} {'const-η med':>12} {'p90':>7}")
    ours_by_engine: dict[str, list[float]] = {}
    ours_all: list[float] = []
    base_all: list[float] = []
    old_errors: list[float] = []
    for held in dict.fromkeys(groups):
        test = [r for r, g in zip(rows, groups, strict=True) if g == held]
        if cal.era_of(held) == "old":
            old_errors += [abs(predict_per_user(r, gpus) / r.tokens_per_s - 1) for r in test]
            continue
        mfu, efficiency = prefill_fit(gpus, held)
        factor = engine_fit(gpus, held)
        train_rows = [r for (_, r) in current if cal.source_group(r.source) != held]
        train = srv.server_samples(train_rows, gpus, mfu=mfu, moe_efficiency=efficiency, engine_factor=factor)
        loso = srv.fit_server(train)
        eta = srv.constant_eta_server(train)
        ours = [
            abs(predict_per_user(r, gpus, constants=loso.constants(), mfu=mfu, efficiency=efficiency,
                                 engine_factor=factor) / r.tokens_per_s - 1)
            for r in test
        ]  # fmt: skip
        base = [abs(s.seconds_per_token * eta / s.bytes_s - 1) for s in srv.server_samples(test, gpus)]
        for error, row in zip(ours, test, strict=True):
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


def full_load(gpus: dict[str, Any]) -> tuple[list[Judged], bool]:
    rows, waves = judged_full_load_rows(gpus)
    groups = [cal.source_group(r.source) for r in rows]
    print("\n== Server engines, output tokens/s of the whole build at full load (prefill shares the GPUs) ==")
    print(f"({len(waves)} single-wave ShareGPT runs listed apart below)")
    api_errors = []
    for row in rows:
        gpu = _gpu(row, gpus)
        label = f"{row.gpu_name} ×{row.gpu_count} {row.model} {row.precision} {row.engine}"
        label += f" {row.prompt_tokens}/{row.output_tokens}"
        predicted = predict_full_load(row, gpus, cal.SERVER_MFU, MOE_GEMM_EFFICIENCY)
        result = estimate(_workload(row, 1), gpu, row.gpu_count, link_gbs=_link(gpu))
        assert result.throughput is not None
        api_errors.append(abs(result.throughput.served_output_tokens_per_s / row.tokens_per_s - 1))
        print(f"{label[:66]:<66} {row.tokens_per_s:>9.0f} {predicted:>8.0f} "
              f"{(predicted / row.tokens_per_s - 1) * 100:>+6.1f}%")  # fmt: skip
    fitted = prefill_fit(gpus)
    print(f"MFU, MoE GEMM efficiency fitted on all these rows: {fitted[0]:.2f}, {fitted[1]:.1f} "
          f"(calibration.SERVER_MFU {cal.SERVER_MFU}, engines.MOE_GEMM_EFFICIENCY {MOE_GEMM_EFFICIENCY}); "
          f"TensorRT-LLM × {engine_fit(gpus):.2f} (calibration.ENGINE_MFU_FACTOR "
          f"{cal.ENGINE_MFU_FACTOR['tensorrt-llm']}); AMD × {amd_fit(gpus):.2f} (calibration.AMD_SERVER_MFU_SCALE "
          f"{cal.AMD_SERVER_MFU_SCALE})")  # fmt: skip
    ours_all: list[float] = []
    base_all: list[float] = []
    by_engine: dict[str, list[float]] = {}
    print(
        f"\n{'held-out source':<58} {'rows':>4} {'ours med':>9} {'ours p90':>9} {'no-prefill med':>15} {'p90':>7}"
        f" {'const med':>11} {'p90':>7}"
    )
    const_all: list[float] = []
    for held in dict.fromkeys(groups):
        test = [r for r, g in zip(rows, groups, strict=True) if g == held]
        mfu, efficiency = prefill_fit(gpus, held)
        amd, factor = amd_fit(gpus, held), engine_fit(gpus, held)
        ours = [
            abs(predict_full_load(r, gpus, mfu, efficiency, amd_scale=amd, engine_factor=factor) / r.tokens_per_s - 1)
            for r in test
        ]
        base = [
            abs(
                predict_full_load(r, gpus, mfu, efficiency, prefill=False, amd_scale=amd, engine_factor=factor)
                / r.tokens_per_s
                - 1
            )
            for r in test
        ]
        train = [r for r, g in zip(rows, groups, strict=True) if g != held]
        share = cal.percentile((r.tokens_per_s / constant_rate(r, gpus) for r in train), 0.5)
        const = [abs(share * constant_rate(r, gpus) / r.tokens_per_s - 1) for r in test]
        for error, row in zip(ours, test, strict=True):
            by_engine.setdefault(row.engine, []).append(error)
            by_engine.setdefault("AMD GPUs" if is_amd_row(row, gpus) else "NVIDIA GPUs", []).append(error)
        ours_all += ours
        base_all += base
        const_all += const
        print(f"{held[:58]:<58} {len(ours):>4} {cal.percentile(ours, 0.5) * 100:>8.1f}% "
              f"{cal.percentile(ours, 0.9) * 100:>8.1f}% {cal.percentile(base, 0.5) * 100:>14.1f}% "
              f"{cal.percentile(base, 0.9) * 100:>6.1f}% {cal.percentile(const, 0.5) * 100:>10.1f}% "
              f"{cal.percentile(const, 0.9) * 100:>6.1f}%   (fitted without it: MFU {mfu:.2f}, MoE {efficiency:.1f}, "
              f"AMD {amd:.2f}, TRT-LLM × {factor:.2f})")  # fmt: skip
    print(f"\nsingle-wave ShareGPT runs (all requests at once: set by the longest reply), NOT judged, by the "
          f"constants fitted on all judged rows (MFU {fitted[0]:.2f}, MoE {fitted[1]:.1f}):")  # fmt: skip
    wave_errors = []
    for row in waves:
        predicted = predict_full_load(row, gpus, *fitted)
        wave_errors.append(abs(predicted / row.tokens_per_s - 1))
        label = f"{row.gpu_name} ×{row.gpu_count} {row.model} {row.precision} {row.engine} {row.requests} requests"
        print(f"  {label[:64]:<64} {row.tokens_per_s:>9.0f} {predicted:>8.0f} "
              f"{(predicted / row.tokens_per_s - 1) * 100:>+6.1f}%")  # fmt: skip
    judged = [Judged("full load", "ours, leave-one-source-out (judged)", ours_all),
              Judged("", "prefill ignored (the old estimate), same MFU (baseline)", base_all),
              Judged("", "single constant: tokens at one share of peak FLOPs (baseline)", const_all),
              Judged("", "estimate() served_output (own layout, no request cap; in-sample)", api_errors)]  # fmt: skip
    if wave_errors:
        judged.append(Judged("", "single-wave ShareGPT runs, all-row fit (NOT judged)", wave_errors))
    judged += held_out_rows(gpus)
    for engine, errors in sorted(by_engine.items()):
        judged.append(Judged(f"  {engine}", "ours, leave-one-source-out (its rows)", errors))
    if not math.isfinite(sum(ours_all)):
        raise SystemExit("full-load prediction failed")
    median, p90 = cal.percentile(ours_all, 0.5), cal.percentile(ours_all, 0.9)
    return judged, median <= FULL_LOAD_MEDIAN and p90 <= FULL_LOAD_P90
