"""Issue 34 item 6 (trial W01, W13): a lighter precision that meets the whole request for materially less is
suggested beside a BF16 build that fits, with its price, speed and what it gives up; an MoE giant over its
budget hears what its quantized and CPU-offload builds cost and how fast they run."""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

import pytest

from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.recommend.suggestions import CHEAPER_SHARE
from configurator.engine.types import CatalogSnapshot, Constraints, Workload

# W01: a law firm, Qwen2.5-72B for 30 lawyers, 7000-token documents, 800-token answers, 15 tokens/s, production
W01 = Workload(
    model=model_get("qwen2.5-72b"),
    precision="bf16",
    engine="vllm",
    context_tokens=8192,
    prompt_tokens=7000,
    output_tokens=800,
    concurrent_users=30,
    production=True,
    target_tokens_per_s=15,
)
RACK = Constraints(form_factor="rack")
# W13: DeepSeek-V3 in FP8 for 10 users under 5 M RUB
W13 = Workload(model=model_get("deepseek-v3"), precision="fp8", engine="vllm", context_tokens=8192, concurrent_users=10)
LIMIT = Decimal(5_000_000)
BUDGET = Constraints(max_price=LIMIT)
PRICE = re.compile(r"([\d,]+) RUB")
SPEED = re.compile(r"≈ ([\d.]+) tokens/s")


def _amount(tip: str) -> Decimal:
    """The first price a suggestion says."""
    found = PRICE.search(tip)
    assert found is not None, tip
    return Decimal(found.group(1).replace(",", ""))


def _speed(tip: str) -> float:
    """The first speed a suggestion says."""
    found = SPEED.search(tip)
    assert found is not None, tip
    return float(found.group(1))


def _fp8_tips(suggestions: tuple[str, ...]) -> list[str]:
    return [str(tip) for tip in suggestions if str(tip).startswith("quantize to FP8")]


def test_w01_gets_the_fp8_build_with_its_price_speed_and_quality_note(snapshot: CatalogSnapshot) -> None:
    result = recommend(snapshot, W01, RACK, limit=3)
    first = result.candidates[0]
    tips = _fp8_tips(result.suggestions)
    assert len(tips) == 1, result.suggestions
    # the build said is the recommender's cheapest for the FP8 workload under the same constraints
    fp8 = recommend(snapshot, replace(W01, precision="fp8"), RACK, limit=1, suggest=False).candidates[0]
    assert f"{fp8.build.gpu_count}× {fp8.build.gpus[0].spec.sku} in {fp8.build.chassis.sku}" in tips[0]
    assert _amount(tips[0]) == fp8.price.gross
    assert fp8.price.gross <= first.price.gross * CHEAPER_SHARE  # materially cheaper
    assert _speed(tips[0]) >= 15  # meets the speed target asked
    assert "but only" not in tips[0]
    assert "arXiv:2411.02355" in tips[0] and "gives up" in tips[0]


def test_the_suggestion_leaves_the_main_list_as_it_was(snapshot: CatalogSnapshot) -> None:
    said = recommend(snapshot, W01, RACK, limit=3)
    plain = recommend(snapshot, W01, RACK, limit=3, suggest=False)
    assert [c.build for c in said.candidates] == [c.build for c in plain.candidates]


def test_a_request_already_in_fp8_gets_no_fp8_suggestion(snapshot: CatalogSnapshot) -> None:
    result = recommend(snapshot, replace(W01, precision="fp8"), RACK, limit=3)
    assert result.candidates
    assert not _fp8_tips(result.suggestions)
    assert not any("quantize to" in str(tip) for tip in result.suggestions)


def test_a_suggested_precision_keeps_the_budget(snapshot: CatalogSnapshot) -> None:
    # a budget just under the cheapest FP8 build: any FP8 build said is within it (a dearer FP8 one is not)
    fp8 = recommend(snapshot, replace(W01, precision="fp8"), RACK, limit=1, suggest=False).candidates[0]
    limit = fp8.price.gross - 1
    result = recommend(snapshot, W01, replace(RACK, max_price=limit), limit=3)
    assert all(_amount(tip) <= limit for tip in _fp8_tips(result.suggestions))


def test_the_precision_suggestion_is_bounded(snapshot: CatalogSnapshot, monkeypatch: pytest.MonkeyPatch) -> None:
    from configurator.engine import recommend as package

    calls: list[bool] = []
    real = package.recommend

    def counting(*args, **kwargs):
        calls.append(kwargs.get("suggest", True))
        return real(*args, **kwargs)

    monkeypatch.setattr(package, "recommend", counting)
    package.recommend(snapshot, W01, RACK, limit=3)
    assert 1 <= len(calls) - 1 <= 2  # FP8, and INT4 only when FP8 saves nothing
    assert not any(calls[1:])


def test_w13_hears_its_quantized_and_offload_options_with_their_speed(snapshot: CatalogSnapshot) -> None:
    result = recommend(snapshot, W13, BUDGET, limit=3)
    assert result.candidates == ()
    tips = [str(tip) for tip in result.suggestions]
    quantized = [tip for tip in tips if tip.startswith("quantize to") or tip.startswith("quantized to Q4_K_M")]
    offload = [tip for tip in tips if "CPU offload" in tip]
    assert quantized or offload, tips
    for tip in quantized:
        assert _speed(tip) > 0
        # over the budget only when it says so
        assert _amount(tip) <= LIMIT or "over the 5,000,000 RUB budget" in tip
    for tip in offload:
        assert "one user at a time, not the 10 at once asked" in tip
        assert _speed(tip) >= 10 or "but only" in tip  # below the default interactive target: said
        assert _amount(tip) <= LIMIT
