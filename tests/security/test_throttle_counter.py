"""The throttle's fixed-window counter (config/throttle.py): counts per key and window, says how long to
the window's end, and starts again in the next window. The Redis counter is the same contract on a real
Redis: tests/integration/test_throttle_redis.py."""

from __future__ import annotations

import pytest

from config import throttle
from config.throttle import CacheCounter, RespCounter, RespError, retry_after
from tests.security.fake_redis import FakeRedis


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
    assert isinstance(counter, RespCounter)
    assert throttle.throttle_counter() is counter  # one connection per process, not one per request
    settings.CACHE_URL = "rediss://127.0.0.1:1/0"  # type: ignore[attr-defined]
    assert isinstance(throttle.throttle_counter(), throttle.RedisCounter)  # TLS: through redis-py


def test_the_resp_counter_signs_in_picks_the_database_and_counts_on_one_connection(clock: list[float]) -> None:
    with FakeRedis() as server:
        counter = RespCounter(f"redis://user:p%40ss@127.0.0.1:{server.port}/6")
        assert [counter.hit("scope:a", 60) for _ in range(3)] == [(1, 60.0), (2, 60.0), (3, 60.0)]
        assert counter.hit("scope:b", 60) == (1, 60.0)
    assert server.connections == 1
    assert server.commands[:2] == [[b"AUTH", b"user", b"p@ss"], [b"SELECT", b"6"]]
    assert server.commands[2:4] == [[b"INCR", b"throttle:scope:a:100"], [b"EXPIRE", b"throttle:scope:a:100", b"61"]]
    assert server.expiries == {b"throttle:scope:a:100": 61, b"throttle:scope:b:100": 61}


def test_the_resp_counter_on_database_0_sends_no_setup(clock: list[float]) -> None:
    with FakeRedis() as server:
        assert RespCounter(f"redis://127.0.0.1:{server.port}").hit("k", 10) == (1, 10.0)
    assert [command[0] for command in server.commands] == [b"INCR", b"EXPIRE"]


def test_an_error_reply_raises_and_drops_the_connection(clock: list[float]) -> None:
    with FakeRedis(refuse=b"-NOAUTH Authentication required.") as server:
        counter = RespCounter(f"redis://127.0.0.1:{server.port}/0")
        with pytest.raises(RespError, match="NOAUTH"):
            counter.hit("k", 60)
        server.refuse = None
        assert counter.hit("k", 60) == (1, 60.0)  # a new connection: no stale reply read as this one's
    assert server.connections == 2


def test_a_connection_the_server_closed_is_opened_again_once(clock: list[float]) -> None:
    with FakeRedis() as server:
        counter = RespCounter(f"redis://127.0.0.1:{server.port}/0")
        assert counter.hit("k", 60)[0] == 1
        server.drop_clients()  # a Redis restart or its idle timeout
        assert counter.hit("k", 60)[0] == 2
    assert server.connections == 2


def test_an_unreachable_server_raises_so_the_throttle_fails_open() -> None:
    with FakeRedis() as server:
        port = server.port
    with pytest.raises(ConnectionRefusedError):
        RespCounter(f"redis://127.0.0.1:{port}/0").hit("k", 60)


def test_a_server_that_stops_answering_raises_after_the_timeout() -> None:
    """A Redis that takes the commands and never replies (hung, or a black-holed route) holds a request at
    most the counter's timeout; the error then lets the throttle fail open."""
    import socket
    import time

    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        counter = RespCounter(f"redis://127.0.0.1:{port}/0", timeout_s=0.2)
        started = time.monotonic()
        with pytest.raises(BlockingIOError):  # the kernel's timeout (EAGAIN), an OSError the throttle catches
            counter.hit("k", 60)
        assert 0.15 <= time.monotonic() - started < 2.0
