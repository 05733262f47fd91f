"""Decode-speed accuracy of configurator.engine.estimate against published measurements (`make accuracy`).

For every row of fixtures/decode_calibration.csv whose GPU is in our catalog and whose model is in our
library, prints the measured tokens/s next to estimate()'s and the constant-efficiency baseline
(η = 0.55 × bandwidth / weight bytes, AlexsJones/llmfit docs/how-it-works.md @3f44fd3). Single-stream rows only;
the script says which rows it leaves out and why.

The shipped constants were fitted on these same rows, so estimate()'s own error is in-sample and is printed as
such, never judged. The figure that is judged is **leave-one-source-out**: for each publication (repository +
README / PR / discussion, `calibration.source_group`) the model is refitted on every other publication and
predicts that one's rows; the constant-η rule is refitted the same way (median η of the other sources) and
printed next to it, per engine. Engines without single-stream rows get no figure (their constants are priors).

Run: .venv/bin/python bench/accuracy.py
"""

from __future__ import annotations

import sys

import django_setup  # noqa: F401 - first: the project on sys.path and Django set up

from catalog.fixture import fixture_snapshot
from configurator.engine import calibration as cal
from configurator.engine.calibration_rows import (
    GPU_SKU_BY_NAME,
    CalibrationRow,
    depth_for,
    is_single_stream,
    model_slug_for,
    precision_for,
    read_calibration,
)
from configurator.engine.estimate import decode_terms, estimate, weight_bytes
from configurator.engine.estimate.speed import workload_step_terms
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload

TARGET_MEDIAN = 0.10  # issue 33: llama.cpp stays ≤ 10 % median / 25 % p90, leave-one-source-out
TARGET_P90 = 0.25
BASELINE_ETA = 0.55  # llmfit: tok/s = BW / model_GB × 0.55


def main() -> int:
    import accuracy_server  # after django_setup put the project on sys.path

    gpus = fixture_snapshot().gpus
    rows = read_calibration()
    used: list[tuple[CalibrationRow, Workload, str]] = []
    excluded: list[tuple[CalibrationRow, str]] = []
    for row in rows:
        sku = GPU_SKU_BY_NAME.get(row.gpu_name)
        slug = model_slug_for(row.model_name)
        precision = precision_for(row.quant)
        if sku is None or sku not in gpus:
            excluded.append((row, "GPU not in the catalog"))
        elif not is_single_stream(row):
            excluded.append((row, "aggregate throughput under load, not a per-user figure"))
        elif slug is None:
            excluded.append((row, "model not in the library"))
        elif precision is None:
            excluded.append((row, "quantization not stated"))
        elif cal.engine_family(row.engine) != "llama.cpp" or "cpu" in row.engine.lower():
            excluded.append((row, "engine/offload not modelled"))
        else:
            depth = depth_for(row)  # one user: decode reads the KV cache at the mean depth of its tokens
            workload = Workload(
                model=model_get(slug),
                precision=precision,
                kv_cache_precision="f16",
                context_tokens=depth + 1,
                engine="llama.cpp",
                prompt_tokens=depth,
                output_tokens=1,
            )
            used.append((row, workload, sku))

    print("Decode tokens/s per user: measured vs estimate() vs baseline (0.55 × BW / weight bytes)\n")
    header = f"{'GPU':<16} {'n':>2} {'model':<28} {'precision':<8} {'ctx':>5} {'measured':>9} {'ours':>8} {'err':>7}"
    print(header + f" {'baseline':>9} {'err':>7}")
    ours_err: list[float] = []
    base_err: list[float] = []
    samples: list[cal.DecodeSample] = []
    consistency = 0.0
    fit_now = cal.DecodeFit(
        cal.LLAMACPP_ETA_GDDR,
        cal.LLAMACPP_ETA_HBM,
        cal.LLAMACPP_TAU_LAYER_S,
        cal.PIPELINE_HOP_S,
        kquant_extra=cal.LLAMACPP_KQUANT_EXTRA,
        tau_moe_layer_s=cal.LLAMACPP_TAU_MOE_LAYER_S,
        kquant_extra_amd=cal.LLAMACPP_KQUANT_EXTRA_AMD,
    )
    for row, workload, sku in used:
        gpu = gpus[sku]
        result = estimate(workload, gpu, row.gpu_count)
        assert result.throughput is not None
        ours = result.throughput.decode_tokens_per_s_per_user
        baseline = BASELINE_ETA * gpu.bandwidth_gbs * 1e9 / weight_bytes(workload.model, workload.precision)
        ours_err.append(abs(ours / row.tokens_per_s - 1))
        base_err.append(abs(baseline / row.tokens_per_s - 1))
        terms = workload_step_terms(workload, gpu, row.gpu_count)  # the terms estimate() multiplies
        sample = cal.DecodeSample(
            label=f"{row.gpu_name} ×{row.gpu_count} {workload.model.slug} {workload.precision}",
            seconds_per_token=1 / row.tokens_per_s,
            bytes_over_bandwidth_s=terms.bytes_s,
            memory_class=cal.memory_class(gpu.memory_type),
            layers=terms.layers,
            hops=terms.hops,
            era=cal.era_of(cal.source_group(row.source)),
            kquant_bytes_s=terms.kquant_bytes_s,
            moe_layers=terms.moe_layers,
            read_bytes_s=decode_terms(workload, gpu, row.gpu_count)[0],
            amd=cal.is_amd(gpu.vendor),
        )
        samples.append(sample)
        consistency = max(consistency, abs(ours * fit_now.seconds_per_token(sample) - 1))
        print(
            f"{row.gpu_name:<16} {row.gpu_count:>2} {workload.model.slug:<28} {workload.precision:<8} "
            f"{workload.prompt_tokens:>5} {row.tokens_per_s:>9.2f} {ours:>8.2f} "
            f"{(ours / row.tokens_per_s - 1) * 100:>+6.1f}% {baseline:>9.2f} "
            f"{(baseline / row.tokens_per_s - 1) * 100:>+6.1f}%"
        )

    fit = cal.fit_decode_supported(samples)
    median, p90 = cal.percentile(ours_err, 0.5), cal.percentile(ours_err, 0.9)
    base_median, base_p90 = cal.percentile(base_err, 0.5), cal.percentile(base_err, 0.9)

    print(f"\n{len(used)} rows used, {len(excluded)} excluded:")
    for row, reason in excluded:
        print(f"  - {row.gpu_name} ×{row.gpu_count}, {row.model_name}, {row.quant}: {reason}")

    groups = [cal.source_group(row.source) for row, _, _ in used]
    by_source = cal.leave_one_source_out(samples, groups)
    print("\nLeave-one-source-out: each publication predicted by a fit on all the others (absolute % error)")
    print(f"{'held-out source':<58} {'rows':>4} {'ours med':>9} {'ours p90':>9} {'const-η med':>12} {'p90':>7}")
    pooled_ours: list[float] = []
    pooled_base: list[float] = []
    old_ours: list[float] = []
    old_base: list[float] = []
    for source, (ours_signed, base_signed) in by_source.items():
        ours_abs = [abs(e) for e in ours_signed]
        base_abs = [abs(e) for e in base_signed]
        old = cal.era_of(source) == "old"
        (old_ours if old else pooled_ours).extend(ours_abs)
        (old_base if old else pooled_base).extend(base_abs)
        print(
            f"{source[:58]:<58} {len(ours_abs):>4} {cal.percentile(ours_abs, 0.5) * 100:>8.1f}% "
            f"{cal.percentile(ours_abs, 0.9) * 100:>8.1f}% {cal.percentile(base_abs, 0.5) * 100:>11.1f}% "
            f"{cal.percentile(base_abs, 0.9) * 100:>6.1f}%{'  (old builds: not judged)' if old else ''}"
        )
    print("old builds (calibration.OLD_BUILDS), predicted with the current builds' per-layer time:")
    for source, reason in cal.OLD_BUILDS.items():
        print(f"  - {source}: {reason}")
    loso_median, loso_p90 = cal.percentile(pooled_ours, 0.5), cal.percentile(pooled_ours, 0.9)
    per_user_judged, server_ok = accuracy_server.per_user(gpus)
    full_load_judged, full_load_ok = accuracy_server.full_load(gpus)
    server_judged = per_user_judged + full_load_judged
    const_median, const_p90 = cal.percentile(pooled_base, 0.5), cal.percentile(pooled_base, 0.9)

    print("\nAbsolute % error of decode tokens/s per user, by engine")
    print(f"{'engine':<14} {'figure':<62} {'rows':>4} {'median':>8} {'p90':>8}")
    print(
        f"{'llama.cpp':<14} {'ours, leave-one-source-out, current builds (judged)':<62} {len(pooled_ours):>4} "
        f"{loso_median * 100:>7.1f}% {loso_p90 * 100:>7.1f}%"
    )
    print(
        f"{'':<14} {'constant η refitted leave-one-source-out (baseline)':<62} {len(pooled_base):>4} "
        f"{const_median * 100:>7.1f}% {const_p90 * 100:>7.1f}%"
    )
    print(
        f"{'':<14} {'ours, old builds by the current-build constants (NOT judged)':<62} {len(old_ours):>4} "
        f"{cal.percentile(old_ours, 0.5) * 100:>7.1f}% {cal.percentile(old_ours, 0.9) * 100:>7.1f}%"
    )
    print(
        f"{'':<14} {'constant η refitted, old builds (baseline, NOT judged)':<62} {len(old_base):>4} "
        f"{cal.percentile(old_base, 0.5) * 100:>7.1f}% {cal.percentile(old_base, 0.9) * 100:>7.1f}%"
    )
    print(
        f"{'':<14} {'constant η = 0.55 (llmfit, not fitted)':<62} {len(base_err):>4} "
        f"{base_median * 100:>7.1f}% {base_p90 * 100:>7.1f}%"
    )
    print(
        f"{'':<14} {'ours in-sample (constants fitted on these rows; NOT judged)':<62} {len(ours_err):>4} "
        f"{median * 100:>7.1f}% {p90 * 100:>7.1f}%"
    )
    for judged in server_judged:
        print(judged.line())
    print(
        f"\nfit on these rows: η_bw GDDR {fit.eta_gddr:.3f}, HBM {fit.eta_hbm:.3f}, "
        f"τ_layer {fit.tau_layer_s * 1e6:.1f} µs (old builds {fit.tau_layer_old_s * 1e6:.1f} µs), "
        f"τ_hop {fit.tau_hop_s * 1e6:.0f} µs, K-quant extra {fit.kquant_extra:.3f} (AMD {fit.kquant_extra_amd:.3f}), "
        f"τ_moe {fit.tau_moe_layer_s * 1e6:.1f} µs per MoE layer "
        f"(configurator/calibration.py: {cal.LLAMACPP_ETA_GDDR}, {cal.LLAMACPP_ETA_HBM}, "
        f"{cal.LLAMACPP_TAU_LAYER_S * 1e6:.1f} µs, {cal.PIPELINE_HOP_S * 1e6:.0f} µs, {cal.LLAMACPP_KQUANT_EXTRA} "
        f"(AMD {cal.LLAMACPP_KQUANT_EXTRA_AMD}), "
        f"{cal.LLAMACPP_TAU_MOE_LAYER_S * 1e6:.1f} µs); "
        f"estimate() vs the fit formula: max deviation {consistency * 100:.2f} %"
    )
    bands = {"< 8 GB": (0, 8e9), "8-30 GB": (8e9, 30e9), "> 30 GB": (30e9, 1e15)}
    print("effective η (tokens/s × bytes read / bandwidth) of our estimate, by weight size:")
    for name, (low, high) in bands.items():
        for memory in ("gddr", "hbm"):
            effs = [
                s.bytes_over_bandwidth_s / fit_now.seconds_per_token(s)
                for s, (_, w, _) in zip(samples, used, strict=True)
                if s.memory_class == memory and low <= weight_bytes(w.model, w.precision) < high
            ]
            if effs:
                print(f"  {memory.upper():<4} {name:<8} η ≈ {cal.percentile(effs, 0.5):.2f} ({len(effs)} rows)")

    ok = loso_median <= TARGET_MEDIAN and loso_p90 <= TARGET_P90 and loso_median < const_median and loso_p90 < const_p90
    verdict = "meets" if ok else "MISSES"
    print(
        f"\nllama.cpp leave-one-source-out (current builds) {verdict} the targets: median ≤ {TARGET_MEDIAN:.0%}, "
        f"p90 ≤ {TARGET_P90:.0%}, both below the refitted constant-η baseline"
    )
    server_verdict = "meets" if server_ok else "MISSES"
    print(
        f"server engines leave-one-source-out (per-user decode) {server_verdict} the targets: median ≤ "
        f"{accuracy_server.TARGET_MEDIAN:.0%}, p90 ≤ {accuracy_server.TARGET_P90:.0%}"
    )
    full_verdict = "meets" if full_load_ok else "MISSES"
    print(
        f"server engines leave-one-source-out (output at full load) {full_verdict} the targets: median ≤ "
        f"{accuracy_server.FULL_LOAD_MEDIAN:.0%}, p90 ≤ {accuracy_server.FULL_LOAD_P90:.0%}"
    )
    return 0 if ok and server_ok and full_load_ok else 1


if __name__ == "__main__":
    sys.exit(main())
