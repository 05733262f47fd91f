"""Issue 34, second sales-engineer trial (u34): figures an answer says twice agree, and labels say what they
stand for.

- U10, Gemma-3-12B for a school lab of 30 students: the KV pool line said "47,554 tokens = 11 users at 4,096
  tokens" for a build sized for the 30 (the pool's tokens count every layer; a user's sliding-window layers
  hold only the window, as the memory need counts them).
- U01, Llama-3.1-8B for 300 agents, 1,500-token prompts and 300-token answers: the KV line said "4,096 tokens
  × 300 sequence(s)" beside a KV cache of 1,800 tokens a user.
- U06, DeepSeek-R1 for one user: the CPU-offload offer said "≈ 5.3 tokens/s … but only 5.2 of the default 10".
- U08, LoRA of Qwen2.5-14B: "all of these together" followed a single shown knob."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from types import SimpleNamespace
from typing import Any

from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_get
from configurator.engine.recommend.reasons import _none_meets
from configurator.engine.recommend.suggestions import gives_up, knob_changes
from configurator.engine.types import CatalogSnapshot, Constraints, Workload


def _pool_line(assumptions: Any) -> str:
    return next(text for text in assumptions if "the KV pool holds" in text)


def test_a_sliding_window_models_pool_holds_the_users_its_memory_need_was_sized_for(
    snapshot: CatalogSnapshot,
) -> None:
    lab = Workload(model=model_get("gemma-3-12b"), engine="vllm", concurrent_users=30, output_tokens=400)
    result = estimate(lab, snapshot.gpus["rtx-pro-4000-blackwell"], 2)
    assert result.layout is not None and result.layout.fits
    assert result.layout.max_concurrent_users is not None and result.layout.max_concurrent_users >= 30
    users = int(re.search(r"= ([\d,]+) users at", _pool_line(result.assumptions)).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert users == result.layout.max_concurrent_users


def test_a_model_without_sliding_windows_counts_its_pool_by_the_whole_context(snapshot: CatalogSnapshot) -> None:
    chat = Workload(model=model_get("llama-3.1-8b"), engine="vllm", concurrent_users=10)
    result = estimate(chat, snapshot.gpus["rtx-pro-4000-blackwell"], 1)
    assert result.layout is not None and result.layout.kv_cache_tokens is not None
    assert result.layout.max_concurrent_users == result.layout.kv_cache_tokens // 4096


def test_the_kv_line_says_the_tokens_a_paged_engine_holds() -> None:
    agents = Workload(
        model=model_get("llama-3.1-8b"), engine="vllm", concurrent_users=300, prompt_tokens=1500, output_tokens=300
    )
    said = estimate(agents).assumptions
    line = next(text for text in said if text.startswith("KV cache"))
    assert line.endswith("1,800 tokens × 300 sequence(s)")
    paged = next(text for text in said if "PagedAttention" in text)
    assert "holds its request's 1,800 tokens" in paged and "4,096-token context" in paged
    whole = next(text for text in estimate(Workload(model=model_get("llama-3.1-8b"))).assumptions if "KV" in text)
    assert whole.endswith("4,096 tokens × 1 sequence(s)")


def test_a_speed_short_of_the_target_is_said_as_the_offer_says_it() -> None:
    asked = Workload(model=model_get("deepseek-r1"))  # no target: the default interactive 10 tokens/s
    said = gives_up(SimpleNamespace(decode_tokens_per_s_per_user=5.29), asked)  # type: ignore[arg-type]
    assert said is not None and "only 5.3 of" in said
    close = gives_up(SimpleNamespace(decode_tokens_per_s_per_user=9.96), asked)  # type: ignore[arg-type]
    assert close is not None and "only 9.9 of" in close  # never shown as the target it misses


def test_the_knobs_all_together_are_named() -> None:
    lora = Workload(model=model_get("qwen2.5-14b"), task="lora", batch_size=2, sequence_length=4096)
    changes = knob_changes(lora)
    together = changes[-1][1]
    assert together.endswith(", all together")
    for _, words in changes[:-1]:
        assert words in together


def test_none_meeting_the_target_says_the_catalog_only_when_nothing_was_left_out() -> None:
    """U05: Llama-3.3-70B FP8 for 64 users at 20 tokens/s within 10 days: the builds that ship in time all miss,
    but 8× H100 SXM (January) meets it, so "no build in the catalog meets 20" was untrue."""
    fast = Workload(model=model_get("llama-3.3-70b"), concurrent_users=64, target_tokens_per_s=20)
    assert _none_meets(fast, Constraints(), 20).startswith("no build in the catalog meets 20")
    dated = _none_meets(fast, Constraints(deliver_by=date(2026, 12, 14)), 20)
    assert dated.startswith("no build within the request's limits meets 20") and "catalog" not in dated
    office = replace(fast, target_tokens_per_s=None, noise="office")
    assert "within the request's limits meets the default interactive 10" in _none_meets(office, None, 10)
