"""Hostile requests for every operation of a running server: bodies no schema describes and forged headers.

Each request is written byte for byte on a socket (no HTTP library that would refuse or repair it), so a
body can hold invalid UTF-8 or NUL bytes and a header can hold what a client library would never send.
The answer must be an HTTP answer below 500 — a 4xx, or a 2xx where the input happens to be acceptable
(a forged X-Forwarded-For on a ping). What is sent:

* bodies, as `application/json`: nesting 64 to 100,000 levels deep, numbers at and past a double's range
  (1e308, 1e400, 10**400 written out, -0, NaN and Infinity literals), NUL bytes (escaped and raw), invalid
  UTF-8, a UTF-16 body, an empty body, a lone string, 100,000-element arrays, a 40,000-character key;
* the same kind of bodies with wrong content types: text/plain, XML, form-encoded, multipart with and
  without a boundary, JSON with a foreign charset, and no content type at all;
* forged headers: a foreign or malformed Host, X-Forwarded-For that is garbage or thousands of hops, an
  8 KB cookie and a malformed one, Idempotency-Keys that are over-long, non-ASCII, NUL-bearing or empty,
  and malformed Authorization (bad Basic base64, a bogus token, a scheme nobody speaks).

`variants(rng, extra)` adds `extra` randomly mutated copies (depth, number, byte flips) for the large run.
"""

from __future__ import annotations

import random
import socket
from collections.abc import Iterator
from dataclasses import dataclass

JSON = "application/json"


@dataclass(frozen=True)
class Hostile:
    label: str
    body: bytes | None = None
    content_type: str | None = JSON
    headers: tuple[tuple[bytes, bytes], ...] = ()
    host: bytes | None = None  # None: the server's own address


def _nested(depth: int, opener: str = "[", closer: str = "]") -> bytes:
    return (opener * depth + closer * depth).encode()


def _nested_objects(depth: int) -> bytes:
    return ('{"a":' * depth + "1" + "}" * depth).encode()


BODIES: tuple[Hostile, ...] = (
    Hostile("nested arrays 64", _nested(64)),
    Hostile("nested arrays 1,000", _nested(1_000)),
    Hostile("nested arrays 100,000", _nested(100_000)),
    Hostile("nested objects 950", _nested_objects(950)),
    Hostile("nested objects 20,000", _nested_objects(20_000)),
    Hostile("number 1e308", b'{"model": 1e308, "context_tokens": 1e308, "gpu_count": 1e308, "qty": 1e308}'),
    Hostile("number 1e400", b'{"context_tokens": 1e400, "concurrent_users": -1e400}'),
    Hostile("integer 10**400", b'{"context_tokens": ' + b"1" + b"0" * 400 + b"}"),
    Hostile("integer of 5,000 digits", b'{"gpu_count": ' + b"9" * 5_000 + b"}"),
    Hostile("NaN and Infinity", b'{"context_tokens": NaN, "target_tokens_per_s": Infinity, "batch_size": -Infinity}'),
    Hostile("minus zero and exponents", b'{"context_tokens": -0, "gpu_count": 1E+2, "lora_rank": 0.5e-400}'),
    Hostile("escaped NUL", b'{"model": "llama\\u0000", "chassis": "\\u0000", "name": "a\\u0000b"}'),
    Hostile("raw NUL bytes", b'{"model": "ll\x00ama"}\x00\x00'),
    Hostile("lone surrogate", b'{"model": "\\ud800", "name": "\\udfff"}'),
    Hostile("invalid UTF-8", b'{"model": "\xff\xfe\xc3\x28", "chassis": "\xed\xa0\x80"}'),
    Hostile("UTF-16 body", '{"model": "llama-3.1-8b"}'.encode("utf-16")),
    Hostile("empty body", b""),
    Hostile("a lone string", b'"llama"'),
    Hostile("truncated JSON", b'{"model": "llama-3.1-8b", "context_tokens": 8'),
    Hostile("100,000-element array", b"[" + b"1," * 99_999 + b"1]"),
    Hostile("40,000-character key", b'{"' + b"k" * 40_000 + b'": 1}'),
    Hostile("duplicate keys", b'{"model": "llama-3.1-8b", "model": {"x": []}, "gpus": [], "gpus": "x"}'),
    Hostile("wrong types everywhere", b'{"model": [], "gpus": {}, "cpus": "x", "qty": {}, "workload": 7}'),
)

WRONG_CONTENT_TYPES: tuple[Hostile, ...] = (
    Hostile("text/plain", b'{"model": "llama-3.1-8b"}', "text/plain"),
    Hostile(
        "XML",
        b"<?xml version='1.0'?><!DOCTYPE a [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><a>&e;</a>",
        "application/xml",
    ),
    Hostile("form-encoded", b"model=llama&model=%00&gpus[0][sku]=%ff%fe", "application/x-www-form-urlencoded"),
    Hostile("multipart without boundary", b"--x\r\n\r\n", "multipart/form-data"),
    Hostile(
        "multipart with a boundary",
        b'--b\r\nContent-Disposition: form-data; name="model"\r\n\r\n\xff\x00\r\n--b--\r\n',
        "multipart/form-data; boundary=b",
    ),
    Hostile("JSON in latin-1", '{"model": "llama-ä"}'.encode("latin-1"), "application/json; charset=latin-1"),
    Hostile("JSON with a bogus charset", b'{"model": "x"}', "application/json; charset=no-such-charset"),
    Hostile("no content type", b'{"model": "llama-3.1-8b"}', None),
    Hostile("a content type of 2,000 bytes", b"{}", "application/json; " + "x=y; " * 400),
)

_COOKIE = "sessionid=" + "A" * 4_000 + "; csrftoken=" + "B" * 3_000
FORGED_HEADERS: tuple[Hostile, ...] = (
    Hostile("foreign Host", b"{}", host=b"evil.example.com"),
    Hostile("Host with a path and a port", b"{}", host=b"evil.example.com:99999/x?y"),
    Hostile("Host with non-ASCII bytes", b"{}", host=b"\xd0\xbf\xd1\x80\xd0\xb8\xd0\xbc\xd0\xb5\xd1\x80.\xff"),
    Hostile("empty Host", b"{}", host=b""),
    Hostile("X-Forwarded-For garbage", b"{}", headers=((b"X-Forwarded-For", b"not-an-ip, ::zz, 999.1.1.1, \xff"),)),
    Hostile("X-Forwarded-For of 1,500 hops", b"{}", headers=((b"X-Forwarded-For", b", ".join([b"10.0.0.1"] * 1_500)),)),
    Hostile(
        "X-Forwarded-Host and -Proto",
        b"{}",
        headers=((b"X-Forwarded-Host", b"evil"), (b"X-Forwarded-Proto", b"gopher")),
    ),
    Hostile("8 KB of cookies", b"{}", headers=((b"Cookie", _COOKIE.encode()),)),
    Hostile("malformed cookies", b"{}", headers=((b"Cookie", b'sessionid="\xff; ;;=; csrftoken==\x01; a'),)),
    Hostile("Idempotency-Key of 5,000 characters", b"{}", headers=((b"Idempotency-Key", b"k" * 5_000),)),
    Hostile("non-ASCII Idempotency-Key", b"{}", headers=((b"Idempotency-Key", "ключ-\u202e".encode()),)),
    Hostile("Idempotency-Key with NUL", b"{}", headers=((b"Idempotency-Key", b"a\x00b"),)),
    Hostile("empty Idempotency-Key", b"{}", headers=((b"Idempotency-Key", b""),)),
    Hostile("two Idempotency-Keys", b"{}", headers=((b"Idempotency-Key", b"a"), (b"Idempotency-Key", b"b"))),
    Hostile("bad Basic credentials", b"{}", headers=((b"Authorization", b"Basic !!!not-base64\xff"),)),
    Hostile("Basic without a colon", b"{}", headers=((b"Authorization", b"Basic " + b"bm9jb2xvbg=="),)),
    Hostile("bogus token", b"{}", headers=((b"Authorization", b"Token " + b"0" * 40 + b"\x00"),)),
    Hostile("token of 6,000 bytes", b"{}", headers=((b"Authorization", b"Token " + b"f" * 6_000),)),
    Hostile("an unknown scheme", b"{}", headers=((b"Authorization", b"Bearer a.b.c"),)),
    Hostile("Accept-Language garbage", b"{}", headers=((b"Accept-Language", b"*;q=x, \xff\xfe, " + b"ru-" * 500),)),
    Hostile("Accept nothing we have", b"{}", headers=((b"Accept", b"image/png, */*;q=abc"),)),
    Hostile("X-Request-ID forged", b"{}", headers=((b"X-Request-ID", b"\r\nx: y" + b"z" * 300),)),
)

CASES: tuple[Hostile, ...] = BODIES + WRONG_CONTENT_TYPES + FORGED_HEADERS


def _mutated(rng: random.Random) -> Hostile:
    """A random hostile body: one of the shapes above with a random size, number or corrupted bytes."""
    kind = rng.randrange(5)
    if kind == 0:
        depth = rng.choice((33, 100, 900, 1_100, 5_000, 50_000))
        return Hostile(f"random nesting {depth}", _nested_objects(depth) if rng.random() < 0.5 else _nested(depth))
    if kind == 1:
        number = rng.choice(
            (f"1e{rng.randint(300, 5_000)}", f"-1e{rng.randint(300, 5_000)}", "9" * rng.randint(10, 6_000))
        )
        key = rng.choice(("context_tokens", "gpu_count", "qty", "limit", "max_price", "discount_percent", "id"))
        return Hostile(f"random number {key}", f'{{"{key}": {number}}}'.encode())
    base = rng.choice(BODIES[5:]).body or b"{}"
    data = bytearray(base)
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    if kind == 2:
        return Hostile("random corrupted bytes", bytes(data))
    if kind == 3:
        return Hostile("random content type", bytes(data), rng.choice([c.content_type for c in WRONG_CONTENT_TYPES]))
    return rng.choice(FORGED_HEADERS)


def variants(rng: random.Random, extra: int) -> Iterator[Hostile]:
    yield from CASES
    for _ in range(extra):
        yield _mutated(rng)


def request_bytes(case: Hostile, method: str, path: str, port: int, authorization: bytes | None) -> bytes:
    host = case.host if case.host is not None else f"127.0.0.1:{port}".encode()
    lines = [f"{method} {path} HTTP/1.1".encode(), b"Host: " + host, b"Accept: application/json", b"Connection: close"]
    if authorization and not any(name.lower() == b"authorization" for name, _ in case.headers):
        lines.append(b"Authorization: " + authorization)
    if case.content_type is not None:
        lines.append(b"Content-Type: " + case.content_type.encode())
    lines += [name + b": " + value for name, value in case.headers]
    body = case.body if case.body is not None else b""
    lines.append(b"Content-Length: " + str(len(body)).encode())
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def send(port: int, payload: bytes, timeout_s: float = 30) -> int:
    """Write `payload`, read the answer; its status code (0 when the server closed without one)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as connection:
        connection.sendall(payload)
        head = b""
        while b"\r\n" not in head:
            chunk = connection.recv(4096)
            if not chunk:
                break
            head += chunk
        while connection.recv(65536):  # drain: the server closes after its answer
            pass
    if not head.startswith(b"HTTP/1."):
        return 0
    return int(head[9:12])
