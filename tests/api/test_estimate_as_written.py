"""POST /api/v1/estimate takes GPU, precision and engine names as people write them (issue 33, helper a33).

Helper t33's trial sent published runs through the API as their sources name them ("H100", "RTX 4090",
"Q4_1", "awq", "trtllm", "ollama", a prompt of 8,192 at the default context) and got 400s. Each spelling here is
resolved to a modelled value, and the answer's assumptions say every reading that is not the same thing.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from catalog.fixture import fixture_snapshot
from configurator.engine.gpu_match import match_gpu
from configurator.engine.spellings import UNMODELLED_GGUF_BPW, canonical_engine, canonical_precision, nearest_gguf

URL = "/api/v1/estimate"
BASE = {"model": "llama-3.1-8b", "concurrent_users": 1}


def _post(client: APIClient, **body: Any) -> Any:
    return client.post(URL, {**BASE, **body}, format="json")


def _ok(client: APIClient, **body: Any) -> dict[str, Any]:
    response = _post(client, **body)
    assert response.status_code == 200, response.json()
    data: dict[str, Any] = response.json()
    return data


@pytest.mark.parametrize(
    ("said", "sku"),
    [
        ("RTX 4090", "rtx-4090"),
        ("4090", "rtx-4090"),
        ("rtx4090", "rtx-4090"),
        ("L40S", "l40s"),
        ("l40", "l40"),
        ("RTX 6000 Ada", "rtx-6000-ada"),
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),  # HBM3: the SXM5 (the PCIe card has HBM2e, the NVL 94 GB)
        ("H100 SXM5", "h100-sxm"),
        ("H100 PCIe", "h100-pcie"),
        ("H100 NVL", "h100-nvl"),
        ("MI300X", "mi300x"),
        ("A100-SXM4-80GB", "a100-80gb-sxm"),
        ("A100 40GB", "a100-40gb-pcie"),
        ("NVIDIA GeForce RTX 5060 Ti 16GB", "rtx-5060-ti-16gb"),
        ("RTX PRO 6000 Blackwell Max-Q", "rtx-pro-6000-blackwell-maxq"),
        ("Tesla T4", "t4"),
    ],
)
def test_a_gpu_name_as_written_is_the_catalog_gpu(said: str, sku: str) -> None:
    found = match_gpu(fixture_snapshot().gpus, said)
    assert (found.gpu.sku, found.note) == (sku, None)


@pytest.mark.parametrize(
    ("said", "sku", "others"),
    [("H100", "h100-sxm", "h100-nvl, h100-pcie"), ("H200", "h200-sxm", "h200-nvl"),
     ("A100", "a100-80gb-sxm", "a100-40gb-pcie, a100-80gb-pcie"), ("A100 80GB", "a100-80gb-sxm", "a100-80gb-pcie")],
)  # fmt: skip
def test_a_bare_card_name_is_the_sxm_module_and_the_answer_says_so(
    catalog: None, api_client: APIClient, said: str, sku: str, others: str
) -> None:
    body = _ok(api_client, gpu=said, gpu_count=1)
    assert body["gpu"]["sku"] == sku
    assert body["assumptions"][0].startswith(f"GPU '{said}' read as the ")
    assert f"({sku}), the server module" in body["assumptions"][0]
    assert body["assumptions"][0].endswith(f"say {others} for the other variants")


@pytest.mark.parametrize(
    ("said", "closest"),
    [("a2", "a10 (NVIDIA A10)"), ("rtx-3080", "rtx-3080-ti"), ("gb200", "b200-sxm"), ("mi355x", "mi325x")],
)
def test_a_gpu_not_in_the_catalog_is_400_with_the_closest(
    catalog: None, api_client: APIClient, said: str, closest: str
) -> None:
    response = _post(api_client, gpu=said)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "unknown_sku"
    [reason] = error["fields"]["gpu"]
    assert reason.startswith(f"Unknown GPU '{said}': not in the catalog (GET /api/v1/catalog/gpus/). Closest: ")
    assert closest in reason


def test_a_name_of_several_cards_is_400_listing_them(catalog: None, api_client: APIClient) -> None:
    response = _post(api_client, gpu="RTX PRO 6000")  # Workstation, Max-Q or Server Edition: not a variant of one
    assert response.status_code == 400
    [reason] = response.json()["error"]["fields"]["gpu"]
    assert reason.startswith("Unknown GPU 'RTX PRO 6000'") or reason.startswith("'RTX PRO 6000' names more than")
    assert "rtx-pro-6000-blackwell" in reason


@pytest.mark.parametrize(
    ("said", "precision"),
    [("FP8", "fp8"), ("fp8_e4m3", "fp8"), ("BF16", "bf16"), ("bfloat16", "bf16"), ("w8a8", "int8"),
     ("Q4_K_M", "q4_k_m"), ("q8_0", "q8_0"), ("iq4_xs", "iq4_xs"), ("mxfp4", "mxfp4"), ("NVFP4", "nvfp4"),
     ("Q4_K", "q4_k_m")],
)  # fmt: skip
def test_another_name_of_the_same_precision_says_nothing(
    catalog: None, api_client: APIClient, said: str, precision: str
) -> None:
    assert canonical_precision(said) == precision
    engine = "llama.cpp" if precision.startswith(("q", "iq")) else "vllm"
    body = _ok(api_client, precision=said, engine=engine, gpu="h100-sxm")
    assert not any("precision" in line and said in line for line in body["assumptions"])


@pytest.mark.parametrize(
    ("said", "engine", "read_as", "says"),
    [
        ("awq", "vllm", "int4", "precision awq read as int4 (4-bit weights, 16-bit activations, group-128 scales"),
        ("AWQ", "vllm", "int4", "precision AWQ read as int4"),
        ("gptq", "vllm", "int4", "precision gptq read as int4"),
        ("int4_awq", "vllm", "int4", "precision int4_awq read as int4"),
        ("w4a16", "vllm", "int4", "precision w4a16 read as int4"),
        ("nf4", "transformers", "int4", "precision nf4 (bitsandbytes 4-bit) sized and timed as int4 W4A16"),
        ("bnb-4bit", "transformers", "int4", "precision bnb-4bit (bitsandbytes 4-bit)"),
        ("fp4", "tensorrt-llm", "nvfp4", "precision fp4 read as NVFP4"),
        (
            "q4_1",
            "llama.cpp",
            "q4_k_m",
            "precision q4_1 is a GGUF type the estimator does not model: sized and "
            "timed as Q4_K_M, the modelled GGUF type of nearest bits per weight (5.11 vs 4.89; llama.cpp "
            "tools/quantize)",
        ),
        ("q5_0", "llama.cpp", "q5_k_s", "sized and timed as Q5_K_S"),
        ("iq3_xxs", "llama.cpp", "q2_k", "(3.06 vs 3.16;"),
    ],
)
def test_a_format_read_as_another_says_which(
    catalog: None, api_client: APIClient, said: str, engine: str, read_as: str, says: str
) -> None:
    assert canonical_precision(said) == read_as
    body = _ok(api_client, precision=said, engine=engine, gpu="rtx-4090")
    assert any(line.startswith(says) or says in line for line in body["assumptions"]), body["assumptions"]


def test_gguf_types_not_modelled_go_to_the_nearest_bits() -> None:
    assert {name: nearest_gguf(bpw) for name, bpw in UNMODELLED_GGUF_BPW.items()} | {} == {
        "q4_1": "q4_k_m", "q5_0": "q5_k_s", "q5_1": "q5_k_m", "q2_k_s": "q2_k", "q3_k_s": "q3_k_m",
        "q3_k_l": "iq4_xs", "iq4_nl": "iq4_xs", "iq3_m": "q3_k_m", "iq3_s": "q2_k", "iq3_xs": "q2_k",
        "iq3_xxs": "q2_k", "iq2_m": "q2_k", "iq2_s": "q2_k", "iq2_xs": "q2_k", "iq2_xxs": "q2_k", "iq1_m": "q2_k",
        "iq1_s": "q2_k",
    }  # fmt: skip


def test_nf4_in_qlora_says_the_base_weights_are_nf4_anyway(catalog: None, api_client: APIClient) -> None:
    body = _ok(api_client, task="qlora", precision="nf4", gpu="RTX 4090")
    assert "precision nf4: QLoRA stores the base weights in NF4 whatever the precision" in body["assumptions"]


@pytest.mark.parametrize(
    ("said", "engine", "says"),
    [("trtllm", "tensorrt-llm", None), ("TRT-LLM", "tensorrt-llm", None), ("tensorrt_llm", "tensorrt-llm", None),
     ("llamacpp", "llama.cpp", None), ("llama-server", "llama.cpp", None),
     ("ollama", "llama.cpp", "engine ollama runs models through llama.cpp: estimated as llama.cpp"),
     ("tgi", "vllm", "engine tgi is not modelled: estimated as vllm"),
     ("lmdeploy", "vllm", "engine lmdeploy is not modelled: estimated as vllm")],
)  # fmt: skip
def test_an_engine_as_written(catalog: None, api_client: APIClient, said: str, engine: str, says: str | None) -> None:
    assert canonical_engine(said) == engine
    precision = "q4_k_m" if engine == "llama.cpp" else "bf16"
    body = _ok(api_client, engine=said, precision=precision, gpu="h100-sxm")
    engine_lines = [line for line in body["assumptions"] if line.startswith("engine ")]
    if says is None:
        assert not any(said in line for line in engine_lines)
    else:
        assert any(line.startswith(says) for line in engine_lines), engine_lines


def test_an_unknown_engine_is_400_listing_the_engines(catalog: None, api_client: APIClient) -> None:
    response = _post(api_client, engine="exllamav2", gpu="h100-sxm")
    assert response.status_code == 400
    assert response.json()["error"]["fields"]["engine"] == [
        '"exllamav2" is not a valid choice; use one of: llama.cpp, vllm, sglang, tensorrt-llm, transformers.'
    ]


def test_a_long_prompt_without_a_context_raises_the_context(catalog: None, api_client: APIClient) -> None:
    body = _ok(api_client, gpu="H100 SXM", prompt_tokens=8192, output_tokens=1024)
    assert (body["throughput"]["prompt_tokens"], body["throughput"]["output_tokens"]) == (8192, 1024)
    assert body["assumptions"][0] == (
        "context_tokens not given: 9,216 tokens, the prompt and the answer of the request (the default 4,096 "
        "would not hold them)"
    )
    alone = _ok(api_client, gpu="h100-sxm", prompt_tokens=8192)
    assert (alone["throughput"]["prompt_tokens"], alone["throughput"]["output_tokens"]) == (8192, 512)
    short = _ok(api_client, gpu="h100-sxm", prompt_tokens=1000, output_tokens=200)
    assert not any(line.startswith("context_tokens not given") for line in short["assumptions"])


def test_a_given_context_the_request_overflows_is_400_naming_both(catalog: None, api_client: APIClient) -> None:
    response = _post(api_client, gpu="h100-sxm", context_tokens=4096, prompt_tokens=8192, output_tokens=1024)
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert sorted(fields) == ["context_tokens", "output_tokens", "prompt_tokens"]
    assert fields["context_tokens"] == [
        "prompt_tokens + output_tokens = 9,216 is more than context_tokens = 4,096: a request must fit in the context."
    ]


def test_72_gpus_is_400_saying_what_to_use(catalog: None, api_client: APIClient) -> None:
    response = _post(api_client, gpu="b200-sxm", gpu_count=72)
    assert response.status_code == 400
    [reason] = response.json()["error"]["fields"]["gpu_count"]
    assert reason.startswith("At most 64 GPUs in one estimate. A 72-GPU NVLink rack (GB200/GB300 NVL72)")
    assert "POST /api/v1/clusters/recommendations" in reason


STATED = {"model": "llama-3.3-70b", "gpu": "h100-sxm", "gpu_count": 8, "concurrent_users": 64, "precision": "fp8"}


def test_a_stated_tensor_parallel_layout_is_the_one_estimated(catalog: None, api_client: APIClient) -> None:
    chosen = _ok(api_client, **STATED)
    tp8 = _ok(api_client, **STATED, tensor_parallel_size=8)
    tp4 = _ok(api_client, **STATED, tensor_parallel_size=4)
    tp2 = _ok(api_client, **STATED, tensor_parallel_size=2)
    assert tp8["assumptions"][0] == (
        "layout as stated: tensor parallel 8 × pipeline parallel 1, 1 replica of it (gpu_count 8) serving the 64 users"
    )
    assert tp4["assumptions"][0] == (
        "layout as stated: tensor parallel 4 × pipeline parallel 1, 2 replicas of it (gpu_count 8); the 64 users "
        "spread evenly over the replicas"
    )
    for body, tp, replicas in ((tp8, 8, 1), (tp4, 4, 2), (tp2, 2, 4)):
        speed = body["throughput"]
        assert (speed["served_tensor_parallel"], speed["served_replicas"]) == (tp, replicas)
        assert (body["gpu"]["count"], body["gpu"]["parallelism"]) == (8, "tensor")
    # the estimate's own choice is one of the stated layouts: stating it gives the same full load
    picked = chosen["throughput"]["served_tensor_parallel"]
    same = {8: tp8, 4: tp4, 2: tp2}[picked]
    assert same["throughput"]["served_output_tokens_per_s"] == chosen["throughput"]["served_output_tokens_per_s"]
    # fewer GPUs per replica: each holds more of the weights
    assert tp8["gpu"]["per_gpu_gib"] < tp4["gpu"]["per_gpu_gib"] < tp2["gpu"]["per_gpu_gib"]


def test_a_stated_pipeline_on_llama_cpp(catalog: None, api_client: APIClient) -> None:
    body = _ok(api_client, gpu="rtx-4090", gpu_count=2, precision="q4_k_m", pipeline_parallel_size=2)
    assert (body["gpu"]["parallelism"], body["throughput"]["served_replicas"]) == ("pipeline", 1)
    assert body["assumptions"][0].startswith("layout as stated: tensor parallel 1 × pipeline parallel 2, 1 replica")


@pytest.mark.parametrize(
    ("body", "fields", "says"),
    [
        ({**STATED, "tensor_parallel_size": 3}, ["gpu_count", "tensor_parallel_size"],
         "tensor_parallel_size × pipeline_parallel_size = 3 GPUs per replica; gpu_count = 8 must be a whole number"),
        ({**STATED, "gpu_count": 4, "tensor_parallel_size": 8}, ["gpu_count", "tensor_parallel_size"],
         "= 8 GPUs per replica; gpu_count = 4"),
        ({**STATED, "tensor_parallel_size": 4, "pipeline_parallel_size": 2},
         ["pipeline_parallel_size", "tensor_parallel_size"], "tensor and pipeline parallel together are not modelled"),
        ({"model": "llama-3.1-8b", "gpu": "rtx-4090", "gpu_count": 2, "precision": "q4_k_m",
          "tensor_parallel_size": 2}, ["tensor_parallel_size"], "llama.cpp splits a model by layers"),
        ({"model": "qwen2.5-7b", "gpu": "h100-sxm", "gpu_count": 8, "tensor_parallel_size": 8},
         ["tensor_parallel_size"], "tensor parallel 8 does not split Qwen2.5 7B's 28 attention heads (4 KV heads)"),
        ({"model": "llama-3.1-8b", "gpu": "rtx-4090", "gpu_count": 2, "task": "lora", "tensor_parallel_size": 2},
         ["tensor_parallel_size"], "training is estimated data parallel (ZeRO/FSDP sharding over the GPUs)"),
    ],
)  # fmt: skip
def test_a_layout_the_estimate_cannot_honour_is_400_with_the_reason(
    catalog: None, api_client: APIClient, body: dict[str, Any], fields: list[str], says: str
) -> None:
    response = api_client.post(URL, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert sorted(error["fields"]) == fields
    assert says in error["fields"][fields[-1]][0]


@pytest.mark.parametrize("said", ["!!!", "80GB", "SXM", "nvidia", "x" * 100, "ы", "h100 pcie 141gb"])
def test_a_gpu_name_that_says_nothing_is_400_never_500(catalog: None, api_client: APIClient, said: str) -> None:
    response = _post(api_client, gpu=said)
    assert response.status_code == 400
    assert response.json()["error"]["fields"]["gpu"]
