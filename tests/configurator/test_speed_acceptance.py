"""Issue 13, speed: the named cases, each against its source's figure, within the error claimed for it.

The claimed error of a case is its source's leave-one-source-out error in `make accuracy` (bench/accuracy.py)
with a margin: a source's rows are also in the shipped fit, so the shipped constants meet them more closely
than the held-out figure says; the held-out figure is the claim.
"""

from __future__ import annotations

import pytest

from catalog.fixture import CatalogSnapshot
from configurator.engine import calibration as cal
from configurator.engine import server_calibration as srv
from configurator.engine.calibration_rows import GPU_SKU_BY_NAME
from configurator.engine.estimate import estimate
from configurator.engine.estimate.serving import served_throughput
from configurator.engine.estimate.speed import _peak_flops
from configurator.engine.models_library import model_get
from configurator.engine.specs import GpuSpec
from configurator.engine.types import Workload


def _per_user(
    gpu: GpuSpec, count: int, slug: str, precision: str, engine: str, users: int, prompt: int, output: int
) -> float:
    """Decode tokens/s per user of `users` sending requests of `prompt` + `output` tokens (a single-stream row
    measured at mean depth d is a prompt of d and one generated token)."""
    workload = Workload(
        model=model_get(slug), precision=precision, context_tokens=prompt + output, concurrent_users=users,
        engine=engine, prompt_tokens=prompt, output_tokens=output,
    )  # fmt: skip
    result = estimate(workload, gpu, count, link_gbs=srv.nvswitch_gbs(gpu))
    assert result.throughput is not None
    return result.throughput.decode_tokens_per_s_per_user


def test_deepseek_fp8_on_8_h200_with_8_users(snapshot: CatalogSnapshot) -> None:
    """SemiAnalysisAI/InferenceX issue #870: DeepSeek-R1-0528 FP8, SGLang v0.5.7, TP8 on H200, ISL/OSL 1k/1k,
    concurrency 8: mean TPOT 12.8 ms = 78.1 tokens/s per user. Claimed: ±15 % (held out: 16 % median over its 4
    rows; the v0.5.12 rows of InferenceX PR #3173 are 9-16 % faster at the same concurrencies and weigh more in
    the fit)."""
    ours = _per_user(snapshot.gpus["h200-sxm"], 8, "deepseek-r1", "fp8", "sglang", users=8, prompt=1024, output=1024)
    assert ours == pytest.approx(78.1, rel=0.15)


def test_deepseek_v3_fp8_on_8_h200_single_stream(snapshot: CatalogSnapshot) -> None:
    """Issue 33 asks for 12-60 tokens/s ("every publication we know of is 13-60"). Those publications measure
    SGLang of December 2024 - March 2025 on 8 × H200: 13 (sglang issue #3196, January 2025; its 60 is DeepSeek's
    own API), 30.29 (PR #2643, v0.4.1.post2), 43.75 (PR #3582, v0.4.3: 77 with MTP speculative decoding / its
    1.76× speed-up), 30 (issue #3956, v0.4.3.post4): calibration.OLD_BUILDS, printed by `make accuracy`, not
    judged. SGLang v0.5.12 without speculative decoding (SemiAnalysisAI/InferenceX PR #3173, TP8, CUDA graphs)
    serves 103.1 tokens/s to each of 4 users of 8 × H200 (TPOT 9.7 ms). A step of one user reads the dense weights
    and its 8 experts, a subset of what 4 users' step reads, so a single stream on that build is faster than
    103.1: 12-60 cannot be met for a current engine without contradicting that measurement. Claimed: the 4-user
    row ±15 % (held out: 4.9 % median for its publication), one user between it and 1.5 × it; on 8 × B200 the
    same build measured 139.3 tokens/s for one user (InferenceX PR #3363, TPOT 7.18 ms): ±15 % (held out 5.7 %)."""
    h200, b200 = snapshot.gpus["h200-sxm"], snapshot.gpus["b200-sxm"]
    four = _per_user(h200, 8, "deepseek-r1", "fp8", "sglang", users=4, prompt=1024, output=1024)
    one = _per_user(h200, 8, "deepseek-v3", "fp8", "sglang", users=1, prompt=128, output=256)
    assert four == pytest.approx(103.1, rel=0.15)
    assert four < one < 1.5 * 103.1
    assert one > 103.1
    b200_one = _per_user(b200, 8, "deepseek-r1", "fp8", "sglang", users=1, prompt=1024, output=1024)
    assert b200_one == pytest.approx(139.3, rel=0.15)
    early = [
        r for r in srv.read_server_rows()
        if r.model.startswith("deepseek") and r.concurrency == "1" and r.gpu_name == "H200 SXM 141GB"
    ]  # fmt: skip
    assert {12 < r.tokens_per_s < 60 for r in early} == {True}
    assert {cal.source_group(r.source) for r in early} <= set(cal.OLD_BUILDS)
    assert len(early) >= 4


def test_mla_layers_pay_their_own_fixed_time(snapshot: CatalogSnapshot) -> None:
    """The absorbed-MLA decode path runs more kernels per layer than GQA attention (calibration.
    SERVER_TAU_MLA_LAYER_S, fitted on the DeepSeek-R1 rows); a model without MLA pays none of it."""
    gpu = snapshot.gpus["h200-sxm"]
    one = _per_user(gpu, 8, "deepseek-v3", "fp8", "sglang", users=1, prompt=128, output=256)
    fixed = 61 * (cal.SERVER_TAU_LAYER_S + cal.SERVER_TAU_MLA_LAYER_S)
    assert 0.5 / one < fixed < 1 / one  # most of a single-stream step is the fixed per-layer time, not bytes
    assert cal.SERVER_TAU_MLA_LAYER_S > 0
    assert not model_get("llama-3.3-70b").is_mla and model_get("deepseek-v3").is_mla


def test_llama_405b_fp8_on_8_h200_at_full_load(snapshot: CatalogSnapshot) -> None:
    """NVIDIA/TensorRT-LLM perf-overview.md @00f37686: Llama 3.1 405B FP8, H200 TP8, ISL/OSL 1000/1000, every
    request queued: 3,330 output tokens/s. Claimed: ±25 % (TensorRT-LLM held out: 18 % median). Prefill shares
    the GPUs; ignoring it (the old estimate) says more than 1.5× the measured figure."""
    gpu = snapshot.gpus["h200-sxm"]
    workload = Workload(
        model=model_get("llama-3.1-405b"), precision="fp8", kv_cache_precision="fp8", engine="tensorrt-llm"
    )
    served = served_throughput(workload, gpu, 8, prompt_tokens=1000, output_tokens=1000, link_gbs=srv.nvswitch_gbs(gpu))
    assert served.tokens_per_s == pytest.approx(3330, rel=0.25)
    assert 0.3 < served.decode_share < 0.8
    decode_only = served_throughput(
        workload, gpu, 8, prompt_tokens=1000, output_tokens=1000, link_gbs=srv.nvswitch_gbs(gpu), with_prefill=False
    )
    assert decode_only.tokens_per_s > 1.5 * 3330


def test_mlperf_llama2_70b_fp4_on_one_b200(snapshot: CatalogSnapshot) -> None:
    """MLPerf Inference v4.1 (preview category), 1 × B200 at the HGX B200's 1000 W, Llama 2 70B Offline in FP4:
    11,264 tokens/s (developer.nvidia.com/blog/nvidia-blackwell-platform-sets-new-llm-inference-records-in-mlperf-
    inference-v4-1/). It was estimated +48 % while batched decode ran at the FP4 peak. The peak is right (9 PFLOPS
    dense, twice the 4.5 of FP8: the datasheet's sparse 18 / 9 halved), but at a decode batch's rows an NVFP4 GEMM
    runs no faster than an FP8 one (speed._BLACKWELL's note: vLLM PRs #20646 and #19566 on a B200), so decode
    takes the FP8 rate and prefill keeps the FP4 one. Claimed: ±15 % (held out: 3.4 %)."""
    gpu = snapshot.gpus["b200-sxm"]
    workload = Workload(
        model=model_get("llama-2-70b"), precision="nvfp4", kv_cache_precision="fp8", engine="tensorrt-llm"
    )
    served = served_throughput(workload, gpu, 1, prompt_tokens=200, output_tokens=293)
    assert served.tokens_per_s == pytest.approx(11264, rel=0.15)
    assert _peak_flops(gpu, "nvfp4", "tensorrt-llm") == 2 * _peak_flops(gpu, "fp8", "tensorrt-llm") == 9000e12
    # a GEMM of ≤ 2,048 rows (a decode batch, an expert's tokens) at the FP8 rate, a prompt chunk's at FP4's
    assert _peak_flops(gpu, "nvfp4", "tensorrt-llm", rows=2048) == _peak_flops(gpu, "fp8", "tensorrt-llm")
    assert _peak_flops(gpu, "nvfp4", "tensorrt-llm", rows=8192) == 9000e12


def test_prompt_heavy_requests_are_prefill_bound(snapshot: CatalogSnapshot) -> None:
    """Same table, ISL/OSL 2048/128: 456 tokens/s, a seventh of the 1000/1000 figure: prefill dominates."""
    gpu = snapshot.gpus["h200-sxm"]
    workload = Workload(
        model=model_get("llama-3.1-405b"), precision="fp8", kv_cache_precision="fp8", engine="tensorrt-llm"
    )
    served = served_throughput(workload, gpu, 8, prompt_tokens=2048, output_tokens=128, link_gbs=gpu.nvlink_gbs)
    assert served.tokens_per_s == pytest.approx(456, rel=0.25)
    assert served.decode_share < 0.2


@pytest.mark.parametrize(
    ("sku", "slug", "precision", "context", "measured"),
    [
        # llama.cpp discussion #15013 (secondary quote), tg128, build of 2025
        ("rtx-5080", "llama-2-7b", "q4_0", 64, 181.99),
        # llama.cpp PR #17505, t/s master of Nov 2025, one token per step at depth 32768
        ("rtx-4090", "llama-3-8b", "q4_0", 33024, 98.14),
        # geerlingguy/ai-benchmarks README @bdf94413, Ollama eval rate (Q4_K_M default tag, unverified)
        ("rtx-4090", "deepseek-r1-distill-qwen-14b", "q4_k_m", 400, 92.49),
        # llama.cpp PR #26284 (ROCm), tg64 at depth 4096: an AMD K-quant, slower per byte than on NVIDIA
        ("rx-7900-xtx", "llama-3-8b", "q4_k_m", 4128, 98.67),
        # llama.cpp PR #21086, RTX 5090 at microbatch 1 after 8192 cached tokens: an MoE of 48 MoE layers
        ("rtx-5090", "qwen3-30b-a3b", "q4_0", 8448, 211.03),
    ],
)
def test_current_llamacpp_small_models(
    snapshot: CatalogSnapshot, sku: str, slug: str, precision: str, context: int, measured: float
) -> None:
    """Current builds run faster than the early-2024 builds the old 69 µs/layer came from. Claimed: ±20 %
    (current builds held out: 7.2 % median, 19.2 % p90 over 25 rows in `make accuracy`)."""
    ours = _per_user(snapshot.gpus[sku], 1, slug, precision, "llama.cpp", users=1, prompt=context, output=1)
    assert ours == pytest.approx(measured, rel=0.20)


def test_shipped_server_constants_are_the_fit_of_the_published_rows(snapshot: CatalogSnapshot) -> None:
    rows = [r for r in srv.read_server_rows() if r.metric == "per_user"]
    samples = [s for s in srv.server_samples(rows, snapshot.gpus) if s.era == "current"]
    fit = srv.fit_server(samples)
    assert fit.eta == pytest.approx(cal.SERVER_ETA_HBM, abs=0.001)
    assert fit.tau_layer_s == pytest.approx(cal.SERVER_TAU_LAYER_S, abs=0.1e-6)
    assert fit.tau_mla_layer_s == pytest.approx(cal.SERVER_TAU_MLA_LAYER_S, abs=0.1e-6)
    assert fit.eta < 1.0  # a share of the datasheet bandwidth, not more


def test_every_server_row_names_its_source_engine_version_and_settings() -> None:
    rows = srv.read_server_rows()
    assert len({cal.source_group(r.source) for r in rows}) >= 4
    for row in rows:
        assert row.source and row.engine_version and row.parallelism and row.notes
        assert row.engine in cal.SERVER_ENGINES
        assert row.metric in ("per_user", "total_output")
        assert model_get(row.model).slug == row.model
        assert row.gpu_name in GPU_SKU_BY_NAME


def test_sglang_is_an_engine(snapshot: CatalogSnapshot) -> None:
    workload = Workload(model=model_get("llama-3.1-8b"), precision="fp8", engine="sglang")
    result = estimate(workload, snapshot.gpus["h100-sxm"])
    assert result.throughput is not None
    assert result.throughput.decode_tokens_per_s_per_user > 0
    assert cal.engine_family("SGLang v0.5.7") == "sglang"


def test_fit_server_recovers_the_constants_that_made_the_rows() -> None:
    """Rows made from η = 0.8 and τ_layer = 50 µs (plus their all-reduce time) give back exactly those."""
    shapes = [(0.004, 61, 0.0005), (0.009, 61, 0.0005), (0.0005, 36, 0.0003), (0.002, 36, 0.0003)]
    samples = [
        srv.ServerSample(f"r{i}", b / 0.8 + layers * 50e-6 + ar, b, 0.0, layers, ar)
        for i, (b, layers, ar) in enumerate(shapes)
    ]
    fit = srv.fit_server(samples)
    assert fit.eta == pytest.approx(0.8, rel=1e-9)
    assert fit.tau_layer_s == pytest.approx(50e-6, rel=1e-9)
    assert fit.tau_mla_layer_s == 0.0  # no MLA row: the term is not invented
    assert srv.constant_eta_server(samples) < 0.8  # the constant-η rule charges the fixed time as bytes


def test_fit_server_recovers_the_mla_layer_time() -> None:
    """Rows made from η = 0.8, τ_layer = 50 µs and, on the MLA rows, 20 µs more per layer give back all three."""
    shapes = [(0.004, 61, 0.0005, 61), (0.009, 61, 0.0005, 61), (0.0005, 36, 0.0003, 0), (0.002, 80, 0.0003, 0)]
    samples = [
        srv.ServerSample(f"r{i}", b / 0.8 + layers * 50e-6 + mla * 20e-6 + ar, b, 0.0, layers, ar, mla_layers=mla)
        for i, (b, layers, ar, mla) in enumerate(shapes)
    ]
    fit = srv.fit_server(samples)
    assert (fit.eta, fit.tau_layer_s, fit.tau_mla_layer_s) == pytest.approx((0.8, 50e-6, 20e-6), rel=1e-9)
    assert fit.constants().tau_mla_layer_s == fit.tau_mla_layer_s
