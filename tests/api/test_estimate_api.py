"""POST /api/v1/estimate and GET /api/v1/llm-models/ (ARCHITECTURE.md §HTTP API)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.fixture import fixture_snapshot
from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload
from configurator.outputs import EstimateOutputSerializer
from tests.model_configs import GPT_OSS_20B, LLAMA_3_1_8B

URL = "/api/v1/estimate"
EXAMPLE = {
    "model": "llama-3.1-70b",
    "task": "inference",
    "precision": "q4_k_m",
    "kv_cache_precision": "f16",
    "context_tokens": 8192,
    "concurrent_users": 1,
    "batch_size": 1,
    "engine": "llama.cpp",
    "gpu": "rtx-4090",
    "gpu_count": 2,
}


def _post(client: APIClient, body: dict[str, Any]) -> Any:
    return client.post(URL, body, format="json")


def test_routes() -> None:
    assert reverse("estimate") == URL
    assert reverse("llm-models") == "/api/v1/llm-models/"


def test_contract_example(catalog: None, api_client: APIClient) -> None:
    response = _post(api_client, EXAMPLE)
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["model", "memory_gib", "gpu", "throughput", "assumptions"]
    assert body["model"] == {"slug": "llama-3.1-70b", "total_params_b": 70.55, "active_params_b": 70.55}
    assert list(body["memory_gib"]) == [
        "weights", "kv_cache", "activations", "gradients", "optimizer", "overhead", "total"
    ]  # fmt: skip
    assert body["memory_gib"]["kv_cache"] == 2.5  # 320 KiB × 8192 tokens
    assert body["gpu"]["sku"] == "rtx-4090"
    assert (body["gpu"]["count"], body["gpu"]["parallelism"], body["gpu"]["fits"]) == (2, "pipeline", True)
    assert body["gpu"]["usable_gib"] == 24.0
    assert list(body["throughput"]) == [
        "decode_tokens_per_s_per_user", "decode_tokens_per_s_total", "prefill_tokens_per_s", "time_to_first_token_s",
        "training_tokens_per_s", "served_output_tokens_per_s", "served_sequences", "prompt_tokens", "output_tokens",
        "prefill_share", "served_tensor_parallel", "served_replicas", "users_tensor_parallel", "users_replicas",
    ]  # fmt: skip
    # llama.cpp runs one instance on both GPUs: the full load is that layout
    assert (body["throughput"]["served_tensor_parallel"], body["throughput"]["served_replicas"]) == (2, 1)
    # one user, no request stated: a request that fills the 8,192-token context, 512 of it the answer
    assert (body["throughput"]["prompt_tokens"], body["throughput"]["output_tokens"]) == (7680, 512)
    assert body["throughput"]["prefill_share"] == 0  # nobody else's prompt shares the steps
    assert body["throughput"]["training_tokens_per_s"] == 0
    assert body["gpu"]["kv_cache_tokens"] is None  # llama.cpp: no engine KV pool
    assert 14 < body["throughput"]["decode_tokens_per_s_per_user"] < 22  # XiongjieDai 2×4090 70B: 19.06
    assert any("Q4_K_M" in text for text in body["assumptions"])
    # the API returns exactly what the pure estimator computes
    gpu = fixture_snapshot().gpus["rtx-4090"]
    workload = Workload(
        model=model_get("llama-3.1-70b"), precision="q4_k_m", kv_cache_precision="f16", context_tokens=8192,
        engine="llama.cpp",
    )  # fmt: skip
    assert body == EstimateOutputSerializer(estimate(workload, gpu, 2)).data


def test_without_gpu_gpu_and_throughput_are_null(api_client: APIClient) -> None:
    response = _post(api_client, {"model": "meta-llama/Llama-3.1-8B", "precision": "bf16"})
    assert response.status_code == 200
    body = response.json()
    assert body["gpu"] is None
    assert body["throughput"] is None
    assert body["model"]["slug"] == "llama-3.1-8b"
    assert body["memory_gib"]["weights"] == 14.96  # 8,030,261,248 × 2 B
    assert body["memory_gib"]["kv_cache"] == 0.5  # 128 KiB × 4096 default tokens


def test_defaults_follow_the_precision(api_client: APIClient) -> None:
    """engine: llama.cpp for GGUF types, vllm otherwise; precision: the model's native one."""
    gguf = _post(api_client, {"model": "llama-3.1-8b", "precision": "q4_k_m"}).json()
    assert any("llama.cpp" in text for text in gguf["assumptions"])
    native = _post(api_client, {"model": "gpt-oss-20b"}).json()
    assert any("MXFP4 experts" in text for text in native["assumptions"])


def test_unknown_model_is_400_naming_the_field(api_client: APIClient) -> None:
    response = _post(api_client, {"model": "no-such-model-9000"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "unknown_model"
    assert list(error["fields"]) == ["model"]


def test_missing_model_is_400(api_client: APIClient) -> None:
    response = _post(api_client, {"precision": "bf16"})
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["model"]


def test_unknown_gpu_is_400_naming_the_field(catalog: None, api_client: APIClient) -> None:
    response = _post(api_client, {**EXAMPLE, "gpu": "rtx-9999"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], list(error["fields"])) == ("unknown_sku", ["gpu"])


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"precision": "q1_x"}, "precision"),
        ({"kv_cache_precision": "int2"}, "kv_cache_precision"),
        ({"context_tokens": 0}, "context_tokens"),
        ({"context_tokens": 3_000_000}, "context_tokens"),
        ({"concurrent_users": 10_001}, "concurrent_users"),
        ({"task": "pretrain"}, "task"),
        ({"engine": "exllama"}, "engine"),
        ({"gpu_count": 0}, "gpu_count"),
        ({"zero_stage": 4}, "zero_stage"),
        ({"offload": "disk"}, "offload"),
        ({"engine": "tensorrt-llm"}, "engine"),  # GGUF weights on TensorRT-LLM
        ({"kv_cache_precision": "fp8"}, "kv_cache_precision"),  # no fp8 KV in llama.cpp
        ({"model_config": {"model_type": "llama"}}, "model"),  # both model and model_config
    ],
)
def test_bad_input_is_400_naming_the_field(api_client: APIClient, change: dict[str, Any], field: str) -> None:
    response = _post(api_client, {**{k: v for k, v in EXAMPLE.items() if k != "gpu"}, **change})
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


LLAMA_CONFIG = LLAMA_3_1_8B


def test_pasted_config_json(catalog: None, api_client: APIClient) -> None:
    response = _post(api_client, {"model_config": LLAMA_CONFIG, "precision": "q4_k_m", "gpu": "rtx-3060-12gb"})
    assert response.status_code == 200
    body = response.json()
    assert body["model"] == {"slug": "custom-llama", "total_params_b": 8.03, "active_params_b": 8.03}
    assert body["gpu"]["fits"] is True


def test_pasted_config_missing_a_field_is_400_naming_it(api_client: APIClient) -> None:
    config = {k: v for k, v in LLAMA_CONFIG.items() if k != "num_hidden_layers"}
    response = _post(api_client, {"model_config": config})
    assert response.status_code == 400
    error = response.json()["error"]
    assert list(error["fields"]) == ["model_config.num_hidden_layers"]


def test_pasted_config_that_is_not_an_object(api_client: APIClient) -> None:
    response = _post(api_client, {"model_config": [1, 2, 3]})
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["model_config"]


def test_training_estimate(catalog: None, api_client: APIClient) -> None:
    body = {"model": "llama-3.1-8b", "task": "qlora", "gpu": "rtx-3060-12gb", "sequence_length": 2048}
    response = _post(api_client, body)
    assert response.status_code == 200
    result = response.json()
    assert result["gpu"]["fits"] is True
    assert result["memory_gib"]["optimizer"] > 0
    assert result["memory_gib"]["kv_cache"] == 0
    # issue 13: training speed is its own field, for the whole build; prefill stays 0
    assert result["throughput"]["training_tokens_per_s"] > 0
    assert result["throughput"]["prefill_tokens_per_s"] == 0


def test_server_engine_reports_its_kv_pool(catalog: None, api_client: APIClient) -> None:
    body = {"model": "llama-3.1-70b", "precision": "fp8", "gpu": "h100-sxm", "gpu_count": 4, "context_tokens": 8192}
    gpu = _post(api_client, body).json()["gpu"]
    assert gpu["kv_cache_tokens"] > 0
    assert gpu["max_concurrent_users"] == gpu["kv_cache_tokens"] // 8192


def test_offload_is_accepted_and_lowers_training_memory(catalog: None, api_client: APIClient) -> None:
    body = {"model": "llama-3.1-70b", "task": "full_finetune", "gpu": "a100-80gb-sxm", "gpu_count": 8, "zero_stage": 3}
    plain = _post(api_client, body).json()["gpu"]["per_gpu_gib"]
    offloaded = _post(api_client, {**body, "offload": "optimizer"}).json()["gpu"]["per_gpu_gib"]
    assert offloaded < plain


def test_nvswitch_gpus_use_their_fabric(catalog: None, api_client: APIClient) -> None:
    body = {"model": "llama-3.1-70b", "precision": "fp8", "gpu": "h100-sxm", "gpu_count": 4}
    result = _post(api_client, body).json()
    assert result["gpu"]["parallelism"] == "tensor"
    assert any("NVLink/NVSwitch 900" in text for text in result["assumptions"])


def test_llm_models_list(api_client: APIClient) -> None:
    response = api_client.get("/api/v1/llm-models/")
    assert response.status_code == 200
    models = response.json()
    # 30 + the 10 issue-13 models (Gemma 3, Qwen3-Next, Qwen3.5, OLMoE, GLM-4.5, TinyLlama) + Llama-2-70B
    # + 7 of issue 33 item 5
    assert len(models) == 50  # + Mistral-NeMo-12B, QwQ-32B (trial 34)
    by_slug = {m["slug"]: m for m in models}
    assert by_slug["llama-3.1-8b"] == {
        "slug": "llama-3.1-8b",
        "name": "Llama 3.1 8B",
        "hf_id": "meta-llama/Llama-3.1-8B",
        "family": "llama",
        "params": 8_030_261_248,
        "active_params": 8_030_261_248,
        "layers": 32,
        "context": 131072,
        "native_precision": "bf16",
    }


def test_llm_models_search(api_client: APIClient) -> None:
    response = api_client.get("/api/v1/llm-models/", {"search": "GPT-OSS"})
    assert [m["slug"] for m in response.json()] == ["gpt-oss-20b", "gpt-oss-120b"]
    assert api_client.get("/api/v1/llm-models/", {"search": "nothing-like-this"}).json() == []


@pytest.mark.parametrize(
    ("phrase", "first"),
    [
        ("llama 8b", ["llama-3.1-8b", "llama-3-8b"]),
        ("llama3", ["llama-3-8b", "llama-3-70b", "llama-3.3-70b"]),
        ("qwen 32b", ["qwen3-32b", "qwen2.5-32b"]),
        ("deepseek 671b", ["deepseek-r1", "deepseek-v3"]),
        ("r1", ["deepseek-r1", "deepseek-r1-distill-qwen-14b"]),
    ],
)
def test_llm_models_search_ranks_what_people_type(api_client: APIClient, phrase: str, first: list[str]) -> None:
    slugs = [m["slug"] for m in api_client.get("/api/v1/llm-models/", {"search": phrase}).json()]
    assert slugs[: len(first)] == first


def test_estimate_of_an_unknown_model_says_did_you_mean(api_client: APIClient) -> None:
    response = _post(api_client, {"model": "llama 8b", "precision": "bf16"})
    assert response.status_code == 400
    assert "Did you mean: llama-3.1-8b, llama-3-8b?" in json.dumps(response.json())


def test_openapi_schema_describes_the_estimate() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/estimate"]["post"]
    request_ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    response_ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    components = schema["components"]["schemas"]
    request = components[request_ref.rsplit("/", 1)[-1]]
    assert {"model", "model_config", "precision", "gpu", "gpu_count", "context_tokens"} <= set(request["properties"])
    response = components[response_ref.rsplit("/", 1)[-1]]
    assert set(response["properties"]) == {"model", "memory_gib", "gpu", "throughput", "assumptions"}
    assert "/api/v1/llm-models/" in schema["paths"]


GPT_OSS_CONFIG = GPT_OSS_20B
QWEN3_MOE_CONFIG = {
    **LLAMA_CONFIG,
    "model_type": "qwen3_moe",
    "moe_intermediate_size": 768,
    "num_experts": 128,
    "num_experts_per_tok": 8,
}
MIXTRAL_CONFIG = {**LLAMA_CONFIG, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2}


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({**GPT_OSS_CONFIG, "experts_per_token": "four"}, "experts_per_token"),
        ({**LLAMA_CONFIG, "max_position_embeddings": "big"}, "max_position_embeddings"),
        ({**QWEN3_MOE_CONFIG, "mlp_only_layers": 5}, "mlp_only_layers"),
        ({**LLAMA_CONFIG, "hidden_size": 1e308}, "hidden_size"),
        ({**LLAMA_CONFIG, "num_hidden_layers": 400000}, "num_hidden_layers"),
        ({**LLAMA_CONFIG, "num_key_value_heads": 0}, "num_key_value_heads"),
        ({**MIXTRAL_CONFIG, "num_local_experts": 0}, "num_local_experts"),
        ({**MIXTRAL_CONFIG, "num_experts_per_tok": 16}, "num_experts_per_tok"),
    ],
)
def test_the_issue_13_bad_model_configs_are_400_naming_the_field(
    api_client: APIClient, config: dict[str, Any], field: str
) -> None:
    """Issue 13 §Bad input: these bodies answered 500 or 200 (or took 21 s); each is a 400 naming its field."""
    response = _post(api_client, {"model_config": config, "gpu": None})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_model_config"
    assert list(response.json()["error"]["fields"]) == [f"model_config.{field}"]


def test_gemma3_pasted_with_text_config_is_read_from_it(api_client: APIClient) -> None:
    config = {
        "model_type": "gemma3",
        "text_config": {
            "model_type": "gemma3_text",
            "head_dim": 128,
            "hidden_size": 5376,
            "intermediate_size": 21504,
            "num_attention_heads": 32,
            "num_hidden_layers": 62,
            "num_key_value_heads": 16,
            "sliding_window": 1024,
        },
    }
    response = _post(api_client, {"model_config": config, "context_tokens": 32768})
    assert response.status_code == 200
    kv_gib = (10 * 32768 + 52 * 1024) * 16 * 128 * 4 / 2**30  # 10 global + 52 sliding layers (window 1,024)
    assert response.json()["memory_gib"]["kv_cache"] == pytest.approx(kv_gib, abs=0.01)


def test_framework_field_changes_training_memory(catalog: None, api_client: APIClient) -> None:
    """torchtune README @bd2a0fc7: Llama 3.1 8B full fine-tune fits one RTX 4090 (18.9 GiB peak, pure bf16,
    PagedAdamW8bit); the HF Trainer default (fp32 master weights) does not."""
    body = {
        "model": "llama-3.1-8b",
        "task": "full_finetune",
        "precision": "bf16",
        "optimizer": "adamw_8bit",
        "batch_size": 2,
        "gpu": "rtx-4090",
    }
    torchtune = _post(api_client, {**body, "framework": "torchtune"})
    default = _post(api_client, body)
    assert torchtune.status_code == default.status_code == 200
    assert torchtune.json()["gpu"]["fits"] is True
    assert default.json()["gpu"]["fits"] is False
    bad = _post(api_client, {**body, "framework": "colossalai"})
    assert bad.status_code == 400
    assert list(bad.json()["error"]["fields"]) == ["framework"]


def test_training_at_scale_inputs(catalog: None, api_client: APIClient) -> None:
    """Issue 33: activation_checkpointing, training_precision and power_limit_w reach the estimate; torchtitan's
    H100 rows (benchmarks/llama3_h100_202412_torchtitan.md Table 1, 500 W cap): 6,667 TPS/GPU in BF16, 8,532
    with Float8, 82.4 GiB reserved at 8 GPUs with selective checkpointing."""
    body = {
        "model": "llama-3.1-8b",
        "task": "full_finetune",
        "framework": "torchtitan",
        "sequence_length": 8192,
        "batch_size": 2,
        "gpu": "h100-sxm",
        "gpu_count": 8,
        "activation_checkpointing": "selective",
        "power_limit_w": 500,
    }
    bf16 = _post(api_client, body)
    assert bf16.status_code == 200, bf16.json()
    fp8 = _post(api_client, {**body, "training_precision": "fp8"}).json()
    per_gpu = bf16.json()["throughput"]["training_tokens_per_s"] / 8
    assert per_gpu == pytest.approx(6_667, rel=0.10)
    assert fp8["throughput"]["training_tokens_per_s"] / 8 == pytest.approx(8_532, rel=0.20)
    assert bf16.json()["gpu"]["per_gpu_gib"] == pytest.approx(82.4 + 0.5, rel=0.10)
    assert any("power capped at 500 W" in text for text in bf16.json()["assumptions"])
    full = _post(api_client, {**body, "activation_checkpointing": "full"}).json()
    assert full["gpu"]["per_gpu_gib"] < bf16.json()["gpu"]["per_gpu_gib"]
    # written as people write them: "FP8", " Selective "; null checkpointing follows gradient_checkpointing
    typed = _post(api_client, {**body, "training_precision": "FP8", "activation_checkpointing": " Selective "})
    assert typed.status_code == 200, typed.json()
    assert typed.json()["throughput"]["training_tokens_per_s"] == fp8["throughput"]["training_tokens_per_s"]
    unset = _post(api_client, {**body, "activation_checkpointing": None}).json()
    assert unset["gpu"]["per_gpu_gib"] == full["gpu"]["per_gpu_gib"]
    bad_values = (("activation_checkpointing", "some"), ("training_precision", "fp4"), ("power_limit_w", "500W"))
    for field, value in bad_values:
        bad = _post(api_client, {**body, field: value})
        assert bad.status_code == 400
        assert list(bad.json()["error"]["fields"]) == [field]


def test_sglang_is_an_engine_choice(catalog: None, api_client: APIClient) -> None:
    body = {**EXAMPLE, "model": "deepseek-v3", "precision": "fp8", "kv_cache_precision": "fp8",
            "engine": "sglang", "gpu": "h200-sxm", "gpu_count": 8, "context_tokens": 2048}  # fmt: skip
    response = _post(api_client, body)
    assert response.status_code == 200, response.json()
    assert response.json()["gpu"]["parallelism"] == "tensor"
    unknown = _post(api_client, {**EXAMPLE, "engine": "sglang-typo"})
    assert unknown.status_code == 400
    assert "engine" in str(unknown.json())
