"""Site-wide pages that belong to no app: the health check and /favicon.ico."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponsePermanentRedirect, JsonResponse
from django.templatetags.static import static


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for docker-compose and load balancers."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:  # any database failure means "not ready"
        return JsonResponse({"status": "unavailable", "database": "down"}, status=503)
    return JsonResponse({"status": "ok", "database": "up"})


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """/favicon.ico, which browsers ask for whatever the page links: the static file (resolved per request, so
    production's hashed name comes from the manifest collectstatic wrote)."""
    return HttpResponsePermanentRedirect(static("favicon.ico"))
