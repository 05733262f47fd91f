"""The throttle's fixed-window counter (config/throttle.py): counts per key and window, says how long to
the window's end, and starts again in the next window. The Redis counter is the same contract on a real
Redis: tests/integration/test_throttle_redis.py."""

from __future__ import annotations

import pytest

from config import throttle
from config.throttle import CacheCounter, retry_after


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [6000.0]
    monkeypatch.setattr(throttle.time, "time", lambda: now[0])
    return now


def test_the_cache_counter_counts_per_key_within_one_window(clock: list[float]) -> None:
    counter = CacheCounter()
    assert [counter.hit("scope:a", 60)[0] for _ in range(3)] == [1, 2, 3]
    assert counter.hit("scope:b", 60)[0] == 1
    clock[0] += 59.5  # 6059.5: still the window [6000, 6060)
    count, remaining = counter.hit("scope:a", 60)
    assert (count, remaining) == (4, 0.5)
    clock[0] += 1.0  # the next window
    assert counter.hit("scope:a", 60) == (1, 59.5)


def test_retry_after_is_whole_seconds_and_never_zero() -> None:
    assert [retry_after(s) for s in (0.0, 0.2, 1.0, 1.01, 59.5)] == [1, 1, 1, 2, 60]


def test_without_redis_the_process_uses_the_cache_counter(settings: pytest.FixtureRequest) -> None:
    settings.CACHE_URL = ""  # type: ignore[attr-defined]
    assert isinstance(throttle.throttle_counter(), CacheCounter)
    settings.CACHE_URL = "redis://127.0.0.1:1/0"  # type: ignore[attr-defined]
    counter = throttle.throttle_counter()
    assert isinstance(counter, throttle.RedisCounter)
    assert throttle.throttle_counter() is counter  # one pool per process, not one per request
