"""API hygiene: throttles (429 + Retry-After), the body size limit (413), the error envelope on every 4xx
of /api/v1 (unknown URL, wrong method, content type, Accept, malformed JSON, credentials), API tokens
(create, rotate, revoke, use) and CSRF for session-authenticated writes but not for token ones."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

import config.api
from accounts.models import ApiToken, User, token_digest
from config import throttle
from configurator.models import SavedBuild
from quotes.models import Quote
from tests import factories
from tests.builds import GOOD_BUILD
from tests.security.bodies import APPLY_FIX, ESTIMATE, RECOMMENDATION

pytestmark = pytest.mark.django_db

PASSWORD = "pass-12345"  # tests.factories.UserFactory


def envelope(response: Any) -> dict[str, Any]:
    """The error envelope of an answer, checked for shape and content type."""
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "fields"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return dict(body["error"])


def basic(user: User, password: str = PASSWORD) -> str:
    return "Basic " + base64.b64encode(f"{user.username}:{password}".encode()).decode()


@pytest.fixture
def lower_rate(monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], None]:
    """Set one scope's rate for this test (DRF reads the rates once, into SimpleRateThrottle). The counters'
    clock stands 10 s into a window: a window that ended between two requests of a test would start the
    count again (a fixed window; CI once crossed a minute's end there and the third call was not refused)."""
    window = throttle._window
    monkeypatch.setattr(throttle, "_window", lambda duration_s, now: window(duration_s, 6000.0 + 10))

    def lower(scope: str, rate: str) -> None:
        monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, scope, rate)

    return lower


# --------------------------------------------------------------------------- throttling


@pytest.mark.parametrize(
    ("scope", "url", "body"),
    [
        ("anon_estimate", "/api/v1/estimate", ESTIMATE),
        ("anon_validate", "/api/v1/builds/validate", GOOD_BUILD),
        ("anon_validate", "/api/v1/builds/apply-fix", APPLY_FIX),
        ("anon_recommend", "/api/v1/recommendations", RECOMMENDATION),
    ],
)
def test_anonymous_calls_are_throttled_per_scope_and_address(
    catalog: None, lower_rate: Callable[[str, str], None], scope: str, url: str, body: dict[str, Any]
) -> None:
    lower_rate(scope, "2/min")
    client = APIClient(REMOTE_ADDR="203.0.113.7")
    assert [client.post(url, body, format="json").status_code for _ in range(2)] == [200, 200]
    throttled = client.post(url, body, format="json")
    assert throttled.status_code == 429
    assert envelope(throttled)["code"] == "throttled"
    assert 1 <= int(throttled["Retry-After"]) <= 60
    # a forged X-Forwarded-For does not give a new allowance (API_NUM_PROXIES=0) ...
    forged = client.post(url, body, format="json", HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert forged.status_code == 429
    # ... another address has its own, and a signed-in user is not limited by the anonymous scope
    assert APIClient(REMOTE_ADDR="203.0.113.8").post(url, body, format="json").status_code == 200
    signed_in = APIClient(REMOTE_ADDR="203.0.113.7")
    signed_in.force_authenticate(factories.customer())
    assert [signed_in.post(url, body, format="json").status_code for _ in range(3)] == [200, 200, 200]


def test_quote_create_is_throttled_per_user_and_the_429_creates_nothing(
    catalog: None, lower_rate: Callable[[str, str], None]
) -> None:
    lower_rate("quote_create", "1/min")
    user = factories.customer()
    client = APIClient()
    client.force_authenticate(user)
    assert client.post("/api/v1/quotes/", {"build": GOOD_BUILD}, format="json").status_code == 201
    throttled = client.post("/api/v1/quotes/", {"build": GOOD_BUILD}, format="json")
    assert throttled.status_code == 429
    assert envelope(throttled)["code"] == "throttled"
    assert int(throttled["Retry-After"]) >= 1
    assert Quote.objects.count() == 1
    assert client.get("/api/v1/quotes/").status_code == 200  # the list next to it is not limited
    other = APIClient()
    other.force_authenticate(factories.customer())
    assert other.post("/api/v1/quotes/", {"build": GOOD_BUILD}, format="json").status_code == 201


def test_token_endpoint_counts_attempts_before_checking_the_password(lower_rate: Callable[[str, str], None]) -> None:
    lower_rate("auth_token", "2/min")
    user = factories.customer()
    client = APIClient(REMOTE_ADDR="203.0.113.9")
    guesses = [client.post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic(user, f"guess-{i}")) for i in range(2)]
    assert [r.status_code for r in guesses] == [401, 401]
    assert guesses[0]["WWW-Authenticate"].startswith("Basic")
    # the right password does not help once the address is over its limit
    throttled = client.post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic(user))
    assert throttled.status_code == 429
    assert envelope(throttled)["code"] == "throttled"
    assert "Retry-After" in throttled
    assert not ApiToken.objects.filter(user=user).exists()


# --------------------------------------------------------------------------- size limit and envelopes


def test_body_over_the_upload_limit_is_a_413_envelope(catalog: None) -> None:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert limit == 2 * 1024 * 1024
    padding = "x" * limit
    response = APIClient().post("/api/v1/estimate", {**ESTIMATE, "padding": padding}, format="json")
    assert response.status_code == 413
    error = envelope(response)
    assert error["code"] == "request_too_large"
    assert str(limit) in error["message"]
    # just under the limit the body is parsed: issue 12 refuses the unknown field by name (a 400, not a 413)
    small = APIClient().post("/api/v1/estimate", {**ESTIMATE, "padding": "x" * (limit - 1000)}, format="json")
    assert small.status_code == 400
    assert list(envelope(small)["fields"]) == ["padding"]


def test_an_oversized_write_creates_nothing(catalog: None) -> None:
    user = factories.customer()
    client = APIClient()
    client.force_authenticate(user)
    body = {"name": "big", "notes": "n" * (3 * 1024 * 1024), "build": GOOD_BUILD}
    response = client.post("/api/v1/builds/", body, format="json")
    assert response.status_code == 413
    assert envelope(response)["code"] == "request_too_large"
    assert SavedBuild.objects.count() == 0


def test_unknown_api_url_is_a_json_404_but_pages_stay_html() -> None:
    client = Client()
    for url in ("/api/v1/no-such-endpoint", "/api/v1/quotes/not-a-number/", "/api/v2/estimate", "/api/"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert envelope(response)["code"] == "not_found"
    # other paths get the site's own 404 page (the project's 404.html, in the site's frame)
    page = client.get("/no-such-page/")
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html") and 'class="site-header"' in page.content.decode()


def test_wrong_method_is_a_405_envelope_with_allow() -> None:
    response = APIClient().get("/api/v1/estimate")
    assert response.status_code == 405
    assert envelope(response)["code"] == "method_not_allowed"
    assert "POST" in response["Allow"]
    assert APIClient().delete("/api/v1/ping").status_code == 405


def test_body_that_is_not_json_is_a_415_envelope() -> None:
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "application/xml"):
        response = APIClient().post("/api/v1/estimate", data="model=llama-3.1-8b", content_type=content_type)
        assert response.status_code == 415, content_type
        assert envelope(response)["code"] == "unsupported_media_type"


def test_accept_other_than_json_is_a_406_envelope_in_json() -> None:
    response = APIClient().get("/api/v1/ping", HTTP_ACCEPT="application/xml")
    assert response.status_code == 406
    assert envelope(response)["code"] == "not_acceptable"


@pytest.mark.parametrize("raw", ['{"model": ', "{'model': 'x'}", "[1, 2", "\xff\xfe", "NaN garbage"])
def test_malformed_json_is_a_400_parse_error(raw: str) -> None:
    response = APIClient().post("/api/v1/estimate", data=raw.encode("latin-1"), content_type="application/json")
    assert response.status_code == 400
    assert envelope(response)["code"] == "parse_error"


def test_missing_or_bad_credentials_are_401_envelopes() -> None:
    anonymous = APIClient().get("/api/v1/builds/")
    assert anonymous.status_code == 401
    assert envelope(anonymous)["code"] == "not_authenticated"
    assert anonymous["WWW-Authenticate"] == "Token"
    bad = APIClient().get("/api/v1/builds/", HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert bad.status_code == 401
    assert envelope(bad)["code"] == "authentication_failed"
    # even on an endpoint anonymous users may call: a wrong token is not silently ignored
    assert APIClient().get("/api/v1/ping", HTTP_AUTHORIZATION="Token nope").status_code == 401


def test_unhandled_error_in_an_api_view_is_a_json_500(monkeypatch: pytest.MonkeyPatch) -> None:
    from config.api import PingApi

    def broken(self: Any, request: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(PingApi, "get", broken)
    response = Client(raise_request_exception=False).get("/api/v1/ping")
    assert response.status_code == 500
    assert envelope(response)["code"] == "server_error"
    assert "boom" not in response.content.decode()


# --------------------------------------------------------------------------- tokens


def test_token_create_use_rotate_and_revoke(catalog: None) -> None:
    user = factories.customer()
    # create with the session (the account page's button), CSRF token included
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(user)
    browser.get("/admin/login/")  # any page that sets the CSRF cookie
    csrf = browser.cookies["csrftoken"].value
    created = browser.post("/api/v1/auth/token", HTTP_X_CSRFTOKEN=csrf)
    assert created.status_code == 201
    first = created.json()["token"]
    assert created.json()["username"] == user.username
    stored = ApiToken.objects.get(user=user)
    assert stored.key_hash == token_digest(first) and first not in str(list(ApiToken.objects.values()))

    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert script.get("/api/v1/builds/").status_code == 200
    # a token write needs no CSRF token
    assert script.post("/api/v1/builds/", {"name": "by token", "build": GOOD_BUILD}, format="json").status_code == 201

    # rotate with Basic auth: the old key stops working at once
    rotated = APIClient().post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic(user))
    assert rotated.status_code == 201
    second = rotated.json()["token"]
    assert second != first
    assert script.get("/api/v1/builds/").status_code == 401
    script.credentials(HTTP_AUTHORIZATION=f"Token {second}")
    assert script.get("/api/v1/builds/").status_code == 200

    # revoke with the token itself
    assert script.delete("/api/v1/auth/token").status_code == 204
    assert not ApiToken.objects.filter(user=user).exists()
    assert script.get("/api/v1/builds/").status_code == 401


def test_token_endpoint_needs_credentials_and_changes_nothing_without_them() -> None:
    user = factories.customer()
    factories.api_token(user)
    before = list(ApiToken.objects.values_list("user_id", "key_hash"))
    for method in ("post", "delete"):
        response = getattr(APIClient(), method)("/api/v1/auth/token")
        assert response.status_code == 401
        assert envelope(response)["code"] == "not_authenticated"
        wrong = getattr(APIClient(), method)("/api/v1/auth/token", HTTP_AUTHORIZATION=basic(user, "wrong"))
        assert wrong.status_code == 401
    assert list(ApiToken.objects.values_list("user_id", "key_hash")) == before


# --------------------------------------------------------------------------- CSRF


def test_session_writes_need_the_csrf_token_token_writes_do_not(catalog: None) -> None:
    user = factories.customer()
    key = factories.api_token(user)
    body = {"name": "mine", "build": GOOD_BUILD}

    session = APIClient(enforce_csrf_checks=True)
    session.force_login(user)
    refused = session.post("/api/v1/builds/", body, format="json")
    assert refused.status_code == 403
    error = envelope(refused)
    assert error["code"] == "permission_denied" and "CSRF" in error["message"]
    assert SavedBuild.objects.count() == 0
    # token rotation through the session is a write too
    assert session.post("/api/v1/auth/token").status_code == 403
    assert ApiToken.objects.get(user=user).key_hash == token_digest(key)
    # a session read needs no CSRF token; a write with it goes through
    assert session.get("/api/v1/builds/").status_code == 200
    session.get("/admin/login/")
    accepted = session.post("/api/v1/builds/", body, format="json", HTTP_X_CSRFTOKEN=session.cookies["csrftoken"].value)
    assert accepted.status_code == 201

    by_token = APIClient(enforce_csrf_checks=True)
    by_token.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert by_token.post("/api/v1/builds/", body, format="json").status_code == 201
    assert SavedBuild.objects.filter(owner=user).count() == 2


# --------------------------------------------------------------------------- OpenAPI


def test_every_operation_documents_its_errors_with_the_envelope() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    envelope_schema = schema["components"]["schemas"]["ApiError"]
    assert envelope_schema["required"] == ["error"]
    throttled = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            errors = {code: answer for code, answer in operation["responses"].items() if code >= "400"}
            assert {"400", "401", "406", "503"} <= set(errors), (method, path)
            if method in ("post", "put", "patch", "delete"):
                assert {"403", "404", "413"} <= set(errors), (method, path)
            if "requestBody" in operation:
                assert "415" in errors, (method, path)
            if "{" in path:
                assert "404" in errors, (method, path)
            for code, answer in errors.items():
                if code == "414":  # gunicorn's own answer to an over-long request line
                    assert list(answer["content"]) == ["text/html"]
                    continue
                assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ApiError"}
            if "429" in errors:
                throttled.add((method.upper(), path))
    assert throttled == {
        ("POST", "/api/v1/estimate"),
        ("POST", "/api/v1/builds/validate"),
        ("POST", "/api/v1/builds/apply-fix"),
        ("POST", "/api/v1/recommendations"),
        ("POST", "/api/v1/clusters/recommendations"),
        ("POST", "/api/v1/quotes/"),
        ("POST", "/api/v1/quotes/cluster/"),
        ("POST", "/api/v1/auth/token"),
        ("DELETE", "/api/v1/auth/token"),
    }


@pytest.mark.django_db
def test_throttles_fail_open_when_their_cache_is_down(
    api_client: APIClient, catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Redis outage must not turn into API errors: the throttle lets requests through and logs it."""

    def unreachable(*args: object, **kwargs: object) -> object:
        raise ConnectionError("cache down")

    monkeypatch.setattr(config.api, "throttle_counter", lambda: type("Down", (), {"hit": unreachable})())
    body = {"model": "llama-3.1-8b", "precision": "q4_k_m"}
    response = api_client.post("/api/v1/estimate", body, format="json")
    assert response.status_code == 200
    assert response.json()["model"]["slug"] == "llama-3.1-8b"
