"""LazyTexts: the estimator's assumptions are composed on first read, once, and behave as a tuple."""

from __future__ import annotations

import pickle

from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_get
from configurator.engine.phrase import LazyTexts, Phrase
from configurator.engine.types import CatalogSnapshot, Workload


def test_texts_are_made_once_on_first_read_and_act_as_a_tuple() -> None:
    calls: list[int] = []

    def make() -> list[str]:
        calls.append(1)
        return [Phrase("ECC GPU memory"), "plain"]

    texts = LazyTexts(make)
    assert calls == []
    assert list(texts) == ["ECC GPU memory", "plain"] and len(texts) == 2 and texts[0] == "ECC GPU memory"
    assert texts == ("ECC GPU memory", "plain") and hash(texts) == hash(("ECC GPU memory", "plain"))
    assert texts != ("plain",)
    assert calls == [1]
    assert pickle.loads(pickle.dumps(texts)) == ("ECC GPU memory", "plain")  # noqa: S301 - our own object


def test_two_equal_estimates_compare_equal_with_their_assumptions(snapshot: CatalogSnapshot) -> None:
    workload = Workload(model=model_get("llama-3.1-8b"), precision="q4_k_m")
    first, second = (estimate(workload, snapshot.gpus["rtx-4090"], 1) for _ in range(2))
    assert first == second and first.assumptions is not second.assumptions
    other = estimate(workload, snapshot.gpus["rtx-4090"], 2)
    assert first != other
    assert any(text.startswith("Weights: Q4_K_M") for text in first.assumptions)
