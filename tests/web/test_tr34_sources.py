"""Trial tr34: a page names a library model's source as "the model's published config.json" whatever its
research note says (Qwen2.5 72B's read "Independent copies of the HF config.json found by find_string
(model-architectures.json ids …)", shown to customers; 32 notes name no repository path), and the server-engine
calibration as published benchmarks, not as a CSV file of the repository."""

from __future__ import annotations

from django.utils import translation

from configurator.engine.calibration import SERVER_FIT_SOURCE
from configurator.engine.models_library import model_by_name
from configurator.engine.phrase import Num, Phrase
from configurator.web.viewmodels import cited

INTERNAL = ("find_string", "/work/", "not re-read", "from memory", "model-architectures.json", "@")


def _parameters(slug: str) -> Phrase:
    model, _named = model_by_name(slug)
    return Phrase(
        "%(model)s: %(total)s B parameters (%(source)s)", model=model.name, total=Num(70, 0), source=model.source
    )


def test_every_library_models_source_is_named() -> None:
    for language, named in (("en", "the model's published config.json"), ("ru", "опубликованный config.json")):
        with translation.override(language):
            for slug in ("qwen2.5-72b", "phi-4", "gemma-3-27b", "llama-3.1-70b", "deepseek-r1"):
                line = cited(_parameters(slug))
                assert named in line, line
                assert not any(mark in line for mark in INTERNAL), line


def test_the_calibration_is_said_as_it_is() -> None:
    """(A pasted config.json is said as it is: tests/web/test_pages_issue16.py.)"""
    with translation.override("en"):
        assert cited(SERVER_FIT_SOURCE) == (
            "fitted on 46 server-engine rows of published serving benchmarks (vLLM, SGLang, TensorRT-LLM)"
        )
