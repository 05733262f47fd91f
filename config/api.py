"""API plumbing shared by every app: the error envelope and pagination.

Every 4xx/5xx answer of /api/v1 has the shape
``{"error": {"code": str, "message": str, "fields": {name: [reasons]}}}`` (ARCHITECTURE.md §HTTP API).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from configurator.errors import DomainError


class StandardPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """Turn DRF's nested error detail into {"dotted.field": ["reason", ...]}."""
    fields: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if key == "non_field_errors" and not prefix:
                name = "non_field_errors"
            for sub_name, reasons in _flatten(value, name).items():
                fields.setdefault(sub_name, []).extend(reasons)
    elif isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            fields[prefix or "non_field_errors"] = [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                if item:
                    name = f"{prefix}[{index}]" if prefix else f"[{index}]"
                    for sub_name, reasons in _flatten(item, name).items():
                        fields.setdefault(sub_name, []).extend(reasons)
    else:
        fields[prefix or "non_field_errors"] = [str(detail)]
    return fields


def error_body(code: str, message: str, fields: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return Response(error_body(exc.code, exc.message, exc.fields), status=exc.http_status)
    if isinstance(exc, DjangoValidationError):
        fields = (
            {k: [str(m) for m in v] for k, v in exc.message_dict.items()}
            if hasattr(exc, "error_dict")
            else {"non_field_errors": [str(m) for m in exc.messages]}
        )
        return Response(error_body("invalid", "The request is not valid.", fields), status=400)
    if isinstance(exc, DatabaseError) and not isinstance(exc, exceptions.APIException):
        unavailable = Response(
            error_body("service_unavailable", "The database is unavailable; try again shortly."),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
        unavailable["Retry-After"] = "5"
        return unavailable
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    drf_response = drf_exception_handler(exc, context)
    if drf_response is None:
        return None
    response: Response = drf_response
    if isinstance(exc, exceptions.ValidationError):
        body = error_body("invalid", "The request is not valid.", _flatten(exc.detail))
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        message = str(detail) if not isinstance(detail, dict | list) else "Request failed."
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else exc.default_code
        body = error_body(str(code), message)
    else:  # pragma: no cover - DRF only hands us APIException subclasses here
        body = error_body("error", str(exc))
    response.data = body
    return response
