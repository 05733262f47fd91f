"""Training peaks against every published measurement in fixtures/training_memory.csv (source per row).

Nothing is fitted to these rows: the estimate is the framework's rules (configurator.engine.estimate.training)
and the per-tensor activation count. `torch_peak` rows are torch's peak allocation (no CUDA context), so the
estimate's per-GPU figure is compared without its context reserve; `process` rows are whole-process figures
and are compared with it. Claimed error: every torchtune row within 15 %, every row within 35 %, median ≤ 20 %.
Measured (commit of this test): torchtune rows +0.1 … +14 %; HF and Unsloth QLoRA rows (LLaMA-Factory wiki,
whole-GB figures) 16–31 % below — the caching allocator's reserve and the gradients of the layer being
recomputed are not counted.
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
        gradient_checkpointing=True,
    )
    result = estimate(workload, fixture_snapshot().gpus[row["gpu"]], int(row["gpu_count"]))
    assert result.layout is not None
    per_gpu = result.layout.per_gpu_gib - (GPU_CONTEXT_GIB if row["measured_by"] == "torch_peak" else 0.0)
    return per_gpu / float(row["peak_gib"]) - 1


def test_every_row_names_its_source() -> None:
    assert len(ROWS) >= 10
    assert all(row["source"] and row["measured_by"] in ("torch_peak", "process") for row in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['model']}-{r['method']}-{r['framework']}-{r['seq']}" for r in ROWS])
def test_training_peak_against_the_published_figure(row: dict[str, str]) -> None:
    limit = 0.15 if row["framework"] == "torchtune" else 0.35
    assert abs(_relative_error(row)) <= limit, row["source"]


def test_median_training_peak_error_is_within_20_percent() -> None:
    assert statistics.median(abs(_relative_error(row)) for row in ROWS) <= 0.20


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
    """Per vocabulary entry per token: HF 2 + 4 + 4 (transformers ForCausalLMLoss upcasts; cross_entropy saves
    the fp32 log-softmax), torchtune 2 + 6/8 (LinearCrossEntropyLoss, 8 chunks), Unsloth 2 (fused kernel)."""
    model = model_get("llama-3.1-8b")
    tokens = 2 * 4096
    for framework, per_entry in (("hf_trainer", 10.0), ("torchtune", 2.75), ("unsloth", 2.0)):
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
