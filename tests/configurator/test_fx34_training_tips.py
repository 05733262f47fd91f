"""Trial 34 follow-up, U07: a training suggestion says its build's training speed, as an inference suggestion
says tokens/s per user."""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import CatalogSnapshot, Constraints, Workload


def test_qlora_suggestions_under_a_budget_say_the_training_speed(snapshot: CatalogSnapshot) -> None:
    workload = Workload(model=model_get("llama-3.1-70b"), task="qlora", sequence_length=2048)
    found = recommend(snapshot, workload, Constraints(max_price=Decimal(1_000_000)))
    assert found.candidates == ()
    unsloth = next(str(t) for t in found.suggestions if str(t).startswith("train with Unsloth"))
    said = re.search(r"trains ≈ ([\d,]+) tokens/s", unsloth)
    assert said is not None, unsloth
    built = recommend(
        snapshot,
        replace(workload, framework="unsloth", gradient_checkpointing=True),
        Constraints(max_price=Decimal(1_000_000)),
        limit=1,
        suggest=False,
    ).candidates[0]
    assert int(said[1].replace(",", "")) == round(built.training_tokens_per_s) > 0
