"""config/gunicorn.py: clients trickling their headers do not take the server down (issue 38, item 1).

With sync workers, two anonymous connections that sent half a request head and then one byte now and
then held both workers, and `/healthz` timed out. gthread workers keep such a client on one thread; the
probe below is answered while eight of them (four per worker) are still open and still trickling."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.security.live import Gunicorn, environment

SLOW_CLIENTS = 8
#: The pass/fail bound: with the old sync workers the probe waits for gunicorn's 60 s worker timeout.
PROBE_TIMEOUT_S = 10.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    tmp = tmp_path_factory.mktemp("gunicorn-slow")
    env = environment(f"sqlite:///{tmp / 'health.sqlite3'}", MEDIA_ROOT=str(tmp / "media"))
    started = Gunicorn(env, tmp / "gunicorn.log", workers=2)
    try:
        yield started
    finally:
        started.stop()


def _still_open(conn: socket.socket) -> bool:
    """The server has neither closed nor answered this connection (a peek that would wait: nothing came)."""
    conn.settimeout(0)
    try:
        return conn.recv(1, socket.MSG_PEEK) == b"never"
    except BlockingIOError:
        return True
    except OSError:
        return False


def test_healthz_answers_while_eight_clients_trickle_their_headers(server: Gunicorn) -> None:
    slow = []
    try:
        for number in range(SLOW_CLIENTS):
            conn = socket.create_connection(("127.0.0.1", server.port), timeout=PROBE_TIMEOUT_S)
            conn.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-{number}: ".encode())
            slow.append(conn)
        for conn in slow:
            conn.sendall(b"a")  # one more byte of a header that never ends
        with socket.create_connection(("127.0.0.1", server.port), timeout=PROBE_TIMEOUT_S) as probe:
            probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := probe.recv(65536):
                answer += chunk
        open_after = [_still_open(conn) for conn in slow]
    finally:
        for conn in slow:
            conn.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert json.loads(body) == {"status": "ok", "database": "up"}
    assert open_after == [True] * SLOW_CLIENTS  # answered while every slow client still held its connection
