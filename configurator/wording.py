"""Numbers and the domain's sentences in the reader's language: one place for pages, PDFs and e-mails.

`num` formats a number for the active language (`1 057 740` in Russian, `1,057,740` in English); `say`
renders a domain `Phrase` through gettext (ngettext for plural phrases) with its numbers localized and its
nested phrases said the same way. The template filters of the same names call these.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from configurator.engine.facility import FacilityFigures
from configurator.engine.phrase import Num, Phrase, PhraseValue
from configurator.labels import value_label

#: The sign pages, PDFs and e-mails show for a currency code (the API keeps the codes in its data fields).
CURRENCY_SIGNS: dict[str, str] = {"RUB": "₽"}


def as_number(value: Any) -> float | Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | Decimal):
        return value
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def rounded(value: float | Decimal, places: int = 0) -> Decimal:
    """`value` rounded half up to `places` decimals: the one rounding of every number a person reads.
    (Django's number_format cuts the digits off instead, so 14.0999 showed as "14,0" on the editor and
    "14,1" on a card that had rounded to two places first.)"""
    exponent = Decimal(1).scaleb(-int(places))
    return Decimal(str(value)).quantize(exponent, rounding=ROUND_HALF_UP)


def num(value: Any, places: int = 0) -> str:
    """`6723.5|num` → "6 724" (ru) / "6,724" (en), rounded half up; non-numbers pass through."""
    number = as_number(value)
    if number is None:
        return "" if value is None else str(value)
    if isinstance(number, float) and not math.isfinite(number):
        return str(number)
    return number_format(rounded(number, places), decimal_pos=int(places), use_l10n=True, force_grouping=True)


def say(value: Any) -> Any:
    """A domain `Phrase` in the active language (its msgid translated, in the form its count asks for if it
    is a plural phrase; numbers localized, nested phrases said the same way); any other value passes through
    unchanged."""
    return _said(value) if isinstance(value, Phrase) else value


def psu_grade(grade: str) -> str:
    """A PSU's 80 PLUS grade as the certificate names it ("80 PLUS Titanium"); Russian catalogues write the same
    words (CLEAResult 80 PLUS programme: Bronze, Silver, Gold, Platinum, Titanium)."""
    return f"80 PLUS {grade.capitalize()}" if grade else ""


def storage_interface(interface: str) -> str:
    """A storage interface as its standard spells it (NVMe, SATA, SAS), whatever case the catalog stores."""
    return {"nvme": "NVMe"}.get(interface.lower(), interface.upper())


def error_message(error: Any, by_code: Mapping[str, Any]) -> str:
    """An ApplicationError as a page says it: the page's own message for its code when `by_code` has one
    (e.g. "not found"), else the error's message in the active language."""
    found = by_code.get(error.code)
    return str(found) if found is not None else str(say(error.message))


def said_fields(fields: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
    """An error's field reasons (name → reasons) in the active language: the engine's reasons are Phrases
    (`say` translates them), the services' are lazy gettext strings, plain text passes through."""
    return {name: [say(reason) for reason in reasons] for name, reasons in fields.items()}


def _said(value: PhraseValue) -> str:
    if isinstance(value, Phrase):
        if value.plural_template is not None and value.plural_count is not None:
            template = ngettext(value.template, value.plural_template, value.plural_count)
        else:
            template = _(value.template)
        return template % {name: _said(inner) for name, inner in value.values.items()}
    if isinstance(value, Num):
        if value.places is None:
            short = f"{float(value.value):g}"
            return num(Decimal(short), len(short.partition(".")[2]))
        return num(value.value, value.places)
    return str(value)


def part_name(part: Any) -> str:
    """A part's display name in the active language: `name_ru` on Russian pages and documents when the catalog
    has one, else `name` (English; brand names are the same in both). Takes a catalog spec, a catalog row or a
    quote line alike (anything with `name` and optionally `name_ru`)."""
    russian = str(getattr(part, "name_ru", "") or "")
    if russian and (get_language() or "").split("-")[0] == "ru":
        return russian
    return str(getattr(part, "name", ""))


def part_spec(line: Any) -> str:
    """A quote line's spec line in the active language (`spec_summary_ru` on Russian pages when it has one)."""
    russian = str(getattr(line, "spec_summary_ru", "") or "")
    if russian and (get_language() or "").split("-")[0] == "ru":
        return russian
    return str(getattr(line, "spec_summary", "") or "")


_WORD = re.compile(r"[A-Za-z0-9][\w.-]*")


def _named(value: str, names: Mapping[str, str]) -> str:
    """A phrase value in a customer's words: a SKU as the part's name, also inside a list the engine joined
    ("1× ryzen-9-9950x + 1× …"), and a currency code as its sign ("RUB" → "₽", issue 37 item 2)."""
    if value in names:
        return names[value]
    if value in CURRENCY_SIGNS:
        return CURRENCY_SIGNS[value]
    said = value_label(value)
    if said != value:
        return str(said)  # a code of the engine's value sets ("rack-server") as its label
    return _WORD.sub(lambda word: names.get(word.group(0), word.group(0)), value)


def with_part_names(text: str, names: Mapping[str, str]) -> str:
    """The phrase with every value that is a catalog SKU said as the part's name (`names`: SKU → name in the
    reader's language), so a page reads "add 2× CRPS 3000 W power supply" where the engine wrote the SKU. The
    template and the other values are kept, so `say` still translates it; plain text is returned as it is."""
    if not isinstance(text, Phrase):
        return text
    values: dict[str, PhraseValue] = {}
    for key, value in text.values.items():
        if isinstance(value, Phrase):
            values[key] = with_part_names(value, names)
        elif isinstance(value, str):
            values[key] = _named(value, names)
        else:
            values[key] = value
    rebuild, args = text.__reduce__()[:2]  # the phrase's own constructor (plain or plural), new values last
    return rebuild(*args[:-1], values)  # type: ignore[operator,index]


def facility_rows(figures: FacilityFigures) -> list[tuple[str, str]]:
    """A server's facility figures (engine.facility) as label/value rows in the active language: the result
    card and the quote PDF both say them through this."""
    rows: list[tuple[str, str]] = []
    if figures.rack_units:
        rows.append((_("Rack space"), _("%(units)s U") % {"units": num(figures.rack_units)}))
    rows.append((_("Power from the wall"), _("%(watts)s W") % {"watts": num(figures.wall_w)}))
    current = _("%(amps)s A at %(volts)s V single phase") % {
        "amps": num(figures.amps_total, 1),
        "volts": num(figures.site_voltage),
    }
    if figures.feeds > 1:
        current += "; " + ngettext(
            "%(amps)s A per feed over %(feeds)s feed",
            "%(amps)s A per feed over %(feeds)s feeds",
            figures.feeds,
        ) % {"amps": num(figures.amps_per_feed, 1), "feeds": figures.feeds}
    rows.append((_("Current"), current))
    if figures.is_redundant:
        left = figures.feeds - figures.redundant_feeds
        rows.append(
            (
                _("If a redundant supply fails"),
                ngettext(
                    "%(amps)s A per feed on the %(feeds)s feed left",
                    "%(amps)s A per feed on the %(feeds)s feeds left",
                    left,
                )
                % {"amps": num(figures.amps_per_feed_failover, 1), "feeds": left},
            )
        )
    rows.append((_("Heat to remove"), _("%(btu)s BTU/h") % {"btu": num(figures.btu_per_hour)}))
    return rows
