"""Decode-speed constants and the fit that produced them (pure; no Django).

Model of one decode step (one token for every running sequence), per GPU memory class and engine:

    t_step = bytes_read / (η_bw × bandwidth) + layers × τ_layer + hops × τ_hop (+ all-reduces under TP)

`η_bw` is the share of the datasheet bandwidth a mat-vec kernel streams at; `τ_layer` is the fixed time each
layer costs per step whatever its size (kernel launches and synchronisation: llama.cpp runs ~10 kernels per
layer); `τ_hop` is the hand-over between GPUs of a layer split. The model is linear in (1/η_bw, τ_layer,
τ_hop), so `fit_decode` solves it by least squares on relative error — no search, no hidden state. The
effective η of the anchors (tokens/s × bytes / bandwidth) then falls out of it: small models lose more to
the fixed per-layer time, so η grows with weight size, as the measurements show (estimator-anchors.md §5).

The llama.cpp constants below are the output of `fit_decode_supported` on the single-stream rows of
`fixtures/decode_calibration.csv` whose GPU is in our catalog, so their error on those rows is in-sample;
bench/accuracy.py judges the model leave-one-source-out instead (`leave_one_source_out`: refit without one
publication, predict it), next to a constant-η rule refitted the same way. Rows of builds older than the ones
the estimator models (`OLD_BUILDS`) get a per-layer time of their own and are reported apart, not judged.
vLLM, SGLang and TensorRT-LLM share constants fitted on fixtures/server_speed.csv
(configurator.engine.server_calibration); transformers' constants are priors, named as such in every estimate.
The calibration file's rows are read and named by configurator.engine.calibration_rows.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Phrase


@direct_init
@dataclass(frozen=True, slots=True)
class DecodeConstants:
    eta_bw: float  # fraction of datasheet bandwidth streamed by the decode kernels
    tau_layer_s: float  # fixed seconds per layer per decode step
    tau_step_s: float  # fixed seconds per decode step (scheduler, sampling)
    source: str
    tau_moe_layer_s: float = 0.0  # extra fixed seconds per MoE layer (router, top-k, permute, grouped GEMMs)
    kquant_extra: float = 0.0  # extra seconds per second of K-quant weight bytes / bandwidth (dequant ALU)
    kquant_extra_amd: float = 0.0  # the same on AMD GPUs (ROCm/HIP build)
    tau_mla_layer_s: float = 0.0  # extra fixed seconds per multi-head-latent-attention layer (server engines)

    def kquant_extra_for(self, vendor: str) -> float:
        return self.kquant_extra_amd if is_amd(vendor) else self.kquant_extra


# Fitted by `fit_decode_supported` on 61 single-stream llama.cpp rows of fixtures/decode_calibration.csv
# (XiongjieDai/GPU-Benchmarks-on-LLM-Inference @aa72e0ec, geerlingguy/ai-benchmarks @bdf94413 and its PR #18,
# llama.cpp PRs #26284/#26705/#17505/#17891/#20586/#21086, discussions #10879/#15013/#15021); bench/accuracy.py
# reproduces these numbers. The rows of old builds (OLD_BUILDS) get a per-layer time of their own (85 µs) and
# inform η and τ_hop only: the τ_layer below is the current builds' one.
LLAMACPP_FIT_SOURCE = Phrase("fitted on %(rows)s llama.cpp rows of decode_calibration.csv (bench/accuracy.py)", rows=61)
LLAMACPP_ETA_GDDR = 0.922
LLAMACPP_ETA_HBM = 0.569
LLAMACPP_TAU_LAYER_S = 34.2e-6
PIPELINE_HOP_S = 260e-6  # per GPU boundary of a layer split (same fit)
# K-quant weights (Q4_K_M, Q6_K …: 256-weight super-blocks with 6-bit sub-scales) cost more ALU per byte to
# dequantize than Q4_0/Q8_0/F16, so their mat-vec streams slower: extra seconds per second of their bytes over
# the bandwidth (same fit; a linear column, determined by the rows that run K-quant and legacy types alike).
LLAMACPP_KQUANT_EXTRA = 0.064
# The same cost on AMD GPUs (ROCm/HIP build), fitted on its own column: the RX 7900 XTX rows (RDNA3) of llama.cpp
# PRs #26284 and #26705 predict each other within 6 % with it and are 34-49 % too fast without it. RDNA3's K-quant
# mat-vec is bound by unpacking the 6-bit sub-block scales, not by memory: PR #26705's branchless Q4_K/Q5_K unpack
# alone sped Q3_K_M decode on the 7900 XTX up by 7 %, which a bandwidth-bound kernel could not show. Applied to
# every AMD GPU (only RDNA3 rows measured it).
LLAMACPP_KQUANT_EXTRA_AMD = 0.757
# MoE layers run more kernels per step than dense ones (router mat-vec, softmax/top-k, get_rows, three
# MUL_MAT_ID, weighting and sum): extra fixed seconds per MoE layer (same fit; determined by the MoE rows).
LLAMACPP_TAU_MOE_LAYER_S = 13.9e-6

SERVER_ENGINES: tuple[str, ...] = ("vllm", "sglang", "tensorrt-llm")

# Server engines (vLLM, SGLang, TensorRT-LLM) replay each decode step as a CUDA graph and share kernel families
# (cuBLAS/CUTLASS/DeepGEMM GEMMs, FlashInfer/FlashAttention, fused-MoE grouped GEMMs), so they share one set of
# constants: too few published rows per engine to fit each apart. `fit_server` fitted them on the per-user rows
# of fixtures/server_speed.csv (SGLang, vLLM and TensorRT-LLM, TP1-8 on H100/H200/B200, NVIDIA NIM's Llama-3.3-70B
# on 2 × H100 at 1-50 users, one Llama-3.1-405B stream on 8 × MI300X, vLLM's CI latency tests on H200, DeepSeek-R1
# FP8 on 8 × H200 and 4-8 × B200 at 1-64 users from InferenceX), each row's decode step less the other users'
# prompts prefilled meanwhile (estimate.serving.decode_per_user, at SERVER_MFU); bench/accuracy.py reproduces the
# numbers and judges them leave-one-source-out. τ_layer is the whole fixed cost of a layer per step on these
# engines: the kernels' launch and tail latency inside the graph (≈ 15–25 kernels per layer) — all-reduces are
# counted apart. The routed experts' bytes stream at the same η (speed.step_terms: no llama.cpp read penalty).
SERVER_FIT_SOURCE = Phrase("fitted on %(rows)s server-engine rows of server_speed.csv (bench/accuracy.py)", rows=46)
SERVER_ETA_HBM = 0.89
SERVER_TAU_LAYER_S = 82.4e-6
# Multi-head latent attention layers (DeepSeek-V2/V3/R1: `ModelArch.is_mla`) cost more per step than a GQA layer:
# the absorbed decode path runs the q down/up projections and their norm, the kv down-projection and its norm,
# RoPE on the rope dims, two batched matmuls with the absorbed W_UK/W_UV, and the latent attention kernel
# (SGLang/vLLM FlashInfer/FlashMLA/trtllm_mla backends). Extra fixed seconds per MLA layer, the third column of
# the same fit (`fit_server`), determined by the DeepSeek-R1 rows against the others (SemiAnalysisAI/InferenceX
# issue #870, PRs #3173 and #3363: SGLang v0.5.7/v0.5.12, 1-64 users). Tried as the third column instead, on the
# same 46 rows: a fixed time per MoE layer (router, top-k, permute, grouped-GEMM launches) fitted 38 µs with
# η 0.80 and a held-out median of 9.8 % (this: 7.4 %), and with llmfit's expert-read penalty kept −3 µs with
# η 1.10; a stream share of the routed experts' bytes of their own fitted η 1.11. Without a third column and
# with the penalty, η came out 1.10: more than the datasheet bandwidth, the bytes over-counted.
SERVER_TAU_MLA_LAYER_S = 22.7e-6
# No GDDR rows for server engines: GDDR mat-vec streams at least the HBM share (llama.cpp: 0.92 GDDR vs 0.57 HBM),
# so GDDR takes the HBM η (prior, not fitted).
SERVER_ETA_GDDR = SERVER_ETA_HBM
# HF transformers decodes eagerly (no CUDA graphs): launch-bound at ~0.4 ms per layer (prior).
_PRIOR = Phrase("prior (no single-stream rows for this engine in decode_calibration.csv)")
# GGUF K-quant weights on vLLM (its GGUF loader) are dequantized by kernels ported from llama.cpp's ggml-cuda mmvq/
# mmq (vllm-project/vllm csrc/quantization/gguf): the same ALU cost per byte as llama.cpp's, fitted there.
_GGUF = {"kquant_extra": LLAMACPP_KQUANT_EXTRA, "kquant_extra_amd": LLAMACPP_KQUANT_EXTRA_AMD}
_MLA = {"tau_mla_layer_s": SERVER_TAU_MLA_LAYER_S}
_SERVER = DecodeConstants(SERVER_ETA_HBM, SERVER_TAU_LAYER_S, 0.0, SERVER_FIT_SOURCE, **_MLA, **_GGUF)
_SERVER_GDDR = DecodeConstants(SERVER_ETA_GDDR, SERVER_TAU_LAYER_S, 0.0, SERVER_FIT_SOURCE, **_MLA, **_GGUF)
DECODE_CONSTANTS: dict[tuple[str, str], DecodeConstants] = {
    **{
        ("llama.cpp", memory): DecodeConstants(
            eta,
            LLAMACPP_TAU_LAYER_S,
            0.0,
            LLAMACPP_FIT_SOURCE,
            tau_moe_layer_s=LLAMACPP_TAU_MOE_LAYER_S,
            kquant_extra=LLAMACPP_KQUANT_EXTRA,
            kquant_extra_amd=LLAMACPP_KQUANT_EXTRA_AMD,
        )
        for memory, eta in (("gddr", LLAMACPP_ETA_GDDR), ("hbm", LLAMACPP_ETA_HBM))
    },
    **{(engine, "hbm"): _SERVER for engine in SERVER_ENGINES},
    **{(engine, "gddr"): _SERVER_GDDR for engine in SERVER_ENGINES},
    ("transformers", "gddr"): DecodeConstants(0.80, 400e-6, 2.0e-3, _PRIOR),
    ("transformers", "hbm"): DecodeConstants(0.75, 400e-6, 2.0e-3, _PRIOR),
}

# Share of dense tensor-core peak reached by prefill and by compute-bound batched decode GEMMs. Server engines:
# fitted with engines.MOE_GEMM_EFFICIENCY by `server_calibration.fit_server_prefill` on the full-load rows of
# fixtures/server_speed.csv (bench/accuracy.py, judged leave-one-source-out): 0.48 on its 64 NVIDIA non-FP4 rows
# of 12 publications, 0.42-0.50 with any one left out (0.42 on 30 rows before issue 33's new rows); llama.cpp and
# transformers: priors (llm-analysis README @d841e40 advises ≤ 0.7 of peak).
SERVER_MFU = 0.48
# Per engine, a factor on the pooled MFU, fitted by bench/accuracy_server.py (`engine_fit`) on the engine's own
# full-load rows at the pooled MFU and judged leave-one-source-out. TensorRT-LLM: 1.02 on its FP8 rows of seven
# publications (perf-overview @00f37686 and @03e27c7d, the H200 launch table, MLPerf v4.1 and v5.0 NVIDIA, NIM
# 1.8.0, dstack), 0.98-1.10 with any one left out (1.14 on the 19 rows of four publications before issue 33's new
# rows, at a pooled MFU of 0.42 where it is now 0.48: the new rows moved the gap into the pooled MFU). Its physics
# is TensorRT-LLM's quantized-activation path (CUTLASS/cuBLASLt FP8 or FP4 GEMMs with fused quantization, FP8
# context attention), so it applies only where the GEMMs quantize activations (`engine_mfu`'s `quantized`,
# speed.quantized_gemms): BF16, W4A16 INT4 and MXFP4 on Hopper run other kernels — TensorRT-LLM runs gpt-oss on
# H200 with BF16 activations through its TRITON MoE backend, the Hopper default (TensorRT-LLM deployment guide for
# GPT-OSS, 1.4.0rc4: 'H200 | BF16 | MXFP4 | TRITON'; 'For Hopper, the default MoE backend is TRITON') — and take
# the pooled MFU. Its NVFP4 rows on B200 are judged at it, not fitted (bench/accuracy_server.py `fp4_row`). vLLM
# and SGLang keep the pooled MFU: their full-load rows come from few publications (gpustack, datacrunch, Oracle).
ENGINE_MFU_FACTOR: dict[str, float] = {"tensorrt-llm": 1.02}
PREFILL_MFU: dict[str, float] = {
    "llama.cpp": 0.35,
    "transformers": 0.4,
    **{engine: SERVER_MFU * ENGINE_MFU_FACTOR.get(engine, 1.0) for engine in SERVER_ENGINES},
}


def engine_mfu(engine: str, pooled: float, factor: float | None = None, *, quantized: bool = True) -> float:
    """The MFU of an engine from the pooled one: × its ENGINE_MFU_FACTOR (`factor` replaces TensorRT-LLM's) when
    its GEMMs quantize their activations (`quantized`: FP8/FP4/INT8 tensor cores, `speed.quantized_gemms`); the
    pooled MFU for BF16 and weight-only formats, which TensorRT-LLM runs through other kernels (the factor's note)."""
    if not quantized:
        return pooled
    if engine == "tensorrt-llm" and factor is not None:
        return pooled * factor
    return pooled * ENGINE_MFU_FACTOR.get(engine, 1.0)


def prefill_mfu(engine: str, *, quantized: bool = True) -> float:
    """PREFILL_MFU of an engine, without its ENGINE_MFU_FACTOR where its GEMMs do not quantize activations."""
    return PREFILL_MFU[engine] if quantized or engine not in SERVER_ENGINES else SERVER_MFU


# AMD Instinct GPUs under the server engines (vLLM on ROCm): the share of the NVIDIA-fitted MFU their matrix cores
# reach on the paper peak. Fitted on the two rows of MLPerf Inference v4.1 AMD closed (mlcommons/
# inference_results_v4.1 closed/AMD: Llama-2-70B FP8 Offline on 8 × and 1 × MI300X, 23,514.8 and 3,062.72 tokens/s,
# one model per GPU at large batch, i.e. compute-bound), which the NVIDIA constants put 48–54 % too fast: 0.65 brought
# both within 3 % at a pooled MFU of 0.42; refitted with issue 33's rows at 0.48 it is 0.60 (0.55-0.65 with any one
# publication left out). Refitted on Oracle's MI300X rows alone (Llama-3.1-405B FP8 at TP8, bench/accuracy.py's
# leave-one-source-out `amd_fit`) it is 0.65 too, so the MLPerf rows are judged out of sample as well.
# Cross-check, not fitted: MI300X reaches ~45 %
# of its paper FLOPs on AI workloads where H100 reaches up to ~70–93 % (SemiAnalysis' MI300X/H100/H200 benchmark,
# Dec 2024, as summarised by aiweekly.co 'AMD MI300X hits only 45% of peak FLOPs in practice'), a ratio of
# 0.5–0.65; its HBM streams at ~81 % of 5.3 TB/s (same source), close to the NVIDIA parts, so η_bw is not scaled.
# MI300X is the AMD GPU measured. The MI325X is the same CDNA3 die (304 CUs, the same 1,307 / 2,615 TFLOPS peaks,
# gfx942: ROCm GPU specifications) with HBM3E (256 GB, 6 TB/s): it takes the MI300X's share as measured, and its
# MLPerf Inference v5.0 row (8 × MI325X Llama-2-70B Offline) is held out, judged, not fitted (server_speed.csv
# notes "HELD OUT"). Other AMD GPUs take the same share and their estimates say "unvalidated".
AMD_SERVER_MFU_SCALE = 0.60
AMD_MEASURED_SKUS: tuple[str, ...] = ("mi300x", "mi325x")


def server_mfu_scale(engine: str, vendor: str) -> float:
    """Share of the fitted MFU a GPU's vendor reaches under a server engine (AMD_SERVER_MFU_SCALE); 1 otherwise."""
    return AMD_SERVER_MFU_SCALE if engine in SERVER_ENGINES and vendor.strip().lower() == "amd" else 1.0


# Server engines run eagerly (vLLM --enforce-eager, no CUDA graphs): each kernel of a decode step is launched from
# Python, which costs more host time per layer than the GPU spends on a small batch. Extra seconds per layer per
# step, measured: vllm-project/vllm-omni issue #7960 (Qwen2.5-Omni-7B thinker, 28 Qwen2.5-7B layers, one A800,
# TPOT ~22-23 ms eager vs ~13 ms with CUDA graphs: (22.5 - 13) / 28 ≈ 0.34 ms); the 3B thinker on an H200 was
# 4.3 × faster with graphs, so this is the low end. One measured pair: a prior, said in every estimate.
EAGER_LAYER_S = 340e-6
TRAINING_MFU = 0.4

# INT4 W4A16 checkpoints (AWQ, GPTQ; 4-bit weights, FP16/BF16 activations) on the server engines: which kernel runs
# their matmuls, and the share of the dense decode η_bw its weight stream reaches. Decode reads the 4.16-bit weights
# (weights.py) and dequantizes them in registers; batched/prefill GEMMs run at the FP16 tensor-core rate
# (speed._peak_flops), never at an INT4 rate.
# - "marlin": vLLM's awq_marlin/gptq_marlin (vLLM PR #2497 for GPTQ, PR #6612 for AWQ, the default for compatible
#   checkpoints since v0.5.3; SGLang imports the same kernels). Frantar et al. 2024, "MARLIN: Mixed-Precision
#   Auto-Regressive Parallel Inference on Large Language Models" (PPoPP 2025): close to the ideal 4× over FP16 up
#   to batch 16-32, so it streams at the dense η: factor 1.0. It needs compute capability ≥ 8.0 (Ampere;
#   IST-DASLab/marlin README) and CUDA.
# - "awq-gemm": the unfused AWQ/GPTQ kernels vLLM falls back to where Marlin cannot run (pre-Ampere NVIDIA GPUs;
#   ROCm runs AWQ through a Triton kernel). sgl-project/sglang issue #28 (Mar 2024, vLLM 0.3.3, SOLAR-10.7B
#   GPTQ-4bit one GPU): 79 tok/s with the AWQ kernel against 102 with Marlin at batch 1 (0.77), 1,416 vs 2,078
#   at 32 (0.68): 0.77, the single-stream ratio, as the weight stream's share. vLLM PR #6612 (A100, Llama-3.1-70B
#   AWQ) measured awq_marlin 44-138 % faster than awq in generation (0.42-0.69), so 0.77 is the optimistic end.
#   One published pair for each: a prior, said in every estimate that uses it, not fitted on the judged rows.
# - "trtllm-w4a16": TensorRT-LLM's own weight-only INT4 AWQ GEMMs (CUTLASS mixed-input, not Marlin). NVIDIA
#   TensorRT-Model-Optimizer benchmark.md (H100, TensorRT-LLM v0.9, modelopt 0.11, static batches): Llama3-8B INT4
#   AWQ 1.61× FP16 at batch 2, where streaming 4.16-bit weights at the dense share gives 1.81× in this model:
#   0.75 brings batch 2 there (fitted on that one figure, in-sample; its batch-32/64 figures, 1.43× and 1.37×, are
#   the same publication, so tests/configurator/test_int4_kernels.py reports them but they are not independent).
INT4_KERNEL_STREAM_SHARE: dict[str, float] = {"marlin": 1.0, "awq-gemm": 0.77, "trtllm-w4a16": 0.75}
# Pre-Ampere NVIDIA GPUs (Volta/Turing, compute capability 7.x: no Marlin)
_PRE_AMPERE = re.compile(r"v100|\bt4\b|rtx 20\d0|titan rtx|titan v|quadro rtx|gtx", re.IGNORECASE)


def int4_kernel(engine: str, vendor: str, sku: str, name: str) -> str | None:
    """The W4A16 kernel a server engine runs INT4 checkpoints with on this GPU (None: not a server engine)."""
    if engine not in SERVER_ENGINES:
        return None
    if engine == "tensorrt-llm":
        return "trtllm-w4a16"
    if vendor.strip().lower() != "nvidia" or _PRE_AMPERE.search(f"{sku} {name}"):
        return "awq-gemm"
    return "marlin"


# Sequences an engine runs at once by default (the full-load search in `served_throughput` stops there):
# vLLM `max_num_seqs` 256 (engines.VLLM_MAX_NUM_SEQS); TensorRT-LLM LLM-API `max_batch_size` 2048 (from memory of
# llm_args.py, not re-read); SGLang sizes `max_running_requests` from the KV pool (HEURISTIC: 4096, memory decides);
# llama-server runs 4 slots by default in current builds (HEURISTIC, from memory); transformers one batch.
MAX_RUNNING_SEQUENCES: dict[str, int] = {
    "vllm": 256, "tensorrt-llm": 2048, "sglang": 4096, "llama.cpp": 4, "transformers": 1,
}  # fmt: skip

# All-reduce latency floor per call: llm-analysis `analysis.py` @d841e40 uses max(bytes/link, 8 µs); NVLink/
# NVSwitch custom all-reduce (vLLM `custom_all_reduce`) is a one-shot kernel of a few µs (prior).
ALLREDUCE_FLOOR_PCIE_S = 8e-6
ALLREDUCE_FLOOR_NVLINK_S = 4e-6
# ... and across servers (InfiniBand / RoCE, one 400G NIC per GPU): NCCL's own tuning model predicts 25.9-26.5 µs
# for 4-8 KB all-reduces between two 8 × H100 servers (NVIDIA/nccl issue #1453, NCCL_DEBUG=INFO "Algo 0 proto 0
# time"); nccl-tests measured 19-20 µs for 8-byte all-reduces between two A100 servers on HDR (NVIDIA/nccl-tests
# issue #150). A decode all-reduce is a few KB (tokens × hidden × 2 B).
ALLREDUCE_FLOOR_NETWORK_S = 25e-6


def moe_efficiency(experts: int) -> float:
    """Bandwidth efficiency of routed-expert reads relative to dense ones: AlexsJones/llmfit PR #464 calibrated
    0.95 for ≤ 8 experts and 0.65 for ≥ 128 (anchors §4); log-linear in the expert count in between."""
    if experts <= 8:
        return 0.95
    if experts >= 128:
        return 0.65
    return 0.95 - 0.30 * math.log(experts / 8) / math.log(128 / 8)


def is_amd(vendor: str) -> bool:
    return vendor.strip().lower() == "amd"


def memory_class(memory_type: str) -> str:
    """'hbm' for HBM2/2e/3/3e stacks, 'gddr' otherwise (GDDR6/6X/7; unified LPDDR is not in the catalog)."""
    return "hbm" if "hbm" in memory_type.lower() else "gddr"


def engine_family(engine: str) -> str:
    """Engines that share decode kernels: Ollama runs llama.cpp underneath."""
    text = engine.lower()
    if "llama.cpp" in text or "ollama" in text:
        return "llama.cpp"
    if "tensorrt" in text:
        return "tensorrt-llm"
    if "sglang" in text:
        return "sglang"
    if "vllm" in text:
        return "vllm"
    return "transformers"


# --------------------------------------------------------------------------- fitting


@direct_init
@dataclass(frozen=True, slots=True)
class DecodeSample:
    """One measurement reduced to the model's terms (seconds per token)."""

    label: str
    seconds_per_token: float
    bytes_over_bandwidth_s: float  # bytes read per token / datasheet bandwidth
    memory_class: str
    layers: int
    hops: int
    era: str = "current"  # "old": a build before the one the estimator models (OLD_BUILDS)
    kquant_bytes_s: float = 0.0  # weight bytes / bandwidth when they are GGUF K-quants (more ALU per byte)
    moe_layers: int = 0  # layers with routed experts (router, top-k, MUL_MAT_ID: more kernels per layer)
    read_bytes_s: float = 0.0  # weights + KV read / bandwidth, no MoE read penalty (the constant-η rule's bytes)
    amd: bool = False  # an AMD GPU: its K-quant bytes take their own dequant cost

    @property
    def baseline_bytes_s(self) -> float:
        return self.read_bytes_s or self.bytes_over_bandwidth_s


@direct_init
@dataclass(frozen=True, slots=True)
class DecodeFit:
    eta_gddr: float
    eta_hbm: float
    tau_layer_s: float
    tau_hop_s: float
    tau_layer_old_s: float = 0.0  # per-layer time of the old builds' rows (fitted apart, never used to estimate)
    kquant_extra: float = 0.0  # extra seconds per (byte / bandwidth) second of K-quant weights: dequant ALU
    tau_moe_layer_s: float = 0.0  # extra fixed seconds per MoE layer per step
    kquant_extra_amd: float = 0.0  # K-quant extra on AMD GPUs

    def seconds_per_token(self, sample: DecodeSample) -> float:
        eta = self.eta_hbm if sample.memory_class == "hbm" else self.eta_gddr
        tau = self.tau_layer_old_s if sample.era == "old" and self.tau_layer_old_s else self.tau_layer_s
        kquant = self.kquant_extra_amd if sample.amd else self.kquant_extra
        extra = kquant * sample.kquant_bytes_s + self.tau_moe_layer_s * sample.moe_layers
        return sample.bytes_over_bandwidth_s / eta + extra + sample.layers * tau + sample.hops * self.tau_hop_s


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the normal equations are 4 × 4)."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        if abs(rows[col][col]) < 1e-18:
            raise ValueError("calibration rows do not determine every parameter")
        for r in range(size):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][size] / rows[i][i] for i in range(size)]


def fit_decode(samples: Sequence[DecodeSample]) -> DecodeFit:
    """Least squares on relative error of t = (B/BW)·(1/η_class) + L·τ_layer + hops·τ_hop."""
    design: list[list[float]] = []
    for s in samples:
        t = s.seconds_per_token
        gddr = s.bytes_over_bandwidth_s / t if s.memory_class != "hbm" else 0.0
        hbm = s.bytes_over_bandwidth_s / t if s.memory_class == "hbm" else 0.0
        design.append([gddr, hbm, s.layers / t, s.hops / t])
    size = 4
    normal = [[sum(row[i] * row[j] for row in design) for j in range(size)] for i in range(size)]
    rhs = [sum(row[i] for row in design) for i in range(size)]
    inv_gddr, inv_hbm, tau, hop = _solve(normal, rhs)
    return DecodeFit(1.0 / inv_gddr, 1.0 / inv_hbm, tau, hop)


def percentile(values: Iterable[float], fraction: float) -> float:
    """Linear-interpolated percentile (numpy's default method)."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    k = (len(ordered) - 1) * fraction
    low = math.floor(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def leave_one_out(samples: Sequence[DecodeSample], predict: Callable[[DecodeFit, DecodeSample], float]) -> list[float]:
    """Absolute relative error of each sample predicted by a fit made without it."""
    errors = []
    for i, sample in enumerate(samples):
        fit = fit_decode([s for j, s in enumerate(samples) if j != i])
        errors.append(abs(predict(fit, sample) - 1.0))
    return errors


# --------------------------------------------------------------------------- validation by source

_SOURCE_RE = re.compile(r"([\w.-]+/[\w.-]+)\s+(\S*README\.md|PR #\d+|issue #\d+|discussions? #\d+|docs/\S+)")
_MLPERF_RE = re.compile(r"(\S+/inference_results_v[\d.]+)\s+closed/([\w.-]+)/")
_PAGE_RE = re.compile(r"((?:[\w-]+\.)+[a-z]{2,}/[^\s(;]+)")


# Publications whose rows measure builds older than the ones the estimator models, and why (bench/accuracy.py
# judges the current builds and prints these apart; the fit gives them a per-layer time of their own).
OLD_BUILDS: dict[str, str] = {
    "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README.md": "llama.cpp builds of early 2024, before CUDA graphs "
    "(llama.cpp PR #6766, May 2024) and the 2024-25 mmvq/FA rewrites",
    "ggml-org/llama.cpp PR #4766": "llama.cpp build of January 2024",
    "geerlingguy/ai-benchmarks PR #18": "Ollama of February 2025, a week after the RTX 5090 launch; the same README "
    "table has an RTX 4090 at 216.48 and 237.05 tok/s on Llama 3.2 3B with the Ollama of that month (PR #11) "
    "and at 334.67 with the Ollama of December 2025 (issue #43): software, not the GPU, moved it by half",
    "sgl-project/sglang PR #2643": "SGLang v0.4.1.post2, the first week of DeepSeek-V3 support (Dec 2024): "
    "untuned block-FP8 MoE kernels, ≈ 0.5 ms per layer",
    # Issue 33's "every publication is 13-60 tokens/s" for a DeepSeek-V3 single stream on 8 × H200: all of them
    # measure SGLang of January-March 2025. SGLang v0.5.12 (InferenceX PRs #3173/#3363, May 2026, no speculative
    # decoding) serves 103 tokens/s to each of 4 users on 8 × H200 and 139 to one user on 8 × B200.
    "sgl-project/sglang issue #3196": "SGLang of January 2025 (DeepSeek-V3 support a month old; Triton fused-MoE "
    "and MLA kernels before the DeepGEMM/FlashMLA ports of March-May 2025)",
    "sgl-project/sglang PR #3582": "SGLang v0.4.3 (February 2025), the same kernel generation as issue #3196",
    "sgl-project/sglang issue #3956": "SGLang v0.4.3.post4 (March 2025), the same kernel generation as issue #3196",
}


def era_of(group: str) -> str:
    return "old" if group in OLD_BUILDS else "current"


def source_group(source: str) -> str:
    """The publication a row comes from (repository + README / PR / issue / discussion), so rows copied from
    one table are held out together: `ggml-org/llama.cpp PR #26284`, `XiongjieDai/GPU-Benchmarks-on-LLM-Inference
    README.md`."""
    match = _SOURCE_RE.search(source)
    if match:
        return f"{match.group(1)} {match.group(2)}"
    mlperf = _MLPERF_RE.match(source.strip())
    if mlperf:  # one submitter's results of one MLPerf round are one publication
        return f"{mlperf.group(1)} closed/{mlperf.group(2)}"
    page = _PAGE_RE.match(source.strip())  # a web page: its address, whatever table or row is cited after it
    return page.group(1) if page else source.strip()


def fit_decode_supported(samples: Sequence[DecodeSample]) -> DecodeFit:
    """`fit_decode` for a training set that may lack a memory class or multi-GPU rows: a parameter no sample
    determines is not invented from the held-out data — a missing memory class takes the other's η and a
    missing hop term is 0 (no GPU boundary seen, no cost learnt). Rows of old builds get a per-layer time of
    their own (their kernels and launch path differ: CUDA graphs, mmvq rewrites since), so they inform η and
    τ_hop but not the current builds' τ_layer. MoE layers get an extra fixed time (τ_moe) when the training set
    has MoE rows; without them it is 0 (not invented). K-quant rows on AMD GPUs get their own dequant cost; a
    training set without them gives AMD the other vendors' one."""
    has_gddr = any(s.memory_class != "hbm" for s in samples)
    has_hbm = any(s.memory_class == "hbm" for s in samples)
    has_hops = any(s.hops for s in samples)
    has_old = any(s.era == "old" for s in samples)
    has_current = any(s.era != "old" for s in samples)
    has_kquant = any(s.kquant_bytes_s for s in samples) and not all(s.kquant_bytes_s for s in samples)
    has_moe = any(s.moe_layers for s in samples)
    has_amd_kquant = has_kquant and any(s.kquant_bytes_s and s.amd for s in samples)
    columns = [has_gddr, has_hbm, has_current, has_hops, has_old, has_kquant, has_moe, has_amd_kquant]
    design: list[list[float]] = []
    for s in samples:
        t = s.seconds_per_token
        gddr = s.bytes_over_bandwidth_s / t if s.memory_class != "hbm" else 0.0
        hbm = s.bytes_over_bandwidth_s / t if s.memory_class == "hbm" else 0.0
        current = s.layers / t if s.era != "old" else 0.0
        old = s.layers / t if s.era == "old" else 0.0
        amd_kquant = s.kquant_bytes_s / t if s.amd and has_amd_kquant else 0.0
        kquant = s.kquant_bytes_s / t - amd_kquant
        row = [gddr, hbm, current, s.hops / t, old, kquant, s.moe_layers / t, amd_kquant]
        design.append([value for value, keep in zip(row, columns, strict=True) if keep])
    size = sum(columns)
    normal = [[sum(row[i] * row[j] for row in design) for j in range(size)] for i in range(size)]
    rhs = [sum(row[i] for row in design) for i in range(size)]
    solved = iter(_solve(normal, rhs))
    values = [next(solved) if keep else 0.0 for keep in columns]
    inv_gddr = values[0] if has_gddr else values[1]
    inv_hbm = values[1] if has_hbm else values[0]
    tau = values[2] if has_current else values[4]
    kquant_amd = values[7] if has_amd_kquant else values[5]
    return DecodeFit(1.0 / inv_gddr, 1.0 / inv_hbm, tau, values[3], values[4], values[5], values[6], kquant_amd)


def constant_eta(samples: Sequence[DecodeSample]) -> float:
    """The constant-efficiency rule fitted the same way: median η = bytes / (bandwidth × seconds per token)."""
    return percentile((s.baseline_bytes_s / s.seconds_per_token for s in samples), 0.5)


def leave_one_source_out(
    samples: Sequence[DecodeSample], groups: Sequence[str]
) -> dict[str, tuple[list[float], list[float]]]:
    """For each source: signed relative errors (predicted / measured − 1) of its rows under (our model, the
    constant-η rule), both fitted on every other source only."""
    result: dict[str, tuple[list[float], list[float]]] = {}
    for held in dict.fromkeys(groups):
        train = [s for s, g in zip(samples, groups, strict=True) if g != held]
        test = [s for s, g in zip(samples, groups, strict=True) if g == held]
        if not train:
            continue
        fit = fit_decode_supported(train)
        eta = constant_eta(train)
        ours = [s.seconds_per_token / fit.seconds_per_token(s) - 1 for s in test]
        baseline = [s.seconds_per_token * eta / s.baseline_bytes_s - 1 for s in test]
        result[held] = (ours, baseline)
    return result
