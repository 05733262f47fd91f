"""Imports run one way (ARCHITECTURE.md): quotes uses the configurator, the configurator never imports quotes;
and no module of quotes is too long to read."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 500


def _imports_quotes(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "quotes" for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "quotes":
            return True
    return False


@pytest.mark.parametrize("path", sorted((ROOT / "configurator").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_configurator_does_not_import_quotes(path: Path) -> None:
    assert not _imports_quotes(path)


@pytest.mark.parametrize("path", sorted((ROOT / "quotes").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_quote_modules_are_short(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_the_services_are_split_by_concern() -> None:
    names = {path.stem for path in (ROOT / "quotes" / "services").glob("*.py")}
    assert {"create", "lifecycle", "render", "notify", "numbering"} <= names
    assert not (ROOT / "quotes" / "services.py").exists()
