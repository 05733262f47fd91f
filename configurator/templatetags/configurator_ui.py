"""Template filters of the configurator pages: numbers with units, translated labels, fix texts.

Numbers are formatted for the active language (`1 057 740` in Russian, `1,057,740` in English); widths
for CSS come through `css_percent`, which never localizes (a comma would break the style).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from configurator.engine.phrase import Num, Phrase, PhraseValue
from configurator.labels import (
    FINDING_TITLES,
    PART_KIND_LABELS,
    UNITS,
    Redundancy,
    Severity,
    Task,
    label,
    label_filters,
)

register = template.Library()
label_filters(
    register,
    finding_title=FINDING_TITLES,
    severity_label=Severity,
    kind_label=PART_KIND_LABELS,
    task_label=Task,
    redundancy_label=Redundancy,
)

CURRENCY_SIGNS = {"RUB": "₽"}


def _number(value: Any) -> float | Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | Decimal):
        return value
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


@register.filter
def num(value: Any, places: int = 0) -> str:
    """`6723.2|num` → "6 723" (ru) / "6,723" (en); non-numbers pass through."""
    number = _number(value)
    if number is None:
        return "" if value is None else str(value)
    return number_format(number, decimal_pos=int(places), use_l10n=True, force_grouping=True)


@register.filter
def is_phrase(value: Any) -> bool:
    return isinstance(value, Phrase)


@register.filter
def say(value: Any) -> Any:
    """A domain `Phrase` in the active language (its msgid translated, in the form its count asks for if it
    is a plural phrase; numbers localized, nested phrases said the same way); any other value passes through
    unchanged."""
    return _said(value) if isinstance(value, Phrase) else value


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


@register.filter
def num_billions(value: Any) -> str:
    """A parameter count in billions: `70553706496|num_billions` → "70,6" (ru)."""
    number = _number(value)
    if number is None:
        return ""
    billions = float(number) / 1e9
    return num(billions, 1 if billions < 100 else 0)


@register.filter
def money(value: Any, currency: str = "RUB") -> str:
    """Whole roubles with grouping and the currency sign: `1057740.00|money` → "1 057 740 ₽"."""
    return f"{num(value, 0)}\u00a0{CURRENCY_SIGNS.get(currency, currency)}"


@register.filter
def money2(value: Any, currency: str = "RUB") -> str:
    """With kopecks, for quotes: "1 057 740,00 ₽"."""
    return f"{num(value, 2)}\u00a0{CURRENCY_SIGNS.get(currency, currency)}"


@register.filter
def unit(code: str | None) -> str:
    return label(UNITS, code)


@register.filter
def measure(value: Any, unit_code: str | None = "") -> str:
    """A finding's measured value or limit with its unit; decimals only where they say something."""
    number = _number(value)
    if number is None:
        return "—" if value is None else str(value)
    places = 0 if float(number) == int(float(number)) or abs(float(number)) >= 100 else 1
    text = num(number, places)
    unit_text = label(UNITS, unit_code) if unit_code else ""
    return f"{text}\u00a0{unit_text}" if unit_text else text


@register.filter
def css_percent(value: Any) -> str:
    """A width for `data-width`/`data-left` (static/js/app.js sets the style; CSP forbids inline styles):
    "42.5%" with a dot, clamped to 0–100."""
    number = _number(value)
    clamped = 0.0 if number is None else min(max(float(number), 0.0), 100.0)
    return f"{clamped:.2f}%"


@register.filter
def fix_text(fix: Any) -> str:
    """A fix's sentence (made from its steps by the engine) in the page's language."""
    return capfirst(say(getattr(fix, "text", "") or ""))


@register.filter
def editor_url(body: Mapping[str, Any], workload: Mapping[str, Any] | None = None) -> str:
    """`/builds/new?build=<json>`: open a recommended build (with its workload) in the build editor. A pasted
    config.json is left out (it would make the address too long); the build is then checked without it."""
    payload = dict(body)
    if workload and "model_config" not in workload:
        payload["workload"] = dict(workload)
    query = urlencode({"build": json.dumps(payload, separators=(",", ":"), default=str)})
    return f"{reverse('configurator:build-new')}?{query}"
