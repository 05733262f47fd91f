"""Django's page middleware, skipped on /api/ requests that do not need it.

The API is called mostly with a token or anonymously; such a request has no session cookie and needs no
session, user-from-session or flash messages. Each class here is the Django middleware it
subclasses (so Django's checks still find them) and passes an /api/ request straight on when it does not
apply:

* sessions and authentication from the session: only when the request carries the session cookie (the
  site's own pages calling the API; DRF's SessionAuthentication then checks CSRF as before — Django's
  CsrfViewMiddleware stays whole, `check --deploy` looks for it by name, and it is cheap on DRF's
  csrf-exempt views);
* messages: never on /api/.

Pages are unchanged: every middleware runs for them.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest

from config.api import is_api_request


def uses_session(request: HttpRequest) -> bool:
    """A page, or an /api/ call that carries the session cookie."""
    return not is_api_request(request) or settings.SESSION_COOKIE_NAME in request.COOKIES


class _SkipOnApi:
    """Runs the middleware only when `applies(request)`."""

    get_response: Any

    @staticmethod
    def applies(request: HttpRequest) -> bool:
        return not is_api_request(request)

    def __call__(self, request: HttpRequest) -> Any:
        if not self.applies(request):
            return self.get_response(request)
        return super().__call__(request)  # type: ignore[misc]


class ApiAwareSessionMiddleware(_SkipOnApi, SessionMiddleware):
    applies = staticmethod(uses_session)


class ApiAwareAuthenticationMiddleware(_SkipOnApi, AuthenticationMiddleware):
    applies = staticmethod(uses_session)


class PagesMessageMiddleware(_SkipOnApi, MessageMiddleware):
    pass


REFRESHED = "_idle_refreshed"  # when the session's expiry was last moved forward (epoch seconds)


class SessionIdleTimeoutMiddleware:
    """Signed-in sessions end after a time without requests: SESSION_IDLE_TIMEOUT_STAFF_S for employees (staff,
    sales, catalog), SESSION_IDLE_TIMEOUT_S for customers. Each request moves the end forward (the session's
    expiry, in the database and on the cookie), at most once a minute so that a page's burst of requests costs
    one session write. Runs on the answer, so the login request itself sets the first expiry."""

    REFRESH_S = 60

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        response = self.get_response(request)
        session = getattr(request, "session", None)
        user = getattr(request, "user", None)
        if session is not None and user is not None and user.is_authenticated:
            idle_s, now = idle_timeout_s(user), int(time.time())
            if session.get("_session_expiry") != idle_s or now - int(session.get(REFRESHED, 0)) >= self.REFRESH_S:
                session.set_expiry(idle_s)  # saved with expire_date = now + idle_s, the cookie's Max-Age too
                session[REFRESHED] = now
        return response


def idle_timeout_s(user: Any) -> int:
    employee = (
        user.is_staff
        or user.is_superuser
        or getattr(user, "is_sales", False)
        or getattr(user, "is_catalog_staff", False)
    )
    return int(settings.SESSION_IDLE_TIMEOUT_STAFF_S if employee else settings.SESSION_IDLE_TIMEOUT_S)
