"""Trial 34 follow-up: Russian slips on the results page — a chassis name after "в" kept its nominative ("в
ИИ-станция 6,5U…"), and the budget suggestion for a quantized model began "и квантованной…"."""

from __future__ import annotations

from django.template import Context, Template
from django.utils import translation

from configurator.engine.phrase import Num, Phrase
from configurator.wording import say, with_part_names

NAMES = {"ws-tr-pro-6gpu-6u5": "ИИ-станция 6,5U, Threadripper PRO, 4–6 GPU"}


def test_a_chassis_name_after_v_reads_with_the_word_shassi() -> None:
    offer = Phrase(
        "%(count)s× %(gpu)s in %(chassis)s, %(amount)s %(currency)s",
        count=4,
        gpu="rtx-pro-6000-blackwell-maxq",
        chassis="ws-tr-pro-6gpu-6u5",
        amount=Num(6738060),
        currency="RUB",
    )
    with translation.override("ru"):
        said = str(say(with_part_names(offer, NAMES)))
    assert "в шасси ИИ-станция 6,5U" in said, said
    assert "в ИИ-станция" not in said


def test_the_quantized_budget_suggestion_does_not_begin_with_i_and_the_page_capitalizes_it() -> None:
    tip = Phrase(
        "quantized to %(precision)s (%(engine)s) it still needs %(offer)s, over the %(budget)s %(currency)s budget",
        precision="FP8",
        engine="vllm",
        offer="4× x",
        budget=Num(1000000),
        currency="RUB",
    )
    with translation.override("ru"):
        said = str(say(tip))
        page = Template("{% load configurator_ui %}{{ tip|say|capfirst }}").render(Context({"tip": tip}))
    assert said.startswith("даже после квантования до FP8 (vllm) модели нужна сборка"), said
    assert page.startswith("Даже после квантования"), page
