"""Template filters of the configurator pages: numbers with units, translated labels, fix texts.

Numbers are formatted for the active language (`1 057 740` in Russian, `1,057,740` in English); widths
for CSS come through `css_percent`, which never localizes (a comma would break the style).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils.text import capfirst

from configurator.counting import counted
from configurator.engine.models_library import model_library
from configurator.engine.phrase import Phrase
from configurator.glossary import gloss as glossary_gloss
from configurator.labels import (
    ENGINE_LABELS,
    FINDING_TITLES,
    PART_KIND_LABELS,
    UNITS,
    Redundancy,
    Severity,
    Task,
    label,
    label_filters,
)
from configurator.web.viewmodels import cited as viewmodel_cited
from configurator.wording import CURRENCY_SIGNS, as_number, facility_rows, num, part_name, part_spec, say

register = template.Library()
label_filters(
    register,
    finding_title=FINDING_TITLES,
    severity_label=Severity,
    kind_label=PART_KIND_LABELS,
    task_label=Task,
    redundancy_label=Redundancy,
    engine_label=ENGINE_LABELS,
)

register.filter("num", num)
register.filter("part_name", part_name)
register.filter("part_spec", part_spec)
register.filter("say", say)


@register.filter
def is_phrase(value: Any) -> bool:
    return isinstance(value, Phrase)


@register.filter
def num_billions(value: Any) -> str:
    """A parameter count in billions: `70553706496|num_billions` → "70,6" (ru)."""
    number = as_number(value)
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
    number = as_number(value)
    if number is None:
        return "—" if value is None else str(value)
    count = counted(unit_code, number)
    if count is not None:
        return count  # "5 видеокарт", not "5 видеокарты" (issue 37 item 2)
    places = 0 if float(number) == int(float(number)) or abs(float(number)) >= 100 else 1
    text = num(number, places)
    unit_text = label(UNITS, unit_code) if unit_code else ""
    return f"{text}\u00a0{unit_text}" if unit_text else text


@register.filter
def css_percent(value: Any) -> str:
    """A width for `data-width`/`data-left` (static/js/app.js sets the style; CSP forbids inline styles):
    "42.5%" with a dot, clamped to 0–100."""
    number = as_number(value)
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
    query = urlencode({"build": request_build_json(body, workload)})
    return f"{reverse('configurator:build-new')}?{query}"


def request_build_json(body: Mapping[str, Any], workload: Mapping[str, Any] | None = None) -> str:
    """A recommended build with its workload as compact JSON, for the editor's and the quote request's address (a
    pasted config.json is left out: it would make the address too long)."""
    payload = dict(body)
    if workload and "model_config" not in workload:
        payload["workload"] = dict(workload)
    return json.dumps(payload, separators=(",", ":"), default=str)


@register.filter
def cited(line: Any) -> str:
    """An assumption in the page's language with its sources named, not pasted as paths (viewmodels.cited)."""
    return viewmodel_cited(line)


@register.filter
def facility(figures: Any) -> list[tuple[str, str]]:
    """A server's facility figures as label/value rows (wording.facility_rows, as the quote PDF says them)."""
    return facility_rows(figures) if figures is not None else []


@register.simple_tag(takes_context=True)
def gloss(context: template.Context, text: Any) -> str:
    """`{% gloss text %}`: the text escaped, its first mention on the page of each glossary term linked to the
    glossary (configurator.glossary); the terms already linked are remembered for the whole page."""
    seen = context.dicts[0].setdefault("glossed_terms", set())
    return glossary_gloss(text, seen)


@register.filter
def library_model_name(value: Any) -> str:
    """The name of the library model whose slug `value` is ("gemma-3-27b" → "Gemma 3 27B"), else "": the
    model field shows the name and submits the slug in a hidden input (issue 37 trial)."""
    model = model_library().get(str(value or "").strip())
    return model.name if model is not None else ""
