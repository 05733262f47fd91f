"""Why a build is recommended and what would make a workload fit are said in the reader's language.

The domain returns `Phrase`s: English strings (the API's text) that keep their msgid and values, so the
pages can say them in Russian with Russian number formatting.
"""

from __future__ import annotations

import ast
import pickle
import re
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template
from django.test import Client
from django.utils import translation

from accounts.models import User
from configurator.engine.models_library import model_get
from configurator.engine.phrase import Num, Phrase
from configurator.engine.recommend import recommend
from configurator.engine.types import CatalogSnapshot, Constraints, Workload
from configurator.templatetags.configurator_ui import say
from tests.builds import TOO_FEW_PSUS
from tests.web.conftest import HTMX, build, editor_data
from tests.web.po import pairs, russian_entries

BASE = Path(settings.BASE_DIR)
NBSP = "\xa0"
APPS = ("accounts", "catalog", "config", "configurator", "quotes")


def phrase_templates() -> set[str | tuple[str, str]]:
    """Every literal msgid passed to Phrase(...), and (msgid, msgid_plural) to Phrase.plural(...), in the code."""
    found: set[str | tuple[str, str]] = set()
    paths = [path for app in APPS for path in (BASE / app).rglob("*.py") if path.name != "phrase.py"]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            plural = (
                isinstance(func, ast.Attribute)
                and func.attr == "plural"
                and getattr(func.value, "id", None) == "Phrase"
            )
            if not (plural or getattr(func, "id", None) == "Phrase") or not node.args:
                continue
            literals = node.args[:2] if plural else node.args[:1]
            assert all(isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in literals), (
                f"{path.name}:{node.lineno}: Phrase needs literal msgids, or makemessages cannot extract them"
            )
            texts = [arg.value for arg in literals if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
            found.add((texts[0], texts[1]) if plural else texts[0])
    return found


def test_every_phrase_of_the_domain_has_a_russian_translation() -> None:
    templates = phrase_templates()
    assert len(templates) > 30 and sum(isinstance(t, tuple) for t in templates) >= 8
    entries = {entry.msgid: entry for entry in russian_entries()}
    missing = sorted(str(t) for t in templates if (t[0] if isinstance(t, tuple) else t) not in entries)
    assert missing == []
    for template in templates:
        entry = entries[template[0] if isinstance(template, tuple) else template]
        if isinstance(template, tuple):  # a plural phrase: makemessages extracted both forms (`plural:1,2`)
            assert entry.msgid_plural == template[1] and all(entry.msgstr_plural.values()), template
        else:
            assert not entry.msgid_plural and entry.msgstr, template
        for english, russian in pairs(entry):
            assert sorted(set(re.findall(r"%\((\w+)\)s", english))) == sorted(set(re.findall(r"%\((\w+)\)s", russian)))


def test_a_plural_phrase_says_the_english_form_for_its_count_and_every_russian_one() -> None:
    def psus(count: int) -> Phrase:
        return Phrase.plural(
            "%(count)s PSU does not fit the %(bays)s PSU bays of %(chassis)s.",
            "%(count)s PSUs do not fit the %(bays)s PSU bays of %(chassis)s.",
            "count",
            count=count,
            bays=2,
            chassis="tr-7960x",
        )

    assert psus(1) == "1 PSU does not fit the 2 PSU bays of tr-7960x."
    assert psus(3) == "3 PSUs do not fit the 2 PSU bays of tr-7960x."
    assert psus(3).template.startswith("%(count)s PSU does") and psus(3).plural_count == 3 and psus(3).count("P") == 2
    copy = pickle.loads(pickle.dumps(psus(21)))  # noqa: S301 - the cache's own round trip, of our own object
    assert copy == psus(21) and copy.plural_template == psus(21).plural_template and copy.count_name == "count"
    with translation.override("ru"):
        said = {count: say(psus(count)).split(" не ")[0] for count in (1, 3, 5, 11, 21, 1000)}
    assert said == {
        1: "1 блок питания",
        3: "3 блока питания",
        5: "5 блоков питания",
        11: "11 блоков питания",
        21: "21 блок питания",
        1000: "1000 блоков питания",
    }
    with translation.override("en"):
        assert say(psus(1)) == "1 PSU does not fit the 2 PSU bays of tr-7960x."


def test_a_phrase_is_its_english_text_and_survives_pickling() -> None:
    phrase = Phrase(
        "raise the budget to %(amount)s %(currency)s (%(what)s)",
        amount=Num(Decimal("1234567.4")),
        currency="RUB",
        what=Phrase("allow chassis %(chassis)s", chassis="wrx90-ws"),
    )
    assert phrase == "raise the budget to 1,234,567 RUB (allow chassis wrx90-ws)"
    assert isinstance(phrase, str) and phrase.startswith("raise the budget")
    copy = pickle.loads(pickle.dumps(phrase))  # noqa: S301 - the cache's own round trip, of our own object
    assert copy == phrase and copy.template == phrase.template and copy.values == phrase.values
    assert str(Num(2.5, None)) == "2.5" and str(Num(10.0, None)) == "10" and str(Num(1536.26, 1)) == "1,536.3"


def test_say_translates_the_msgid_and_localizes_numbers_and_nested_phrases() -> None:
    phrase = Phrase(
        "raise the budget to %(amount)s %(currency)s (%(what)s)",
        amount=Num(Decimal("1234567.4")),
        currency="RUB",
        what=Phrase("%(count)s× %(gpu)s in %(chassis)s", count=2, gpu="rtx-5090", chassis="tr-7960x"),
    )
    target = Phrase("meets the default interactive speed of %(target)s tokens/s per user (≈ 2× reading speed)",
                    target=Num(2.5, None))  # fmt: skip
    with translation.override("ru"):
        assert say(phrase) == f"поднять бюджет до 1{NBSP}234{NBSP}567 RUB (2× rtx-5090 в шасси tr-7960x)"
        assert "2,5 ток/с" in say(target)
    with translation.override("en"):
        assert say(phrase) == "raise the budget to 1,234,567 RUB (2× rtx-5090 in tr-7960x)"
    assert say("plain text") == "plain text" and say(None) is None


def test_a_recommendation_reads_in_russian_with_no_english_sentence_left(snapshot: CatalogSnapshot) -> None:
    fits = recommend(snapshot, Workload(model=model_get("llama-3.1-70b"), precision="q4_k_m", concurrent_users=5),
                     Constraints(), limit=3)  # fmt: skip
    nothing = recommend(
        snapshot,
        Workload(model=model_get("llama-3.1-405b"), precision="bf16", engine="vllm", context_tokens=16384),
        Constraints(max_price=Decimal("1000000"), form_factor="workstation", max_gpus=2),
    )
    lines = [line for candidate in fits.candidates for line in candidate.why] + list(nothing.suggestions)
    assert len(fits.candidates) == 3 and len(nothing.suggestions) >= 3
    assert all(isinstance(line, Phrase) for line in lines)
    page = Template("{% load configurator_ui %}{% for line in lines %}<li>{{ line|say }}</li>{% endfor %}")
    with translation.override("ru"):
        russian = page.render(Context({"lines": lines}))
    english_words = {"the", "build", "needs", "usable", "per", "user", "allow", "raise", "budget", "load", "quantize"}
    assert sorted(english_words & set(re.findall(r"[A-Za-z]+", russian))) == []
    assert "самая дешёвая корректная сборка" in russian and "поднять бюджет до" in russian
    assert re.search(r"\d \d{3} \d{3} RUB", russian.replace(NBSP, " "))


@pytest.mark.django_db
def test_the_build_editor_says_findings_and_their_fixes_in_russian(
    catalog: None, customer_user: User, client_for: Callable[[User | None], Client]
) -> None:
    body = client_for(customer_user).post("/builds/check", editor_data(build(TOO_FEW_PSUS)), headers=HTMX)
    text = body.content.decode()
    assert 'data-verdict="invalid"' in text
    assert f"Сборка потребляет 6{NBSP}736 Вт" in text  # power.psu_capacity's message, numbers localized
    assert "The build draws" not in text and 'lang="en"' not in text
    findings = text[text.index('<section class="findings"') :]
    findings = findings[: findings.index("</section>")]
    assert sorted(set(re.findall(r"\b[a-z]{5,}\b", re.sub(r"<[^>]+>|[\w.+-]*[-_.][\w.+-]*", " ", findings)))) == []
