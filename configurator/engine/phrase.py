"""Sentences the domain says to people, in English, that a page can say again in the reader's language.

A `Phrase` is a `str`: the English sentence, which is what the API, the CLI, logs and tests see. It also
keeps its template, a gettext msgid with `%(name)s` placeholders, and the values that fill it. The project's
`makemessages` extracts the templates (it adds `--keyword=Phrase`), and the `say` template filter renders
`gettext(template) % values` with numbers formatted for the active language and nested phrases said the
same way. The template is always %-formatted, values or not, so a literal percent sign is written `%%`.
Nothing here imports Django: the domain stays plain Python.

    Phrase("raise the budget to %(amount)s %(currency)s", amount=Num(1_250_000), currency="RUB")
    → "raise the budget to 1,250,000 RUB"; in Russian "поднять бюджет до 1 250 000 RUB"
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any


class Num:
    """A number and how many decimals to show (None: as few as the value needs, like `:g`)."""

    __slots__ = ("places", "value")

    def __init__(self, value: float | int | Decimal, places: int | None = 0) -> None:
        self.value = value
        self.places = places

    def __str__(self) -> str:
        if self.places is None:
            return format(float(self.value), ",g")
        return format(self.value, f",.{self.places}f")

    def __repr__(self) -> str:
        return f"Num({self.value!r}, {self.places!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Num) and (self.value, self.places) == (other.value, other.places)

    def __hash__(self) -> int:
        return hash((self.value, self.places))


PhraseValue = str | int | Num


class Phrase(str):
    """English text that remembers its msgid and values (see the module docstring)."""

    template: str
    values: Mapping[str, PhraseValue]

    def __new__(cls, template: str, /, **values: PhraseValue) -> Phrase:
        phrase = super().__new__(cls, template % values)  # %s calls str() on Num and nested phrases
        phrase.template = template
        phrase.values = values
        return phrase

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.template, dict(self.values)))


def _rebuild(template: str, values: dict[str, PhraseValue]) -> Phrase:
    return Phrase(template, **values)


class LazyTexts(Sequence[str]):
    """A tuple of texts made on first use. Composing sentences costs about as much as the arithmetic they
    explain, and most estimates (the recommender's search) are never read by a person. Compares, hashes
    and pickles as the tuple it stands for."""

    __slots__ = ("_items", "_make")

    def __init__(self, make: Callable[[], Sequence[str]]) -> None:
        self._make: Callable[[], Sequence[str]] | None = make
        self._items: tuple[str, ...] | None = None

    def _texts(self) -> tuple[str, ...]:
        if self._items is None:
            assert self._make is not None  # noqa: S101 - set until the first use
            self._items, self._make = tuple(self._make()), None
        return self._items

    def __getitem__(self, index: int | slice) -> Any:
        return self._texts()[index]

    def __len__(self) -> int:
        return len(self._texts())

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyTexts | tuple):
            return self._texts() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._texts())

    def __repr__(self) -> str:
        return f"LazyTexts({self._texts()!r})"

    def __reduce__(self) -> tuple[object, ...]:
        return (tuple, (self._texts(),))


# --------------------------------------------------------------------------- storage


def phrase_to_data(text: str) -> dict[str, Any]:
    """A sentence for a JSON column: `{"msgid", "params"}` (numbers as `{"num", "places"}`, nested phrases
    as their own data), so a stored finding can be said again in any language. A plain str (no msgid) is
    stored as its own msgid with no params; `phrase_from_data` then gives it back as it was."""
    if not isinstance(text, Phrase):
        return {"msgid": str(text).replace("%", "%%"), "params": {}}
    return {"msgid": text.template, "params": {name: _value_to_data(value) for name, value in text.values.items()}}


def _value_to_data(value: PhraseValue) -> Any:
    if isinstance(value, Phrase):
        return {"phrase": phrase_to_data(value)}
    if isinstance(value, Num):
        number = value.value
        return {"num": number if isinstance(number, int | float) else str(number), "places": value.places}
    return value


def phrase_from_data(data: Any) -> Phrase | None:
    """The inverse of `phrase_to_data`; None for anything that is not such data (an older stored row)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("msgid"), str):
        return None
    raw_params = data.get("params")
    params: Mapping[str, Any] = raw_params if isinstance(raw_params, Mapping) else {}
    values: dict[str, PhraseValue] = {}
    for name, raw in params.items():
        value = _value_from_data(raw)
        if value is None:
            return None
        values[str(name)] = value
    try:
        return Phrase(data["msgid"], **values)
    except (KeyError, TypeError, ValueError):
        return None


def _value_from_data(raw: Any) -> PhraseValue | None:
    if isinstance(raw, Mapping):
        if "phrase" in raw:
            return phrase_from_data(raw["phrase"])
        if "num" in raw:
            number = raw["num"]
            places = raw.get("places")
            if isinstance(number, str):
                number = Decimal(number)
            if isinstance(number, int | float | Decimal) and (places is None or isinstance(places, int)):
                return Num(number, places)
        return None
    if isinstance(raw, str | int) and not isinstance(raw, bool):
        return raw
    return None
