"""Finding a library model from what a person types: "llama 8b", "llama3", "qwen 32b", "deepseek 671b", "r1".

Pure module (no Django): `match_models(library, phrase, aliases=…)` ranks the library's models for a phrase and,
when none matches, says which ones come closest ("did you mean"). The page's suggestion list
(`/models/search`), `GET /api/v1/llm-models/?search=` and the unknown-model error all go through it.

How a phrase matches (issue 37 item 1):
- Words: the phrase and each model's slug, Hugging Face id, name, family and aliases are split into lower-case
  words at anything that is not a letter, a digit or a dot between digits. A word of letters then digits
  ("llama3", "qwen2.5", "r1") is also read as its two parts (llama + 3), so "llama3" finds "llama-3.1-8b". A
  number followed by "b", "б" or "млрд" ("8 b", "8B", "70б", "8 млрд") is a size. Common Russian spellings of
  family names ("лама", "квен", "дипсик", …) are read as the family.
- Words that name packaging or intent ("instruct", "gguf", "fp8", "модель", "нужна": `OPTIONAL_WORDS`) may
  stay unmatched; every other word of the phrase must be matched by the model, each as: the same word (3
  points); a version the model's version extends ("3" → "3.1", 2 points); the model's size within 10 % of a
  size word ("671b" → DeepSeek-V3's 671.0 B, 2.5 points); a bare number that is no version of the model, as
  billions ("gpt-oss 120", "фалкон 180", 2 points); the start of a word ("deeps" → "deepseek", 2 points); or a
  near spelling (difflib ratio ≥ 0.8, ≥ 4 letters: "lama", "mistrall", 1 point).
- A phrase that is one of a model's aliases word for word scores 10 more (an alias is a spelling people use
  for that release, e.g. ollama's `deepseek-r1:671b`).
- Best first: points; then the share of the model's own slug words the phrase covered (so "r1" is DeepSeek-R1
  before its Qwen distill); then the newer version of the same line ("llama 8b" → Llama 3.1 before Llama 3,
  "qwen 32b" → Qwen3 before Qwen2.5); then the smaller model.
- Nothing matches every word: "did you mean" lists up to three models that match the most words of the phrase
  (a size word or one part of "gpt5" counts half; a number alone never suggests anything), then the nearest in
  size to a size word or bare number ("llama 9b", "ламма 9" → an 8B Llama), then whose name is closest to the
  phrase as a whole (difflib ratio ≥ 0.5).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from configurator.engine.frozen import direct_init
from configurator.engine.types import ModelArch

_SEPARATORS = re.compile(r"[^\w.]+|_", re.UNICODE)
_LOOSE_DOT = re.compile(r"(?<!\d)\.|\.(?!\d)")
_SPLIT = re.compile(r"^([^\W\d_]+)(\d+(?:\.\d+)?)$", re.UNICODE)
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)(b|m)$")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_SIZE_UNITS = {"b": "b", "bn": "b", "б": "b", "млрд": "b", "м": "m", "m": "m", "млн": "m"}
# a number with its unit in one word, as people type it in Russian: "70б", "8млрд" (the Latin "70b" is kept as is)
_GLUED_SIZE = re.compile(r"^(\d+(?:\.\d+)?)(bn|б|млрд|млн)$")
# Russian spellings a customer types for a family (Cyrillic names of the releases as the trade press writes them)
SPELLINGS: dict[str, str] = {
    "лама": "llama", "ллама": "llama", "ламма": "llama",
    "квен": "qwen", "цвен": "qwen", "кьювен": "qwen",
    "дипсик": "deepseek", "дипсиик": "deepseek", "р1": "r1",
    "мистраль": "mistral", "микстраль": "mixtral", "гемма": "gemma", "джемма": "gemma",
    "фи": "phi", "фалкон": "falcon", "фалькон": "falcon", "глм": "glm",
}  # fmt: skip
# words that say how a release is packaged or what the person wants, not which model: they may stay unmatched
# ("Llama-3.1-8B-Instruct", "qwen 32b gguf", "нужна модель лама 8b"), though one word of the phrase must match
OPTIONAL_WORDS = frozenset({
    "instruct", "it", "chat", "hf", "base", "gguf", "awq", "gptq", "fp8", "fp16", "bf16", "int4", "int8",
    "q4", "q5", "q6", "q8", "k", "m", "model", "models", "the", "a", "for", "llm",
    "модель", "модели", "мне", "нужна", "нужен", "нужно", "хочу", "для", "на", "и", "с", "параметров",
})  # fmt: skip
ALIAS_BONUS = 10.0
MAX_PHRASE = 200  # characters read of a phrase: the fuzzy comparisons stay cheap whatever is pasted
NEAR_RATIO = 0.8
DID_YOU_MEAN_RATIO = 0.5
DID_YOU_MEAN_COUNT = 3


@direct_init
@dataclass(frozen=True, slots=True)
class ModelMatch:
    model: ModelArch
    score: float


@direct_init
@dataclass(frozen=True, slots=True)
class ModelMatches:
    """The ranked matches of a phrase, and when there are none, the closest models ("did you mean")."""

    phrase: str
    matches: tuple[ModelMatch, ...]
    did_you_mean: tuple[ModelArch, ...] = ()

    @property
    def models(self) -> list[ModelArch]:
        return [match.model for match in self.matches]


def words(text: str) -> list[str]:
    """Lower-case words of `text`; a number followed by a size unit becomes one size word ("8 b" → "8b")."""
    text = (text or "").lower().replace("ё", "е")
    raw = [word for chunk in _SEPARATORS.split(text) for word in _LOOSE_DOT.split(chunk) if word]
    out: list[str] = []
    for word in raw:
        glued = _GLUED_SIZE.match(word)
        if glued:
            out.append(glued.group(1) + _SIZE_UNITS[glued.group(2)])
            continue
        unit = _SIZE_UNITS.get(word)
        if unit and out and _NUMBER.match(out[-1]):
            out[-1] += unit
            continue
        out.append(SPELLINGS.get(word, word))
    return out


def _parts(word: str) -> tuple[str, ...]:
    split = _SPLIT.match(word)
    return (split.group(1), split.group(2)) if split else ()


@direct_init
@dataclass(frozen=True, slots=True)
class _Doc:
    model: ModelArch
    tokens: frozenset[str]  # every word and the parts of letter+digit words
    slug_words: tuple[str, ...]
    alias_phrases: frozenset[str]
    version: float
    names: tuple[str, ...]


def _version(slug_words: Sequence[str]) -> float:
    for word in slug_words:
        for part in (word, *_parts(word)):
            if _NUMBER.match(part):
                return float(part)
    return 0.0


def _doc(model: ModelArch, aliases: Sequence[str]) -> _Doc:
    texts = [model.slug, model.hf_id, model.hf_id.rsplit("/", 1)[-1], model.name, model.family, *aliases]
    tokens: set[str] = set()
    for text in texts:
        for word in words(text):
            tokens.add(word)
            tokens.update(_parts(word))
    slug_words = tuple(words(model.slug))
    names = tuple(" ".join(words(text)) for text in (model.slug, model.name, model.hf_id.rsplit("/", 1)[-1]))
    return _Doc(
        model=model,
        tokens=frozenset(tokens),
        slug_words=slug_words,
        alias_phrases=frozenset(" ".join(words(alias)) for alias in (model.slug, model.hf_id, *aliases)),
        version=_version(slug_words),
        names=names,
    )


def _word_score(word: str, doc: _Doc, *, alone: bool = True) -> float:
    """Points for one word of the phrase against a model (0: not matched). `alone` False: the digits of a
    letters+digits word ("qwen3"), a version only, never a size."""
    if word in doc.tokens:
        return 3.0
    if _SIZE.match(word):
        wanted = _size_of(word)
        return 2.5 if abs(doc.model.total_params - wanted) <= 0.1 * wanted else 0.0
    if _NUMBER.match(word):
        if any(token.startswith(word + ".") for token in doc.tokens):
            return 2.0  # a version the model's extends: "3" → 3.1
        # a bare number that is no version of the model is read as billions ("gpt-oss 120", "фалкон 180")
        return 2.0 if alone and _word_score(word + "b", doc) else 0.0
    if len(word) >= 2 and any(token.startswith(word) and not _NUMBER.match(token) for token in doc.tokens):
        return 2.0
    if len(word) >= 4 and any(
        len(token) >= 4 and SequenceMatcher(None, word, token).ratio() >= NEAR_RATIO for token in doc.tokens
    ):
        return 1.0
    return 0.0


def _unit_score(word: str, doc: _Doc) -> float:
    """A word of the phrase, or both parts of a letters+digits word ("llama3" = llama + 3)."""
    whole = _word_score(word, doc)
    parts = _parts(word)
    if whole >= 3.0 or not parts:
        return whole
    if whole <= 1.0:  # a near spelling of the whole would let "llama3" pass for "llama" 2: the parts decide
        whole = 0.0
    split = [_word_score(part, doc, alone=False) for part in parts]
    return max(whole, sum(split) / 2 if all(split) else 0.0)


def _size_of(word: str) -> float:
    size = _SIZE.match(word)
    if size is None:
        return 0.0
    return float(size.group(1)) * (1e9 if size.group(2) == "b" else 1e6)


def _partial_weight(word: str, score: float, doc: _Doc) -> float:
    """How much one word counts towards "did you mean": a name word 1 (a prefix ⅔, a near spelling ⅓), a size
    word ½ (the family the person named matters more than its size), each matched part of a letters+digits
    word ½ ("gpt5": gpt-oss)."""
    if score:  # a near spelling counts less than the word itself
        return 0.5 if _SIZE.match(word) else score / 3.0
    return sum(0.5 for part in _parts(word) if _word_score(part, doc, alone=False))


def _covered(doc: _Doc, phrase_words: Sequence[str]) -> float:
    """Share of the model's slug words the phrase names (exactly, or one of its parts)."""
    if not doc.slug_words:
        return 0.0
    wanted = set(phrase_words)
    for word in phrase_words:
        wanted.update(_parts(word))
    hit = sum(1 for word in doc.slug_words if word in wanted or any(part in wanted for part in _parts(word)))
    return hit / len(doc.slug_words)


def match_models(
    library: Mapping[str, ModelArch] | Iterable[ModelArch],
    phrase: str,
    *,
    aliases: Mapping[str, Sequence[str]] | None = None,
) -> ModelMatches:
    """The library's models for `phrase`, best first (the module docstring says how), or "did you mean"."""
    models = list(library.values()) if isinstance(library, Mapping) else list(library)
    phrase_words = words(phrase[:MAX_PHRASE])
    if not phrase_words:
        return ModelMatches(phrase=phrase, matches=())
    joined = " ".join(phrase_words)
    docs = [_doc(model, (aliases or {}).get(model.slug, ())) for model in models]
    # sizes the phrase names: "9b", or a bare number ("ламма 9"), for the nearest-size order of "did you mean"
    sizes = [_size_of(word) if _SIZE.match(word) else _size_of(word + "b") for word in phrase_words]
    sizes = [size for size in sizes if size > 0]
    ranked: list[tuple[tuple[float, float, float, int], ModelMatch]] = []
    partial: list[tuple[tuple[float, float, float, float, int], ModelArch]] = []
    for doc in docs:
        scores = [_unit_score(word, doc) for word in phrase_words]
        needed = [score for word, score in zip(phrase_words, scores, strict=True) if word not in OPTIONAL_WORDS]
        if any(scores) and all(needed):
            score = sum(scores) + (ALIAS_BONUS if joined in doc.alias_phrases else 0.0)
            key = (-score, -_covered(doc, phrase_words), -doc.version, doc.model.total_params)
            ranked.append((key, ModelMatch(doc.model, score)))
            continue
        weights = [_partial_weight(word, score, doc) for word, score in zip(phrase_words, scores, strict=True)]
        # a number or a size alone ("alert(1)", "9b") is no reason to suggest a model: a name word must match
        named = any(
            w for word, w in zip(phrase_words, weights, strict=True) if not (_NUMBER.match(word) or _SIZE.match(word))
        )
        matched = sum(weights) if named else 0.0
        closeness = max(SequenceMatcher(None, joined, name).ratio() for name in doc.names)
        if matched or closeness >= DID_YOU_MEAN_RATIO:
            distance = min((abs(math.log(doc.model.total_params / size)) for size in sizes), default=0.0)
            key2 = (-matched, distance, -closeness, -doc.version, doc.model.total_params)
            partial.append((key2, doc.model))
    ranked.sort(key=lambda item: item[0])
    matches = tuple(match for _, match in ranked)
    if matches:
        return ModelMatches(phrase=phrase, matches=matches)
    partial.sort(key=lambda item: item[0])
    return ModelMatches(
        phrase=phrase, matches=(), did_you_mean=tuple(model for _, model in partial[:DID_YOU_MEAN_COUNT])
    )
