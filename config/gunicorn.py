"""gunicorn settings: `gunicorn -c config/gunicorn.py config.wsgi:application --bind … --workers …`.

Access and error logs are JSON lines on stdout, like the application's own log (config/observability.py):
one object per line with the time, level, logger, message and request id. An access line also has the
method, path, status, bytes sent, duration and client address; its `request_id` is the `X-Request-ID`
the application answered with, so a request's access line and its application lines share an id.
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import os
import socket
import sys
import threading
import weakref
from datetime import UTC, datetime
from typing import Any

from gunicorn import util
from gunicorn.glogging import Logger
from gunicorn.http.body import ChunkedReader, EOFReader, LengthReader

from config.env import ImproperlyConfiguredEnv, env_int
from config.observability import JsonLinesFormatter


def default_workers() -> int:
    """The sync workers of a start without `--workers`: WEB_CONCURRENCY, else one per CPU this process may use.

    Every API request is CPU-bound Python (the engine, DRF, the JSON) with sub-millisecond waits on
    PostgreSQL and Redis: bench/bench_load.py keeps both cores of a 2-core machine 98-99 % busy with 2
    workers (vmstat, 2026-12-02), so more workers add memory (~100 MB each), not throughput. Without this
    setting gunicorn starts one worker, and a plain `docker run` of the image used one core. A bad
    WEB_CONCURRENCY (not a whole number ≥ 1) stops the start with a message rather than being ignored."""
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    count = env_int("WEB_CONCURRENCY", max(1, len(cpus) if cpus else os.cpu_count() or 1))
    if count < 1:
        raise ImproperlyConfiguredEnv(f"WEB_CONCURRENCY={count!r} is not a number of workers (1 or more).")
    return count


def default_threads() -> int:
    """The threads of each gthread worker: WEB_THREADS, else 16.

    A sync worker reads a request's headers itself, so two clients trickling their headers held both
    workers of a 2-core start and `/healthz` timed out (issue 38). A gthread worker's main loop accepts
    and waits for the first bytes without a thread; a client that starts its headers and then trickles
    holds one thread of its worker, not the worker. 2 workers × 16 threads keep answering with 30 such
    clients open (tests/test_gunicorn_slow_clients.py opens 8); more than that needs a buffering proxy
    in front (README, "Production"). Threads share the worker's CPU: the API's throughput is still set
    by the cores, and the extra threads cost a few hundred KB of stack each, not a worker's ~100 MB."""
    count = env_int("WEB_THREADS", 16)
    if count < 1:
        raise ImproperlyConfiguredEnv(f"WEB_THREADS={count!r} is not a number of threads (1 or more).")
    return count


workers = default_workers()  # `--workers` on the command line (docker-compose, the benchmark) still wins
worker_class = "gthread"  # slow clients hold a thread, not a worker (default_threads)
threads = default_threads()
keepalive = 5  # idle kept-alive and not-yet-started connections wait in the main loop, closed after this
accesslog = "-"
errorlog = "-"
loglevel = "info"
timeout = 60  # a worker silent this long is replaced (the slowest API call, a recommendation, takes < 1 s)
graceful_timeout = 30
# Longest request line (method, path and query) gunicorn reads; longer ones get its HTML 414, which the
# OpenAPI schema documents for operations with parameters. 8190 is gunicorn's ceiling (default 4094).
limit_request_line = 8190
# No control socket: nothing here uses `gunicornc`, and instances side by side (tests, benchmarks) would
# share its default path.
control_socket_disable = True


def _now() -> str:
    return datetime.now(tz=UTC).isoformat(timespec="milliseconds")


class JsonLinesLogger(Logger):
    """Logger class (`logger_class`) writing the access and error logs as JSON lines on stdout."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for log, formatter in (
            (self.error_log, JsonLinesFormatter()),  # gunicorn's own lines carry no request id: "-"
            (self.access_log, logging.Formatter("%(message)s")),
        ):
            for handler in log.handlers:
                if getattr(handler, "_gunicorn", False):
                    handler.setFormatter(formatter)
                    if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stderr:
                        handler.setStream(sys.stdout)

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not self.access_log_enabled:
            return
        headers = resp.headers.items() if hasattr(resp.headers, "items") else resp.headers
        request_id = next((value for name, value in headers if name.lower() == "x-request-id"), "-")
        status = str(resp.status).split(None, 1)[0]
        line = {
            "time": _now(),
            "level": "INFO",
            "logger": "gunicorn.access",
            "message": f"{environ.get('REQUEST_METHOD')} {environ.get('RAW_URI')} {status}",
            "request_id": request_id,
            "method": environ.get("REQUEST_METHOD"),
            "path": environ.get("PATH_INFO"),
            "query": environ.get("QUERY_STRING", ""),
            "status": int(status) if status.isdigit() else status,
            "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 3),
            "remote_addr": environ.get("REMOTE_ADDR"),
            "user_agent": environ.get("HTTP_USER_AGENT", ""),
        }
        self.access_log.info(json.dumps(line, ensure_ascii=False))


logger_class = JsonLinesLogger


#: The worker's requests after which what it has built so far (Django, the URL conf, the catalog snapshot,
#: the recommender's per-catalog tables) is collected once and frozen out of every later collection
#: (gc.freeze). Without it a full collection walks all of that every few hundred requests: 20-150 ms in one
#: go, which every request queued behind the worker waits for (the p99 of a recommendation at 16 clients).
#: Later, larger counts freeze what the caches have grown to since; five pauses in a worker's life.
FREEZE_AFTER_REQUESTS = frozenset({1, 10, 100, 1_000, 10_000})


def post_request(worker: Any, req: Any, environ: dict[str, Any], resp: Any) -> None:
    """After the response is sent: note whether the request was read to its end (for the close below), and
    freeze the worker's long-lived objects at FREEZE_AFTER_REQUESTS."""
    sock = getattr(getattr(req, "unreader", None), "sock", None)
    if sock is not None and request_read(req):
        with _read_to_end_lock:
            _read_to_end.add(sock)
    served = getattr(worker, "requests_served", 0) + 1
    worker.requests_served = served
    if served in FREEZE_AFTER_REQUESTS:
        gc.collect()
        gc.freeze()


# --------------------------------------------------------------------------- closing the connection
#
# gunicorn 27's sync worker ends every connection with `util.close_graceful` (RFC 9112 §9.6): it half-closes,
# then waits, reading, until the client closes its side (at most 2 s), so that request bytes it never read
# cannot make the kernel answer with a reset that destroys the response before the client has read it. The
# worker serves nobody while it waits: each request holds it one more round trip to the client and back (or
# 2 s for a client that keeps the connection open), and the web service is gunicorn itself, with no proxy in
# front. bench/bench_load.py (16 clients, 2 workers, 2 cores), gunicorn's close and the one below run in turn
# twice (2026-12-01), requests per second: ping 976 / 886 → 1,054 / 1,223, validate 622 / 589 → 836 / 756,
# recommendations 361 / 325 → 421 / 388 (p99 101 / 110 → 85 / 102 ms); the workers' CPU per validate
# 2.37 / 2.52 → 1.93 / 2.14 ms (the wait's own wake-ups and switches).
#
# Where the request was read to its end and nothing of the client's is waiting unread, no reset can happen:
# the worker sends its FIN and closes at once. Otherwise (a body refused before it was read, a request it
# could not parse, bytes sent after the request) gunicorn's own close drains it as before.

#: The connections whose request post_request saw read to its end. Not thread-local: a gthread worker
#: serves the request in a pool thread and closes the connection in its main loop.
_read_to_end: weakref.WeakSet[socket.socket] = weakref.WeakSet()
_read_to_end_lock = threading.Lock()
_lingering_close = util.close_graceful


def request_read(req: Any) -> bool:
    """Nothing more of the request is on its way: its body (none, a length or chunks) has been read to its end."""
    reader = getattr(getattr(req, "body", None), "reader", None)
    if isinstance(reader, LengthReader):
        return bool(reader.length == 0)
    if isinstance(reader, ChunkedReader):
        return reader.parser is None
    if isinstance(reader, EOFReader):
        return bool(reader.finished)
    return False


def close_after_response(sock: socket.socket, timeout: float = 2.0, max_drain: int = 65536) -> None:
    """`util.close_graceful` where the request may have left bytes unread; otherwise FIN and close now."""
    with _read_to_end_lock:
        read = sock in _read_to_end
        _read_to_end.discard(sock)
    if not read:
        _lingering_close(sock, timeout, max_drain)
        return
    try:
        unread = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)  # b"": the client has closed already
    except BlockingIOError:
        unread = b""  # nothing waiting, the client still reading
    except OSError:
        unread = b""  # reset or closed: nothing to protect
    if unread:
        _lingering_close(sock, timeout, max_drain)
        return
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_WR)
    sock.close()


util.close_graceful = close_after_response  # the sync and gthread workers call it by this name
