"""Claims of the GPU guide article (../shared/reference/gpu-guide-2026.ru.txt) as estimator tests."""

from __future__ import annotations

import pytest

from configurator.engine.estimate import GIB, default_engine, estimate, min_gpus_to_fit
from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, Workload


def _infer(slug: str, precision: str = "q4_k_m", **kw: object) -> Workload:
    engine = kw.pop("engine", default_engine(precision))
    return Workload(model=model_get(slug), precision=precision, engine=engine, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("slug", ["llama-3.1-8b", "llama-3-8b", "qwen3-8b", "mistral-7b", "qwen2.5-7b"])
def test_7_8b_q4_k_m_runs_on_rtx_3060_12gb(snapshot: CatalogSnapshot, slug: str) -> None:
    """Article: "Двенадцати гигабайт хватает под модели 7–8B в квантизации" (RTX 3060 12 GB), at 8k context."""
    result = estimate(_infer(slug, context_tokens=8192), snapshot.gpus["rtx-3060-12gb"])
    assert result.layout is not None
    assert result.layout.fits is True


@pytest.mark.parametrize("slug", ["qwen3-32b", "qwen2.5-32b"])
@pytest.mark.parametrize("sku", ["rtx-3090", "rtx-4090"])
def test_30b_q4_k_m_fits_24gb_at_short_context_but_not_long(snapshot: CatalogSnapshot, slug: str, sku: str) -> None:
    """Article: a 24 GB card runs ~30B models, but "стоит подать модели 30B длинный документ … кэш
    разрастается до нескольких гигабайт … вылетела ввиду нехватки памяти" — KV growth at a long context."""
    gpu = snapshot.gpus[sku]
    short = estimate(_infer(slug, context_tokens=4096), gpu)
    long = estimate(_infer(slug, context_tokens=32768), gpu)
    assert short.layout is not None and long.layout is not None
    assert short.layout.fits is True
    assert long.layout.fits is False
    assert long.memory.kv_cache - short.memory.kv_cache > 4  # "several gigabytes" of extra KV


@pytest.mark.parametrize("slug", ["llama-3.1-70b", "llama-3.3-70b"])
@pytest.mark.parametrize("sku", ["rtx-3090", "rtx-4090"])
def test_70b_q4_k_m_needs_two_24gb_cards(snapshot: CatalogSnapshot, slug: str, sku: str) -> None:
    """Article's VRAM table: 70B in Q4_K_M needs two 24 GB cards (llama.cpp layer split)."""
    workload = _infer(slug, context_tokens=4096)
    assert min_gpus_to_fit(workload, snapshot.gpus[sku]) == 2
    result = estimate(workload, snapshot.gpus[sku], 2)
    assert result.layout is not None
    assert (result.layout.parallelism, result.layout.fits) == ("pipeline", True)


def test_model_needing_16gb_to_run_needs_60_to_80gb_plus_to_train() -> None:
    """Article: "если под запуск модели хватает условных 16 ГБ, то под её полноценное обучение понадобится
    60–80 ГБ и больше" (16–20 bytes/param for mixed-precision training vs 2 at FP16 inference)."""
    model = model_get("llama-3.1-8b")
    run = estimate(Workload(model=model, precision="bf16", engine="vllm", context_tokens=2048)).memory.total
    assert 14 <= run <= 18
    for optimizer in ("adamw", "adamw_8bit"):
        train = estimate(Workload(model=model, task="full_finetune", precision="bf16", optimizer=optimizer)).memory
        assert train.total >= 60
        assert (train.weights + train.gradients + train.optimizer) * GIB / model.total_params >= 10


@pytest.mark.parametrize(
    ("slug", "precision", "engine"),
    [("qwen3-14b", "q4_k_m", "llama.cpp"), ("llama-3.1-8b", "q8_0", "llama.cpp"), ("llama-3.1-8b", "bf16", "vllm")],
)
def test_two_rtx_5060_ti_are_slower_per_user_than_one_rtx_3090(
    snapshot: CatalogSnapshot, slug: str, precision: str, engine: str
) -> None:
    """Article: 2×RTX 5060 Ti 16 GB "на небольших моделях … проигрывает одиночной RTX 3090 по скорости
    генерации" — the cards talk over PCIe (5.0 x8) and each has 448 GB/s against the 3090's 936 GB/s. Holds for
    the layer split (no single-stream gain) and for vLLM tensor parallel (half the bytes each, plus all-reduces)."""
    workload = _infer(slug, precision, engine=engine)
    pair = estimate(workload, snapshot.gpus["rtx-5060-ti-16gb"], 2)
    single = estimate(workload, snapshot.gpus["rtx-3090"], 1)
    assert pair.layout is not None and single.layout is not None
    assert pair.layout.fits and single.layout.fits
    assert pair.throughput is not None and single.throughput is not None
    assert pair.throughput.decode_tokens_per_s_per_user < single.throughput.decode_tokens_per_s_per_user


def test_rtx_3090_beats_newer_card_with_slower_memory(snapshot: CatalogSnapshot) -> None:
    """Article: the RTX 3090's 936 GB/s often beats newer cards with slow memory on dense models."""
    workload = _infer("qwen3-14b", context_tokens=4096)
    old = estimate(workload, snapshot.gpus["rtx-3090"]).throughput
    new = estimate(workload, snapshot.gpus["rtx-5060-ti-16gb"]).throughput
    assert old is not None and new is not None
    assert old.decode_tokens_per_s_per_user > 1.5 * new.decode_tokens_per_s_per_user


def test_lora_of_8b_on_a_consumer_card(snapshot: CatalogSnapshot) -> None:
    """Article: "Дообучить модель на 7–8B через LoRA реально даже на потребительской карте"."""
    workload = Workload(model=model_get("llama-3.1-8b"), task="lora", precision="bf16", sequence_length=2048)
    for sku in ("rtx-4090", "rtx-3090", "rtx-5090"):
        layout = estimate(workload, snapshot.gpus[sku]).layout
        assert layout is not None and layout.fits is True


@pytest.mark.parametrize(("sku", "precision"), [("rtx-pro-6000-blackwell", "fp8"), ("h200-nvl", "fp8")])
def test_big_cards_hold_a_70b_model_whole(snapshot: CatalogSnapshot, sku: str, precision: str) -> None:
    """Article: RTX PRO 6000 96 GB "позволяют держать большие модели целиком"; H200 NVL 141 GB for the
    heaviest models and long context."""
    layout = estimate(_infer("llama-3.3-70b", precision, context_tokens=16384), snapshot.gpus[sku]).layout
    assert layout is not None and layout.fits is True
