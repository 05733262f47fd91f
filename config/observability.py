"""Request ids and JSON-lines logging.

Every request gets an id (the incoming `X-Request-ID` when it is a sane token, else a new one); it is
echoed in the response header and attached to every log record written while the request runs, so
one request's lines can be found among many workers' output.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from django.core.signals import request_finished
from django.db import DatabaseError, DataError
from django.http import HttpRequest, HttpResponse, JsonResponse

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


class RequestIdMiddleware:
    """Sets the request id for the rest of the request. It is cleared when the response is finished
    (`request_finished`), not when this middleware returns: Django logs 4xx/5xx answers ("Not Found: …")
    after the middleware chain, and those lines need the id most."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if _SAFE_ID.match(incoming) else uuid.uuid4().hex
        request_id_var.set(request_id)
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response


def _clear_request_id(**kwargs: object) -> None:
    request_id_var.set("-")


request_finished.connect(_clear_request_id, dispatch_uid="config.observability.clear_request_id")


# A value the database refuses (a NUL character, a number out of range) is the request's fault, not an outage.
UNSTORABLE = {
    "code": "invalid",
    "message": "The request holds a value the database cannot store (such as a NUL character).",
    "fields": {},
}


class DatabaseUnavailableMiddleware:
    """A database outage anywhere in the stack (sessions, auth, views) answers a JSON 503 with
    Retry-After instead of an HTML 500; the next request reconnects (CONN_HEALTH_CHECKS)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DatabaseError):
            return None
        if isinstance(exception, DataError):
            return JsonResponse({"error": UNSTORABLE}, status=400)
        logging.getLogger("config.db").error("database unavailable: %s", exception.__class__.__name__)
        response = JsonResponse(
            {
                "error": {
                    "code": "service_unavailable",
                    "message": "The database is unavailable; try again shortly.",
                    "fields": {},
                }
            },
            status=503,
        )
        response["Retry-After"] = "5"
        return response


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id (+ an audit event's fields, exception)."""

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        audit = getattr(record, "audit", None)  # an audit event's fields (accounts.audit: logins, tokens)
        if isinstance(audit, dict):
            payload.update({key: value for key, value in audit.items() if key not in payload})
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        return json.dumps(payload, ensure_ascii=False)
