"""config/gunicorn.py: how many sync workers a start without `--workers` gets."""

from __future__ import annotations

import os
import re

import pytest

from config.env import ImproperlyConfiguredEnv
from config.gunicorn import default_workers


def test_web_concurrency_sets_the_worker_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_CONCURRENCY", "5")
    assert default_workers() == 5
    monkeypatch.setenv("WEB_CONCURRENCY", " 3 ")
    assert default_workers() == 3


def test_without_web_concurrency_there_is_one_worker_per_usable_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    assert default_workers() == usable
    monkeypatch.setenv("WEB_CONCURRENCY", "")
    assert default_workers() == usable


@pytest.mark.parametrize("bad", ["0", "-2", "two", "1.5"])
def test_a_bad_web_concurrency_stops_the_start_with_its_value(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("WEB_CONCURRENCY", bad)
    said = bad if bad.lstrip("-").isdigit() else repr(bad)  # a whole number as read, anything else as given
    with pytest.raises(ImproperlyConfiguredEnv, match=re.escape(f"WEB_CONCURRENCY={said} is not")):
        default_workers()
