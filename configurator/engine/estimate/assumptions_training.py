"""The assumption sentences of a training estimate: the loss, the optimizer states, the activations and how the
training tokens/s were reached (configurator.engine.estimate.assumptions puts them in the reader's order).

They are `Phrase`s whose first argument is a literal msgid: makemessages extracts them (keep them literal).
"""

from __future__ import annotations

from configurator.engine.estimate.plans import _Plan
from configurator.engine.estimate.speed import _Link, _pcie_gbs
from configurator.engine.estimate.topology import NETWORK
from configurator.engine.estimate.training import LOSS_BYTES_PER_LOGIT, sharded_stage
from configurator.engine.estimate.training_speed import (
    ALL_TO_ALL_LINK_SHARE,
    MAMF_BF16,
    MAMF_FP8,
    TRAINING_ETA,
    TRAINING_ETA_BASE,
    attention_share,
    training_step,
)
from configurator.engine.estimate.weights import GIB
from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import GpuSpec

_LOSS_WHY: dict[str, Phrase] = {
    "hf_trainer": Phrase("transformers upcasts the logits to fp32 and keeps the fp32 log-softmax: 2 + 4 + 4"),
    "torchtune": Phrase("torchtune chunked linear cross-entropy: bf16 logits kept, one of 8 chunks upcast at a time"),
    "unsloth": Phrase("Unsloth fused cross-entropy: bf16 logits, gradient written in place"),
    "litgpt": Phrase(
        "LitGPT chunked head: the bf16 logits of every 128-token chunk kept for the chunked cross-entropy"
    ),
    "torchtitan": Phrase("torchtitan upcasts the logits to fp32 for the cross-entropy, as transformers does"),
    "megatron": Phrase("Megatron fused cross-entropy: bf16 logits and their fp32 exponentials: 2 + 4"),
}


def _optimizer_words(plan: _Plan) -> tuple[Phrase, Phrase]:
    """(the state per parameter, the optimizer's short name) for the workload's framework."""
    w = plan.workload
    if w.framework == "torchtune":
        if w.optimizer == "adamw_8bit":
            state = Phrase(
                "torchtune pure bf16, PagedAdamW8bit: bf16 weights 2 + grads 2 B/param, no fp32 master; 8-bit m, v "
                "(%(size)s GiB) are paged to host RAM and not counted in VRAM",
                size=Num(plan.host_optimizer / GIB, 1),
            )
            return state, Phrase("8-bit AdamW")
        state = Phrase("torchtune pure bf16: weights 2 + grads 2 + AdamW m, v in bf16 4 B/param, no fp32 master")
        return state, Phrase("bf16 AdamW")
    if w.framework == "litgpt":
        state = Phrase("LitGPT bf16-true: weights 2 + grads 2 + AdamW m, v in bf16 4 B/param, no fp32 master")
        return state, Phrase("bf16 AdamW")
    if w.framework == "megatron" and w.optimizer == "adamw":
        state = Phrase(
            "Megatron distributed optimizer: bf16 weights 2 + fp32 main grads 4 + fp32 master, m, v 12 = 18 B/param"
        )
        return state, Phrase("mixed-precision AdamW")
    if w.optimizer == "adamw_8bit":
        optimizer = Phrase(
            "8-bit AdamW: bf16 weights 2 + bf16 grads 2 + fp32 master 4 + 8-bit m, v 2 B/param "
            "(bitsandbytes, arXiv 2110.02861)"
        )
        return optimizer, Phrase("8-bit AdamW")
    optimizer = Phrase(
        "mixed-precision AdamW: bf16 weights 2 + bf16 grads 2 + fp32 master, m, v 12 = 16 B/param "
        "(ZeRO arXiv 1910.02054 K=12; DeepSpeed's code counts 20 with fp32 grads)"
    )
    return optimizer, Phrase("mixed-precision AdamW")


def _training_speed_assumptions(plan: _Plan, gpu: GpuSpec, count: int, link: _Link) -> list[Phrase]:
    """How the training tokens/s were reached: efficiency, precision, power, attention, MoE traffic."""
    w = plan.workload
    step = training_step(plan, gpu, count, link.gbs, _pcie_gbs(gpu))
    eta = TRAINING_ETA.get(w.framework, TRAINING_ETA_BASE / 2)
    words = [
        Phrase(
            "training matmuls at %(eta)s%% of the %(mamf)s TFLOPS a %(precision)s matmul reaches on this GPU "
            "(η fitted on fixtures/training_throughput.csv; bench/training_accuracy.py judges it "
            "leave-one-source-out); flash attention at %(attention)s%% of the BF16 peak; decode figures do not apply",
            eta=Num(eta * 100),
            mamf=Num(
                (gpu.fp8_tflops or 0.0) * MAMF_FP8.get(gpu.sku, MAMF_BF16.get(gpu.sku, 1.0))
                if step.fp8
                else gpu.fp16_tflops * MAMF_BF16.get(gpu.sku, 1.0),
                0,
            ),
            precision="FP8" if step.fp8 else "BF16",
            attention=Num(attention_share(gpu, w.framework) * 100),
        )
    ]
    if w.training_precision == "fp8" and not step.fp8:
        words.append(Phrase("%(gpu)s has no FP8 tensor cores: trained at BF16 speed", gpu=gpu.name))
    if step.power_factor < 1.0:
        words.append(
            Phrase(
                "power capped at %(cap)s W of %(tdp)s W: clocks and matmul rate at %(share)s%%",
                cap=Num(w.power_limit_w or 0.0, None),
                tdp=gpu.tdp_w,
                share=Num(step.power_factor * 100),
            )
        )
    if w.model.is_moe and count > 1:
        words.append(
            Phrase(
                "MoE: experts spread over the %(count)s GPUs (expert parallel: their weights, gradients and optimizer "
                "states too); every routed token goes to its expert's GPU and back "
                "at %(share)s%% of the link (DeepEP's measured all-to-all): %(a2a)s%% of the step",
                count=count,
                share=Num(ALL_TO_ALL_LINK_SHARE * 100),
                a2a=Num(100 * step.all_to_all_s / max(step.compute_s + step.all_to_all_s, 1e-12)),
            )
        )
    if link.bound is not None and link.bound.kind == NETWORK and step.comm_s > 0:  # trial tr33b: it went unsaid
        sharded = sharded_stage(w.framework, w.zero_stage, count) >= 3
        words.append(
            Phrase(
                "across the servers each step's traffic (%(traffic)s) goes over %(link)s: %(comm)s s of communication "
                "against %(compute)s s of compute per step; the step takes the longer",
                traffic=Phrase("weight gathers and gradient reduce-scatter (ZeRO stage 3)")
                if sharded
                else Phrase("gradient all-reduce"),
                link=link.label,
                comm=Num(step.comm_s, 3),
                compute=Num(step.compute_s + step.all_to_all_s, 3),
            )
        )
    return words


def _training_assumptions(plan: _Plan) -> list[Phrase]:
    w = plan.workload
    words: list[Phrase] = []
    optimizer, optimizer_name = _optimizer_words(plan)
    words.append(
        Phrase(
            "loss over %(vocab)s vocabulary entries: %(bytes)s B per entry per token, %(size)s GiB (%(why)s)",
            vocab=Num(w.model.vocab),
            bytes=Num(LOSS_BYTES_PER_LOGIT[w.framework], 2),
            size=Num(plan.logits / GIB, 2),
            why=_LOSS_WHY[w.framework],
        )
    )
    if w.framework == "torchtune" and w.task == "full_finetune":
        words.append(Phrase("optimizer step fused into backward (torchtune optimizer_in_bwd): one gradient at a time"))
    if w.framework == "unsloth" and w.gradient_checkpointing:
        words.append(Phrase("Unsloth gradient checkpointing offloads the layer inputs to host RAM"))
    if w.task == "full_finetune":
        words.append(optimizer)
    else:
        words.append(
            Phrase(
                "LoRA rank %(rank)s on every linear layer: %(trainable)s M trainable parameters "
                "(r·(d_in + d_out) each) with %(optimizer)s",
                rank=w.lora_rank,
                trainable=Num(plan.trainable_params / 1e6, 1),
                optimizer=optimizer_name,
            )
        )
    if plan.load_peak:
        words.append(
            Phrase(
                "QLoRA load peak: LitGPT materialises the checkpoint in bf16 (%(load)s GiB) before bitsandbytes "
                "quantises it to NF4, so the peak is the larger of the load and a training step",
                load=Num(plan.load_peak / GIB, 1),
            )
        )
    if w.checkpointing == "full":
        words.append(
            Phrase(
                "activations for %(batch)s × %(tokens)s tokens with gradient checkpointing (layer inputs 2·s·b·h "
                "kept, one layer recomputed), per tensor for SwiGLU + flash attention "
                "(Korthikanti et al. arXiv 2205.05198)",
                batch=w.batch_size,
                tokens=Num(w.sequence_length),
            )
        )
    elif w.checkpointing == "selective":
        words.append(
            Phrase(
                "activations for %(batch)s × %(tokens)s tokens with selective activation checkpointing "
                "(torchtitan's op policy: outputs of flash attention and of every second matmul kept, elementwise "
                "ops and the other matmuls recomputed)",
                batch=w.batch_size,
                tokens=Num(w.sequence_length),
            )
        )
    else:
        words.append(
            Phrase(
                "activations for %(batch)s × %(tokens)s tokens without checkpointing, per tensor for SwiGLU + "
                "flash attention (Korthikanti et al. arXiv 2205.05198)",
                batch=w.batch_size,
                tokens=Num(w.sequence_length),
            )
        )
    return words
