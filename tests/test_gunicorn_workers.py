"""config/gunicorn.py: how many sync workers a start without `--workers` gets."""

from __future__ import annotations

import os

import pytest

from config.gunicorn import default_workers


def test_web_concurrency_sets_the_worker_count() -> None:
    assert default_workers({"WEB_CONCURRENCY": "5"}) == 5
    assert default_workers({"WEB_CONCURRENCY": " 3 "}) == 3


def test_without_web_concurrency_there_is_one_worker_per_usable_cpu() -> None:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert default_workers({}) == usable
    assert default_workers({"WEB_CONCURRENCY": ""}) == usable


@pytest.mark.parametrize("bad", ["0", "-2", "two", "1.5"])
def test_a_bad_web_concurrency_stops_the_start_with_its_value(bad: str) -> None:
    with pytest.raises(SystemExit, match=repr(bad)):
        default_workers({"WEB_CONCURRENCY": bad})
