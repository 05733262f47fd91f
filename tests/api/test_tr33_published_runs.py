"""Trial tr33: published runs replayed through POST /api/v1/estimate as written. A stated layout (TensorRT-LLM
perf-overview's RTX PRO 6000 'TP1,PP8', vLLM --tensor-parallel-size) was followed by the assumption the estimate
writes when it chooses the split itself ("serving layout: 1 data-parallel replica(s) of tensor parallelism 8, the
split ... that serves the workload's users fastest"): another layout than the one stated and estimated."""

from __future__ import annotations

from rest_framework.test import APIClient

from tests.api.estimating import estimated

URL = "/api/v1/estimate"

# TensorRT-LLM docs/source/performance/perf-overview.md @00f37686, Llama 3.3 70B on RTX 6000 Pro Blackwell Server
# Edition, 8 GPUs TP1,PP8 (FP4), ISL/OSL 1000/1000
PIPELINE = {
    "model": "nvidia/Llama-3.3-70B-Instruct-FP4", "engine": "TensorRT-LLM", "precision": "FP4",
    "gpu": "RTX 6000 Pro Blackwell Server Edition", "gpu_count": 8, "tensor_parallel_size": 1,
    "pipeline_parallel_size": 8, "concurrent_users": 64, "prompt_tokens": 1000, "output_tokens": 1000,
}  # fmt: skip


def test_a_stated_pipeline_is_not_described_as_a_chosen_tensor_split(catalog: None, api_client: APIClient) -> None:
    body = estimated(api_client, PIPELINE)
    said = body["assumptions"]
    assert any(s.startswith("layout as stated: tensor parallel 1 × pipeline parallel 8") for s in said)
    assert not any(s.startswith(("serving layout:", "full load: the build's capacity")) for s in said)
    assert body["gpu"]["parallelism"] == "pipeline"
    assert (body["throughput"]["served_tensor_parallel"], body["throughput"]["served_replicas"]) == (1, 1)


def test_stated_tensor_replicas_say_the_stated_split_only(catalog: None, api_client: APIClient) -> None:
    body = estimated(
        api_client,
        {"model": "llama-3.3-70b", "gpu": "h100-sxm", "gpu_count": 8, "precision": "fp8", "concurrent_users": 64,
         "tensor_parallel_size": 2},
    )  # fmt: skip
    said = body["assumptions"]
    assert said[0].startswith("layout as stated: tensor parallel 2 × pipeline parallel 1, 4 replicas of it")
    assert not any(s.startswith("serving layout:") for s in said)
    # the estimate's own choice still explains itself
    chosen = estimated(api_client, {"model": "llama-3.3-70b", "gpu": "h100-sxm", "gpu_count": 8, "precision": "fp8"})
    assert any(s.startswith("serving layout:") for s in chosen["assumptions"])


def test_names_benchmark_pages_write_are_read(catalog: None, api_client: APIClient) -> None:
    """Spellings of published runs that were 400s: AMD's GPU line with its board power, NIM and the engines'
    commands, vLLM's `--kv-cache-dtype auto`, re-publishers' ids of Meta's first repo names and RedHat's
    llm-compressor suffixes."""
    base = {"model": "llama-3.1-8b", "gpu": "h100-sxm", "prompt_tokens": 1000, "output_tokens": 200}
    amd = estimated(api_client, {**base, "gpu": "MI300X (192GB HBM3 750W)"})
    assert amd["gpu"]["sku"] == "mi300x"
    assert estimated(api_client, {**base, "gpu": "RTX PRO 6000 Blackwell Server Edition"})["gpu"]["sku"] == (
        "rtx-pro-6000-blackwell-server"
    )
    nim = estimated(api_client, {**base, "engine": "NIM", "precision": "fp8"})
    assert any(s.startswith("engine NIM read as tensorrt-llm") for s in nim["assumptions"])
    for said, engine in (("trtllm-serve", "tensorrt-llm"), ("vLLM V1", "vllm")):
        body = estimated(api_client, {**base, "engine": said})
        assert any(s.startswith(f"{engine} activation peak") for s in body["assumptions"]), body["assumptions"]
    auto = estimated(api_client, {**base, "kv_cache_precision": "auto"})
    assert any(s.startswith("KV cache bf16") for s in auto["assumptions"])
    for pasted, slug, weights in (
        ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "llama-3.1-8b", "fp8"),
        ("RedHatAI/Llama-3.1-8B-Instruct-quantized.w4a16", "llama-3.1-8b", "int4"),
        ("RedHatAI/Llama-3.1-8B-Instruct-quantized.w8a8", "llama-3.1-8b", "int8"),
        ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "llama-3.1-70b", "int4"),
    ):
        body = estimated(api_client, {**base, "model": pasted, "gpu_count": 2})
        assert body["model"]["slug"] == slug
        assert any(s.startswith(f"Weights: {weights}") for s in body["assumptions"]), (pasted, body["assumptions"])
