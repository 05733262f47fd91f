"""Russian first: the site's language is the visitor's choice (the language cookie set by the switch),
else Russian — not the browser's Accept-Language, which on most of our customers' office machines
says English while they read Russian."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class DefaultLanguageMiddleware:
    """Put before LocaleMiddleware: without a language cookie, Accept-Language is ignored so
    LANGUAGE_CODE (ru) applies."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if settings.LANGUAGE_COOKIE_NAME not in request.COOKIES:
            request.META.pop("HTTP_ACCEPT_LANGUAGE", None)
        return self.get_response(request)
