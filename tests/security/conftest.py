"""Fixtures of the security tests: renders in process, PDFs in a temporary directory, a fresh throttle cache."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _renders(renders_in_process: None) -> None:
    """Quote renders run in process, PDFs in a temporary folder (tests/conftest.py)."""


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    """Throttle counters live in the cache; no test sees another's."""
    cache.clear()
    yield
    cache.clear()
