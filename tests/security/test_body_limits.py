"""Issue 38 item 2: request bodies bounded by route before anything reads them. Before: an anonymous
multipart body of any size was read whole before the CSRF check (300 MB in 3.4 s)."""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest
from django.core.exceptions import RequestDataTooBig
from django.core.handlers.wsgi import WSGIHandler
from django.test import RequestFactory

from config.body_limits import CappedStream, route_body_limit

MB = 1024 * 1024


class CountingInput:
    """A wsgi.input that would hand out `size` bytes and counts what is read of it."""

    def __init__(self, size: int) -> None:
        self.size, self.read_bytes = size, 0

    def _give(self, size: int | None) -> bytes:
        left = self.size - self.read_bytes
        count = left if size is None or size < 0 else min(size, left)
        self.read_bytes += count
        return b"x" * count

    def read(self, size: int | None = -1) -> bytes:
        return self._give(size)

    def readline(self, size: int | None = -1) -> bytes:
        return self._give(min(size, 1024) if size and size > 0 else 1024)


def environ(path: str, length: str | None, body: CountingInput, content_type: str) -> dict[str, object]:
    env: dict[str, object] = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "CONTENT_TYPE": content_type,
        "wsgi.input": body,
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
        "REMOTE_ADDR": "203.0.113.9",
    }
    if length is not None:
        env["CONTENT_LENGTH"] = length
    return env


def call(env: dict[str, object]) -> tuple[str, bytes]:
    said: list[str] = []

    def start_response(status: str, headers: Any, exc_info: Any = None) -> Any:
        said.append(status)

    chunks = WSGIHandler()(env, start_response)
    return said[0], b"".join(chunks)


MULTIPART = "multipart/form-data; boundary=----x"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/", "/no/such/page/"])
def test_a_300_mb_anonymous_multipart_is_a_413_before_a_byte_is_read(path: str) -> None:
    body = CountingInput(300 * MB)
    status, content = call(environ(path, str(300 * MB), body, MULTIPART))
    assert status.startswith("413")
    assert content == f"The request body is {300 * MB} bytes; this address takes at most {2 * MB} bytes.".encode()
    assert body.read_bytes == 0


@pytest.mark.django_db
def test_the_api_answers_413_in_its_envelope_before_reading() -> None:
    body = CountingInput(300 * MB)
    status, content = call(environ("/api/v1/suppliers/x/price-lists", str(300 * MB), body, MULTIPART))
    assert status.startswith("413") and b'"code":"request_too_large"' in content.replace(b" ", b"")
    assert body.read_bytes == 0


def test_the_price_list_upload_takes_a_list_at_its_limit_and_other_pages_2_mb() -> None:
    factory = RequestFactory()
    assert route_body_limit(factory.post("/admin/procurement/supplier/3/price-list/")) == 11 * MB
    assert route_body_limit(factory.post("/api/v1/suppliers/acme/price-lists")) == 11 * MB
    assert route_body_limit(factory.post("/accounts/login/")) == 2 * MB
    assert route_body_limit(factory.post("/api/v1/builds/validate")) == 2 * MB


def test_a_body_without_a_length_is_cut_at_the_limit_while_read() -> None:
    source = CountingInput(300 * MB)
    stream = CappedStream(source, 2 * MB)
    assert len(stream.read(2 * MB)) == 2 * MB
    with pytest.raises(RequestDataTooBig, match="larger than 2097152 bytes"):
        stream.read(64 * 1024)
    assert source.read_bytes == 2 * MB + 1
    assert CappedStream(io.BytesIO(b"a=1"), 2 * MB).read() == b"a=1"


@pytest.mark.django_db
def test_a_chunked_anonymous_multipart_reads_at_most_the_limit() -> None:
    body = CountingInput(300 * MB)
    env = environ("/accounts/login/", None, body, MULTIPART)
    env["HTTP_TRANSFER_ENCODING"] = "chunked"
    status, _ = call(env)
    assert status[:3] in {"400", "403"}  # no CSRF token in what was read
    assert body.read_bytes <= 2 * MB + 1


@pytest.mark.django_db
def test_a_content_length_that_is_no_number_is_a_400() -> None:
    status, content = call(environ("/accounts/login/", "12abc", CountingInput(10), MULTIPART))
    assert status.startswith("400") and content == b"The Content-Length header is not a number."
