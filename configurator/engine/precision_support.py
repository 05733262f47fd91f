"""Which low-precision checkpoints a GPU runs, and how: natively on its tensor cores, weight-only (the weights
dequantized to FP16/BF16 in the kernel, slower where compute bounds), or not at all, by GPU architecture.

Sources:
- NVIDIA Blackwell architecture technical brief and the RTX Blackwell GPU architecture whitepaper: FP4 tensor
  cores from Blackwell (5th-generation tensor cores; B200/B300, RTX PRO Blackwell, GeForce RTX 50);
  `estimate.speed.has_fp4_tensor_cores`. NVIDIA Ada (sm_89) and Hopper (sm_90) whitepapers: FP8 tensor cores
  from Ada/Hopper; the catalog's `fp8_tflops` is set exactly for GPUs with them (fixtures/catalog.json,
  gpus.csv), empty for Ampere, Turing and RDNA3.
- vLLM docs, "FP8 W8A8" (docs.vllm.ai features/quantization/fp8): FP8 computation needs compute capability
  ≥ 8.9; Ampere (sm_80/86) and, in current vLLM, Turing (sm_75) run FP8 checkpoints weight-only (W8A16) through
  FP8 Marlin (vLLM PR #5975; `marlin_utils_fp8.is_fp8_marlin_supported`: capability ≥ 7.5 on CUDA; on ROCm
  gfx90a/gfx94x/gfx95x only). Volta (sm_70) has none.
- vLLM PR #17687 / #18000 ("fp4 marlin kernel", NVFP4 W4A16 Marlin): NVFP4 checkpoints run weight-only on NVIDIA
  GPUs without FP4 tensor cores (`marlin_utils_fp4.is_fp4_marlin_supported`: CUDA, capability ≥ 7.5); vLLM logs
  "Weight-only FP4 compression will be used leveraging the Marlin kernel. This may degrade performance for
  compute-heavy workloads". Marlin is CUDA-only: no FP4 path on ROCm for GPUs without FP4.
- AMD Instinct MI300X data sheet (CDNA3): FP8 (FNUZ E4M3/E5M2 on MI300, OCP on MI350) at 2,614.9 TFLOPS
  dense, no FP4; the MI350 series (CDNA4, MI355X) adds FP4/FP6. vLLM's ROCm FP8 kernels need CDNA3+
  (gfx942/gfx950) or RDNA4 (gfx12): RDNA3 (Radeon PRO W7900, RX 7900 XTX, gfx1100) runs no FP8 checkpoint.
"""

from __future__ import annotations

import re
from typing import Literal

from configurator.engine.estimate.speed import has_fp4_tensor_cores
from configurator.engine.types import GpuSpec

Support = Literal["native", "weight_only", "none"]
CHECKED_PRECISIONS = ("fp8", "nvfp4")  # the checkpoints whose kernels depend on the GPU's tensor cores

_VOLTA = re.compile(r"v100|titan v\b|gv100", re.IGNORECASE)  # sm_70: no Marlin
_AMD_FP4 = re.compile(r"mi35\d", re.IGNORECASE)  # CDNA4
_AMD_FP8_MARLIN = re.compile(r"mi2[15]0", re.IGNORECASE)  # CDNA2 gfx90a: FP8 Marlin on ROCm


def precision_support(gpu: GpuSpec, precision: str) -> Support:
    """How `gpu` runs a checkpoint stored in `precision` (module docstring); "native" for any precision not
    in CHECKED_PRECISIONS."""
    if precision not in CHECKED_PRECISIONS:
        return "native"
    vendor, label = gpu.vendor.strip().lower(), f"{gpu.sku} {gpu.name}"
    if vendor == "nvidia":
        if (precision == "nvfp4" and has_fp4_tensor_cores(gpu)) or (precision == "fp8" and gpu.fp8_tflops):
            return "native"
        return "none" if _VOLTA.search(label) else "weight_only"
    if vendor == "amd" and precision == "nvfp4":
        return "native" if _AMD_FP4.search(label) else "none"
    if precision == "fp8" and gpu.fp8_tflops:
        return "native"
    if vendor == "amd" and _AMD_FP8_MARLIN.search(label):
        return "weight_only"
    return "none"
