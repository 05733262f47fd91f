"""Workload fit (configurator/rules/workload.py): the estimator's per-GPU memory and decode speed on this build.

The figures are configurator.engine.estimate's; these tests check that the verdict carries them unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from configurator.engine.builds import build_from_payload
from configurator.engine.estimate import estimate, min_gpus_to_fit
from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, Verdict, Workload
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, codes, lines, only

WORKSTATION = body_of(
    "ws-tr-pro-6gpu-6u5: 1 tr-pro-9995wx, 1 rtx-5090, 4 psu-crps-3000w, 8 ddr5-rdimm-128gb", psu_redundancy="n+n"
)
SEVENTY_B = Workload(model=model_get("llama-3.1-70b"), precision="bf16", kv_cache_precision="bf16", engine="vllm")
EIGHT_B = Workload(model=model_get("llama-3.1-8b"), precision="bf16", kv_cache_precision="bf16", engine="vllm")


def check(snapshot: CatalogSnapshot, workload: Workload | None, **changes: Any) -> Verdict:
    return validate(build_from_payload({**WORKSTATION, **changes}, snapshot), snapshot=snapshot, workload=workload)


def workload_codes(verdict: Verdict) -> set[str]:
    return codes(verdict, "workload.")


def test_vram_does_not_fit(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SEVENTY_B)
    finding = only(verdict, "workload.vram")
    layout = estimate(SEVENTY_B, snapshot.gpus["rtx-5090"], 1).layout
    assert layout is not None and not layout.fits
    assert (finding.severity, finding.unit) == ("error", "GiB")
    assert (finding.measured, finding.limit) == (round(layout.per_gpu_gib, 2), round(layout.usable_gib, 2))
    needed = min_gpus_to_fit(SEVENTY_B, snapshot.gpus["rtx-5090"])
    assert needed is not None and needed <= 6
    # issue 34: fixes come smallest change first (one step each here, then the least added cost)
    texts = [str(fix.text) for fix in finding.fixes]
    assert any(text.startswith(f"add {needed - 1}× rtx-5090 ({needed} GPUs hold the model)") for text in texts)
    assert verdict.vram.needed_per_gpu_gib == finding.measured
    assert verdict.estimate is not None


def test_vram_fits_with_enough_gpus(snapshot: CatalogSnapshot) -> None:
    needed = min_gpus_to_fit(SEVENTY_B, snapshot.gpus["rtx-5090"])
    assert needed is not None
    assert "workload.vram" not in workload_codes(check(snapshot, SEVENTY_B, gpus=lines(("rtx-5090", needed))))


def test_no_gpu_for_the_workload(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, EIGHT_B, gpus=[]), "workload.no_gpu")
    assert (finding.severity, finding.measured, finding.unit) == ("error", 0, "GiB")
    assert finding.fixes  # the cheapest catalog GPUs that hold it


def test_decode_speed_below_target(snapshot: CatalogSnapshot) -> None:
    speed = estimate(EIGHT_B, snapshot.gpus["rtx-5090"], 1).throughput
    assert speed is not None
    per_user = speed.decode_tokens_per_s_per_user
    assert workload_codes(check(snapshot, replace(EIGHT_B, target_tokens_per_s=per_user * 0.9))) == set()
    verdict = check(snapshot, replace(EIGHT_B, target_tokens_per_s=per_user * 2))
    finding = only(verdict, "workload.speed")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == (
        "warning",
        round(per_user, 2),
        per_user * 2,
        "tokens/s",
    )


def test_workload_the_estimator_refuses(snapshot: CatalogSnapshot) -> None:
    gguf_on_trt = replace(EIGHT_B, precision="q4_k_m", engine="tensorrt-llm")
    finding = only(check(snapshot, gguf_on_trt), "workload.estimate")
    assert finding.severity == "error"
    assert "engine" in finding.message


def test_no_workload_no_estimate(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, None)
    assert verdict.estimate is None
    assert (verdict.vram.total_gib, verdict.vram.needed_per_gpu_gib) == (32.0, None)


def test_tensorrt_llm_on_amd_is_an_error_and_on_nvidia_is_not(snapshot: CatalogSnapshot) -> None:
    trt = replace(EIGHT_B, engine="tensorrt-llm")
    on_amd = check(snapshot, trt, gpus=lines(("radeon-pro-w7900", 1)))
    finding = only(on_amd, "workload.engine_support")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "tensorrt-llm", "NVIDIA (CUDA)")
    assert finding.components == ("radeon-pro-w7900",)
    on_nvidia = check(snapshot, trt, gpus=lines(("rtx-a6000", 1)))
    assert "workload.engine_support" not in on_nvidia.codes()


def test_training_or_production_on_rocm_is_a_warning_llama_cpp_inference_is_not(snapshot: CatalogSnapshot) -> None:
    lora = replace(EIGHT_B, task="lora", engine="transformers")
    finding = only(check(snapshot, lora, gpus=lines(("radeon-pro-w7900", 1))), "workload.rocm_stack")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", "ROCm", "CUDA")
    production = replace(EIGHT_B, production=True)
    assert "workload.rocm_stack" in check(snapshot, production, gpus=lines(("radeon-pro-w7900", 1))).codes()
    chat = replace(EIGHT_B, precision="q4_k_m", engine="llama.cpp", kv_cache_precision="f16")
    codes = check(snapshot, chat, gpus=lines(("radeon-pro-w7900", 1))).codes()
    assert not {"workload.rocm_stack", "workload.engine_support"} & codes
    assert "workload.rocm_stack" not in check(snapshot, lora, gpus=lines(("rtx-a6000", 1))).codes()
