"""Sentences the domain says to people, in English, that a page can say again in the reader's language.

A `Phrase` is a `str`: the English sentence, which is what the API, the CLI, logs and tests see. It also
keeps its template, a gettext msgid with `%(name)s` placeholders, and the values that fill it. The project's
`makemessages` extracts the templates (it adds `--keyword=Phrase`), and the `say` template filter renders
`gettext(template) % values` with numbers formatted for the active language and nested phrases said the
same way. The template is always %-formatted, values or not, so a literal percent sign is written `%%`.
Nothing here imports Django: the domain stays plain Python.

    Phrase("raise the budget to %(amount)s %(currency)s", amount=Num(1_250_000), currency="RUB")
    → "raise the budget to 1,250,000 RUB"; in Russian "поднять бюджет до 1 250 000 RUB"

A sentence that counts something is a plural phrase: `Phrase.plural(singular, plural, name, **values)`
keeps both English templates (a gettext msgid and msgid_plural, extracted with `--keyword=plural:1,2`:
xgettext matches the last name of `Phrase.plural`) and the name of the value that picks the form. Its
English text takes the singular for 1 and the plural otherwise; `say` asks `ngettext` for the reader's form
(Russian has more than two). Write the number in both templates, so every translated form can say it.

    Phrase.plural("%(count)s PSU does not fit", "%(count)s PSUs do not fit", "count", count=3)
    → "3 PSUs do not fit"; in Russian "3 блока питания не помещаются"
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
    plural_template: str | None = None  # a plural phrase's msgid_plural (`template` is its singular msgid)
    count_name: str | None = None  # the value whose number picks the plural form

    def __new__(cls, template: str, /, **values: PhraseValue) -> Phrase:
        phrase = super().__new__(cls, template % values)  # %s calls str() on Num and nested phrases
        phrase.template = template
        phrase.values = values
        return phrase

    @classmethod
    def plural(cls, singular: str, plural: str, count: str, /, **values: PhraseValue) -> Phrase:
        """A sentence whose form follows the number `values[count]` (see the module docstring)."""
        number = _count(values[count])
        phrase = str.__new__(cls, (singular if number == 1 else plural) % values)
        phrase.template, phrase.plural_template, phrase.count_name = singular, plural, count
        phrase.values = values
        return phrase

    @property
    def plural_count(self) -> int | None:
        """The number that picks a plural phrase's form (None for a phrase without plural forms)."""
        return None if self.count_name is None else _count(self.values[self.count_name])

    def __reduce__(self) -> tuple[object, ...]:
        if self.plural_template is not None:
            return (_rebuild_plural, (self.template, self.plural_template, self.count_name, dict(self.values)))
        return (_rebuild, (self.template, dict(self.values)))


def _count(value: PhraseValue) -> int:
    number = value.value if isinstance(value, Num) else value
    if isinstance(number, str):
        raise TypeError(f"a plural phrase is counted by a number, not {number!r}")
    return int(number)


def _rebuild(template: str, values: dict[str, PhraseValue]) -> Phrase:
    return Phrase(template, **values)


def _rebuild_plural(singular: str, plural: str, count: str, values: dict[str, PhraseValue]) -> Phrase:
    return Phrase.plural(singular, plural, count, **values)


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
    data: dict[str, Any] = {
        "msgid": text.template,
        "params": {name: _value_to_data(value) for name, value in text.values.items()},
    }
    if text.plural_template is not None:
        data["msgid_plural"], data["count"] = text.plural_template, text.count_name
    return data


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
    plural, count = data.get("msgid_plural"), data.get("count")
    try:
        if isinstance(plural, str) and isinstance(count, str):
            return Phrase.plural(data["msgid"], plural, count, **values)
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
