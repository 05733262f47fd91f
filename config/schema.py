"""GET /api/v1/schema/: the OpenAPI schema, generated once per process and language.

drf-spectacular's view builds the schema again for every request: ~0.8 s of CPU on our machines, for an
anonymous GET that anyone may repeat (as much work as several hundred validations). The schema is made
from the code alone (SERVE_PUBLIC: the same for every caller), so each worker keeps the one it made per
language: the request's language (`?lang=` or the negotiated one), reduced to one of LANGUAGES (a code
without a catalogue gets the default language's texts, as gettext falls back to it). The API has one
version (/api/v1/), so a `?version=` parameter is not echoed into the schema: that would make the number of
kept schemas the caller's choice.
"""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.utils import translation
from drf_spectacular.views import SpectacularAPIView
from rest_framework.request import Request
from rest_framework.response import Response

_made: dict[str, dict[str, Any]] = {}  # language -> the schema (as generated: a JSON-ready dict)
_lock = threading.Lock()


def _language() -> str:
    try:
        return translation.get_supported_language_variant(translation.get_language() or settings.LANGUAGE_CODE)
    except LookupError:
        return str(settings.LANGUAGE_CODE)


class SchemaApi(SpectacularAPIView):
    """The OpenAPI 3 schema of /api/v1: YAML, or JSON with `?format=json` (or the OpenAPI JSON media type)."""

    def _get_version_parameter(self, request: Request) -> None:
        return None

    def _get_schema_response(self, request: Request) -> Response:
        language = _language()
        schema = _made.get(language)
        if schema is None:
            with _lock, translation.override(language):
                schema = _made.get(language)
                if schema is None:
                    generator = self.generator_class(urlconf=self.urlconf, api_version=None, patterns=self.patterns)
                    schema = _made[language] = generator.get_schema(request=request, public=self.serve_public)
        return Response(
            data=schema,
            headers={"Content-Disposition": f'inline; filename="{self._get_filename(request, None)}"'},
        )
