"""The error family of configurator.engine.errors and how config/api.py answers each kind.

The engine names kinds, never HTTP statuses: invalid input 400, not found 404, forbidden 403, conflict 409,
all in the same envelope `{"error": {"code", "message", "fields"}}`.
"""

from __future__ import annotations

import pytest

from config.api import error_status, exception_handler
from configurator.engine.errors import (
    ApplicationError,
    Conflict,
    ConflictError,
    DomainError,
    ErrorCode,
    Forbidden,
    InvalidInput,
    NotFound,
    UnknownModelError,
    UnknownSkuError,
)
from quotes.policy import InvalidTransition


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (ApplicationError("bad"), 400, "invalid"),
        (DomainError("bad"), 400, "invalid"),
        (InvalidInput("bad", code=ErrorCode.BUILD_INVALID), 400, "build_invalid"),
        (UnknownSkuError("no such GPU"), 400, "unknown_sku"),
        (UnknownModelError("no such model"), 400, "unknown_model"),
        (NotFound("gone"), 404, "not_found"),
        (Forbidden("no"), 403, "forbidden"),
        (Forbidden("no", code=ErrorCode.APPROVER_MUST_DIFFER), 403, "approver_must_differ"),
        (Conflict("later"), 409, "conflict"),
        (ConflictError("later", code=ErrorCode.PDF_NOT_READY), 409, "pdf_not_ready"),
        (InvalidTransition("draft → accepted"), 409, "invalid_transition"),
    ],
)
def test_each_kind_answers_its_status_in_the_envelope(error: ApplicationError, status: int, code: str) -> None:
    assert error_status(error) == status
    response = exception_handler(error, {})
    assert response is not None
    assert response.status_code == status
    assert response.data == {"error": {"code": code, "message": error.message, "fields": {}}}


def test_fields_reach_the_envelope() -> None:
    response = exception_handler(InvalidInput("The build is not valid input.", fields={"gpus[0].qty": ["≥ 1"]}), {})
    assert response is not None
    assert (response.status_code, response.data["error"]["fields"]) == (400, {"gpus[0].qty": ["≥ 1"]})


def test_every_code_is_a_stable_string() -> None:
    assert all(code.value == code and code.value.islower() for code in ErrorCode)
    assert {"invalid", "unknown_model", "unknown_sku", "not_found", "forbidden", "conflict"} <= set(ErrorCode)


def test_nested_makes_a_new_error_and_leaves_the_caught_one_alone() -> None:
    caught = Forbidden("no", code=ErrorCode.DISCOUNT_NOT_ALLOWED, fields={"model": ["unknown"]})
    nested = caught.nested("workload.")
    assert nested is not caught
    assert type(nested) is Forbidden
    assert (nested.code, nested.message, nested.fields) == (
        "discount_not_allowed",
        "no",
        {"workload.model": ["unknown"]},
    )
    assert caught.fields == {"model": ["unknown"]}
    assert caught.nested("").fields == caught.fields
    assert error_status(nested) == 403


def test_the_engine_errors_carry_no_http_status() -> None:
    for kind in (ApplicationError, InvalidInput, NotFound, Forbidden, Conflict):
        assert not hasattr(kind("x"), "http_status")
