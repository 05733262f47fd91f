"""Throttle counters: one atomic counter per (scope, client, window), a fixed window.

A request adds one to the counter of its key in the current window (`window = now // duration`) and is
refused once the count is over the limit; Retry-After is the time to the window's end. In the full stack
(CACHE_URL=redis://…) that is one pipelined round trip to Redis — `INCR key` and `EXPIRE key duration` —
on a connection that lives as long as the process (one per thread), so every gunicorn worker counts
against one limit. The two commands are written and their two integer replies read on a plain socket
(`RespCounter`): redis-py's pipeline object, command packing and reply parser cost ~0.1 ms of CPU per
request, two thirds of the round trip's cost in this process (measured on validate: 1.07 ms of CPU per
request with redis-py's pipeline, 0.95 ms on the plain socket, 0.89 ms with no counting at all). TLS
(rediss://) goes through redis-py (`RedisCounter`). DRF's own throttle rewrote a pickled list of
timestamps through Django's cache on every request (a get and a set, a client object built for each);
at the rate limits here (≥ 10/min) a fixed window keeps the same limits, and a client can at most double
its allowance across one window boundary.

Without Redis (development, tests) the counters live in Django's default cache (`add` then `incr`,
atomic per process for locmem), so a test that clears the cache starts from zero.
"""

from __future__ import annotations

import math
import os
import socket
import struct
import threading
import time
from typing import Protocol
from urllib.parse import unquote, urlsplit

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


def _command(*parts: bytes) -> bytes:
    """One command in RESP, the Redis protocol: an array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


class _Closed(ConnectionError):
    """The server closed the connection before answering."""


class RespError(ConnectionError):
    """Redis answered something other than an integer (an error reply such as NOAUTH or WRONGTYPE)."""


class RespCounter:
    """INCR + EXPIRE written together on one long-lived socket per thread, the two integer replies read
    back: the same commands and atomicity as `RedisCounter`, without redis-py's per-call machinery. For
    redis:// (host, port, /db, user and password) and unix:// (path, ?db=) URLs. Any failure closes the
    socket and raises (the throttle then lets the request through); the next request connects again."""

    def __init__(self, url: str, timeout_s: float = 0.5) -> None:
        parts = urlsplit(url)
        query = dict(pair.split("=", 1) for pair in parts.query.split("&") if "=" in pair)
        self._unix = parts.path if parts.scheme == "unix" else ""
        self._address = (parts.hostname or "127.0.0.1", parts.port or 6379)
        db = query.get("db", "0") if parts.scheme == "unix" else (parts.path.strip("/") or query.get("db", "0"))
        setup = []
        if parts.password is not None:
            auth = (unquote(parts.username), unquote(parts.password)) if parts.username else (unquote(parts.password),)
            setup.append(_command(b"AUTH", *(item.encode() for item in auth)))
        if db != "0":
            setup.append(_command(b"SELECT", db.encode()))
        self._setup, self._setup_replies = b"".join(setup), len(setup)
        self._timeout_s = timeout_s
        self._local = threading.local()

    def _connect(self) -> socket.socket:
        if self._unix:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self._timeout_s)
            try:
                sock.connect(self._unix)
            except OSError:
                sock.close()
                raise
        else:
            sock = socket.create_connection(self._address, timeout=self._timeout_s)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # Connected: a blocking socket whose timeouts the kernel keeps (SO_RCVTIMEO/SO_SNDTIMEO), so a reply
        # is one recv() rather than a failed recv, a poll() and a recv() again (Python's own timeouts); a
        # server that stops answering still raises (BlockingIOError) after the timeout.
        sock.settimeout(None)
        timeval = struct.pack("@ll", int(self._timeout_s), int(self._timeout_s % 1 * 1_000_000))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)
        if self._setup:
            try:
                sock.sendall(self._setup)
                self._read_lines(sock, self._setup_replies, ok=b"+")
            except BaseException:
                sock.close()
                raise
        return sock

    @staticmethod
    def _read_lines(sock: socket.socket, count: int, ok: bytes) -> list[bytes]:
        """`count` one-line replies, each starting with `ok` (`:` integer, `+` status), without the prefix."""
        data = b""
        while data.count(b"\r\n") < count:
            chunk = sock.recv(256)
            if not chunk:
                raise _Closed("Redis closed the connection")
            data += chunk
        lines = data.split(b"\r\n")[:count]
        bad = next((line for line in lines if not line.startswith(ok)), None)
        if bad is not None:
            raise RespError(bad.decode(errors="replace"))
        return [line[1:] for line in lines]

    def hit(self, key: str, duration_s: int) -> tuple[int, float]:
        index, remaining = _window(duration_s, time.time())
        window_key = f"{KEY_PREFIX}:{key}:{index}".encode()
        request = _command(b"INCR", window_key) + _command(b"EXPIRE", window_key, b"%d" % (duration_s + 1))
        sock: socket.socket | None = getattr(self._local, "sock", None)
        try:
            if sock is not None:
                try:
                    return int(self._exchange(sock, request)), remaining
                except (BrokenPipeError, ConnectionResetError, _Closed):
                    # the kept connection was closed by the server (a restart, its idle timeout) before it
                    # read the commands: connect again, once
                    self.close()
            sock = self._local.sock = self._connect()
            return int(self._exchange(sock, request)), remaining
        except BaseException:
            self.close()
            raise

    def _exchange(self, sock: socket.socket, request: bytes) -> bytes:
        sock.sendall(request)
        count, _ = self._read_lines(sock, 2, ok=b":")
        return count

    def close(self) -> None:
        sock = getattr(self._local, "sock", None)
        self._local.sock = None
        if sock is not None:
            sock.close()


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
    """This process's counter (built on first use, so a forked gunicorn worker opens its own connection)."""
    url = str(getattr(settings, "CACHE_URL", "") or "")
    key = (os.getpid(), url)
    counter = _counters.get(key)
    if counter is None:
        with _lock:
            counter = _counters.get(key)
            if counter is None:
                counter = (
                    RespCounter(url)
                    if url.startswith(("redis://", "unix://"))
                    else RedisCounter(url)
                    if url.startswith("rediss://")
                    else CacheCounter()
                )
                _counters.clear()
                _counters[key] = counter
    return counter


def retry_after(remaining_s: float) -> int:
    """Whole seconds a refused client should wait (at least 1)."""
    return max(1, math.ceil(remaining_s))
