"""Training peaks against every published measurement in fixtures/training_memory.csv (source per row).

Nothing is fitted to these rows: the estimate is the framework's rules (configurator.engine.estimate.training)
and the per-tensor activation count. `torch_peak` rows are torch's peak allocation (no CUDA context), so the
estimate's per-GPU figure is compared without its context reserve; `process` rows are whole-process figures
and `capacity` rows the card's memory at the longest context that fits (Unsloth's benchmark page); both are
compared with it. Claimed error: every torchtune row within 15 %, every row within 35 % except the
LLaMA-Factory wiki's April-2024 Unsloth rows (40 %: that release predates Unsloth's Cut Cross-Entropy and kept
more per token than the current rules say), median ≤ 20 % overall and per source.
Measured (bench/training_accuracy.py): torchtune −3 … +8 % (median 3.3 %), Unsloth docs −16 … +10 % (9.3 %),
LLaMA-Factory −12 … −36 % (25.0 %), all 25 rows median 10.2 %.

Issue 33 added torchtitan's H100 FSDP rows (`torch_reserved`: torch's peak reserved memory, no CUDA context)
and LitGPT's config-hub table (`torch_peak`, printed in GB, stored in GiB). Claimed: torchtitan within 10 %
(measured +2.0 % at 8 GPUs, +4.5 % at 128), LitGPT's QLoRA rows of 7-9 B models (whose peak is the bf16 load)
within 15 % (−11.4 … +1.6 %), the other LitGPT rows within 35 % (TinyLlama and Phi-3-mini QLoRA −31 % and −27 %:
bitsandbytes' buffers at micro-batch 4-8 are not modelled). Leave-one-source-out over all 43 rows: median 9.1 %,
p90 26.8 %.
"""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

import pytest

from catalog.fixture import fixture_snapshot
from configurator.engine.estimate import GPU_CONTEXT_GIB, estimate
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "training_memory.csv"
ROWS = list(csv.DictReader(FIXTURE.open(encoding="utf-8")))


def _relative_error(row: dict[str, str]) -> float:
    workload = Workload(
        model=model_get(row["model"]),
        task=row["method"],
        precision="bf16",
        framework=row["framework"],
        optimizer=row["optimizer"],
        sequence_length=int(row["seq"]),
        batch_size=int(row["batch"]),
        lora_rank=int(row["lora_rank"] or 16),
        gradient_checkpointing=row["checkpointing"] != "none",
        activation_checkpointing=row["checkpointing"],
    )
    result = estimate(workload, fixture_snapshot().gpus[row["gpu"]], int(row["gpu_count"]))
    assert result.layout is not None
    torch_counter = row["measured_by"] in ("torch_peak", "torch_reserved")
    per_gpu = result.layout.per_gpu_gib - (GPU_CONTEXT_GIB if torch_counter else 0.0)
    return per_gpu / float(row["peak_gib"]) - 1


def test_every_row_names_its_source() -> None:
    assert len(ROWS) >= 10
    measures = ("torch_peak", "torch_reserved", "process", "capacity")
    assert all(row["source"] and row["measured_by"] in measures for row in ROWS)
    assert all(row["checkpointing"] in ("none", "selective", "full") for row in ROWS)
    # torchtune, LLaMA-Factory, Unsloth, torchtitan, LitGPT
    assert len({row["source"].split(" ")[0] for row in ROWS}) >= 5


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['model']}-{r['method']}-{r['framework']}-{r['seq']}" for r in ROWS])
def test_training_peak_against_the_published_figure(row: dict[str, str]) -> None:
    limit = 0.15 if row["framework"] == "torchtune" else 0.35
    if row["framework"] == "unsloth" and row["source"].startswith("hiyouga/LLaMA-Factory"):
        limit = 0.40  # Unsloth 2024.4, before Cut Cross-Entropy (module docstring)
    if row["framework"] == "torchtitan":
        limit = 0.10
    if row["framework"] == "litgpt" and row["method"] == "qlora":
        limit = 0.35 if row["model"] in ("tinyllama-1.1b", "phi-3-mini") else 0.15  # module docstring
    assert abs(_relative_error(row)) <= limit, row["source"]


def test_median_training_peak_error_is_within_20_percent() -> None:
    assert statistics.median(abs(_relative_error(row)) for row in ROWS) <= 0.20


def test_unsloth_benchmark_peaks_within_10_percent() -> None:
    """docs.unsloth.ai 'Unsloth Benchmarks': Llama 3.1 8B and 3.3 70B QLoRA at the longest context that fits
    12-80 GB. Cut Cross-Entropy keeps no logits, offloaded checkpoints keep no layer inputs on the GPU: the
    peak grows by one layer's backward working set per token (the issue's 2-5× too short context came from
    a per-logit loss term)."""
    rows = [r for r in ROWS if r["source"].startswith("unslothai") and r["framework"] == "unsloth"]
    assert len(rows) >= 5
    assert all(abs(_relative_error(row)) <= 0.11 for row in rows)


def test_hf_trainer_longest_context_follows_the_fp32_loss() -> None:
    """The same page's "Hugging Face + FA2" column: 28,454 tokens fit 80 GB (we say 68 GiB of 74.5) and
    2,551 fit 16 GB; the loss holds 16 B per vocabulary entry per token at its peak."""
    rows = [r for r in ROWS if r["source"].startswith("unslothai") and r["framework"] == "hf_trainer"]
    assert rows and all(abs(_relative_error(row)) <= 0.17 for row in rows)


def test_torchtune_8b_full_finetune_has_no_fp32_master_weights() -> None:
    """torchtune README @bd2a0fc7: Llama 3.1 8B full fine-tune on one RTX 4090, 18.9 GiB peak (pure bf16,
    PagedAdamW8bit, optimizer in backward). The HF Trainer rule (fp32 master, 10 B/param with 8-bit AdamW)
    needs four times that; the issue measured 79.9 GiB for it."""
    model = model_get("llama-3.1-8b")
    kwargs = {"model": model, "task": "full_finetune", "precision": "bf16", "optimizer": "adamw_8bit", "batch_size": 2}
    torchtune = estimate(Workload(**kwargs, framework="torchtune")).memory  # type: ignore[arg-type]
    hf = estimate(Workload(**kwargs)).memory  # type: ignore[arg-type]
    assert torchtune.total - torchtune.overhead == pytest.approx(18.9, rel=0.05)
    assert hf.total > 3.5 * torchtune.total


def test_loss_term_by_framework() -> None:
    """Per vocabulary entry per token: HF 2 + 4 + 4 + 4 + 2 (transformers ForCausalLMLoss upcasts;
    cross_entropy saves the fp32 log-softmax; backward adds the fp32 gradient and its bf16 cast), torchtune
    2 + 6/8 (LinearCrossEntropyLoss, 8 chunks), Unsloth 0 (Cut Cross-Entropy)."""
    model = model_get("llama-3.1-8b")
    tokens = 2 * 4096
    for framework, per_entry in (("hf_trainer", 16.0), ("torchtune", 2.75), ("unsloth", 0.0)):
        workload = Workload(model=model, task="lora", batch_size=2, sequence_length=4096, framework=framework)
        plan_bytes = estimate(workload).memory.activations * 2**30
        assert plan_bytes > per_entry * tokens * model.vocab


def test_lora_70b_shards_over_two_96gb_cards_like_full_finetuning() -> None:
    """Issue 13: LoRA on a 70B model must fit 2 × 96 GB when sharded (FSDP / ZeRO-3), as full fine-tuning
    does; torchtune's distributed LoRA recipe always shards (FSDP2), HF/DeepSpeed with zero_stage 3."""
    gpu = fixture_snapshot().gpus["rtx-pro-6000-blackwell"]
    model = model_get("llama-3.1-70b")
    for framework, stage in (("torchtune", 0), ("hf_trainer", 3)):
        workload = Workload(model=model, task="lora", framework=framework, zero_stage=stage)
        result = estimate(workload, gpu, 2)
        assert result.layout is not None
        assert result.layout.fits is True, framework
        assert result.layout.per_gpu_gib < 96
    replicated = estimate(Workload(model=model, task="lora"), gpu, 2)
    assert replicated.layout is not None and replicated.layout.fits is False  # DDP keeps a whole copy per GPU
