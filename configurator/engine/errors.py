"""Errors the domain and services raise; the API's exception handler turns them into the envelope.

One family: `ApplicationError(message, code=, fields=)` with a stable `ErrorCode` and a kind given by its
class — `InvalidInput`, `NotFound`, `Forbidden`, `Conflict`, `Mismatch`. The kind says what went wrong, not
how a door answers it: the HTTP statuses live in `config.api` (invalid 400, not found 404, forbidden 403,
conflict 409, mismatch 422), the pages show a message. An error is not changed once raised: `nested(prefix)`
gives a new one whose field names sit under `prefix` (a nested body's `gpus[0].qty` → `build.gpus[0].qty`).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import ClassVar, Self


class ErrorCode(StrEnum):
    """Every code an ApplicationError carries (the `code` of the API's error envelope)."""

    INVALID = "invalid"
    UNKNOWN_MODEL = "unknown_model"
    UNKNOWN_SKU = "unknown_sku"
    INVALID_MODEL_CONFIG = "invalid_model_config"
    INVALID_PRECISION = "invalid_precision"
    BUILD_INVALID = "build_invalid"
    WARNINGS_NOT_ACKNOWLEDGED = "warnings_not_acknowledged"
    NOT_FOUND = "not_found"
    FORBIDDEN = "forbidden"
    DISCOUNT_NOT_ALLOWED = "discount_not_allowed"
    APPROVER_MUST_DIFFER = "approver_must_differ"
    CONFLICT = "conflict"
    INVALID_TRANSITION = "invalid_transition"
    APPROVAL_REQUIRED = "approval_required"
    NOT_LATEST_REVISION = "not_latest_revision"
    QUOTE_EXPIRED = "quote_expired"
    SKU_UNAVAILABLE = "sku_unavailable"
    PDF_NOT_READY = "pdf_not_ready"
    FIX_NOT_APPLICABLE = "fix_not_applicable"
    IDEMPOTENCY_MISMATCH = "idempotency_mismatch"
    # answered by the API's plumbing (config/api.py), not raised by the services
    BAD_REQUEST = "bad_request"
    PERMISSION_DENIED = "permission_denied"
    REQUEST_TOO_LARGE = "request_too_large"
    SERVICE_UNAVAILABLE = "service_unavailable"
    SERVER_ERROR = "server_error"


class ApplicationError(Exception):
    """A request that cannot be served as asked. `fields` names the input at fault (name → reasons).

    Raised as is, it is invalid input; the subclasses below name the other kinds.
    """

    default_code: ClassVar[str] = ErrorCode.INVALID

    def __init__(self, message: str, *, code: str | None = None, fields: Mapping[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code: str = str(code or self.default_code)
        self.fields: dict[str, list[str]] = {name: list(reasons) for name, reasons in (fields or {}).items()}

    def nested(self, prefix: str) -> Self:
        """The same error (kind, code, message) with every field name under `prefix`: `prefix` is put in
        front as given (`"workload."` → `workload.model`). No prefix gives an equal copy."""
        fields = {f"{prefix}{name}": reasons for name, reasons in self.fields.items()}
        return type(self)(self.message, code=self.code, fields=fields)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r}, fields={self.fields!r})"


class InvalidInput(ApplicationError):
    """The input is wrong: a field out of range, an unknown SKU or model, a build with errors."""


class NotFound(ApplicationError):
    """The object does not exist, or is not one the caller may see."""

    default_code = ErrorCode.NOT_FOUND


class Forbidden(ApplicationError):
    """The caller may see the object but lacks the right to do this."""

    default_code = ErrorCode.FORBIDDEN


class Conflict(ApplicationError):
    """The object's state does not allow this now (a status transition, a stale revision, an expired quote)."""

    default_code = ErrorCode.CONFLICT


class Mismatch(ApplicationError):
    """The request repeats an earlier one by its key but not by its content (an Idempotency-Key reused with
    another body): neither the earlier answer nor a new object would be right."""

    default_code = ErrorCode.IDEMPOTENCY_MISMATCH


class UnknownModelError(InvalidInput):
    default_code = ErrorCode.UNKNOWN_MODEL


class UnknownSkuError(InvalidInput):
    default_code = ErrorCode.UNKNOWN_SKU


#: Older names, kept so callers need not change: `DomainError` is the whole family (raising it is
#: invalid input), `ConflictError` the conflict kind.
DomainError = ApplicationError
ConflictError = Conflict
