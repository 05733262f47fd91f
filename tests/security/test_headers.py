"""Content-Security-Policy on every page (and nothing inline for it to block), the Swagger UI's own policy,
and `Cache-Control: private, no-store` on signed-in API answers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from config.security import DOCS_POLICY
from tests import factories
from tests.builds import GOOD_BUILD

pytestmark = pytest.mark.django_db

POLICY = "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"
ROOT = Path(settings.BASE_DIR)
INLINE = {
    "inline script": re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I),
    "style element": re.compile(r"<style[\s>]", re.I),
    "style attribute": re.compile(r"\sstyle\s*=", re.I),
    "event handler": re.compile(r"\son[a-z]+\s*=", re.I),
    "javascript: URL": re.compile(r"javascript:", re.I),
    "htmx inline code": re.compile(r"\shx-on[:-]|\shx-vals\s*=\s*['\"]js:", re.I),
}


def _inline(text: str) -> list[str]:
    return [name for name, pattern in INLINE.items() if pattern.search(text)]


def test_the_templates_and_static_files_have_nothing_inline() -> None:
    """Every template of the project and every script/style of static/."""
    pages = [*ROOT.glob("templates/**/*.html"), *ROOT.glob("*/templates/**/*.html")]  # the site's and each app's
    found = {str(path.relative_to(ROOT)): _inline(path.read_text()) for path in pages}
    assert {path: kinds for path, kinds in found.items() if kinds} == {}
    assert len(found) >= 20
    scripts = list(ROOT.glob("static/js/*.js"))
    assert all("eval(" not in path.read_text() and 'innerHTML = "<' not in path.read_text() for path in scripts)


@pytest.mark.parametrize(
    ("url", "who"),
    [
        ("/", None),
        ("/accounts/login/", None),
        ("/accounts/signup/", None),
        ("/admin/login/", None),
        ("/builds/new", "customer"),
        ("/quotes/", "customer"),
        ("/accounts/", "customer"),
        ("/admin/", "staff"),
        ("/no-such-page/", None),
    ],
)
def test_every_page_has_the_policy_and_nothing_inline(catalog: None, url: str, who: str | None) -> None:
    client = Client()
    if who == "customer":
        client.force_login(factories.customer(username="alice"))
    elif who == "staff":
        client.force_login(factories.catalog_staff(username="cathy"))
    response = client.get(url)
    assert response.status_code in (200, 404)
    assert response["Content-Security-Policy"] == POLICY
    if url.startswith("/admin"):
        return  # Django's admin templates are not ours; the policy still applies to them
    assert _inline(response.content.decode()) == []


def test_the_workload_results_carry_bar_widths_as_data(catalog: None) -> None:
    form = {
        "model": "llama-3.1-8b",
        "task": "inference",
        "precision": "q4_k_m",
        "context_tokens": "8192",
        "concurrent_users": "1",
        "form_factor": "any",
    }
    page = Client().post("/", form).content.decode()
    widths = re.findall(r'class="stack__seg seg--weights" data-width="(\d+\.\d\d%)"', page)
    assert widths and all(0 <= float(width[:-1]) <= 100 for width in widths)
    assert _inline(page) == []


def test_the_api_docs_answer_their_own_policy_and_load_their_script_from_this_origin() -> None:
    page = Client().get("/api/v1/docs/")
    assert page.status_code == 200
    assert page["Content-Security-Policy"] == DOCS_POLICY
    body = page.content.decode()
    assert '<script src="/api/v1/docs/?script=' in body
    # Swagger UI from this site's /static/ (drf-spectacular-sidecar), never a CDN; the policy names no other host
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in body
    assert "http" not in body.split("<body>", 1)[0].split("</title>", 1)[1] and "https:" not in DOCS_POLICY
    assert _inline(body) == []
    assert _inline(body.split("<body>", 1)[1]) == []
    script = Client().get("/api/v1/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()


def test_signed_in_api_answers_are_not_cached(catalog: None) -> None:
    customer = factories.customer(username="alice")
    token = factories.api_token(customer)
    by_token = APIClient(HTTP_AUTHORIZATION=f"Token {token}")
    listed = by_token.get("/api/v1/quotes/")
    assert (listed.status_code, listed["Cache-Control"]) == (200, "private, no-store")
    created = by_token.post("/api/v1/quotes/", {"build": GOOD_BUILD}, format="json")
    assert (created.status_code, created["Cache-Control"]) == (201, "private, no-store")

    session = APIClient()
    session.force_login(customer)
    builds = session.get("/api/v1/builds/")
    assert (builds.status_code, builds["Cache-Control"]) == (200, "private, no-store")

    refused = APIClient(HTTP_AUTHORIZATION="Token " + "0" * 40).get("/api/v1/builds/")
    assert (refused.status_code, refused["Cache-Control"]) == (401, "private, no-store")


def test_anonymous_api_answers_and_pages_are_not_marked_private(catalog: None) -> None:
    ping = APIClient().get("/api/v1/ping")
    assert ping.status_code == 200 and "no-store" not in ping.get("Cache-Control", "")
    assert ping["Content-Security-Policy"] == POLICY
