"""The project's shape (README §Layout, ARCHITECTURE.md): a pure engine, imports that run one way, and no
module too long to read.

Layers, lowest first: the engine (`configurator/engine/`, plain Python); `catalog`, `accounts` and
`procurement`; the configurator's services and shapes (services, models, serializers, outputs, labels,
wording); `quotes`, `servicelines` and `orders` (models and services); the doors of every app (api/apis,
web/views, forms, admin, template tags, URLs, commands, app configs). A module imports its own app or lower
layers only.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "configurator" / "engine"
APPS = (
    "accounts", "catalog", "finance", "procurement", "configurator", "quotes", "servicelines", "orders", "filestore",
    "billing",
)  # fmt: skip
DOOR_MODULES = {
    "api", "apis", "api_urls", "web", "views", "forms", "actions", "admin", "resources", "templatetags",
    "management", "urls", "urls_web", "apps",
}  # fmt: skip
ENGINE_MAY_NOT_IMPORT = {"django", "rest_framework", "celery", "drf_spectacular", *APPS, "config"}
MAX_LINES = 500


def layer(module: str) -> int | None:
    """0 engine; 1 catalog, accounts, finance (rates, VAT), procurement (suppliers, offers), filestore (stored
    files); 2 configurator services; 3 quotes, service lines, orders and billing; 4 doors; None: not ours."""
    parts = module.split(".")
    if parts[0] not in APPS:
        return None
    if parts[:2] == ["configurator", "engine"]:
        return 0
    if len(parts) > 1 and parts[1] in DOOR_MODULES:
        return 4
    return {"catalog": 1, "accounts": 1, "finance": 1, "procurement": 1, "filestore": 1, "configurator": 2}.get(
        parts[0], 3
    )


def imported(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def upward_imports(path: Path) -> list[str]:
    me = module_name(path)
    mine = layer(me)
    assert mine is not None
    return [name for name in imported(path) if (layer(name) or 0) > mine]


ENGINE_MODULES = sorted(ENGINE.rglob("*.py"))
APP_MODULES = sorted(path for app in APPS for path in (ROOT / app).rglob("*.py") if "migrations" not in path.parts)


def test_the_engine_is_a_package_of_its_own() -> None:
    packages = {path.parent.name for path in ENGINE_MODULES if path.name == "__init__.py"}
    assert {"engine", "rules", "budgets", "estimate", "recommend"} <= packages
    assert imported(ENGINE / "__init__.py") == []  # importing the engine loads nothing it does not need


@pytest.mark.parametrize("path", ENGINE_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_modules_import_no_web_framework_and_nothing_of_the_project(path: Path) -> None:
    roots = {name.split(".")[0] for name in imported(path)}
    outside = {name for name in imported(path) if name.startswith("configurator.") and layer(name) != 0}
    assert not (roots & ENGINE_MAY_NOT_IMPORT - {"configurator"}), f"{path.relative_to(ROOT)}: {sorted(roots)}"
    assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"


@pytest.mark.parametrize("path", APP_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_run_one_way(path: Path) -> None:
    assert upward_imports(path) == []


@pytest.mark.parametrize("path", APP_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_over_500_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines"


def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    assert layer("configurator.engine.rules.power") == 0
    assert layer("configurator.services") == 2
    assert layer("configurator.web.views") == 4 and layer("quotes.apis") == 4
    assert layer("quotes.services.create") == 3 and layer("catalog.specs") == 1
    assert layer("django.db") is None
    fake = ROOT / "catalog" / "_layout_probe.py"
    try:
        fake.write_text("from configurator.services import build_validate\nfrom quotes.policy import x\n")
        assert upward_imports(fake) == ["configurator.services", "quotes.policy"]
    finally:
        fake.unlink()


def test_quote_services_are_split_by_concern() -> None:
    names = {path.stem for path in (ROOT / "quotes" / "services").glob("*.py")}
    assert {"create", "lifecycle", "render", "notify", "numbering"} <= names
    assert not (ROOT / "quotes" / "services.py").exists()
