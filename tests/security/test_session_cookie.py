"""A forged session cookie is no session: not a 503 "database unavailable", whatever the database is.

Django unquotes cookie values (`"\\000…"` becomes NUL bytes), and PostgreSQL refuses NUL in text, so a
crafted `sessionid` used to reach the database as a DataError and come back as an outage (found by the
schemathesis fuzz run in CI).
"""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

FORGED = (
    r'"\000\000\000\000\000\000\000\000\000\000"',  # NUL bytes after unquoting
    "x" * 4000,
    "DROP TABLE; --",
    "ÿÿÿÿÿÿÿÿÿÿ",
)


@pytest.mark.parametrize("value", FORGED)
@pytest.mark.parametrize(("method", "path"), [("delete", "/api/v1/auth/token"), ("get", "/api/v1/builds/")])
def test_a_forged_session_cookie_is_treated_as_no_session(method: str, path: str, value: str) -> None:
    response = getattr(Client(), method)(path, HTTP_COOKIE=f"sessionid={value}")
    assert response.status_code in (401, 403), response.content
    assert response.json()["error"]["code"] in ("not_authenticated", "authentication_failed", "permission_denied")


def test_a_forged_session_cookie_on_a_page_is_an_anonymous_visit(catalog: None) -> None:
    response = Client().get("/", HTTP_COOKIE=f"sessionid={FORGED[0]}")
    assert response.status_code == 200
    assert "Войти" in response.content.decode()


def test_a_value_the_database_refuses_is_a_400_not_an_outage(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both layers (the API's exception handler and the page middleware) tell a DataError from an outage."""
    from django.db import DataError

    from config import api
    from config.observability import DatabaseUnavailableMiddleware

    response = api.exception_handler(DataError("value too long"), {})
    assert response is not None and response.status_code == 400
    assert response.data["error"]["code"] == "invalid" and "Retry-After" not in response
    page = DatabaseUnavailableMiddleware(lambda request: None).process_exception(None, DataError("NUL"))  # type: ignore[arg-type, return-value]
    assert page is not None and page.status_code == 400 and b'"invalid"' in page.content
