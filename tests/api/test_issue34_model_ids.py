"""Issue 34 (trial t34, item F): model ids as people paste them. "Qwen/Qwen2.5-32B-Instruct-AWQ" was a 400; a
quantised release's id names the model and, when the request gives no precision, its precision (said in the
assumptions). A pasted config.json without `_name_or_path` showed as our slug "custom-mistral"; it shows the
architecture the config names."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from configurator.engine.models_library import model_from_hf_config, model_get, model_id_precision

URL = "/api/v1/estimate"


def _post(client: APIClient, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(URL, body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize(
    ("pasted", "slug", "precision"),
    [
        ("Qwen/Qwen2.5-32B-Instruct-AWQ", "qwen2.5-32b", "int4"),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "qwen2.5-7b", "int4"),
        ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "llama-3.3-70b", "fp8"),
        ("Qwen/Qwen2.5-7B-Instruct-GGUF", "qwen2.5-7b", "q4_k_m"),
        ("amd/Llama-3.1-70B-Instruct-FP8-KV", "llama-3.1-70b", "fp8"),
        ("nvidia/Llama-3.3-70B-Instruct-FP4", "llama-3.3-70b", "nvfp4"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b", None),
        ("google/gemma-3-27b-it", "gemma-3-27b", None),
    ],
)
def test_quantised_release_ids_name_the_model_and_its_precision(pasted: str, slug: str, precision: str | None) -> None:
    assert model_get(pasted).slug == slug
    assert model_id_precision(pasted) == precision


def test_the_awq_id_is_estimated_at_int4_and_says_so(catalog: None, api_client: APIClient) -> None:
    body = _post(api_client, {"model": "Qwen/Qwen2.5-32B-Instruct-AWQ"})
    assert body["model"]["slug"] == "qwen2.5-32b"
    assert any(a.startswith("Weights: int4") for a in body["assumptions"])
    assert any(
        "precision int4 read from the model id 'Qwen/Qwen2.5-32B-Instruct-AWQ'" in a for a in body["assumptions"]
    )
    # a precision the request gives wins, and nothing is said about the id
    given = _post(api_client, {"model": "Qwen/Qwen2.5-32B-Instruct-AWQ", "precision": "bf16"})
    assert any(a.startswith("Weights: bf16") for a in given["assumptions"])
    assert not any("read from the model id" in a for a in given["assumptions"])


def test_a_pasted_config_shows_the_architecture_it_names() -> None:
    config = {
        "architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 5120,
        "intermediate_size": 32768, "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128, "vocab_size": 131072, "max_position_embeddings": 32768, "torch_dtype": "bfloat16",
    }  # fmt: skip
    model = model_from_hf_config(config)
    assert model.name == "MistralForCausalLM" and model.slug == "custom-mistral"
    assert model_from_hf_config({**config, "_name_or_path": "mistralai/Mistral-Small-24B"}).name == (
        "mistralai/Mistral-Small-24B"
    )


def test_amd_and_nvidia_quantised_ids_from_published_benchmarks_are_estimated(
    catalog: None, api_client: APIClient
) -> None:
    """Trial tr33: the ids AMD's ROCm vLLM performance page and TensorRT-LLM's perf-overview benchmark were 400s."""
    amd = _post(api_client, {"model": "amd/Llama-3.1-70B-Instruct-FP8-KV", "gpu": "MI300X", "gpu_count": 8})
    assert amd["model"]["slug"] == "llama-3.1-70b"
    assert any(a.startswith("Weights: fp8") for a in amd["assumptions"])
    fp4 = _post(api_client, {"model": "nvidia/Llama-3.3-70B-Instruct-FP4", "gpu": "B200"})
    assert fp4["model"]["slug"] == "llama-3.3-70b"
    assert any(a.startswith("Weights: nvfp4") for a in fp4["assumptions"])
