"""Issue 37 item 2 on the editor's and the customer's pages: Russian plurals for every count next to a noun, the
engine's value codes said by their labels inside findings, and glossary links on the terms."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from django.template import Context, Template
from django.template.loader import render_to_string
from django.utils import translation

from configurator.counting import COUNTED, counted
from configurator.engine import enums
from configurator.engine.phrase import Phrase
from configurator.engine.types import CatalogSnapshot, Finding
from configurator.glossary import gloss
from configurator.templatetags.configurator_ui import measure
from configurator.web.forms import _specs
from configurator.web.viewmodels import finding_views
from configurator.wording import say
from quotes.pricing import spec_summary

NUMBERS = (1, 2, 5, 21)
#: The Russian forms of a count of GPUs: one (1, 21), few (2–4), many (5–20).
GPUS = {1: "1 видеокарта", 2: "2 видеокарты", 5: "5 видеокарт", 21: "21 видеокарта"}


def _ru(function: Callable[..., Any], *args: Any) -> str:
    with translation.override("ru"):
        return str(function(*args))


@pytest.mark.parametrize("unit", sorted(COUNTED))
def test_every_counted_noun_takes_the_russian_form_its_number_asks_for(unit: str) -> None:
    said = {n: _ru(counted, unit, n) for n in NUMBERS}
    words = {n: text.replace(str(n), "", 1).strip() for n, text in said.items()}
    assert all(text.startswith(str(n)) or str(n) in text for n, text in said.items()), said
    assert words[1] == words[21], said  # 1 and 21 share the "one" form
    assert words[1] != words[5], said
    if unit != "up to GPUs":  # "до 2 видеокарт", "до 5 видеокарт": after "до" few and many are both genitive
        assert words[1] != words[2] and words[2] != words[5], said  # one, few, many differ
    assert not re.search(r"[A-Za-z]{3,}", " ".join(words.values()).replace("GPU", "")), said  # translated


def test_gpu_counts_in_russian_and_english() -> None:
    assert {n: _ru(counted, "GPUs", n) for n in NUMBERS} == GPUS
    with translation.override("en"):
        assert [counted("GPUs", n) for n in (1, 2)] == ["1 GPU", "2 GPUs"]
    assert counted("W", 5) is None and counted("GPUs", 2.5) is None  # not a count: the plain unit stays


def test_the_build_editors_chassis_options_say_the_gpu_limit_in_the_right_form(snapshot: CatalogSnapshot) -> None:
    chassis = next(iter(snapshot.chassis.values()))
    options = {n: _ru(_specs, "chassis", replace(chassis, max_gpu_count=n)) for n in NUMBERS}
    for n, text in options.items():
        assert f"≤ {GPUS[n]}" in text, text
    assert "≤ 5 видеокарты" not in options[5] and "≤ 21 видеокарты" not in options[21]


def test_a_findings_measure_counts_in_the_right_form() -> None:
    assert [_ru(measure, n, "GPUs") for n in NUMBERS] == [GPUS[n] for n in NUMBERS]
    assert _ru(measure, 21, "cores") == "21 ядро" and _ru(measure, 5, "cores") == "5 ядер"
    assert _ru(measure, 2, "slots") == "2 слота" and _ru(measure, 5, "slots") == "5 слотов"
    assert _ru(measure, 1200, "W") == "1\u00a0200\u00a0Вт"  # a measure, not a count


def test_the_quote_lines_spec_counts_cores_and_gpus(snapshot: CatalogSnapshot) -> None:
    cpu = next(iter(snapshot.cpus.values()))
    chassis = next(iter(snapshot.chassis.values()))
    for n, cores in ((1, "1 ядро"), (2, "2 ядра"), (5, "5 ядер"), (21, "21 ядро")):
        text = _ru(spec_summary, replace(cpu, cores=n, threads=n))
        assert text.startswith(f"{cores} / "), text
        gpus = _ru(spec_summary, replace(chassis, max_gpu_count=n, psu_bays=n))
        assert f"до {n} видеокарт" in gpus if n in (2, 5) else f"до {n} видеокарты" in gpus, gpus
        assert re.search(rf"\b{n} отсек(а|ов)? БП", gpus), gpus
    assert "cores" not in _ru(spec_summary, cpu)


@pytest.mark.parametrize("count", NUMBERS)
@pytest.mark.parametrize("bays", NUMBERS)
def test_a_findings_text_with_two_numbers_never_puts_one_in_the_others_form(count: int, bays: int) -> None:
    phrase = Phrase.plural(
        "%(count)s GPU for %(bays)s GPU slots: %(chassis)s has a slot for each card, not more; its %(slot_lanes)s "
        "GPU lanes would carry the cards at x8 (%(x8)s lanes), the slots are what is missing.",
        "%(count)s GPUs for %(bays)s GPU slots: %(chassis)s has a slot for each card, not more; its %(slot_lanes)s "
        "GPU lanes would carry the cards at x8 (%(x8)s lanes), the slots are what is missing.",
        "count",
        count=count,
        bays=bays,
        chassis="X",
        slot_lanes=64,
        x8=8 * count,
    )
    text = _ru(say, phrase)
    assert f"слотов под видеокарты — {bays}" in text, text
    assert not re.search(r"\b(5|21) слота\b|\b1 слотов\b", text), text


# --------------------------------------------------------------------------- value codes inside findings


def _raw_values() -> set[str]:
    return {
        str(member.value)
        for item in vars(enums).values()
        if isinstance(item, type) and issubclass(item, enums.StrEnum) and item not in (enums.StrEnum, enums.FindingCode)
        for member in item
        if member.value and str(member.value) not in {"info", "error", "warning"}
    } | {"server airflow", "no ecc", "ecc + non-ecc", "one kind", "no nvswitch", "nvswitch", "ecc", "none"}


def _representative_values() -> list[str]:
    raw = sorted(_raw_values())
    joined = [", ".join(raw[:3]), " or ".join(raw[3:5]), "n+1, n+n", "bridge-2way or bridge-2or4way"]
    return raw + joined


def test_every_finding_code_with_any_value_code_renders_without_a_raw_code() -> None:
    raw = _raw_values()
    token = re.compile(
        r"(?<![\w+-])(" + "|".join(re.escape(v) for v in sorted(raw, key=len, reverse=True)) + r")(?![\w+-])"
    )
    findings = [
        Finding(code=code.value, severity="error", message="x", measured=value, limit=value)
        for code in enums.FindingCode
        for value in _representative_values()
    ]
    with translation.override("ru"):
        html = render_to_string("configurator/_findings.html", {"findings": finding_views(findings)})
    measures = re.findall(r'<p class="finding__measure">(.*?)</p>', html, re.S)
    assert len(measures) == len(findings)
    leaks = sorted({match.group(0) for text in measures for match in token.finditer(text)})
    assert leaks == [], " ".join(leaks)
    sxm = Finding(code="fit.gpu_form_factor", severity="error", message="x", measured="sxm", limit="pcie")
    with translation.override("ru"):
        html = render_to_string("configurator/_findings.html", {"findings": finding_views([sxm])})
    assert "Сейчас модуль SXM, предел карта PCIe" in html, html  # the "Сейчас sxm, предел pcie"


def test_the_redundancy_finding_says_modes_by_their_labels() -> None:
    phrase = Phrase(
        "%(chassis)s supports PSU redundancy %(modes)s, not %(redundancy)s.",
        chassis="X",
        modes="n+1, n+n",
        redundancy="none",
    )
    finding = Finding(
        code="power.redundancy_unsupported", severity="error", message=phrase, measured="none", limit="n+1"
    )
    with translation.override("ru"):
        (view,) = finding_views([finding])
        text = str(say(view.message))
    assert "N+1, N+N" in text and "n+1" not in text and "none" not in text, text
    assert view.measured == "без резерва" and view.limit == "N+1"


# --------------------------------------------------------------------------- glossary links


def test_gloss_links_each_term_once_and_escapes_everything_else() -> None:
    seen: set[str] = set()
    html = gloss('<script>x</script> Q4_K_M, KV-кэш, QLoRA, NVLink, FP8, TP и снова NVLink & "Q4_K_M"', seen)
    assert "<script>" not in html and "&lt;script&gt;" in html and "&amp;" in html and "&quot;" in html
    anchors = re.findall(r'<a class="term" href="/glossary/#([\w-]+)">', html)
    assert anchors == ["q4_k_m", "kv-cache", "lora", "nvlink", "fp8", "tensor-parallel"]
    assert gloss("NVLink again", seen) == "NVLink again"  # already linked on this page
    assert "href" not in gloss("QLoRAX QQ4_K_M", set())  # whole words only


def test_the_gloss_tag_links_a_term_once_per_page_across_includes() -> None:
    template = Template(
        "{% load configurator_ui %}{% gloss a %} | {% gloss b %}"
        '{% include "configurator/_parts_table.html" with rows=rows %}'
    )
    rows = [{"kind_label": "Мост", "name": "Мост NVLink <b>", "sku": "nv", "qty": 1, "unit_price": 1, "line_total": 1}]
    html = template.render(Context({"a": "FP8", "b": "BF16 и NVLink", "rows": rows}))
    assert html.count('href="/glossary/#fp8"') == 1
    assert html.count('href="/glossary/#nvlink"') == 1
    assert "&lt;b&gt;" in html
