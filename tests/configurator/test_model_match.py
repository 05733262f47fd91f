"""Issue 37 item 1: the model search finds what a person types, best first, and says "did you mean"."""

from __future__ import annotations

import pytest

from configurator.engine.errors import UnknownModelError
from configurator.engine.model_match import match_models, words
from configurator.engine.models_library import model_aliases, model_get, model_library, model_matches

# the phrases of the issue (each ended in "нет в библиотеке") and the models they must find, in this order
PHRASES = [
    ("llama 8b", ["llama-3.1-8b", "llama-3-8b"]),  # no version said: the newer release first
    ("llama3", ["llama-3-8b", "llama-3-70b", "llama-3.3-70b", "llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b"]),
    ("qwen 32b", ["qwen3-32b", "qwen2.5-32b"]),  # exact size words before models within 10 % of 32 B
    ("deepseek 671b", ["deepseek-r1", "deepseek-v3"]),  # R1 by its ollama alias deepseek-r1:671b; V3 by size
    ("r1", ["deepseek-r1", "deepseek-r1-distill-qwen-14b"]),  # R1 itself before its distill
]


@pytest.mark.parametrize(("phrase", "expected"), PHRASES, ids=[p for p, _ in PHRASES])
def test_each_phrase_of_the_issue_finds_its_model_first(phrase: str, expected: list[str]) -> None:
    slugs = [model.slug for model in model_matches(phrase).models]
    assert slugs[: len(expected)] == expected


def test_llama3_finds_every_llama_3_release_and_no_other_family() -> None:
    slugs = [model.slug for model in model_matches("llama3").models]
    assert len(slugs) == 8  # 3 8B/70B, 3.1 8B/70B/405B, 3.2 1B/3B, 3.3 70B; not Llama 2, not TinyLlama
    assert all(slug.startswith("llama-3") for slug in slugs)


def test_sizes_versions_spellings_and_packaging_words() -> None:
    assert model_matches("Llama-3.1-8B-Instruct").models[0].slug == "llama-3.1-8b"
    assert model_matches("meta-llama/Llama-3.3-70B-Instruct").models[0].slug == "llama-3.3-70b"
    assert model_matches("LLAMA 70B").models[0].slug == "llama-3.3-70b"
    assert model_matches("llama 8 B").models[0].slug == "llama-3.1-8b"  # "8 B": one size word
    assert model_matches("мне нужна лама 8 млрд").models[0].slug == "llama-3.1-8b"
    assert model_matches("дипсик р1").models[0].slug == "deepseek-r1"
    assert model_matches("qwen 32b gguf").models[0].slug == "qwen3-32b"
    assert [m.slug for m in model_matches("lama 70b").models] == [
        "llama-3.3-70b",
        "llama-3.1-70b",
        "llama-3-70b",
        "llama-2-70b",
    ]
    assert model_matches("mixtral 8x7b").models[0].slug == "mixtral-8x7b"
    assert [m.slug for m in model_matches("falcon").models] == ["falcon-7b", "falcon-180b"]
    assert model_matches("gpt-j").models[0].slug == "gpt-j-6b"


def test_did_you_mean_when_nothing_matches() -> None:
    nine = model_matches("llama 9b")  # no 9B Llama: the family named first, then the nearest size
    assert nine.models == []
    assert [m.slug for m in nine.did_you_mean] == ["llama-3-8b", "llama-3.1-8b", "llama-2-7b"]
    mistral = model_matches("mistral 70b")  # the family spelled exactly before a near spelling (mixtral)
    # the Mistral family first (NeMo 12B nearer 70B than 7B), the near spelling (mixtral) after
    assert [m.slug for m in mistral.did_you_mean[:2]] == ["mistral-nemo-12b", "mistral-7b"]
    assert [m.slug for m in model_matches("ламма 9").did_you_mean][:2] == ["llama-3-8b", "llama-3.1-8b"]
    assert model_matches("<script>alert(1)</script>").did_you_mean == ()  # a lone "1" suggests nothing
    nothing = model_matches("zzz-no-model")
    assert (nothing.models, nothing.did_you_mean) == ([], ())


def test_the_pure_function_takes_any_library_and_its_aliases() -> None:
    library = {slug: model_get(slug) for slug in ("deepseek-v3", "deepseek-r1")}
    assert [m.model.slug for m in match_models(library, "deepseek 671b").matches] == ["deepseek-v3", "deepseek-r1"]
    aliased = match_models(library, "deepseek 671b", aliases=model_aliases())
    assert [m.model.slug for m in aliased.matches] == ["deepseek-r1", "deepseek-v3"]
    assert aliased.matches[0].score > aliased.matches[1].score
    assert match_models(model_library(), "   ").matches == ()


def test_words() -> None:
    assert words("meta-llama/Llama-3.1-8B.") == ["meta", "llama", "llama", "3.1", "8b"]
    assert words("deepseek-r1:671b") == ["deepseek", "r1", "671b"]
    assert words("квен 2.5 7 млрд") == ["qwen", "2.5", "7b"]


def test_an_unknown_model_id_says_which_ids_it_likely_means() -> None:
    with pytest.raises(UnknownModelError) as caught:
        model_get("llama 8b")
    assert str(caught.value.fields["model"][0]) == "Unknown model 'llama 8b'. Did you mean: llama-3.1-8b, llama-3-8b?"
    with pytest.raises(UnknownModelError) as nothing:
        model_get("zzz")
    assert str(nothing.value.fields["model"][0]) == "Unknown model 'zzz'."


def test_messy_spellings_from_a_trial_as_a_customer() -> None:
    """Typed during a trial: ollama tags, a bare number for the size, Cyrillic family names."""
    assert [m.slug for m in model_matches("llama3.1:8b").models] == ["llama-3.1-8b"]
    assert model_matches("llama3:70b-instruct-q4_K_M").models[0].slug == "llama-3-70b"
    assert [m.slug for m in model_matches("gpt-oss 120").models] == ["gpt-oss-120b"]  # 120 is no version: 120 B
    assert [m.slug for m in model_matches("фалкон 180").models] == ["falcon-180b"]
    assert model_matches("кьювен 3 32").models[0].slug == "qwen3-32b"
    assert [m.slug for m in model_matches("llama 2").models] == [
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
    ]  # 2 stays a version
    assert model_matches("LLaMA2 13B chat").models[0].slug == "llama-2-13b"
    assert model_matches("tiny llama").models[0].slug == "tinyllama-1.1b"


def test_nemotron_fine_tunes_of_llama_find_the_llama_shapes() -> None:
    """Llama-3.1-Nemotron-Nano-8B-v1 / -70B-Instruct are Llama 3.1 fine-tunes (aliases in the library); the
    Nemotron Nano 9B v2 hybrid is its own entry and comes first."""
    assert [m.slug for m in model_matches("nemotron nano").models] == ["nemotron-nano-9b-v2", "llama-3.1-8b"]
    assert [m.slug for m in model_matches("nemotron 70b").models] == ["llama-3.1-70b"]
    assert model_get("nvidia/Llama-3.1-Nemotron-Nano-8B-v1").slug == "llama-3.1-8b"
