"""Training at scale (issue 33, item 4): each case against the published figure, with the error we claim.

The rows are in fixtures/training_memory.csv and fixtures/training_throughput.csv (source, framework version and
settings per row); bench/training_accuracy.py prints them all and the leave-one-source-out figures. The error
before this change was measured with /work/main's estimator on the same workload.
"""

from __future__ import annotations

import pytest

from catalog.fixture import fixture_snapshot
from configurator.engine.errors import DomainError
from configurator.engine.estimate import GPU_CONTEXT_GIB, estimate
from configurator.engine.estimate.plans import _plan
from configurator.engine.estimate.training import deepspeed_step_bytes
from configurator.engine.estimate.training_speed import power_factor, training_step
from configurator.engine.estimate.weights import GIB
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload

GPUS = fixture_snapshot().gpus


def _per_gpu_gib(workload: Workload, gpu: str, count: int) -> float:
    result = estimate(workload, GPUS[gpu], count)
    assert result.layout is not None
    return result.layout.per_gpu_gib


def _tokens_per_s(workload: Workload, gpu: str, count: int, link_gbs: float | None = None) -> float:
    result = estimate(workload, GPUS[gpu], count, link_gbs=link_gbs)
    assert result.throughput is not None
    return result.throughput.training_tokens_per_s


def test_qlora_load_peak_on_litgpts_llama_2_7b_row() -> None:
    """Lightning-AI/litgpt config_hub/finetune/README.md: llama-2-7b/qlora.yaml (bnb.nf4, bf16-true, micro batch 2,
    512 tokens) peaks at 13.68 GB (12.74 GiB, torch.cuda.max_memory_allocated) on one A10G, above the LoRA step
    itself: LitGPT materialises the bf16 checkpoint before quantising. We say 12.6 GiB (−1.2 %, claim ≤ 10 %); a
    training step alone is 11.0 GiB (−13 %; the estimator before this change said 9.4 GiB, −26 %)."""
    workload = Workload(
        model=model_get("llama-2-7b"),
        task="qlora",
        framework="litgpt",
        sequence_length=512,
        batch_size=2,
        lora_rank=8,
        activation_checkpointing="none",
    )
    ours = _per_gpu_gib(workload, "a10", 1) - GPU_CONTEXT_GIB
    published = 13.68e9 / GIB
    assert ours == pytest.approx(published, rel=0.10)
    plan = _plan(workload)
    step = plan.weights + plan.gradients + plan.optimizer + plan.scratch + plan.logits
    assert plan.load_peak > 1.1 * step  # the load sets the peak, not the step
    assert step / GIB < 0.9 * published
    assert any("load peak" in str(text) for text in estimate(workload, GPUS["a10"], 1).assumptions)
    # frameworks that quantise tensor by tensor (PEFT/bitsandbytes, torchtune, Unsloth) have no such peak
    assert _plan(Workload(model=workload.model, task="qlora", framework="hf_trainer")).load_peak == 0


def test_qwen3_30b_a3b_training_throughput() -> None:
    """NVIDIA-NeMo/Automodel docs/performance-summary.md: Qwen3 MoE 30B pre-training on 8 × H100 (BF16, local
    batch 4 × 4,096 tokens, EP 8, FSDP 8, TE + DeepEP): 12,040 tokens/s per GPU, 96,320 for the build. We say
    about 105,500 (+9.5 %, claim ≤ 20 %); the estimator before this change said 250,300 (+160 %: no router,
    all-to-all or grouped-GEMM cost). The all-to-all is a real share of the step."""
    workload = Workload(
        model=model_get("qwen3-30b-a3b"),
        task="full_finetune",
        framework="megatron",
        sequence_length=4096,
        batch_size=4,
        activation_checkpointing="none",
        gradient_checkpointing=False,
    )
    ours = _tokens_per_s(workload, "h100-sxm", 8, link_gbs=900.0)
    assert ours == pytest.approx(12_040 * 8, rel=0.20)
    step = training_step(_plan(workload), GPUS["h100-sxm"], 8, 900.0, 63.0)
    assert 0.1 < step.all_to_all_s / (step.compute_s + step.all_to_all_s) < 0.5
    # the dense model with the same active FLOPs per token would train about twice as fast per FLOP
    dense = Workload(
        model=model_get("llama-3.2-3b"),
        task="full_finetune",
        framework="megatron",
        sequence_length=4096,
        batch_size=4,
        activation_checkpointing="none",
        gradient_checkpointing=False,
    )
    assert _tokens_per_s(dense, "h100-sxm", 8, link_gbs=900.0) > 1.5 * ours


def test_qwen3_30b_a3b_megatron_b200_row_is_a_known_miss() -> None:
    """NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md (25.11): Qwen3_30B_a3B FP8-MX on 8 × B200 at
    micro batch 1: 9,299 tokens/s per GPU (74,392 for the build). We say about 292,400 (+293 %): at micro batch 1
    the per-micro-batch overhead of Megatron's MoE dispatch dominates (the same recipe at micro batch 4 on GB200
    gives 23,766 per GPU), which the estimator does not model. The test pins the miss so a change in it is seen."""
    workload = Workload(
        model=model_get("qwen3-30b-a3b"),
        task="full_finetune",
        framework="megatron",
        sequence_length=4096,
        batch_size=1,
        activation_checkpointing="none",
        gradient_checkpointing=False,
        training_precision="fp8",
    )
    ours = _tokens_per_s(workload, "b200-sxm", 8, link_gbs=1800.0)
    assert 2.5 < ours / (9_299 * 8) < 5.0


def test_fsdp_at_128_gpus_keeps_its_unshardable_buffers() -> None:
    """pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md Table 3: Llama 3.1 8B, FSDP2 over 128 H100,
    local batch 2 × 8,192, selective activation checkpointing, eager: 67.0 GiB peak reserved (Table 1, 8 GPUs:
    82.4). The sharded state is under 1 GiB at 128 GPUs; the root unit (embeddings, head), two gathered blocks and
    the fp32 gradient of the root before its reduce-scatter do not shard. We say 70.0 GiB (+4.5 % of torch's
    figure, claim ≤ 10 %) and 84.0 at 8 GPUs (+2.0 %); the estimator before this change said 12.2 GiB (−82 %)."""
    workload = Workload(
        model=model_get("llama-3.1-8b"),
        task="full_finetune",
        framework="torchtitan",
        sequence_length=8192,
        batch_size=2,
        activation_checkpointing="selective",
    )
    at_128 = _per_gpu_gib(workload, "h100-sxm", 128) - GPU_CONTEXT_GIB
    at_8 = _per_gpu_gib(workload, "h100-sxm", 8) - GPU_CONTEXT_GIB
    assert at_128 == pytest.approx(67.0, rel=0.10)
    assert at_8 == pytest.approx(82.4, rel=0.10)
    plan = _plan(workload)
    assert plan.gather / GIB > 6.0  # gathered blocks + root unit + its fp32 gradient
    sharded = (plan.weights + plan.gradients + plan.optimizer) / 128 / GIB
    assert sharded < 1.0
    # the drop from 8 to 128 GPUs is the sharded state alone
    assert at_8 - at_128 == pytest.approx(82.4 - 67.0, rel=0.15)


def test_zero_2_keeps_deepspeeds_buckets_on_every_gpu() -> None:
    """DeepSpeed ZeRO-1/2: reduce_bucket_size and allgather_bucket_size default to 5e8 elements, bf16 on every GPU
    (2 × 1 GB), whatever the GPU count; they grow no further once the model is smaller than a bucket."""
    model = model_get("llama-3.1-8b")
    workload = Workload(model=model, task="full_finetune", zero_stage=2)
    at_4 = _per_gpu_gib(workload, "h100-sxm", 4)
    stage_0 = _per_gpu_gib(Workload(model=model, task="full_finetune", zero_stage=0), "h100-sxm", 4)
    plan = _plan(workload)
    sharded = (plan.gradients + plan.optimizer) * 3 / 4 / GIB
    backward = stage_0 - sharded + 2e9 / GIB
    # since trial t33 (issue 33) the optimizer step is a peak of its own: after backward freed the activations and
    # logits it adds the fp32 gradient partition and AdamW's temporary (training.deepspeed_step_bytes); the buckets
    # stay in both
    step = backward - (plan.scratch + plan.logits) / GIB
    step += deepspeed_step_bytes("hf_trainer", "adamw", 2, plan.trainable_params, 4) / GIB
    assert step > backward
    assert at_4 == pytest.approx(step, rel=0.01)


def test_selective_checkpointing_sits_between_none_and_full() -> None:
    model = model_get("llama-3.1-8b")

    def workload(mode: str) -> Workload:
        return Workload(
            model=model,
            task="full_finetune",
            framework="torchtitan",
            sequence_length=8192,
            batch_size=2,
            activation_checkpointing=mode,
        )

    sizes = {mode: _per_gpu_gib(workload(mode), "h100-sxm", 8) for mode in ("none", "selective", "full")}
    assert sizes["full"] < sizes["selective"] < sizes["none"]
    speeds = {mode: _tokens_per_s(workload(mode), "h100-sxm", 8) for mode in ("none", "selective", "full")}
    assert speeds["full"] < speeds["selective"] < speeds["none"]


def test_fp8_and_power_cap_on_torchtitans_h100_rows() -> None:
    """torchtitan's H100 Table 1 (500 W cap of 700): FSDP + compile 6,667 TPS/GPU in BF16, 8,532 with Float8
    (1.28×). We say 6,781 (+1.7 %) and 9,795 (+14.8 %); FP8 on an A100 (no FP8 tensor cores) stays at BF16 speed."""
    model = model_get("llama-3.1-8b")
    base = {"model": model, "task": "full_finetune", "framework": "torchtitan", "sequence_length": 8192,
            "batch_size": 2, "activation_checkpointing": "selective", "power_limit_w": 500.0}  # fmt: skip
    bf16 = _tokens_per_s(Workload(**base), "h100-sxm", 8) / 8  # type: ignore[arg-type]
    fp8 = _tokens_per_s(Workload(**base, training_precision="fp8"), "h100-sxm", 8) / 8  # type: ignore[arg-type]
    assert bf16 == pytest.approx(6_667, rel=0.10)
    assert fp8 == pytest.approx(8_532, rel=0.20)
    assert 1.2 < fp8 / bf16 < 1.6
    uncapped = _tokens_per_s(Workload(**{**base, "power_limit_w": None}), "h100-sxm", 8) / 8  # type: ignore[arg-type]
    # the cap slows the matmuls and attention (not the memory-bound kernels) by (500/700)^0.87
    assert 1.25 < uncapped / bf16 <= 1 / power_factor(GPUS["h100-sxm"], 500.0) + 1e-9
    assert power_factor(GPUS["h100-sxm"], 800.0) == 1.0
    # Puget Systems: RTX 3090 at 280 W of 350 W keeps over 95 % of its training speed (GDDR cards run past the knee)
    assert power_factor(GPUS["rtx-3090"], 280.0) == pytest.approx(0.95, abs=0.01)
    on_a100 = {**base, "power_limit_w": None}
    a100_fp8 = _tokens_per_s(Workload(**on_a100, training_precision="fp8"), "a100-80gb-sxm", 8)  # type: ignore[arg-type]
    assert a100_fp8 == pytest.approx(_tokens_per_s(Workload(**on_a100), "a100-80gb-sxm", 8))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value"),
    [("activation_checkpointing", "sometimes"), ("training_precision", "fp4"), ("power_limit_w", -5.0)],
)
def test_bad_training_inputs_name_their_field(field: str, value: object) -> None:
    workload = Workload(model=model_get("llama-3.1-8b"), task="lora", **{field: value})  # type: ignore[arg-type]
    with pytest.raises(DomainError) as raised:
        estimate(workload, GPUS["h100-sxm"], 1)
    assert field in raised.value.fields
