"""A small reader of gettext .po files for the translation tests (no third-party package needed)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class PoEntry:
    msgid: str = ""
    context: str | None = None
    msgid_plural: str | None = None
    msgstr: str = ""
    msgstr_plural: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False

    @property
    def translated(self) -> bool:
        if self.msgid_plural is not None:
            return bool(self.msgstr_plural) and all(self.msgstr_plural.values())
        return bool(self.msgstr)

    def pairs(self) -> list[tuple[str, str]]:
        """(English, translation) pairs: the singular and plural forms of a plural entry both count."""
        if self.msgid_plural is None:
            return [(self.msgid, self.msgstr)]
        first = self.msgstr_plural.get(0, "")
        return [(self.msgid, first), (self.msgid_plural, self.msgstr_plural.get(1, first))]


def _unquote(text: str) -> str:
    return str(ast.literal_eval(text))


def read_po(path: Path) -> list[PoEntry]:
    """Every entry of the catalog except the header."""
    entries: list[PoEntry] = []
    entry = PoEntry()
    target: tuple[str, int | None] | None = None

    def finish() -> None:
        nonlocal entry, target
        if entry.msgid or entry.msgid_plural:
            entries.append(entry)
        entry, target = PoEntry(), None

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            finish()
            continue
        if line.startswith("#~"):
            entry.obsolete = True
            continue
        if line.startswith("#,"):
            entry.flags.update(flag.strip() for flag in line[2:].split(","))
            continue
        if line.startswith("#"):
            continue
        if line.startswith("msgctxt "):
            if entry.msgid or entry.msgstr:
                finish()
            entry.context = _unquote(line[len("msgctxt ") :])
            target = ("context", None)
        elif line.startswith("msgid_plural "):
            entry.msgid_plural = _unquote(line[len("msgid_plural ") :])
            target = ("msgid_plural", None)
        elif line.startswith("msgid "):
            if entry.msgid or entry.msgstr:
                finish()
                target = None
            entry.msgid = _unquote(line[len("msgid ") :])
            target = ("msgid", None)
        elif line.startswith("msgstr["):
            index = int(line[len("msgstr[") : line.index("]")])
            entry.msgstr_plural[index] = _unquote(line[line.index("]") + 1 :].strip())
            target = ("msgstr_plural", index)
        elif line.startswith("msgstr "):
            entry.msgstr = _unquote(line[len("msgstr ") :])
            target = ("msgstr", None)
        elif line.startswith('"') and target is not None:
            name, plural_index = target
            if name == "msgstr_plural" and plural_index is not None:
                entry.msgstr_plural[plural_index] += _unquote(line)
            else:
                setattr(entry, name, (getattr(entry, name) or "") + _unquote(line))
    finish()
    return [e for e in entries if not e.obsolete]
