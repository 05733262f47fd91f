"""Training throughput: tokens trained per second by the whole build (Throughput.training_tokens_per_s).

Per optimizer step every GPU of a data-parallel build trains batch × sequence tokens. The time of a step is
the sum of what runs one after the other on a GPU, and the larger of that and what overlaps it:

- **matmuls** (linear layers): 2·P_active FLOPs per token forward, × 3 for full fine-tuning (forward,
  activation gradients, weight gradients) or × 2 for LoRA/QLoRA (the frozen weights get no gradients; the
  adapters' own FLOPs are under 1 %), plus the recomputed forward: all of it with full activation
  checkpointing (Korthikanti et al. arXiv 2205.05198 §5), the matmuls the selective policy does not keep with
  selective checkpointing (configurator.engine.estimate.training.selective_recompute_share). They run at
  η × the dense tensor peak of the training precision: BF16 (`fp16_tflops`: FP32 accumulate, what torch's
  bf16 matmuls use), or FP8 (`fp8_tflops`) for the linear layers when `training_precision` is fp8 and the GPU
  has FP8 tensor cores (torchao Float8Linear / Transformer Engine keep attention in BF16).
- **attention** (flash attention, causal: 4·q_dim·s/2 per layer per token forward, × 2.5 with its backward)
  at η × the BF16 peak.
- **memory-bound kernels**: norms, residual adds, RoPE, the SwiGLU product, MoE token permutation and the
  FP8 casts read and write activations at ETA_ELEMENTWISE_BW × the memory bandwidth (elementwise_bytes).
- **MoE** (router, all-to-all, grouped GEMM): with experts spread over the GPUs (expert parallel = the GPU
  count) every routed token copy goes to its expert's GPU and back, forward and backward (4 × top-k × h
  × 2 B per MoE layer per token, (n − 1)/n of it crossing the link) at the all-to-all bandwidth DeepEP
  measured (ALL_TO_ALL_LINK_SHARE of the link), not overlapped with compute; the experts' GEMMs are narrow
  (moe_intermediate wide) and run at GROUPED_GEMM_EFFICIENCY of the dense matmul rate.
- **sustained power**: matmul and attention rates scale with the clock a board-power cap allows,
  (cap / TDP)^POWER_CLOCK_EXPONENT (`power_limit_w`; the GPU's TDP when none is given).
- **communication** (≥ 2 GPUs), overlapped with compute (FSDP/ZeRO prefetch): fully sharded (ZeRO-3/FSDP)
  gathers the weights for forward and backward and reduce-scatters the gradients, (2·W + G)·(n−1)/n bytes per
  GPU per step; ZeRO 0–2 all-reduce the gradients, 2·G·(n−1)/n (Rajbhandari et al. arXiv 1910.02054 §7).
- **CPU offload** (Workload.offload): the gradients go down and the updated parameters up over PCIe (2 + 2 B
  per trainable parameter, each GPU its shard), `parameters` also streams the weights up twice per step; the
  optimizer step runs on the CPU at CPU_ADAM_BYTES_PER_S, overlapped with the GPUs' work (ZeRO-Offload,
  Ren et al. arXiv 2101.06840 §4: delayed parameter update / torchtune optimizer-in-backward).

η (TRAINING_ETA) is the one fitted constant: bench/training_accuracy.py fits it on every source of
fixtures/training_throughput.csv and judges the model leave-one-source-out (refit without a publication,
predict it) next to a single-constant MFU baseline refitted the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.estimate.plans import _attention_flops, _compute_params, _Plan
from configurator.engine.estimate.training import elementwise_bytes, selective_recompute_share, sharded_stage
from configurator.engine.frozen import direct_init
from configurator.engine.types import GpuSpec, ModelArch

# η: the share of the maximum achievable matmul rate (MAMF) the linear layers of a compiled/fused trainer reach.
# Fitted on the 22 rows of 4 sources in fixtures/training_throughput.csv (torchtune, torchtitan, Megatron-Bridge,
# NeMo Automodel): 0.751; bench/training_accuracy.py prints the fit and the leave-one-source-out error (η refitted
# without each source: 0.675-0.803).
TRAINING_ETA_BASE = 0.75
TRAINING_ETA: dict[str, float] = {
    "torchtune": TRAINING_ETA_BASE,
    "torchtitan": TRAINING_ETA_BASE,
    "megatron": TRAINING_ETA_BASE,
    # HEURISTIC: Unsloth's Triton kernels reach about a compiled trainer's efficiency (no published tokens/s
    # found); Unsloth's benchmark page (docs.unsloth.ai/basics/unsloth-benchmarks) reports its QLoRA 2× as fast
    # as "Hugging Face + FA2", which sets the HF Trainer's η to half of it.
    "unsloth": TRAINING_ETA_BASE,
    "hf_trainer": TRAINING_ETA_BASE / 2,
    # HEURISTIC: LitGPT's fine-tuning scripts run eager PyTorch (no torch.compile), like the HF Trainer
    "litgpt": TRAINING_ETA_BASE / 2,
}
# Elementwise kernels stream at about the bandwidth decode kernels reach on HBM (calibration.SERVER_ETA_HBM
# is 0.96 for large mat-vecs; norms and adds are shorter): HEURISTIC 0.8.
ETA_ELEMENTWISE_BW = 0.8
# DeepEP (deepseek-ai/DeepEP README, H800, NVLink 400 GB/s): intranode dispatch 153 GB/s and combine 158 GB/s
# with 8-way expert parallelism: 0.39 of the NVLink figure the catalog carries.
ALL_TO_ALL_LINK_SHARE = 155.0 / 400.0
# HEURISTIC: grouped GEMMs of narrow experts (moe_intermediate 768 for Qwen3-30B-A3B against a hidden size of
# 2048) sit near the roofline ridge of an H100 (2·768·2048 / (2·(768 + 2048)) ≈ 560 FLOP/B against 295), and
# torch's grouped_mm / TE's grouped GEMM reach about 0.6 of a dense GEMM's rate there.
GROUPED_GEMM_EFFICIENCY = 0.6
# Clock under a power cap, rate ∝ (cap / TDP)^exponent. HBM data-center GPUs run at their power limit in
# matmul-heavy training: "capping an H100 at 600 W typically loses 10 to 15 % step throughput" on transformer
# pretraining (factryze.ai/scale-atlas/power/power-capping): 0.875 = (600/700)^0.87. GDDR workstation and GeForce
# cards ship far above their efficient clock: four RTX 3090 capped at 280 W of 350 W kept "over 95 % of maximum
# performance" in TensorFlow training (pugetsystems.com/labs/hpc/quad-rtx3090-gpu-wattage-limited-maxq-tensorflow-
# performance-1974): 0.95 = 0.8^0.23, as NVIDIA's RTX PRO 6000 Max-Q datasheet rates 435 of 500 TFLOPS at half
# the power (0.5^0.2).
POWER_CLOCK_EXPONENT = 0.87
POWER_CLOCK_EXPONENT_GDDR = 0.23
# Maximum achievable matmul FLOPS (MAMF) over the datasheet's dense peak, measured by a brute-force search of
# large matmul shapes (stas00/ml-engineering compute/accelerator/README.md 'Maximum Achievable Matmul FLOPS
# comparison table', mean of 100 iterations). BF16: A100 SXM 271.2/312, A100 PCIe 252.9/312, H100 SXM 794.5/989
# ("H200 is the same"), B200 1745/2250, MI300X 668.4/1300. FP8 (e4m3): H100 SXM 1402.6/1979, H200 SXM
# 1453.4/1979, B200 3432.5/4500. The PCIe/NVL cards of a measured die take its figure; GPUs with no measurement
# are taken at their datasheet peak.
MAMF_BF16: dict[str, float] = {
    "a100-80gb-sxm": 271.2 / 312,
    "a100-40gb-pcie": 252.9 / 312,
    "a100-80gb-pcie": 252.9 / 312,
    "h100-sxm": 794.5 / 989,
    "h100-pcie": 794.5 / 989,
    "h100-nvl": 794.5 / 989,
    "h200-sxm": 794.5 / 989,
    "h200-nvl": 794.5 / 989,
    "b200-sxm": 1745.0 / 2250,
    "mi300x": 668.4 / 1300,
    "mi325x": 668.4 / 1300,  # the MI300X's CDNA3 die and peak (not measured on the MI325X itself)
}
MAMF_FP8: dict[str, float] = {
    "h100-sxm": 1402.6 / 1979,
    "h100-pcie": 1402.6 / 1979,
    "h100-nvl": 1402.6 / 1979,
    "h200-sxm": 1453.4 / 1979,
    "h200-nvl": 1453.4 / 1979,
    "b200-sxm": 3432.5 / 4500,
}
# Share of the BF16 peak flash attention reaches (forward and backward together). FlashAttention-2 (Dao, arXiv
# 2307.08691): 50–73 % of the A100's peak forward, less backward: 0.6 on Ampere and Ada. On Hopper and later
# FlashAttention-2 (what torch's SDPA runs) "achieves only 35 % utilization on the H100" (FlashAttention-3, Shah
# et al. arXiv 2407.08608), where FlashAttention-3 / cuDNN attention (Transformer Engine: Megatron, NeMo) reach
# 75 % forward (0.6 with backward).
ATTENTION_SHARE_FA2 = 0.6
ATTENTION_SHARE_FA2_HOPPER = 0.35
ATTENTION_SHARE_TE_HOPPER = 0.6
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
    all_to_all_s: float = 0.0
    elementwise_s: float = 0.0
    fp8: bool = False  # the linear layers ran at the FP8 peak
    power_factor: float = 1.0


def _routed_params(model: ModelArch) -> float:
    """Parameters of the routed experts one token passes through (top-k of them, gate, up and down)."""
    if not model.is_moe:
        return 0.0
    moe_layers = model.layers - model.dense_layers
    return moe_layers * model.active_experts * 3.0 * model.hidden * model.moe_intermediate


def forward_passes(plan: _Plan) -> tuple[float, float]:
    """(passes of the linear layers, passes of attention) per step in units of one forward."""
    w = plan.workload
    passes = 3.0 if w.task == "full_finetune" else 2.0
    mode = w.checkpointing
    linear = passes + (1.0 if mode == "full" else selective_recompute_share(w.model) if mode == "selective" else 0)
    attention = passes + (1.0 if mode == "full" else 0.0)  # the selective policy keeps attention's output
    return linear, attention


def training_flops_per_token(plan: _Plan) -> float:
    w = plan.workload
    linear, attention = forward_passes(plan)
    return linear * 2.0 * _compute_params(w.model) + attention * _attention_flops(
        w.model, w.sequence_length, causal_average=True
    )


def power_factor(gpu: GpuSpec, power_limit_w: float | None) -> float:
    """Share of the rated clock a board-power cap sustains (module docstring)."""
    if not power_limit_w or not gpu.tdp_w or power_limit_w >= gpu.tdp_w:
        return 1.0
    exponent = POWER_CLOCK_EXPONENT_GDDR if gpu.memory_type.upper().startswith("GDDR") else POWER_CLOCK_EXPONENT
    return float((power_limit_w / gpu.tdp_w) ** exponent)


def _hopper_or_later(gpu: GpuSpec) -> bool:
    """Data-center GPUs with Hopper's or Blackwell's tensor cores (wgmma), where FlashAttention-2 falls short."""
    return gpu.sku.startswith(("h100", "h200", "b200", "b300", "gb200", "gb300"))


def attention_share(gpu: GpuSpec, framework: str) -> float:
    """Share of the BF16 peak the framework's flash attention reaches on this GPU (module constants)."""
    if _hopper_or_later(gpu):
        return ATTENTION_SHARE_TE_HOPPER if framework == "megatron" else ATTENTION_SHARE_FA2_HOPPER
    return ATTENTION_SHARE_FA2


def training_step(plan: _Plan, gpu: GpuSpec, count: int, link_gbs: float, pcie_gbs: float) -> TrainingStep:
    w = plan.workload
    model = w.model
    tokens = w.batch_size * w.sequence_length
    eta = TRAINING_ETA.get(w.framework, TRAINING_ETA_BASE / 2)
    power = power_factor(gpu, w.power_limit_w)
    mamf = MAMF_BF16.get(gpu.sku, 1.0)
    bf16 = eta * mamf * gpu.fp16_tflops * 1e12 * power
    fp8 = w.training_precision == "fp8" and bool(gpu.fp8_tflops)
    fp8_rate = eta * MAMF_FP8.get(gpu.sku, mamf) * float(gpu.fp8_tflops or 0.0) * 1e12 * power
    linear_rate = fp8_rate if fp8 else bf16
    attention_rate = attention_share(gpu, w.framework) * gpu.fp16_tflops * 1e12 * power
    linear_passes, attention_passes = forward_passes(plan)
    params = _compute_params(model)
    routed = _routed_params(model)
    # the routed experts' share of the matmuls runs as grouped GEMMs
    linear_s = 2.0 * linear_passes * ((params - routed) + routed / GROUPED_GEMM_EFFICIENCY) / linear_rate
    attention_s = attention_passes * _attention_flops(model, w.sequence_length, causal_average=True) / attention_rate
    # backward reads and writes about twice what forward does; both checkpointing modes rerun every elementwise
    # op of the layer (the selective policy keeps matmul and attention outputs only)
    elementwise = elementwise_bytes(model, fp8) * (3.0 + (0.0 if w.checkpointing == "none" else 1.0))
    elementwise_s = elementwise / (ETA_ELEMENTWISE_BW * gpu.bandwidth_gbs * 1e9)
    compute = tokens * (linear_s + attention_s + elementwise_s)
    all_to_all = 0.0
    if model.is_moe and count > 1:
        moe_layers = model.layers - model.dense_layers
        sent = 4.0 * model.active_experts * model.hidden * 2.0 * moe_layers * (count - 1) / count
        all_to_all = tokens * sent / (ALL_TO_ALL_LINK_SHARE * link_gbs * 1e9)
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
    step = max(compute + all_to_all, comm, offload)
    return TrainingStep(
        compute_s=compute,
        comm_s=comm,
        offload_s=offload,
        tokens_per_s=count * tokens / step,
        all_to_all_s=all_to_all,
        elementwise_s=tokens * elementwise_s,
        fp8=fp8,
        power_factor=power,
    )
