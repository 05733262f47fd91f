"""config/gunicorn.py freezes a worker's long-lived objects out of the garbage collector after its first
requests (then again at 10, 100, … requests), once each time, after the response is sent."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from config import gunicorn


@pytest.fixture
def frozen_before() -> Iterator[int]:
    count = gc.get_freeze_count()
    yield count
    gc.unfreeze()  # the test process goes back to ordinary collection


def test_a_worker_freezes_after_its_first_tenth_and_hundredth_request(frozen_before: int) -> None:
    worker = SimpleNamespace()
    cached: list[list[int]] = []  # what a worker keeps between requests (a cache), tracked by the collector
    froze_at = []
    for request in range(1, 121):
        cached.append([request])
        before = gc.get_freeze_count()
        gunicorn.post_request(worker, None, {}, None)
        if gc.get_freeze_count() > before:
            froze_at.append(request)
    assert froze_at == [1, 10, 100]
    assert worker.requests_served == 120
    assert gc.get_freeze_count() > frozen_before
