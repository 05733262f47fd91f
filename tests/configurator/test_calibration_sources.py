"""Leave-one-source-out validation of the decode model (bench/accuracy.py, `make accuracy`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from configurator.engine import calibration as cal
from configurator.engine.calibration_rows import read_calibration


def test_source_group_names_the_publication() -> None:
    rows = read_calibration()
    groups = {cal.source_group(row.source) for row in rows}
    assert "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md" in groups
    assert "ggml-org/llama.cpp PR #26284" in groups
    assert "geerlingguy/ai-benchmarks README.md" in groups
    assert "geerlingguy/ai-benchmarks issue #21" in groups
    assert "geerlingguy/ai-benchmarks PR #18" in groups  # Feb 2025 Ollama: its own publication, an old build
    assert cal.era_of("geerlingguy/ai-benchmarks PR #18") == "old"


def _sample(label: str, seconds: float, bytes_s: float, memory: str = "gddr", hops: int = 0) -> cal.DecodeSample:
    return cal.DecodeSample(label, seconds, bytes_s, memory, layers=32, hops=hops)


def test_a_held_out_source_never_informs_its_own_prediction() -> None:
    """Changing every measurement of the held-out source leaves its predictions' denominators untouched: the
    predicted seconds per token come from the other sources only."""
    samples = [
        _sample("a1", 0.010, 0.007),
        _sample("a2", 0.020, 0.016),
        _sample("b1", 0.012, 0.008),
        _sample("b2", 0.030, 0.025),
        _sample("c1", 0.015, 0.011),
    ]
    groups = ["a", "a", "b", "b", "c"]
    first = cal.leave_one_source_out(samples, groups)
    doubled = [
        replace(s, seconds_per_token=s.seconds_per_token * 2) if g == "c" else s
        for s, g in zip(samples, groups, strict=True)
    ]
    second = cal.leave_one_source_out(doubled, groups)
    (ours_before,), (base_before,) = first["c"]
    (ours_after,), (base_after,) = second["c"]
    assert ours_after + 1 == pytest.approx(2 * (ours_before + 1))
    assert base_after + 1 == pytest.approx(2 * (base_before + 1))


def test_a_parameter_no_training_row_determines_is_not_invented() -> None:
    """No HBM rows → HBM takes the GDDR η; no multi-GPU rows → no per-hop cost."""
    samples = [_sample("a", 0.010, 0.007), _sample("b", 0.020, 0.016), _sample("c", 0.013, 0.009)]
    fit = cal.fit_decode_supported(samples)
    assert fit.eta_hbm == fit.eta_gddr
    assert fit.tau_hop_s == 0.0


def test_old_builds_inform_eta_but_not_the_current_per_layer_time() -> None:
    """Rows of old builds get their own τ_layer: 50 µs more per layer on them moves that τ by about 50 µs and
    the current builds' τ_layer by a small fraction of it (only through the shared η and the relative weights)."""
    current = [_sample("c1", 0.010, 0.007), _sample("c2", 0.020, 0.016), _sample("c3", 0.006, 0.003)]
    old = [replace(_sample("o1", 0.012, 0.007), era="old"), replace(_sample("o2", 0.024, 0.016), era="old")]
    slower = [replace(s, seconds_per_token=s.seconds_per_token + 32 * 50e-6) for s in old]
    first, second = cal.fit_decode_supported(current + old), cal.fit_decode_supported(current + slower)
    moved_old = second.tau_layer_old_s - first.tau_layer_old_s
    assert moved_old == pytest.approx(50e-6, rel=0.25)
    assert abs(second.tau_layer_s - first.tau_layer_s) < 0.1 * moved_old
    assert cal.era_of("XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md") == "old"
    assert cal.era_of("ggml-org/llama.cpp PR #17505") == "current"


def test_the_kquant_term_is_recovered_from_rows_that_carry_it() -> None:
    """Rows made with η 0.9, τ_layer 60 µs and K-quant extra 0.1 give those constants back."""
    shapes = [(0.004, False), (0.008, True), (0.002, True), (0.012, False), (0.006, True)]
    samples = [
        cal.DecodeSample(
            f"r{i}",
            b / 0.9 + (0.1 * b if k else 0.0) + 32 * 60e-6,
            b,
            "gddr",
            layers=32,
            hops=0,
            kquant_bytes_s=b if k else 0.0,
        )
        for i, (b, k) in enumerate(shapes)
    ]
    fit = cal.fit_decode_supported(samples)
    assert fit.eta_gddr == pytest.approx(0.9, rel=1e-6)
    assert fit.kquant_extra == pytest.approx(0.1, rel=1e-6)
    assert fit.tau_layer_s == pytest.approx(60e-6, rel=1e-6)


def test_the_moe_layer_term_is_recovered_and_absent_without_moe_rows() -> None:
    """Rows made with η 0.9, τ_layer 30 µs and 12 µs more per MoE layer give those constants back; a training
    set without MoE rows learns no MoE cost (0, not invented)."""
    shapes = [(0.004, 0), (0.008, 0), (0.002, 48), (0.003, 24), (0.006, 0)]
    samples = [
        cal.DecodeSample(f"r{i}", b / 0.9 + 32 * 30e-6 + m * 12e-6, b, "gddr", layers=32, hops=0, moe_layers=m)
        for i, (b, m) in enumerate(shapes)
    ]
    fit = cal.fit_decode_supported(samples)
    assert fit.eta_gddr == pytest.approx(0.9, rel=1e-6)
    assert fit.tau_layer_s == pytest.approx(30e-6, rel=1e-6)
    assert fit.tau_moe_layer_s == pytest.approx(12e-6, rel=1e-6)
    assert cal.fit_decode_supported([s for s in samples if not s.moe_layers]).tau_moe_layer_s == 0.0


def test_the_constant_eta_rule_reads_no_moe_penalty() -> None:
    """The baseline divides by the bytes actually read (weights + KV), not our MoE-penalised bytes."""
    sample = cal.DecodeSample("m", 0.010, 0.009, "gddr", layers=24, hops=0, moe_layers=24, read_bytes_s=0.006)
    assert cal.constant_eta([sample]) == pytest.approx(0.6)


def test_amd_k_quants_get_their_own_dequant_cost_or_the_other_vendors_one() -> None:
    """Rows made with K-quant extra 0.1 on NVIDIA and 0.7 on AMD give both back; without AMD K-quant rows in the
    training set AMD takes the NVIDIA value."""
    shapes = [
        (0.004, False, False),
        (0.008, True, False),
        (0.002, True, False),
        (0.006, True, True),
        (0.003, True, True),
    ]
    samples = [
        cal.DecodeSample(
            f"r{i}",
            b / 0.9 + (b * (0.7 if amd else 0.1) if k else 0.0) + 32 * 30e-6,
            b,
            "gddr",
            layers=32,
            hops=0,
            kquant_bytes_s=b if k else 0.0,
            amd=amd,
        )
        for i, (b, k, amd) in enumerate(shapes)
    ]
    fit = cal.fit_decode_supported(samples)
    assert fit.kquant_extra == pytest.approx(0.1, rel=1e-6)
    assert fit.kquant_extra_amd == pytest.approx(0.7, rel=1e-6)
    nvidia_only = cal.fit_decode_supported([s for s in samples if not s.amd])
    assert nvidia_only.kquant_extra_amd == nvidia_only.kquant_extra
