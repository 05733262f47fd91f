"""Which language a request is answered in.

* Pages: Russian first. The site's language is the visitor's choice (the language cookie set by the
  switch), else Russian — not the browser's Accept-Language, which on most of our customers' office
  machines says English while they read Russian.
* The API (`/api/`): English unless the client's `Accept-Language` asks for another language the site
  speaks. The language cookie of the pages does not apply, so one client gets its messages and its field
  errors in one language whoever else used the browser.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation.trans_real import get_supported_language_variant, parse_accept_lang_header

API_PREFIX = "/api/"
API_DEFAULT_LANGUAGE = "en"
API_LANGUAGE_HEADER = "HTTP_X_API_ACCEPT_LANGUAGE"  # where the client's header is kept for ApiLanguageMiddleware


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def api_language(accept_language: str) -> str:
    """The first language of `Accept-Language` the site speaks (by quality), else English."""
    for code, _quality in parse_accept_lang_header(accept_language):
        if code == "*":
            break
        try:
            return get_supported_language_variant(code)
        except LookupError:
            continue
    return API_DEFAULT_LANGUAGE


class DefaultLanguageMiddleware:
    """Put before LocaleMiddleware: on pages without a language cookie, Accept-Language is ignored so
    LANGUAGE_CODE (ru) applies. On the API the header is kept aside for ApiLanguageMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if is_api(request):
            request.META[API_LANGUAGE_HEADER] = request.META.get("HTTP_ACCEPT_LANGUAGE", "")
        elif settings.LANGUAGE_COOKIE_NAME not in request.COOKIES:
            request.META.pop("HTTP_ACCEPT_LANGUAGE", None)
        return self.get_response(request)


class ApiLanguageMiddleware:
    """Put after LocaleMiddleware: an API request is answered in `api_language(Accept-Language)`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_api(request):
            return self.get_response(request)
        language = api_language(str(request.META.get(API_LANGUAGE_HEADER, "")))
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers["Content-Language"] = language
        return response
