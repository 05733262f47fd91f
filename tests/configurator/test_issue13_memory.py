"""Issue 13, memory and coverage: per-checkpoint precision maps, server-engine memory outside the KV cache,
hybrid linear-attention KV, training throughput as its own field, CPU offload, the new catalog GPUs.

Each named case states its source and the error claimed for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.fixture import fixture_snapshot
from configurator.engine.estimate import GIB, estimate, kv_cache_bytes, server_memory, weight_bytes
from configurator.engine.estimate.kv_cache import linear_state_bytes
from configurator.engine.models_library import model_from_hf_config, model_get
from configurator.engine.types import Workload

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NEW_GPUS = (
    "rtx-4000-ada", "rtx-5000-ada", "rtx-4080", "rtx-4070-ti-super", "rtx-5070-ti", "rtx-3080-ti", "rtx-a4000",
    "rtx-pro-4000-blackwell", "rtx-pro-4500-blackwell", "rtx-pro-5000-blackwell",
)  # fmt: skip


def test_405b_fp8_per_gpu_weights_follow_metas_checkpoint_map() -> None:
    """Meta's Llama-3.1-405B-Instruct-FP8 (quantization_config modules_to_not_convert; Llama 3 paper §6.2):
    FP8 feed-forward layers except the first and last, attention and embeddings in bf16. Counted here tensor by
    tensor from the shapes, independently of the estimator: 487.2 GB, 56.7 GiB per GPU on 8. Claimed error
    0.1 %. The all-linear FP8 rule the estimator used said 17 % less (the issue's figure)."""
    model = model_get("llama-3.1-405b")
    h, layers, inter, vocab = 16384, 126, 53248, 128256
    attention = h * 128 * 128 * 2 + 2 * h * 8 * 128  # q, o and k, v
    mlp = 3 * h * inter
    norms = 2 * h * layers + h
    expected = attention * layers * 2 + mlp * (layers - 2) + mlp * 2 * 2 + 2 * vocab * h * 2 + norms * 2
    per_gpu = weight_bytes(model, "fp8") / 8
    assert per_gpu == pytest.approx(expected / 8, rel=0.001)
    assert per_gpu / GIB == pytest.approx(56.7, abs=0.1)
    all_linear = (attention + mlp) * layers + 2 * vocab * h * 2 + norms * 2
    assert per_gpu / (all_linear / 8) - 1 > 0.15
    result = estimate(Workload(model=model, precision="fp8"), fixture_snapshot().gpus["h100-sxm"], 8)
    assert any("Llama-3.1-405B-Instruct-FP8" in str(line) for line in result.assumptions)


def test_the_map_applies_only_to_its_checkpoints_precision() -> None:
    model = model_get("llama-3.1-405b")
    assert model.precision_map("fp8") is not None and model.precision_map("int4") is None
    plain = model_get("llama-3.1-70b")
    assert weight_bytes(plain, "fp8") < 0.55 * weight_bytes(plain, "bf16")  # no map: every linear in FP8


def test_qwen3_235b_fp8_kv_capacity_on_4_h100_counts_cuda_graphs_and_moe_workspace() -> None:
    """Qwen3-235B-A22B FP8 on 4 × H100 SXM with vLLM (gpu_memory_utilization 0.90, OpenAI-server defaults on an
    ≥ 70 GiB GPU: 8,192 batched tokens, 1,024 sequences). The KV pool is what the fullest GPU has left after
    weights, the profile run's activations, the fused-MoE workspace (8,192 × 8 experts × (3 × 1,536 / 4 + 4,096)
    × 2 B), fp32 logits and sampler for 1,024 × 151,936, CUDA graphs and communication buffers, over 48 KiB per
    token per GPU (94 layers × 4 KV heads split 4 ways × 128 × 2 × 2 B). No published "GPU KV cache size" log
    line for this setup was found (issues and pages searched); the claim is this arithmetic to 1 %, and that the
    pool is at least 10 % below the weights-only figure the estimator gave before."""
    model = model_get("qwen3-235b-a22b")
    h100 = fixture_snapshot().gpus["h100-sxm"]
    workload = Workload(model=model, precision="fp8", context_tokens=32768)
    layout = estimate(workload, h100, 4, link_gbs=900).layout
    assert layout is not None and layout.parallelism == "tensor"
    server = server_memory(model, h100, 4)
    assert (server.batched_tokens, server.max_seqs) == (8192, 1024)
    assert server.moe_workspace == pytest.approx(8192 * 8 * (3 * 1536 / 4 + 4096) * 2)
    assert server.logits == pytest.approx(2 * 4 * 1024 * 151936)
    assert server.cuda_graphs > 0.25 * GIB and server.comm == 0.5 * GIB
    weights = weight_bytes(model, "fp8") / 4
    per_token = 94 * 2 * 128 * 2  # one of 4 KV heads per GPU
    free = 0.90 * 80 * GIB - 0.5 * GIB - weights - server.total
    assert layout.kv_cache_tokens == pytest.approx(free / per_token, rel=0.01)
    weights_only = (0.90 * 80 * GIB - 0.5 * GIB - weights) / per_token
    assert layout.kv_cache_tokens is not None and layout.kv_cache_tokens < 0.9 * weights_only
    assert layout.max_concurrent_users == layout.kv_cache_tokens // 32768


def test_kv_capacity_is_none_outside_server_engines() -> None:
    gpu = fixture_snapshot().gpus["rtx-4090"]
    llama = estimate(Workload(model=model_get("llama-3.1-8b"), precision="q4_k_m", engine="llama.cpp"), gpu)
    assert llama.layout is not None and llama.layout.kv_cache_tokens is None


def test_qwen3_next_caches_kv_in_full_attention_layers_only() -> None:
    """Qwen3-Next-80B-A3B: 12 of 48 layers are full attention (full_attention_interval 4) with 2 KV heads ×
    256; the 36 Gated DeltaNet layers hold a fixed state per sequence: 32 value heads × 128 × 128 recurrent
    values + (2 × 2,048 + 4,096) channels × 3 convolution values, bf16."""
    model = model_get("qwen3-next-80b-a3b")
    assert (model.linear_attention_layers, model.kv_layers) == (36, 12)
    state = 36 * (32 * 128 * 128 + 8192 * 3) * 2
    assert linear_state_bytes(model) == state
    assert kv_cache_bytes(model, "bf16", 32768, 2) == 2 * (12 * 2 * 2 * 256 * 2 * 32768 + state)
    assert model.total_params == pytest.approx(80e9, rel=0.01)


def test_pasted_qwen3_next_config_is_sized_not_refused() -> None:
    entry = next(m for m in json.loads((FIXTURES / "llm_models.json").read_text())["models"]
                 if m["slug"] == "qwen3-next-80b-a3b")  # fmt: skip
    pasted = model_from_hf_config(entry["config"])
    library = model_get("qwen3-next-80b-a3b")
    assert (pasted.total_params, pasted.linear_attention_layers) == (library.total_params, 36)
    layer_types = ["linear_attention"] * 3 + ["full_attention"]
    with_types = model_from_hf_config({**entry["config"], "layer_types": layer_types * 12})
    assert with_types.kv_layers == 12


def test_new_models_are_in_the_library() -> None:
    for slug in ("gemma-3-1b", "gemma-3-4b", "gemma-3-12b", "gemma-3-27b", "qwen3-next-80b-a3b",
                 "qwen3.5-35b-a3b", "olmoe-1b-7b", "glm-4.5", "glm-4.5-air", "tinyllama-1.1b"):  # fmt: skip
        assert model_get(slug).source
    assert model_get("google/gemma-3-27b-it").sliding_window == 1024
    assert model_get("zai-org/GLM-4.5-Air").experts == 128


def test_training_throughput_is_its_own_field_for_the_whole_build() -> None:
    """torchtune README @0031bfb0: Llama 3.1 8B LoRA on one RTX 4090 trains 3,083 tokens/s; the estimate
    (η fitted on that table, bench/training_accuracy.py) is within its leave-one-out p90 of 30 %. Two GPUs
    train more tokens than one; prefill stays 0 for a training workload."""
    gpu = fixture_snapshot().gpus["rtx-4090"]
    workload = Workload(model=model_get("llama-3.1-8b"), task="lora", framework="torchtune", batch_size=2,
                        lora_rank=8)  # fmt: skip
    one = estimate(workload, gpu, 1).throughput
    assert one is not None and one.prefill_tokens_per_s == 0.0
    assert one.training_tokens_per_s == pytest.approx(3083, rel=0.30)
    two = estimate(workload, gpu, 2).throughput
    assert two is not None and one.training_tokens_per_s < two.training_tokens_per_s <= 2 * one.training_tokens_per_s


def test_cpu_offload_moves_the_optimizer_and_parameters_off_the_gpu() -> None:
    """DeepSpeed ZeRO-Offload / FSDP CPUOffload: `optimizer` drops the optimizer states from the GPU,
    `parameters` the weight shards and gradients too; the step then waits for the CPU optimizer."""
    gpu = fixture_snapshot().gpus["a100-80gb-sxm"]
    base = Workload(model=model_get("llama-3.1-70b"), task="full_finetune", zero_stage=3)
    none, optimizer, parameters = (estimate(_with(base, o), gpu, 8) for o in ("none", "optimizer", "parameters"))
    assert none.layout and optimizer.layout and parameters.layout
    assert parameters.layout.per_gpu_gib < optimizer.layout.per_gpu_gib < none.layout.per_gpu_gib
    assert none.throughput and parameters.throughput
    assert parameters.throughput.training_tokens_per_s < none.throughput.training_tokens_per_s


def _with(workload: Workload, offload: str) -> Workload:
    from dataclasses import replace

    return replace(workload, offload=offload)


def test_unknown_offload_is_named() -> None:
    from configurator.engine.errors import DomainError

    with pytest.raises(DomainError) as caught:
        estimate(_with(Workload(model=model_get("llama-3.1-8b"), task="lora"), "disk"))
    assert "offload" in caught.value.fields


def test_new_gpus_have_sources_prices_and_two_or_three_offers() -> None:
    catalog = json.loads((FIXTURES / "catalog.json").read_text())
    offers = json.loads((FIXTURES / "offers.json").read_text())
    rows = {g["sku"]: g for g in catalog["gpus"]}
    for sku in NEW_GPUS:
        row = rows[sku]
        assert "http" in row["source"] and float(row["list_price"]) > 0, sku
        assert "PRICE ESTIMATE" in row["notes"], sku
        suppliers = [s for s in offers["suppliers"] if any(o["sku"] == sku for o in s["offers"])]
        assert 2 <= len(suppliers) <= 3, sku
    assert offers["_meta"]["sample_data"] is True
    snapshot = fixture_snapshot()
    assert snapshot.gpus["rtx-pro-4500-blackwell"].vram_gib == 32


def test_pasted_fp8_config_with_a_skip_list_gets_its_precision_map() -> None:
    """A pasted checkpoint config whose quantization_config lists every layer's self_attn (Meta's FP8 layout) is
    sized with attention in bf16, like the library's 405B map; without the list every linear is FP8."""
    from tests.model_configs import LLAMA_3_1_8B

    skip = [f"model.layers.{i}.self_attn.{p}_proj" for i in range(32) for p in "qkvo"]
    skip += ["model.layers.0.mlp.gate_proj", "lm_head"]
    mapped = model_from_hf_config(
        {**LLAMA_3_1_8B, "quantization_config": {"quant_method": "fbgemm_fp8", "modules_to_not_convert": skip}}
    )
    plain = model_from_hf_config({**LLAMA_3_1_8B, "quantization_config": {"quant_method": "fp8"}})
    assert mapped.native_precision == "fp8" and mapped.precision_map("fp8") == (("attn",), (0,), mapped.hf_id or
                                                                                  "pasted config.json")  # fmt: skip
    attention = 32 * (4096 * 4096 * 2 + 2 * 4096 * 1024)
    mlp0 = 3 * 4096 * 14336
    assert weight_bytes(mapped, "fp8") - weight_bytes(plain, "fp8") == pytest.approx(attention + mlp0, rel=1e-6)


def test_hybrid_kv_per_token_against_a_published_vllm_pool() -> None:
    """noonghunna/club-3090 issue #612 (vLLM 0.24, RTX 5090, Qwen3.6-35B-A3B NVFP4 — the Qwen3.5-35B-A3B
    architecture — kv_cache_dtype fp8): "Available KV cache memory: 5.98 GiB", "GPU KV cache size: 567,978
    tokens". Only the 10 full-attention layers cache K and V: 10 × 2 KV heads × 256 × 2 × 1 B = 10 KiB per
    token, so 5.98 GiB holds 627,000 tokens; vLLM also pages the Gated DeltaNet states out of the same pool.
    Claimed error 12 % (measured +10.4 %); counting all 40 layers would say 4× fewer tokens."""
    from configurator.engine.estimate import kv_bytes_per_token

    model = model_get("qwen3.5-35b-a3b")
    per_token = kv_bytes_per_token(model, "fp8")
    assert per_token == 10 * 2 * 2 * 256 * 1
    assert 5.98 * GIB / per_token == pytest.approx(567_978, rel=0.12)
