"""Precision support by GPU architecture (trial 34: NVFP4 was accepted on MI300X, W7900 and RTX 3090, FP8 on T4,
with no note). Sources in configurator.engine.precision_support: FP4 tensor cores from Blackwell, FP8 from
Ada/Hopper; vLLM runs FP8 and NVFP4 weight-only (Marlin) on older NVIDIA GPUs; AMD MI300X has FP8, no FP4;
RDNA3 has neither."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from configurator.engine.builds import build_from_payload
from configurator.engine.estimate import estimate
from configurator.engine.estimate.speed import _peak_flops
from configurator.engine.models_library import model_get
from configurator.engine.precision_support import precision_support
from configurator.engine.recommend import recommend
from configurator.engine.types import CatalogSnapshot, Constraints, Verdict, Workload
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, codes, lines

WORKSTATION = body_of(
    "ws-tr-pro-6gpu-6u5: 1 tr-pro-9995wx, 1 rtx-5090, 4 psu-crps-3000w, 8 ddr5-rdimm-128gb", psu_redundancy="n+n"
)
EIGHT_B = Workload(model=model_get("llama-3.1-8b"), precision="nvfp4", engine="vllm", context_tokens=4096)


def _check(snapshot: CatalogSnapshot, workload: Workload, gpu: str, **changes: Any) -> Verdict:
    body = {**WORKSTATION, "gpus": lines((gpu, 1)), **changes}
    return validate(build_from_payload(body, snapshot), snapshot=snapshot, workload=workload)


@pytest.mark.parametrize(
    ("sku", "precision", "support"),
    [
        ("rtx-pro-6000-blackwell", "nvfp4", "native"), ("b200-sxm", "nvfp4", "native"), ("rtx-5090", "nvfp4", "native"),
        ("h100-sxm", "nvfp4", "weight_only"), ("rtx-3090", "nvfp4", "weight_only"), ("t4", "nvfp4", "weight_only"),
        ("mi300x", "nvfp4", "none"), ("radeon-pro-w7900", "nvfp4", "none"), ("rx-7900-xtx", "nvfp4", "none"),
        ("h100-sxm", "fp8", "native"), ("rtx-4090", "fp8", "native"), ("l40s", "fp8", "native"),
        ("mi300x", "fp8", "native"), ("rtx-a6000", "fp8", "weight_only"), ("a100-80gb-sxm", "fp8", "weight_only"),
        ("t4", "fp8", "weight_only"), ("radeon-pro-w7900", "fp8", "none"), ("rx-7900-xtx", "fp8", "none"),
        ("radeon-pro-w7900", "bf16", "native"), ("t4", "int4", "native"),
    ],
)  # fmt: skip
def test_support_follows_the_architecture(snapshot: CatalogSnapshot, sku: str, precision: str, support: str) -> None:
    assert precision_support(snapshot.gpus[sku], precision) == support


def test_a_volta_card_runs_neither() -> None:
    """Marlin needs compute capability 7.5: a V100 (sm_70) has no FP8 or FP4 path at all."""
    from catalog.fixture import fixture_snapshot

    v100 = replace(fixture_snapshot().gpus["a100-80gb-pcie"], sku="v100-32gb", name="NVIDIA Tesla V100 32GB")
    assert (precision_support(v100, "fp8"), precision_support(v100, "nvfp4")) == ("none", "none")


def test_no_engine_is_an_error_weight_only_a_warning_native_nothing(snapshot: CatalogSnapshot) -> None:
    on_mi300x = _check(snapshot, EIGHT_B, "mi300x")
    error = next(f for f in on_mi300x.findings if f.code == "workload.precision_unsupported")
    assert (error.severity, error.components, error.measured) == ("error", ("mi300x",), "nvfp4")
    assert not on_mi300x.valid
    w7900_fp8 = _check(snapshot, replace(EIGHT_B, precision="fp8"), "radeon-pro-w7900")
    assert "workload.precision_unsupported" in codes(w7900_fp8)
    on_3090 = _check(snapshot, EIGHT_B, "rtx-3090")
    warning = next(f for f in on_3090.findings if f.code == "workload.precision_weight_only")
    assert (warning.severity, warning.components) == ("warning", ("rtx-3090",))
    assert "workload.precision_unsupported" not in codes(on_3090)
    t4_fp8 = _check(snapshot, replace(EIGHT_B, precision="fp8"), "t4")
    assert "workload.precision_weight_only" in codes(t4_fp8)
    native = _check(snapshot, EIGHT_B, "rtx-5090")
    assert not codes(native, "workload.precision_")
    bf16 = _check(snapshot, replace(EIGHT_B, precision="bf16"), "radeon-pro-w7900")
    assert not codes(bf16, "workload.precision_")


def test_the_estimate_credits_no_peak_a_gpu_lacks(snapshot: CatalogSnapshot) -> None:
    """FP4 at twice FP8 only on Blackwell; FP8 only where the catalog has an FP8 rate; else the FP16 peak."""
    for sku in ("mi300x", "h100-sxm", "rtx-3090", "radeon-pro-w7900"):
        gpu = snapshot.gpus[sku]
        expected = gpu.fp16_tflops
        assert _peak_flops(gpu, "nvfp4", "vllm") == pytest.approx(expected * 1e12), sku
    t4 = snapshot.gpus["t4"]
    assert _peak_flops(t4, "fp8", "vllm") == pytest.approx(t4.fp16_tflops * 1e12)
    pro = snapshot.gpus["rtx-pro-6000-blackwell"]
    assert _peak_flops(pro, "nvfp4", "vllm") == pytest.approx(2 * (pro.fp8_tflops or 0) * 1e12)
    assert estimate(EIGHT_B, snapshot.gpus["mi300x"], 1).layout is not None


def test_the_recommender_offers_no_build_that_cannot_run_the_precision(snapshot: CatalogSnapshot) -> None:
    workload = replace(EIGHT_B, precision="fp8", concurrent_users=4)
    found = recommend(snapshot, workload, Constraints(max_price=Decimal(10_000_000)), limit=8).candidates
    assert found
    for candidate in found:
        assert all(precision_support(line.spec, "fp8") != "none" for line in candidate.build.gpus)
        weight_only = any(precision_support(line.spec, "fp8") == "weight_only" for line in candidate.build.gpus)
        assert weight_only == ("workload.precision_weight_only" in codes(candidate.verdict)), candidate.build.gpus
