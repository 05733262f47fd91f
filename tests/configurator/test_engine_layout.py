"""The engine's shape (ARCHITECTURE.md §Layout): plain Python, no web framework, no module too long to read."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "configurator" / "engine"
FORBIDDEN_ROOTS = {"django", "rest_framework", "celery", "drf_spectacular", "catalog", "quotes", "accounts", "config"}
MAX_LINES = 500


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            # configurator.<door> (not configurator.engine) is the project too
            roots.add(parts[0] if parts[:2] != ["configurator", "engine"] else "engine")
            if parts[0] == "configurator" and parts[1:2] != ["engine"]:
                roots.add("configurator-outside-engine")
    return roots


ENGINE_MODULES = sorted(ENGINE.rglob("*.py"))


def test_the_engine_has_modules() -> None:
    assert len(ENGINE_MODULES) >= 10


@pytest.mark.parametrize("path", ENGINE_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_module_imports_nothing_of_the_web_or_the_project(path: Path) -> None:
    bad = _imported_roots(path) & (FORBIDDEN_ROOTS | {"configurator-outside-engine"})
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_import_check_catches_a_django_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from django.db import models\nimport rest_framework\nfrom configurator.web import views\n")
    assert {"django", "rest_framework", "configurator-outside-engine"} <= _imported_roots(module)
