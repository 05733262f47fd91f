"""JSON with limits: the API's request parser and the loader of the pages' JSON fields.

Python's `json` module recurses once per nesting level, so a body of ~950 nested `[` raises
`RecursionError`, which DRF's `JSONParser` (it catches `ValueError` only) turns into a 500. Here the
nesting depth is measured before anything is parsed, in C-speed passes over the bytes (strings removed
first, then a running sum of the brackets), and a body deeper than `JSON_MAX_DEPTH` is refused as
invalid input naming the limit. The size is bounded too: the API refuses more than
DATA_UPLOAD_MAX_MEMORY_SIZE bytes even when no Content-Length announced them (a chunked body).
A UTF-8 body is read by orjson (~1 µs for a build, the standard library ~7 µs) whenever orjson reads it
to the same value; anything else goes to the standard library, so what is accepted, its values and the
errors said are as before (tests/security/test_hostile_bodies.py checks random and edge bodies).
"""

from __future__ import annotations

import io
import re
from itertools import accumulate
from typing import IO, Any

import orjson
from django.conf import settings
from django.http import QueryDict
from django.utils.datastructures import MultiValueDict
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.request import Empty, Request
from rest_framework.utils import json as drf_json

from configurator.engine.errors import ErrorCode

#: Deeper than any body of the API needs (a build with its workload and a config.json is < 10 levels).
JSON_MAX_DEPTH_DEFAULT = 32

# orjson reads what the standard library reads, to the same values, and refuses the rest (which the standard
# library then reads or refuses as before: NaN, lone surrogates, 1e400), except a number of 19 or more digits,
# which it reads as a float (the standard library: an exact int); such a body goes to the standard library
_DIGITS_MARKED = bytes(ord("d") if byte in b"0123456789" else ord(".") for byte in range(256))
_LONG_NUMBER = b"d" * 19  # in the body with its digits marked (two C passes; a regex takes ~8× as long)
_UTF8 = frozenset({"utf-8", "utf8"})
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = tuple(1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256))


class JsonTooDeep(ValueError):
    """The document nests deeper than the limit (a ValueError, so callers that catch bad JSON catch it)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels (the limit is {limit})")
        self.limit = limit


def json_max_depth() -> int:
    return int(getattr(settings, "JSON_MAX_DEPTH", JSON_MAX_DEPTH_DEFAULT))


def json_depth_check(raw: bytes | str, limit: int) -> None:
    """Raise JsonTooDeep when `raw` nests arrays/objects deeper than `limit`; linear, no recursion."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if data.count(b"[") + data.count(b"{") <= limit:
        return  # cannot nest deeper than it has openings
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    if brackets and max(accumulate(map(_STEP.__getitem__, brackets))) > limit:
        raise JsonTooDeep(limit)


def json_loads_limited(raw: bytes | str, *, max_depth: int | None = None) -> Any:
    """`json.loads` that refuses NaN/Infinity and documents nested deeper than `max_depth` (default:
    the JSON_MAX_DEPTH setting) with a ValueError instead of recursing into a RecursionError."""
    json_depth_check(raw, json_max_depth() if max_depth is None else max_depth)
    try:
        value = drf_json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except RecursionError:  # pragma: no cover - the depth check runs first; belt and braces
        raise JsonTooDeep(json_max_depth() if max_depth is None else max_depth) from None
    lone_surrogate_check(value)  # a LoneSurrogate is a ValueError: callers refuse it as bad JSON
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")
LONE_SURROGATE = "contains a lone surrogate (U+%04X), which is not a character; send text as UTF-8"


class LoneSurrogate(ValueError):
    """A string of the document (a value or a key) holds a lone UTF-16 surrogate (`"\\ud800"` is valid JSON
    but no text: it cannot be encoded as UTF-8, stored in PostgreSQL or written to a PDF). `path` names where,
    as the API names fields (`cpus[0].sku`; a key is named by the path of its object)."""

    def __init__(self, path: str, code_point: int) -> None:
        super().__init__(f"{path or 'the body'} {LONE_SURROGATE % code_point}")
        self.path = path or "non_field_errors"
        self.code_point = code_point


def lone_surrogate_check(value: Any, path: str = "") -> None:
    """Raise LoneSurrogate naming the first string (or key) of `value` that holds a lone surrogate.
    Iterative, so as deep as the document may be; only bodies orjson refused come here."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if found := _SURROGATE.search(item):
                raise LoneSurrogate(where, ord(found.group()))
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                if found := _SURROGATE.search(key):
                    raise LoneSurrogate(where, ord(found.group()))
                stack.append((child, f"{where}.{key}" if where else key))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{index}]") for index, child in reversed(list(enumerate(item))))


class RequestBodyTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = ErrorCode.REQUEST_TOO_LARGE
    default_detail = "The request body is too large."


class LimitedJSONParser(JSONParser):
    """DRF's JSONParser with a size limit (DATA_UPLOAD_MAX_MEMORY_SIZE) and a nesting limit
    (JSON_MAX_DEPTH): too deep, not UTF-8 or not JSON is a 400 `parse_error` naming the problem."""

    def parse(self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = b"" if stream is None else stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise RequestBodyTooLarge(f"The request body is larger than {limit} bytes.")
        depth = json_max_depth()
        try:
            json_depth_check(raw, depth)
        except JsonTooDeep as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        if encoding.lower().replace("_", "-") in _UTF8 and _LONG_NUMBER not in raw.translate(_DIGITS_MARKED):
            try:
                return orjson.loads(raw)
            except orjson.JSONDecodeError:
                pass  # the standard library below accepts or refuses it as before, and says why
        try:
            text = raw.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            raise ParseError(f"JSON parse error - the body is not valid {encoding}") from None
        try:
            value = drf_json.loads(text, parse_constant=drf_json.strict_constant if self.strict else None)
        except RecursionError:  # pragma: no cover - the depth check runs first
            raise ParseError(f"JSON parse error - nested deeper than {depth} levels") from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        try:  # orjson refuses lone surrogates, so only this path can meet them (the fast path pays nothing)
            lone_surrogate_check(value)
        except LoneSurrogate as exc:
            raise ValidationError({exc.path: [LONE_SURROGATE % exc.code_point]}) from None
        return value


class JsonBodyRequest(Request):
    """DRF's Request, whose body of type exactly `application/json` goes straight to the view's first parser
    when that is LimitedJSONParser: no media-type negotiation, no parsing of the content type again and
    again, no form check: a build body is read in 25 µs instead of 48 (the JSON itself takes 5).
    The body is Django's `request.body` (its size check and its copy kept, as DRF's own JSON path does), and
    a parse error leaves the request as DRF leaves it. Any other body (a charset parameter, no length, a
    stream already read, another parser) takes DRF's path."""

    def _load_data_and_files(self) -> None:
        django_request = self._request
        meta = django_request.META
        parser = self.parsers[0] if self.parsers else None
        if (
            getattr(self, "_data", Empty) is not Empty  # read already
            or type(parser) is not LimitedJSONParser
            or meta.get("CONTENT_TYPE") != "application/json"
            or not str(meta.get("CONTENT_LENGTH") or "").isdigit()
            or int(meta["CONTENT_LENGTH"]) == 0
            or (getattr(django_request, "_read_started", False) and not hasattr(django_request, "_body"))
        ):
            super()._load_data_and_files()  # type: ignore[misc]
            return
        no_files: MultiValueDict[str, Any] = MultiValueDict()
        stream = io.BytesIO(django_request.body)  # a body over the limit raises here, before DRF's try too
        try:
            data = parser.parse(stream, "application/json", self.parser_context)
        except Exception:  # as DRF's _parse: the request says it has no data, and the error goes on
            self._data = QueryDict("", encoding=getattr(django_request, "_encoding", None))
            self._files, self._full_data = no_files, self._data
            raise
        self._data, self._files, self._full_data = data, no_files, data
