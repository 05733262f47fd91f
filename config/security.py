"""Response headers every answer gets: the Content-Security-Policy, and no caching of signed-in API answers.

* `Content-Security-Policy` (CONTENT_SECURITY_POLICY): `default-src 'self'` and nothing inline — the pages
  load their script and style from /static/ only (bar widths come as data attributes that static/js/app.js
  applies, htmx runs without eval and without its inline indicator style). A view may answer its own
  policy (the Swagger UI page, whose images include data: URIs); it is then left alone.
* `Cache-Control: private, no-store` on every /api/ answer to a signed-in caller (a session, or any
  Authorization header), on every page answered to a signed-in user, on the account pages (/accounts/: login,
  sign-up, the API token) and on every PDF: a shared cache or the browser's must not keep one user's quotes,
  documents or token. Public pages answered to anonymous visitors (home, catalog) and /static/ keep their
  own caching; an answer that already says `no-store` (the admin's never_cache) is left alone.
* `Permissions-Policy` (PERMISSIONS_POLICY): no camera, microphone, geolocation, payment, USB and the like —
  the site uses none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from config.api import is_api_request

CSP_HEADER = "Content-Security-Policy"
DEFAULT_POLICY = "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"
#: The Swagger UI of /api/v1/docs/ loads swagger-ui from this site's /static/ (drf-spectacular-sidecar, pinned);
#: its initialisation script is served from /api/v1/docs/?script (SpectacularSwaggerSplitView), not inline. Its
#: icons are data: URIs, the one thing beyond the site's own policy.
DOCS_POLICY = (
    "default-src 'self'; img-src 'self' data:; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; "
    "object-src 'none'"
)
PRIVATE = "private, no-store"
PERMISSIONS_HEADER = "Permissions-Policy"
DEFAULT_PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), magnetometer=(), "
    "microphone=(), midi=(), payment=(), serial=(), usb=(), xr-spatial-tracking=()"
)
PRIVATE_PREFIXES = ("/accounts/",)


def content_security_policy() -> str:
    return str(getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_POLICY))


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if CSP_HEADER not in response:
            response[CSP_HEADER] = content_security_policy()
        if PERMISSIONS_HEADER not in response:
            response[PERMISSIONS_HEADER] = str(getattr(settings, "PERMISSIONS_POLICY", DEFAULT_PERMISSIONS_POLICY))
        if _private(request, response) and "no-store" not in response.get("Cache-Control", ""):
            response["Cache-Control"] = PRIVATE
        return response


def _private(request: HttpRequest, response: HttpResponse) -> bool:
    """An answer no cache may keep: personal, or a document."""
    if is_api_request(request):
        return _signed_in(request) or response.get("Content-Type", "").startswith("application/pdf")
    user = getattr(request, "user", None)
    return (
        bool(user is not None and user.is_authenticated)
        or request.path.startswith(PRIVATE_PREFIXES)
        or response.get("Content-Type", "").startswith("application/pdf")
    )


def _signed_in(request: HttpRequest) -> bool:
    """A session or token user (DRF puts the user it authenticated on the Django request), or any
    credentials sent at all (an answer to them is personal even when they were refused)."""
    user = getattr(request, "user", None)
    return bool(request.META.get("HTTP_AUTHORIZATION")) or bool(user is not None and user.is_authenticated)


def with_policy(policy: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Answer `policy` instead of the site's Content-Security-Policy (one view's exception)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            response = view(request, *args, **kwargs)
            response[CSP_HEADER] = policy
            return response

        return wrapped

    return decorate
