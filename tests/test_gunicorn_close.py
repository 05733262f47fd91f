"""config/gunicorn.py: how a sync worker ends a connection.

A request read to its end frees the worker as soon as its response is sent, while the client still holds
the connection open (gunicorn's own close waits, reading, until the client closes, at most 2 s). A request
whose body was refused before it was read still gets gunicorn's lingering close, so the client reads the
whole answer even while it goes on sending the body.

One gunicorn with one worker on the test settings; ping and the 413 envelope touch no database."""

from __future__ import annotations

import http.client
import io
import json
import socket
import time
from collections.abc import Iterator
from typing import cast

import pytest
from django.conf import settings

from tests.security.live import Gunicorn, environment

LINGER_S = 2.0  # gunicorn's close_graceful waits this long at most for the client to close


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    tmp = tmp_path_factory.mktemp("gunicorn-close")
    env = environment(f"sqlite:///{tmp / 'unused.sqlite3'}", MEDIA_ROOT=str(tmp / "media"))
    started = Gunicorn(env, tmp / "gunicorn.log", workers=1)
    try:
        yield started
    finally:
        started.stop()


def _connect(server: Gunicorn) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=LINGER_S * 3)


def _read_to_eof(conn: socket.socket) -> bytes:
    """Everything the server sends until its FIN (it half-closes after the response)."""
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _ping(conn: socket.socket, port: int) -> bytes:
    conn.sendall(f"GET /api/v1/ping HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    return _read_to_eof(conn)


class _Received:
    """The bytes a socket gave, as http.client reads a response: through `makefile`."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def makefile(self, mode: str) -> io.BytesIO:
        return io.BytesIO(self.data)


def _body(response: bytes) -> object:
    """The JSON body of a whole response, read by http.client (a Content-Length or chunked: the 413 is sent
    before Django's CommonMiddleware would set the length); a body cut short raises IncompleteRead."""
    parsed = http.client.HTTPResponse(cast(socket.socket, _Received(response)))
    parsed.begin()
    return json.loads(parsed.read())


def test_the_worker_serves_the_next_request_while_the_last_client_still_holds_its_connection(
    server: Gunicorn,
) -> None:
    first = _connect(server)
    try:
        answered = _ping(first, server.port)  # read to the server's FIN; the client does not close
        assert answered.startswith(b"HTTP/1.1 200"), answered[:200]
        assert _body(answered) == {"status": "ok"}
        started = time.monotonic()
        with _connect(server) as second:
            second_answer = _ping(second, server.port)
        waited = time.monotonic() - started
    finally:
        first.close()
    assert _body(second_answer) == {"status": "ok"}
    # gunicorn's own close would hold the only worker until the first client closes or LINGER_S passes
    assert waited < LINGER_S / 2, f"the second request waited {waited:.2f} s for the first connection"


def test_a_body_refused_unread_is_drained_so_the_client_reads_the_whole_answer(server: Gunicorn) -> None:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert limit is not None
    declared = limit + 1
    with _connect(server) as conn:
        head = (
            f"POST /api/v1/estimate HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {declared}\r\n\r\n"
        )
        conn.sendall(head.encode() + b" " * 32768)  # part of the body: the 413 is answered before it is read
        time.sleep(0.2)
        conn.sendall(b" " * 32768)  # the client goes on sending; a reset here would lose the answer
        answer = _read_to_eof(conn)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:300]
    body = _body(answer)
    assert isinstance(body, dict) and body["error"]["code"] == "request_too_large", body
