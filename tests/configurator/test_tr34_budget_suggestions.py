"""Trial tr34: "QLoRA of Llama 3.1 70B for 800,000 ₽" found nothing and was told only to raise the budget to
1.85 M ₽ (3 GPUs, as asked); training with Unsloth fits one 48 GB card for about 0.9 M ₽, the smaller raise,
which is now said first. A knob that fits within the budget is not said a second time."""

from __future__ import annotations

from decimal import Decimal

from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import CatalogSnapshot, Constraints, Workload

QLORA_70B = Workload(model=model_get("llama-3.1-70b"), task="qlora")


def _money(text: str) -> Decimal:
    figure = text.split(" RUB")[0].rsplit(" ", 1)[-1]
    return Decimal(figure.replace(",", ""))


def test_a_knob_that_fits_over_the_budget_is_said_before_the_raise(snapshot: CatalogSnapshot) -> None:
    result = recommend(snapshot, QLORA_70B, Constraints(max_price=Decimal(800_000)))
    assert result.candidates == ()
    tips = list(result.suggestions)
    knob = next(i for i, tip in enumerate(tips) if tip.startswith("train with Unsloth"))
    raise_ = next(i for i, tip in enumerate(tips) if tip.startswith("raise the budget to"))
    assert knob < raise_
    assert _money(tips[knob]) < _money(tips[raise_].replace("raise the budget to ", ""))
    assert len(tips) == len(set(tips))


def test_a_knob_within_the_budget_is_said_once(snapshot: CatalogSnapshot) -> None:
    result = recommend(snapshot, QLORA_70B, Constraints(max_price=Decimal(1_000_000)))
    assert result.candidates == ()
    assert len(result.suggestions) == len(set(result.suggestions))
    assert sum(tip.startswith("train with Unsloth") for tip in result.suggestions) == 1
