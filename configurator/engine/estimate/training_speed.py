"""Training throughput: tokens trained per second by the whole build (Throughput.training_tokens_per_s).

Per optimizer step every GPU of a data-parallel build trains batch × sequence tokens:

- **compute**: FLOPs per token = forward 2·P + attention (4·q_dim·s/2 per full-attention layer, causal) ×
  3 for full fine-tuning (forward, activation gradients, weight gradients) or × 2 for LoRA/QLoRA (the frozen
  weights get no gradients; the adapters' own FLOPs are under 1 %), plus one more forward with gradient
  checkpointing (Korthikanti et al. arXiv 2205.05198 §5). They run at η × the dense BF16 tensor peak
  (`fp16_tflops`: FP32 accumulate, what torch's bf16 matmuls use).
- **communication** (≥ 2 GPUs), overlapped with compute (FSDP/ZeRO prefetch): fully sharded (ZeRO-3/FSDP)
  gathers the weights for forward and backward and reduce-scatters the gradients, (2·W + G)·(n−1)/n bytes per
  GPU per step; ZeRO 0–2 all-reduce the gradients, 2·G·(n−1)/n (Rajbhandari et al. arXiv 1910.02054 §7).
- **CPU offload** (Workload.offload): the gradients go down and the updated parameters up over PCIe (2 + 2 B
  per trainable parameter, each GPU its shard), `parameters` also streams the weights up twice per step; the
  optimizer step runs on the CPU at CPU_ADAM_BYTES_PER_S, overlapped with the GPUs' work (ZeRO-Offload,
  Ren et al. arXiv 2101.06840 §4: delayed parameter update / torchtune optimizer-in-backward).

η per framework (TRAINING_ETA) is fitted on fixtures/training_throughput.csv by bench/accuracy.py's training
section, which also reports the leave-one-out error; the constants below are that fit rounded.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.estimate.plans import _attention_flops, _compute_params, _Plan
from configurator.engine.estimate.training import sharded_stage
from configurator.engine.frozen import direct_init
from configurator.engine.types import GpuSpec

# η fitted on the torchtune README table (pytorch/torchtune README.md @0031bfb0 'Memory and training speed',
# 8 rows; bench/accuracy.py training section). The table implies 0.56-0.94 of the dense peak: torch.compile,
# packed 2,048-token sequences and fused optimizer steps.
TORCHTUNE_ETA = 0.73
TRAINING_ETA: dict[str, float] = {
    "torchtune": TORCHTUNE_ETA,
    # HEURISTIC: Unsloth's Triton kernels reach about torchtune's compiled efficiency (no published tokens/s
    # found); Unsloth's benchmark page (docs.unsloth.ai/basics/unsloth-benchmarks) reports its QLoRA 2× as fast
    # as "Hugging Face + FA2", which sets the HF Trainer's η to half of it.
    "unsloth": TORCHTUNE_ETA,
    "hf_trainer": TORCHTUNE_ETA / 2,
}
# HEURISTIC: DeepSpeed's CPU-Adam streams m, v, fp32 master and gradient (read and write, 32 B per parameter)
# at about 100 GB/s on a two-socket server (ZeRO-Offload reports the CPU step as the bottleneck it overlaps).
CPU_ADAM_BYTES_PER_PARAM = 32.0
CPU_ADAM_BYTES_PER_S = 100e9


@direct_init
@dataclass(frozen=True, slots=True)
class TrainingStep:
    """Seconds per optimizer step per GPU by cause, and the tokens/s of the whole build."""

    compute_s: float
    comm_s: float
    offload_s: float
    tokens_per_s: float


def training_flops_per_token(plan: _Plan) -> float:
    w = plan.workload
    forward = 2.0 * _compute_params(w.model) + _attention_flops(w.model, w.sequence_length, causal_average=True)
    passes = 3.0 if w.task == "full_finetune" else 2.0
    if w.gradient_checkpointing:
        passes += 1.0
    return passes * forward


def training_step(plan: _Plan, gpu: GpuSpec, count: int, link_gbs: float, pcie_gbs: float) -> TrainingStep:
    w = plan.workload
    tokens = w.batch_size * w.sequence_length
    eta = TRAINING_ETA.get(w.framework, TORCHTUNE_ETA / 2)
    compute = tokens * training_flops_per_token(plan) / (eta * gpu.fp16_tflops * 1e12)
    grads = plan.trainable_params * 2.0
    comm = 0.0
    if count > 1:
        share = (count - 1) / count
        stage = sharded_stage(w.framework, w.zero_stage, count)
        moved = (2.0 * plan.weights + grads) * share if stage >= 3 else 2.0 * grads * share
        comm = moved / (link_gbs * 1e9)
    offload = 0.0
    if w.offload != "none":
        pcie = (2.0 + 2.0) * plan.trainable_params / count
        if w.offload == "parameters":
            pcie += 2.0 * plan.weights / count
        cpu = plan.trainable_params * CPU_ADAM_BYTES_PER_PARAM / CPU_ADAM_BYTES_PER_S
        offload = max(pcie / (pcie_gbs * 1e9), cpu)
    step = max(compute, comm, offload)
    return TrainingStep(compute, comm, offload, count * tokens / step)
