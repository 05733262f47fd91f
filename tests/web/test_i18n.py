"""The Russian catalog is complete and compiled, and every finding code of the rules has a translated title."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import polib
from django.conf import settings
from django.utils import translation

from configurator.labels import FINDING_TITLES, UNITS
from tests.web.po import RU_MO, RU_PO, pairs, russian_entries

RULES = Path(settings.BASE_DIR) / "configurator" / "engine" / "rules"


def test_every_russian_string_is_translated_and_none_is_fuzzy() -> None:
    entries = russian_entries()
    assert len(entries) > 300
    assert [e.msgid for e in entries if not e.translated()] == []
    assert [e.msgid for e in entries if e.fuzzy] == []


def test_the_compiled_catalog_matches_the_po_file() -> None:
    """A .po edited without running compilemessages would show English on the site."""
    entries = russian_entries()
    with RU_MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    stale = []
    for entry in entries:
        if entry.msgid_plural:
            ok = compiled.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, 5) if entry.msgctxt else None
            ok = ok or compiled.ngettext(entry.msgid, entry.msgid_plural, 5)
            expected = entry.msgstr_plural[2]
        else:
            ok = compiled.pgettext(entry.msgctxt, entry.msgid) if entry.msgctxt else compiled.gettext(entry.msgid)
            expected = entry.msgstr
        if ok != expected:
            stale.append(entry.msgid)
    assert stale == []


def test_every_plural_entry_has_the_forms_the_header_declares() -> None:
    """`msgfmt -c` refuses a catalog where a plural entry has fewer forms than Plural-Forms' nplurals (Russian: 4,
    the fourth for fractions), so the documented compile step fails."""
    declared = re.search(r"nplurals=(\d+)", polib.pofile(str(RU_PO)).metadata["Plural-Forms"])
    assert declared is not None
    nplurals = int(declared.group(1))
    assert nplurals == 4
    short = [e.msgid for e in russian_entries() if e.msgid_plural and len(e.msgstr_plural) != nplurals]
    assert short == []


def test_placeholders_survive_translation() -> None:
    for entry in russian_entries():
        for msgid, msgstr in pairs(entry):
            assert sorted(set(re.findall(r"%\((\w+)\)s", msgid))) == sorted(set(re.findall(r"%\((\w+)\)s", msgstr))), (
                msgid
            )


def test_every_finding_code_and_unit_of_the_rules_has_a_translation() -> None:
    source = "\n".join(path.read_text(encoding="utf-8") for path in RULES.glob("*.py"))
    codes = set(re.findall(r'code="([a-z0-9_]+\.[a-z0-9_]+)"', source))
    codes |= set(re.findall(r'"([a-z]+\.[a-z0-9_]+)" if ', source)) | set(
        re.findall(r' else "([a-z]+\.[a-z0-9_]+)"', source)
    )
    units = set(re.findall(r'unit="([^"]+)"', source))
    assert len(codes) > 50
    assert sorted(codes - set(FINDING_TITLES)) == []
    assert sorted(units - set(UNITS)) == []
    with translation.override("ru"):
        assert str(FINDING_TITLES["power.psu_capacity"]) == "Не хватает мощности блоков питания"
        assert str(UNITS["W"]) == "Вт"
