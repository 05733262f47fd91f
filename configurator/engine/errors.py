"""Errors the domain and services raise; the API's exception handler turns them into the envelope."""

from __future__ import annotations


class DomainError(Exception):
    """A request that cannot be served as asked. `fields` names the input at fault."""

    code = "invalid"
    http_status = 400

    def __init__(
        self,
        message: str,
        *,
        fields: dict[str, list[str]] | None = None,
        code: str | None = None,
        http_status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or {}
        if code is not None:
            self.code = code
        if http_status is not None:
            self.http_status = http_status


class UnknownModelError(DomainError):
    code = "unknown_model"


class UnknownSkuError(DomainError):
    code = "unknown_sku"


class ConflictError(DomainError):
    code = "conflict"
    http_status = 409
