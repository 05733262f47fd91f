"""The order `make test` hands tests out in (pytest-xdist `--dist loadgroup`: one test, or one group, at a
time, in collection order, to whichever process is free).

* Tests marked `long` (tens of seconds to minutes, no test database: the schemathesis run and the fault
  injection, which mostly wait on the servers they start, and the largest property runs) go first, so they
  run beside the rest instead of after it. Everything else keeps
  pytest-django's order (transactional tests after the others) with the browser tests last
  (tests/e2e/conftest.py).
* The tests of a module that defines a module- or class-scoped fixture (a Celery worker, a live stack,
  computed recommendations) form one group, run by one process, so the fixture is built once.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest


class _Scheduler:
    """pytest-xdist's `loadgroup` with the groups chosen here, in the controller, from the test files: every test
    of a module that defines a module- or class-scoped fixture is one group. (pytest-xdist 3.8 puts an
    `xdist_group` mark's name into the item's nodeid through `item._nodeid`, which pytest 9 no longer reads,
    so the marks alone no longer group anything.)"""

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "loadgroup":
            return None
        from xdist.scheduler import LoadGroupScheduling

        root = config.rootpath

        class ByModule(LoadGroupScheduling):
            def _split_scope(self, nodeid: str) -> str:
                if "@" in nodeid:
                    return nodeid.rsplit("@", 1)[-1]
                path = nodeid.split("::", 1)[0]
                return path if _shares_a_fixture(root / path) else nodeid

        return ByModule(config, log)


@functools.cache
def _shares_a_fixture(path: Path) -> bool:
    try:
        return SHARED_FIXTURE.search(path.read_text(encoding="utf-8")) is not None
    except OSError:
        return False


SHARED_FIXTURE = re.compile(r"""scope=["'](module|class)["']""")


class _LongFirst:
    @pytest.hookimpl(trylast=True)  # after pytest-django's sort and the browser tests' move to the end
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items[:] = sorted(items, key=lambda item: item.get_closest_marker("long") is None)


def register(config: pytest.Config) -> None:
    for plugin in (_Scheduler(), _LongFirst()):
        config.pluginmanager.register(plugin, f"configurator-{type(plugin).__name__.strip('_').lower()}")
