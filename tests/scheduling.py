"""The order `make test` hands tests out in (pytest-xdist `--dist loadgroup`: one test, or one group, at a
time, in collection order, to whichever process is free).

* Tests marked `long` (tens of seconds to minutes, no test database: the schemathesis run and the fault
  injection, which mostly wait on the servers they start, and the largest property runs) go first, so they
  run beside the rest instead of after it. Everything else keeps
  pytest-django's order (transactional tests after the others) with the browser tests last
  (tests/e2e/conftest.py).
* The tests of a module that share a module- or class-scoped fixture (a Celery worker, a live stack,
  computed recommendations) form one group, run by one process, so the fixture is built once.
"""

from __future__ import annotations

import pytest


class _Groups:
    @pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            info = getattr(item, "_fixtureinfo", None)
            for chain in info.name2fixturedefs.values() if info is not None else ():
                if chain and chain[-1].scope in ("module", "class"):
                    item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
                    break


class _LongFirst:
    @pytest.hookimpl(trylast=True)  # after pytest-django's sort and the browser tests' move to the end
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items[:] = sorted(items, key=lambda item: item.get_closest_marker("long") is None)


def register(config: pytest.Config) -> None:
    for plugin in (_Groups(), _LongFirst()):
        config.pluginmanager.register(plugin, f"configurator-{type(plugin).__name__.strip('_').lower()}")
