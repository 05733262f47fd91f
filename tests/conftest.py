"""Shared fixtures: the real catalog loaded into the test database, users per role, API clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from catalog import specs
from catalog.fixture import fixture_snapshot
from catalog.services import catalog_load_fixture, cluster_catalog_load_fixture
from catalog.specs import catalog_snapshot, catalog_snapshot_clear, catalog_version
from configurator.engine.types import CatalogSnapshot
from tests import dbtemplate, factories, scheduling
from tests.module_rows import catalog_ready


def pytest_configure(config: pytest.Config) -> None:
    """On PostgreSQL, migrate one template database for the run while the workers start (tests/dbtemplate.py);
    the order and grouping `make test` hands tests out in (tests/scheduling.py)."""
    if not hasattr(config, "workerinput"):
        config.stash[_template_build] = dbtemplate.start_build()
    scheduling.register(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    dbtemplate.finish(config.stash.get(_template_build, None))


_template_build = pytest.StashKey[Any]()
_copied: list[str] = []  # this process's test database, when it is a copy of the template


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings: None, request: pytest.FixtureRequest) -> None:
    """Make this process's test database a copy of the migrated template (unless --reuse-db)."""
    from django.db import connection

    settings = connection.settings_dict
    name = settings["TEST"].get("NAME") or f"test_{settings['NAME']}"
    if not request.config.getvalue("reuse_db") and dbtemplate.copy_template(name):
        _copied.append(name)


@pytest.fixture(scope="session")
def django_db_keepdb(django_db_keepdb: bool, django_db_modify_db_settings: None) -> bool:
    """pytest-django keeps (does not recreate) a test database copied from the template."""
    return django_db_keepdb or bool(_copied)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """Load the real catalog once per test database; each test's transaction rolls its changes back."""
    with django_db_blocker.unblock():
        catalog_load_fixture()
        cluster_catalog_load_fixture()
    yield
    if _copied:  # kept by pytest-django (keepdb): drop it here
        from django.db import connections

        with django_db_blocker.unblock():
            connections.close_all()
        dbtemplate.admin_sql(f'DROP DATABASE IF EXISTS "{_copied[0]}" WITH (FORCE)')


@pytest.fixture(autouse=True)
def _site_language() -> Iterator[None]:
    """Every test starts in the site's language (settings.LANGUAGE_CODE): a request's LocaleMiddleware activates
    the asker's language for the thread and nothing deactivates it, so a test that reads "the default language"
    saw English after an English request on the same worker (CI, 2026-12-06: a price list's notes in English)."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Throttle and login-failure counters live in the (locmem) cache, or this process's fallback counters
    (accounts.throttle.local_counts); no test sees another's."""
    from django.core.cache import cache

    from accounts.throttle import local_counts

    cache.clear()
    local_counts.clear()
    yield
    cache.clear()
    local_counts.clear()


@pytest.fixture
def catalog(db: None) -> None:
    """The real catalog in the test database (loaded through the same service `make run` uses).

    Transactional tests flush the database when they end, so reload when the rows are gone.
    """
    catalog_ready()
    version = catalog_version()
    if _base_snapshot and _base_snapshot[0].version == version:
        specs._cached = _base_snapshot[0]  # the catalog as loaded, built once per process
    else:
        catalog_snapshot_clear()
        _base_snapshot[:] = [catalog_snapshot()]


# The snapshot of the catalog as a test finds it (loaded, nothing changed): a test's changes roll back, but two
# tests can leave the same version (row count and newest change) with different rows, so each test starts from
# this one or from a fresh build, never from what the test before it cached (rebuilding it for every test cost
# ~25 ms a test on a slow machine).
_base_snapshot: list[CatalogSnapshot] = []


@pytest.fixture(scope="session")
def snapshot() -> CatalogSnapshot:
    """The fixture catalog as specs, without a database."""
    return fixture_snapshot()


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def renders_in_process(settings: Any, tmp_path: Path) -> Iterator[None]:
    """Quote PDFs render in process into a temporary MEDIA_ROOT, even when CI sets CELERY_BROKER_URL
    (only tests/integration publish to a broker). Suites that make quotes use it autouse."""
    from config.celery import app

    settings.MEDIA_ROOT = str(tmp_path / "media")
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def other_customer(db: None) -> User:
    return factories.customer(username="bob")


@pytest.fixture
def sales_user(db: None) -> User:
    return factories.sales(username="sam")


@pytest.fixture
def sales_lead(db: None) -> User:
    return factories.sales(username="lena")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI (CI_FAIL_ON_SKIP=1) a skipped test is a failure: every test must run there."""
    import os

    if os.environ.get("CI_FAIL_ON_SKIP") != "1" or hasattr(session.config, "workerinput"):
        return  # under pytest-xdist the controller, which sees every worker's reports, decides
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and reporter is not None:
        for report in skipped:
            reporter.write_line(f"SKIPPED IN CI (not allowed): {report.nodeid}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
