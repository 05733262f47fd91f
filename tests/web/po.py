"""The Russian catalog, read with polib, for the translation tests."""

from __future__ import annotations

from pathlib import Path

import polib
from django.conf import settings

RU_PO = Path(settings.BASE_DIR) / "locale" / "ru" / "LC_MESSAGES" / "django.po"
RU_MO = RU_PO.with_suffix(".mo")


def russian_entries() -> list[polib.POEntry]:
    """Every live entry of the Russian catalog (polib leaves the header out)."""
    return [entry for entry in polib.pofile(str(RU_PO)) if not entry.obsolete]


def pairs(entry: polib.POEntry) -> list[tuple[str, str]]:
    """(English, Russian) pairs: the singular with the first form, the plural with every other form."""
    if not entry.msgid_plural:
        return [(entry.msgid, entry.msgstr)]
    forms = [entry.msgstr_plural[index] for index in sorted(entry.msgstr_plural)]
    return [(entry.msgid, forms[0]), *((entry.msgid_plural, form) for form in forms[1:])]
