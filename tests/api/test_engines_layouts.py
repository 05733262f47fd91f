"""Issue 33, item 2 through POST /api/v1/estimate: per-engine efficiency (TensorRT-LLM's MFU factor), the layout an
engine would choose at full load (data-parallel replicas of tensor parallelism k), AMD's own measured efficiency
(or "unvalidated"), CUDA graphs on/off, and per-user decode under load, each against a published run with the
error claimed.

The published figures are rows of fixtures/server_speed.csv; `make accuracy` (bench/accuracy_server.py) judges
them leave-one-source-out. The errors claimed here are those of the shipped constants on these rows, which were
fitted on them too (in-sample), so each docstring also gives the held-out figure `make accuracy` printed."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from configurator.engine import calibration as cal
from tests.api.estimating import estimated

URL = "/api/v1/estimate"

# NVIDIA NIM 1.8.0, Llama-3.3-70B-Instruct FP8 TP2 on 2 × H100 80G, 5,000 input / 500 output tokens
# (docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance): ITL 18.58 / 38.75 / 59.73 ms at 1 / 25 / 50 users.
NIM_70B = {
    "model": "llama-3.3-70b", "precision": "fp8", "kv_cache_precision": "fp8", "engine": "tensorrt-llm",
    "context_tokens": 5500, "prompt_tokens": 5000, "output_tokens": 500, "gpu": "h100-sxm", "gpu_count": 2,
}  # fmt: skip

# MLPerf Inference v4.1 Llama-2-70B Offline (mlcommons/inference_results_v4.1): FP8, ~293 output tokens per sample;
# the mean prompt is not in the logs, 200 tokens is our estimate (fixtures/server_speed.csv notes). Offline queues
# every sample at once: 1,024 users (vLLM's max_num_seqs on these GPUs), since estimate() lays the GPUs out for the
# workload's users (one user would get tensor parallelism over all 8; issue 34 trial, item A).
MLPERF_70B = {
    "model": "llama-2-70b", "precision": "fp8", "kv_cache_precision": "fp8", "context_tokens": 493,
    "prompt_tokens": 200, "output_tokens": 293, "gpu_count": 8, "concurrent_users": 1024,
}  # fmt: skip


@pytest.mark.parametrize(
    ("users", "published", "claimed"),
    [
        (1, 1000 / 18.58, 0.10),  # 53.8 tok/s: ours 52.0 (−3 %)
        (25, 1000 / 38.75, 0.15),  # 25.8 tok/s: ours 23.0 (−11 %)
        (50, 1000 / 59.73, 0.15),  # 16.7 tok/s: ours 14.5 (−13 %)
    ],
)
def test_nim_70b_per_user_speed_falls_with_the_other_users_prompts(
    catalog: None, api_client: APIClient, users: int, published: float, claimed: float
) -> None:
    """Each of N users decodes while the other users' 5,000-token prompts are prefilled (+52 % and +83 % too fast
    at 25 and 50 users before issue 33). Claimed: ±10 % at 1 user, ±15 % at 25 and 50; `make accuracy` holds the
    NIM rows out: 10.0 % median, 14.0 % p90 (per-user table, docs.nvidia.com/nim/... group)."""
    speed = estimated(api_client, {**NIM_70B, "concurrent_users": users})["throughput"]
    assert speed["decode_tokens_per_s_per_user"] == pytest.approx(published, rel=claimed)
    if users > 1:
        assert speed["prefill_share"] > 0.4  # most of each step is the others' prompts (5,000 tokens each)


def test_mlperf_llama2_70b_offline_on_8_h200_and_its_layout(catalog: None, api_client: APIClient) -> None:
    """MLPerf v4.1 NVIDIA closed, H200-SXM-141GBx8_TRT, llama2-70b-99 Offline: 31,302.7 tokens/s, run as 8 replicas
    of one GPU (configs/llama2-70b/Offline: H200_SXM_141GBx8 tensor_parallelism 1). The estimate chooses the same
    layout itself (it tries every split of the 8 GPUs for the 1,024 queued samples). Claimed: ±15 %; held out in
    `make accuracy` (MLPerf NVIDIA group, at the refitted MFU). On 8 × H100 NVIDIA ran 4 × TP2
    (H100_SXM_80GB_TP2x4): 24,524.9 tokens/s; MLPerf v5.0 NVIDIA closed measured the same 8 × H100 at 31,307 with a
    later TensorRT-LLM (fixtures/server_speed.csv). Ours, at the refitted constants of issue 33, also 4 × TP2:
    claimed within the two rounds' span, ±5 %."""
    h200 = estimated(api_client, {**MLPERF_70B, "gpu": "h200-sxm", "engine": "tensorrt-llm"})["throughput"]
    assert h200["served_output_tokens_per_s"] == pytest.approx(31302.7, rel=0.15)
    assert (h200["served_replicas"], h200["served_tensor_parallel"]) == (8, 1)
    h100 = estimated(api_client, {**MLPERF_70B, "gpu": "h100-sxm", "engine": "tensorrt-llm"})["throughput"]
    assert 0.95 * 24524.9 < h100["served_output_tokens_per_s"] < 1.05 * 31307
    assert (h100["served_replicas"], h100["served_tensor_parallel"]) == (4, 2)
    # the memory check stays one instance on all 8 GPUs; one user is served by tensor parallelism over all 8
    one = estimated(api_client, {**MLPERF_70B, "gpu": "h200-sxm", "engine": "tensorrt-llm", "concurrent_users": 1})
    assert one["gpu"]["parallelism"] == "tensor"
    assert (one["throughput"]["users_replicas"], one["throughput"]["users_tensor_parallel"]) == (1, 8)
    # the full load is the build's capacity whatever the users: MLPerf's 8 × TP1
    assert (one["throughput"]["served_replicas"], one["throughput"]["served_tensor_parallel"]) == (8, 1)
    assert one["throughput"]["served_output_tokens_per_s"] == pytest.approx(31302.7, rel=0.15)


def test_8_h200_serve_llama2_70b_faster_than_8_mi300x(catalog: None, api_client: APIClient) -> None:
    """MLPerf v4.1 Llama-2-70B Offline: 8 × H200 31,302.7 tokens/s (NVIDIA, TensorRT-LLM) against 8 × MI300X
    23,514.8 (AMD, vLLM on ROCm). On paper the MI300X has more bandwidth (5.3 vs 4.8 TB/s) and FLOPs (1,307 vs 990
    TFLOPS), and with NVIDIA-fitted efficiencies it ranked first (+54 %); its matrix cores run at 0.65 of that
    MFU (measured on these rows and, held out, on Oracle's MI300X runs). Ours: 8 × MI300X 23,857 (+1.5 %, claimed
    ±10 %), below 8 × H200 on the same engine (vLLM: 27,606) and on TensorRT-LLM (31,315)."""
    mi300x = estimated(api_client, {**MLPERF_70B, "gpu": "mi300x", "engine": "vllm"})
    assert mi300x["throughput"]["served_output_tokens_per_s"] == pytest.approx(23514.8, rel=0.10)
    for engine in ("vllm", "tensorrt-llm"):
        h200 = estimated(api_client, {**MLPERF_70B, "gpu": "h200-sxm", "engine": engine})["throughput"]
        assert h200["served_output_tokens_per_s"] > 1.1 * mi300x["throughput"]["served_output_tokens_per_s"]
    assert any("MLPerf Inference v4.1, AMD's MI300X results" in a for a in mi300x["assumptions"])


def test_amd_gpus_without_published_runs_are_labelled_unvalidated(catalog: None, api_client: APIClient) -> None:
    body = estimated(
        api_client,
        {"model": "llama-3.1-8b", "precision": "bf16", "engine": "vllm", "gpu": "radeon-pro-w7900", "gpu_count": 1},
    )
    assert any("unvalidated" in a and "MI300X" in a for a in body["assumptions"])
    nvidia = estimated(api_client, {"model": "llama-3.1-8b", "precision": "bf16", "engine": "vllm", "gpu": "l40s"})
    assert not any("AMD GPU" in a for a in nvidia["assumptions"])


def test_tensorrt_llm_prefills_faster_than_vllm_on_the_same_build(catalog: None, api_client: APIClient) -> None:
    """TensorRT-LLM's MFU on FP8 GEMMs is ENGINE_MFU_FACTOR × the pooled one (1.02 fitted on its FP8 full-load rows
    of seven publications; 1.14 on four before issue 33's rows moved the gap into the pooled MFU): the same
    5,000-token prompt's first token comes that much sooner, the memory-bound single-user decode is the same."""
    trt = estimated(api_client, {**NIM_70B, "concurrent_users": 1})["throughput"]
    vllm = estimated(api_client, {**NIM_70B, "concurrent_users": 1, "engine": "vllm"})["throughput"]
    factor = cal.ENGINE_MFU_FACTOR["tensorrt-llm"]
    assert vllm["time_to_first_token_s"] / trt["time_to_first_token_s"] == pytest.approx(factor, rel=0.01)
    assert trt["decode_tokens_per_s_per_user"] == pytest.approx(vllm["decode_tokens_per_s_per_user"], rel=0.01)


def test_eager_mode_is_an_input_and_slows_small_batches(catalog: None, api_client: APIClient) -> None:
    """vLLM --enforce-eager launches every kernel from the host: +0.34 ms per layer per step (vllm-project/
    vllm-omni issue #7960, Qwen2.5-7B thinker on an A800: TPOT 22.5 ms eager vs 13 ms with CUDA graphs). Llama-3.1-8B
    BF16 on one H100 at one user: 135.9 tok/s with graphs, 54.8 eager (32 layers × 0.34 ms = 10.9 ms a token)."""
    body = {"model": "llama-3.1-8b", "precision": "bf16", "engine": "vllm", "gpu": "h100-sxm", "context_tokens": 1200}
    graphs = estimated(api_client, body)
    eager = estimated(api_client, {**body, "cuda_graphs": False})
    ratio = graphs["throughput"]["decode_tokens_per_s_per_user"] / eager["throughput"]["decode_tokens_per_s_per_user"]
    assert 2.0 < ratio < 3.0
    assert any("eager mode" in a for a in eager["assumptions"])
    assert not any("eager mode" in a for a in graphs["assumptions"])
    # llama.cpp has no CUDA-graph switch here: the field does not move it
    gguf = {**body, "precision": "q4_k_m", "engine": "llama.cpp"}
    assert (
        estimated(api_client, gguf)["throughput"]["decode_tokens_per_s_per_user"]
        == estimated(api_client, {**gguf, "cuda_graphs": False})["throughput"]["decode_tokens_per_s_per_user"]
    )
    refused = api_client.post(URL, {**body, "cuda_graphs": "sometimes"}, format="json")
    assert refused.status_code == 400
    assert list(refused.json()["error"]["fields"]) == ["cuda_graphs"]


def test_nvfp4_runs_at_the_fp4_peak_on_blackwell_only(catalog: None, api_client: APIClient) -> None:
    """NVFP4 GEMMs run on Blackwell's FP4 tensor cores at twice the FP8 rate (B200: 9 PFLOPS dense FP4, 4.5 FP8),
    so a compute-bound 8,000-token prompt of Llama-3.3-70B prefills ~2 × sooner than in FP8; before Blackwell vLLM
    runs NVFP4 through Marlin W4A16 (BF16 GEMMs), half the H100's FP8 rate."""
    body = {
        "model": "llama-3.3-70b", "engine": "vllm", "context_tokens": 8192, "prompt_tokens": 8000,
        "output_tokens": 192, "gpu_count": 1,
    }  # fmt: skip

    def first_token(gpu: str, precision: str) -> float:
        speed = estimated(api_client, {**body, "gpu": gpu, "precision": precision})["throughput"]
        return float(speed["time_to_first_token_s"])

    assert first_token("b200-sxm", "fp8") / first_token("b200-sxm", "nvfp4") == pytest.approx(2.0, rel=0.15)
    assert first_token("h100-sxm", "nvfp4") / first_token("h100-sxm", "fp8") == pytest.approx(2.0, rel=0.15)


def test_deepseek_v3_single_stream_eager_and_with_cuda_graphs(catalog: None, api_client: APIClient) -> None:
    """DeepSeek-V3 FP8 on 8 × H200, one user. Publications of 12-60 tok/s are builds without CUDA graphs for MLA
    (vLLM 0.6.6: ~10 tok/s, deepseek-ai/DeepSeek-V3 issue #24, Dec 2024), SGLang's first DP-attention build
    (v0.4.1.post2: 30.29, sgl-project/sglang PR #2643) or two nodes over InfiniBand (32-43 on 16 × H100,
    tenstorrent/tt-inference-server issue #356). Eager, 61 layers × (80 + 340 µs) of host-launched kernels: ours
    36.5, inside 12-60. With CUDA graphs the current build is faster than that at 8 users already: SGLang 0.5.7,
    DeepSeek-R1 FP8 TP8, 78.1 tok/s per user at 8 users (SemiAnalysisAI/InferenceX issue #870, mean TPOT 12.8 ms;
    ours 80.0, +2 %), so one user cannot be below 78: ours 150 (no published single-stream run of that build
    to judge it; DP attention and expert parallelism, which would slow one stream, are not modelled)."""
    body = {
        "model": "deepseek-v3", "precision": "fp8", "engine": "sglang", "gpu": "h200-sxm", "gpu_count": 8,
        "context_tokens": 384, "prompt_tokens": 128, "output_tokens": 256,
    }  # fmt: skip
    eager = estimated(api_client, {**body, "cuda_graphs": False})["throughput"]["decode_tokens_per_s_per_user"]
    assert 12 <= eager <= 60
    graphs = estimated(api_client, body)["throughput"]["decode_tokens_per_s_per_user"]
    r1 = {**body, "model": "deepseek-r1", "context_tokens": 2048, "prompt_tokens": 1024, "output_tokens": 1024}
    eight = estimated(api_client, {**r1, "concurrent_users": 8})["throughput"]["decode_tokens_per_s_per_user"]
    assert eight == pytest.approx(78.13, rel=0.10)
    assert graphs > eight


def test_deepseek_v3_single_stream_on_8_h200_through_the_api(catalog: None, api_client: APIClient) -> None:
    """Issue 33's "DeepSeek-V3 single stream in 12-60" through POST /api/v1/estimate: it answers what a current
    SGLang does, not the early-2025 builds those figures measured (tests/configurator/test_speed_acceptance.py
    holds the reasoning): SGLang v0.5.12 serves 103.1 tokens/s to each of 4 users of 8 × H200 (SemiAnalysisAI/
    InferenceX PR #3173, no speculative decoding), so one user gets more; claimed below 1.5 × that."""
    body = {
        "model": "deepseek-v3", "precision": "fp8", "engine": "sglang", "gpu": "h200-sxm", "gpu_count": 8,
        "context_tokens": 384, "prompt_tokens": 128, "output_tokens": 256,
    }  # fmt: skip
    one = estimated(api_client, {**body, "concurrent_users": 1})["throughput"]["decode_tokens_per_s_per_user"]
    four = estimated(api_client, {**body, "concurrent_users": 4})["throughput"]["decode_tokens_per_s_per_user"]
    assert 103.1 < one < 1.5 * 103.1
    assert four < one
