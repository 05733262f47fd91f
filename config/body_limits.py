"""Request bodies bounded by route, before anything reads them (issue 38: anonymous multipart bodies of any
size were read whole before the CSRF check, 300 MB in 3.4 s, because CsrfViewMiddleware reads
`request.POST` and Django's DATA_UPLOAD_MAX_MEMORY_SIZE leaves out the files of a multipart body).

`RequestBodyLimitMiddleware` sits before the session, CSRF and authentication middleware (config/settings/
base.py MIDDLEWARE, right after config.api.ApiRequestLimitsMiddleware). For every method and path it:

* refuses a declared `Content-Length` over the route's limit with 413 (the API's error envelope under
  /api/, a short text page elsewhere) without reading a byte of the body, and a `Content-Length` that is no
  number with 400;
* caps the body as it is read, whatever was declared (a chunked body has no length: Django's WSGIRequest
  reads none of it, and a server that hands one on is cut at the limit with RequestDataTooBig, which
  Django answers with 400).

The route's limit: `max_body_bytes()` of the view class (as config.api reads it: the supplier price-list
API) or of the view function (the admin's price-list upload), else DATA_UPLOAD_MAX_MEMORY_SIZE (2 MiB; no
other form of the site takes files).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from rest_framework import status

from config.api import error_response, is_api_request
from configurator.engine.errors import ErrorCode

DEFAULT_LIMIT_BYTES = 2 * 1024 * 1024


def _general_limit() -> int:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return DEFAULT_LIMIT_BYTES if limit is None else int(limit)


def route_body_limit(request: HttpRequest) -> int:
    """The largest body (bytes) the route at `request.path_info` takes (see the module's docstring)."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return _general_limit()
    view_class = getattr(match.func, "cls", None) or getattr(match.func, "view_class", None)
    declared = getattr(view_class, "max_body_bytes", None) or getattr(match.func, "max_body_bytes", None)
    if callable(declared):
        return max(int(declared()), _general_limit())
    return _general_limit()


class CappedStream:
    """A request stream that raises RequestDataTooBig once more than `limit` bytes have been read."""

    def __init__(self, stream: Any, limit: int) -> None:
        self.stream, self.limit, self.read_bytes = stream, limit, 0

    def __getattr__(self, name: str) -> Any:  # close() and the rest: the stream's own
        return getattr(self.stream, name)

    def _count(self, data: bytes) -> bytes:
        self.read_bytes += len(data)
        if self.read_bytes > self.limit:
            raise RequestDataTooBig(f"The request body is larger than {self.limit} bytes (the route's limit).")
        return data

    def read(self, size: int = -1) -> bytes:
        most = self.limit + 1 - self.read_bytes
        return self._count(self.stream.read(most if size is None or size < 0 else min(size, most)))

    def readline(self, size: int = -1) -> bytes:
        most = self.limit + 1 - self.read_bytes
        return self._count(self.stream.readline(most if size is None or size < 0 else min(size, most)))


def too_large(request: HttpRequest, length: int, limit: int) -> HttpResponse:
    message = f"The request body is {length} bytes; this address takes at most {limit} bytes."
    if is_api_request(request):
        return error_response(status.HTTP_413_REQUEST_ENTITY_TOO_LARGE, ErrorCode.REQUEST_TOO_LARGE, message)
    return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")


class RequestBodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        declared = request.META.get("CONTENT_LENGTH") or ""
        if declared.strip() or request.META.get("HTTP_TRANSFER_ENCODING"):
            limit = route_body_limit(request)
            if declared.strip():
                try:
                    length = int(declared)
                except ValueError:
                    return HttpResponse("The Content-Length header is not a number.", status=400)
                if length > limit:
                    return too_large(request, length, limit)
            stream = getattr(request, "_stream", None)
            if stream is not None:
                request._stream = CappedStream(stream, limit)  # type: ignore[assignment]
        return self.get_response(request)
