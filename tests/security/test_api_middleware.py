"""The /api/ path skips page middleware it does not need (config/middleware.py): no session or
user-from-session work without the session cookie, never the messages middleware; pages run them all,
and a session-authenticated API call still gets its user and DRF's CSRF check."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.test import Client

from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each page middleware's process_request ran."""
    seen: Counter[str] = Counter()
    for cls in (SessionMiddleware, MessageMiddleware):
        original: Callable[..., Any] = cls.process_request

        def recording(self: Any, request: Any, _original: Callable[..., Any] = original, _name: str = cls.__name__):
            seen[_name] += 1
            return _original(self, request)

        monkeypatch.setattr(cls, "process_request", recording)
    return seen


def test_an_api_call_without_the_session_cookie_skips_sessions_and_messages(calls: Counter[str]) -> None:
    response = Client().get("/api/v1/ping")
    assert response.status_code == 200
    assert calls == Counter()
    assert "Cookie" not in response.get("Vary", "")


def test_pages_run_every_middleware(calls: Counter[str]) -> None:
    assert Client().get("/accounts/login/").status_code == 200
    assert set(calls) == {"SessionMiddleware", "MessageMiddleware"}


def test_a_session_api_call_gets_its_user_and_the_csrf_check_but_no_messages(calls: Counter[str]) -> None:
    user = factories.customer()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    calls.clear()
    listed = client.get("/api/v1/builds/")
    assert listed.status_code == 200  # authenticated through the session
    assert listed["Cache-Control"] == "private, no-store"
    assert set(calls) == {"SessionMiddleware"}
    refused = client.post("/api/v1/builds/", {}, content_type="application/json")
    assert refused.status_code == 403  # DRF's CSRF check of a session write still applies
