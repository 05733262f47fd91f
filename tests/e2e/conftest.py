"""Browser tests: pytest-playwright driving Debian's Chromium against Django's `live_server`.

* Chromium comes from the system (`/usr/bin/chromium`; `playwright install` cannot download here) and
  runs headless with the networking flags of TESTING.md, so it never tries to reach the internet.
* Playwright's sync API runs an event loop in the test thread; the ORM calls of the test itself (making
  users and quotes) need DJANGO_ALLOW_ASYNC_UNSAFE, set while the browser tests run (not at import: a
  subprocess of another test, `check --deploy`, would inherit it and fail).
* `live_server` needs a transactional database, which Django empties after each test. The catalog and
  the role groups are put back before each browser test and after the last one, so tests that run later
  in the session find the database as tests/conftest.py left it.
* Playwright starts after the test database exists and stops before it is dropped (its event loop would
  otherwise still be running when the database is torn down).
* PDFs render in process (eager Celery) even when CI sets CELERY_BROKER_URL, into a temporary MEDIA_ROOT.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings

ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
SCREENSHOTS = Path(django_settings.BASE_DIR) / "artifacts" / "screenshots"
#: `make screenshots` (SCREENSHOTS=1) writes the pictures; `make test` walks the same pages with the same checks
#: and leaves them out (~25 s of Chromium's CPU a run, for pictures nobody looks at on CI).
TAKE_SCREENSHOTS = os.environ.get("SCREENSHOTS") == "1"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the browser tests and run them last (after pytest-django's own ordering): Playwright's event
    loop lives until the session ends, and a test that runs after it in the same thread — the
    integration tests with their real worker — would otherwise see a running loop and be refused sync
    ORM calls."""
    here = Path(__file__).parent
    browser = [item for item in items if here in Path(str(item.fspath)).parents]
    for item in browser:
        item.add_marker(pytest.mark.e2e)
    others = [item for item in items if here not in Path(str(item.fspath)).parents]
    items[:] = others + browser


@pytest.fixture(scope="session")
def playwright(django_db_setup: None, playwright: Any) -> Any:
    """pytest-playwright's Playwright, started after the test database exists, so it stops (and its event
    loop with it) before the database is dropped."""
    return playwright


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS, "headless": True}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """Russian, as the site's customers see it; desktop width unless a test changes it."""
    return {**browser_context_args, "locale": "ru-RU", "viewport": DESKTOP, "accept_downloads": True}


_catalog_rows: list[list[Any]] = []


def _restore_database() -> None:
    """The catalog (as loaded for the session, copied back row for row: much faster than loading the
    fixture again) and the role groups."""
    from accounts.roles import sync_roles
    from catalog.models import CATALOG_MODELS, Gpu, NvlinkBridge
    from catalog.services import catalog_load_fixture
    from catalog.specs import catalog_snapshot_clear

    models: list[Any] = [*CATALOG_MODELS.values(), NvlinkBridge.gpus.through]
    if not Gpu.objects.exists():
        if _catalog_rows:
            for model, rows in zip(models, _catalog_rows, strict=True):
                model.objects.bulk_create(rows)
        else:
            catalog_load_fixture()
    if not _catalog_rows:
        _catalog_rows.extend(list(model.objects.all()) for model in models)
    sync_roles()
    catalog_snapshot_clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After Django has emptied the database at the end of a live-server test, put the catalog and the
    groups back for the session's other tests (a next browser test does it in its own set-up)."""
    yield
    if "live_server" not in getattr(item, "fixturenames", ()):
        return
    if nextitem is None or "live_server" in getattr(nextitem, "fixturenames", ()):
        return  # the session ends (the test database is gone), or the next browser test does it
    from pytest_django.plugin import blocking_manager_key

    previous = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        with item.config.stash[blocking_manager_key].unblock():
            _restore_database()
            _close_connections()
    finally:
        if previous is None:
            del os.environ[ASYNC_UNSAFE]
        else:
            os.environ[ASYNC_UNSAFE] = previous


@pytest.fixture(autouse=True, scope="package")
def _async_unsafe_for_playwright() -> Iterator[None]:
    """DJANGO_ALLOW_ASYNC_UNSAFE only while the browser tests run: a subprocess started by a later test
    (the deploy check) must not inherit it."""
    previous = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    yield
    _close_connections()
    if previous is None:
        os.environ.pop(ASYNC_UNSAFE, None)
    else:
        os.environ[ASYNC_UNSAFE] = previous


def _close_connections() -> None:
    """While Playwright's loop runs, Django keeps the test thread's connections in the loop's context, not
    the thread: close them here, or PostgreSQL counts a stray session when the test database is dropped."""
    from django.db import connections

    connections.close_all()


@pytest.fixture(autouse=True)
def _site(renders_in_process: None, live_server: Any) -> None:
    """Eager PDF rendering into a temporary folder (tests/conftest.py), the catalog and groups present."""
    _restore_database()


@pytest.fixture
def login(live_server: Any) -> Callable[[Any, Any], None]:
    """Log a user in by giving the browser a session cookie (the log-in form has its own test)."""
    from django.test import Client

    def log_in(context: Any, user: Any) -> None:
        client = Client()
        client.force_login(user)
        cookie = client.cookies[django_settings.SESSION_COOKIE_NAME]
        context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": live_server.url}])

    return log_in


@pytest.fixture
def shoot() -> Callable[[Any, str], None]:
    """Full-page screenshots at the desktop and phone widths into artifacts/screenshots/ (with SCREENSHOTS=1)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page: Any, name: str) -> None:
        if not TAKE_SCREENSHOTS:
            return
        for label, viewport in (("1280", DESKTOP), ("390", PHONE)):
            page.set_viewport_size(viewport)
            # a viewport as tall as the page, so sticky panels show whole in a full-page picture
            height = page.evaluate("document.documentElement.scrollHeight")
            page.set_viewport_size({"width": viewport["width"], "height": height})
            page.wait_for_timeout(150)
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=True)
        page.set_viewport_size(DESKTOP)

    return take
