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
