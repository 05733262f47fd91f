"""Throttle counters: one atomic counter per (scope, client, window), a fixed window.

A request adds one to the counter of its key in the current window (`window = now // duration`) and is
refused once the count is over the limit; Retry-After is the time to the window's end. In the full stack
(CACHE_URL=redis://…) that is one pipelined round trip to Redis — `INCR key` and `EXPIRE key duration` —
on a connection pool that lives as long as the process, so every gunicorn worker counts against one
limit. DRF's own throttle rewrote a pickled list of timestamps through Django's cache on every request
(a get and a set, a client object built for each); at the rate limits here (≥ 10/min) a fixed window
keeps the same limits, and a client can at most double its allowance across one window boundary.

Without Redis (development, tests) the counters live in Django's default cache (`add` then `incr`,
atomic per process for locmem), so a test that clears the cache starts from zero.
"""

from __future__ import annotations

import math
import os
import threading
import time
from typing import Protocol

from django.conf import settings

KEY_PREFIX = "throttle"


class Counter(Protocol):
    def hit(self, key: str, duration_s: int) -> tuple[int, float]:
        """Count one request on `key` in the current window: (the count so far, seconds to the window's end)."""
        ...


def _window(duration_s: int, now: float) -> tuple[int, float]:
    index = int(now // duration_s)
    return index, (index + 1) * duration_s - now


class RedisCounter:
    """INCR + EXPIRE in one pipeline (no transaction needed: INCR is atomic and the EXPIRE only bounds
    the key's life) on the process's long-lived connection pool."""

    def __init__(self, url: str) -> None:
        import redis

        # short timeouts: a throttle that waits for a dead Redis would hold the request (it fails open)
        self._pool = redis.ConnectionPool.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
        self._client = redis.Redis(connection_pool=self._pool)

    def hit(self, key: str, duration_s: int) -> tuple[int, float]:
        index, remaining = _window(duration_s, time.time())
        window_key = f"{KEY_PREFIX}:{key}:{index}"
        pipe = self._client.pipeline(transaction=False)
        pipe.incr(window_key)
        pipe.expire(window_key, duration_s + 1)
        count, _ = pipe.execute()
        return int(count), remaining


class CacheCounter:
    """The same fixed window in Django's default cache (locmem by default: per process)."""

    def hit(self, key: str, duration_s: int) -> tuple[int, float]:
        from django.core.cache import cache

        index, remaining = _window(duration_s, time.time())
        window_key = f"{KEY_PREFIX}:{key}:{index}"
        cache.add(window_key, 0, timeout=duration_s + 1)
        try:
            count = cache.incr(window_key)
        except ValueError:  # expired between add and incr
            cache.set(window_key, 1, timeout=duration_s + 1)
            count = 1
        return int(count), remaining


_lock = threading.Lock()
_counters: dict[tuple[int, str], Counter] = {}


def throttle_counter() -> Counter:
    """This process's counter (built on first use, so a forked gunicorn worker builds its own pool)."""
    url = str(getattr(settings, "CACHE_URL", "") or "")
    key = (os.getpid(), url)
    counter = _counters.get(key)
    if counter is None:
        with _lock:
            counter = _counters.get(key)
            if counter is None:
                counter = RedisCounter(url) if url.startswith(("redis://", "rediss://", "unix://")) else CacheCounter()
                _counters.clear()
                _counters[key] = counter
    return counter


def retry_after(remaining_s: float) -> int:
    """Whole seconds a refused client should wait (at least 1)."""
    return max(1, math.ceil(remaining_s))
