"""Fixtures of the security tests: renders in process, PDFs in a temporary directory, a fresh throttle cache."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _eager_celery() -> Iterator[None]:
    """Quote renders run in process even when CI sets CELERY_BROKER_URL (only tests/integration publish)."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    """Throttle counters live in the cache; no test sees another's."""
    cache.clear()
    yield
    cache.clear()
