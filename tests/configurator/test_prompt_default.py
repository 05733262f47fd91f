"""Trial 34 W14: without `prompt_tokens` every prompt is taken to fill the context (the safe default, and the
slowest); the estimate's assumptions and each recommended build's reasons say so, in English and Russian."""

from __future__ import annotations

from dataclasses import replace

from django.utils import translation

from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import CatalogSnapshot, Constraints, Workload
from configurator.templatetags.configurator_ui import say

GPT_OSS = Workload(
    model=model_get("gpt-oss-120b"), precision="mxfp4", context_tokens=16384, concurrent_users=50,
    target_tokens_per_s=30,
)  # fmt: skip
SAID = "prompts assumed to fill the context: 15,872 tokens; give prompt_tokens for a truer figure"


def test_an_unstated_prompt_is_said_to_fill_the_context(snapshot: CatalogSnapshot) -> None:
    """16,384-token context, output min(512, context / 4) = 512: prompts of 15,872 tokens."""
    plain = [str(text) for text in estimate(GPT_OSS, snapshot.gpus["h200-sxm"], 4).assumptions]
    assert SAID in plain
    found = recommend(snapshot, GPT_OSS, Constraints(), limit=1).candidates
    assert found and SAID in [str(reason) for reason in found[0].why]
    stated = replace(GPT_OSS, prompt_tokens=2000, output_tokens=500)
    assert not any(
        "fill the context" in str(text) for text in estimate(stated, snapshot.gpus["h200-sxm"], 4).assumptions
    )


def test_it_is_said_in_russian(snapshot: CatalogSnapshot) -> None:
    phrase = next(
        text for text in estimate(GPT_OSS, snapshot.gpus["h200-sxm"], 4).assumptions if "fill the context" in str(text)
    )
    with translation.override("ru"):
        russian = say(phrase)
    assert russian.startswith("промпты приняты заполняющими весь контекст (токенов: 15"), russian
    assert "длину промпта" in russian and "prompt_tokens" not in russian and "fill" not in russian
