"""Issue 38 items 4 and 7 beyond the login counters (tests/web/test_login_throttle.py): API tokens stored hashed,
expiring and migrated; no caching of private answers; the Permissions-Policy; idle session timeouts; `__Host-`
cookies in production; JSON log events of logins, failures, lockouts and tokens."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
from datetime import timedelta

import pytest
import time_machine
from django.apps import apps
from django.contrib.auth import SESSION_KEY
from django.http import HttpResponse
from django.test import Client, RequestFactory, override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from config.observability import JsonLinesFormatter
from config.security import SecurityHeadersMiddleware
from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "pass-12345"  # tests.factories.UserFactory's password


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


# --------------------------------------------------------------------------- tokens


def test_a_token_expires_after_its_days() -> None:
    user = factories.customer()
    with time_machine.travel(timezone.now(), tick=False) as clock:
        key = factories.api_token(user)
        token = ApiToken.objects.get(user=user)
        assert token.expires_at - token.created == timedelta(days=90)
        api = APIClient(HTTP_AUTHORIZATION=f"Token {key}")
        assert api.get("/api/v1/builds/").status_code == 200
        clock.shift(timedelta(days=89, hours=23))
        assert api.get("/api/v1/builds/").status_code == 200
        clock.shift(timedelta(hours=2))
        refused = api.get("/api/v1/builds/")
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "authentication_failed"


def test_the_token_endpoint_answers_the_key_once_with_its_expiry() -> None:
    user = factories.customer()
    created = APIClient().post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic(user.username, PASSWORD))
    assert created.status_code == 201
    body = created.json()
    stored = ApiToken.objects.get(user=user)
    assert stored.key_hash == hashlib.sha256(body["token"].encode()).hexdigest()
    assert body["token"] not in json.dumps(list(ApiToken.objects.values()), default=str)
    assert body["expires"].startswith(stored.expires_at.astimezone(timezone.get_current_timezone()).date().isoformat())


def test_the_migration_hashes_existing_plain_tokens_and_keeps_them_working() -> None:
    from importlib import import_module

    hash_tokens = import_module("accounts.migrations.0007_hash_drf_tokens").hash_tokens
    user = factories.customer()
    plain = Token.objects.create(user=user).key  # a DRF token as stored before: the key in plain text
    hash_tokens(apps, None)
    assert not Token.objects.exists()
    stored = ApiToken.objects.get(user=user)
    assert stored.key_hash == hashlib.sha256(plain.encode()).hexdigest() and stored.prefix == plain[:8]
    assert stored.expires_at > timezone.now() + timedelta(days=89)
    assert APIClient(HTTP_AUTHORIZATION=f"Token {plain}").get("/api/v1/builds/").status_code == 200


def test_the_admin_shows_a_new_key_once_and_lists_only_its_start() -> None:
    root = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    owner = factories.customer(username="owner")
    client = Client()
    client.force_login(root)
    response = client.post("/admin/accounts/apitoken/add/", {"user": owner.pk}, follow=True)
    assert response.status_code == 200
    token = ApiToken.objects.get(user=owner)
    page = response.content.decode()
    start = page.index("(показан только сейчас): ") + len("(показан только сейчас): ")
    key = page[start : start + 43]
    assert hashlib.sha256(key.encode()).hexdigest() == token.key_hash
    assert key not in client.get("/admin/accounts/apitoken/").content.decode()
    assert key not in client.get(f"/admin/accounts/apitoken/{token.pk}/change/").content.decode()


# --------------------------------------------------------------------------- Cache-Control and Permissions-Policy


def test_private_pages_are_not_cached_public_ones_keep_their_caching() -> None:
    anonymous = Client()
    home = anonymous.get("/")
    assert home.status_code == 200 and "no-store" not in home.get("Cache-Control", "")
    catalog = anonymous.get("/api/v1/catalog/gpus/")
    assert catalog.status_code == 200 and "no-store" not in catalog.get("Cache-Control", "")
    signup_page = anonymous.get("/accounts/signup/")  # carries the visitor's CSRF token
    assert signup_page["Cache-Control"] == "private, no-store"
    login_page = anonymous.get("/accounts/login/")  # Django's never_cache: already no-store, left as it is
    assert {"private", "no-store"} <= {part.strip() for part in login_page["Cache-Control"].split(",")}

    signed_in = Client()
    signed_in.force_login(factories.customer())
    for url in ("/", "/builds/", "/quotes/", "/accounts/"):
        response = signed_in.get(url)
        assert (response.status_code, response["Cache-Control"]) == (200, "private, no-store"), url
    with override_settings(WHITENOISE_USE_FINDERS=True):  # static files as served in production (WhiteNoise)
        static_client = Client()
        static_client.force_login(factories.customer(username="static-reader"))
        static = static_client.get("/static/css/app.css")
    assert static.status_code == 200 and "max-age" in static["Cache-Control"]
    assert "no-store" not in static["Cache-Control"]
    admin = Client()
    admin.force_login(User.objects.create_superuser("root", "root@example.com", PASSWORD))
    assert "no-store" in admin.get("/admin/")["Cache-Control"]  # Django's never_cache, left as it is


def test_a_pdf_is_never_cached_whoever_asks() -> None:
    middleware = SecurityHeadersMiddleware(lambda request: HttpResponse(b"%PDF-1.7", content_type="application/pdf"))
    for path in ("/quotes/Q-1/pdf", "/api/v1/quotes/Q-1/pdf/"):
        assert middleware(RequestFactory().get(path))["Cache-Control"] == "private, no-store", path


def test_every_answer_turns_off_the_browser_features_the_site_never_uses() -> None:
    for url in ("/", "/api/v1/ping", "/accounts/login/"):
        policy = Client().get(url)["Permissions-Policy"]
        for feature in ("camera", "microphone", "geolocation", "payment", "usb"):
            assert f"{feature}=()" in policy, (url, feature)


# --------------------------------------------------------------------------- sessions


@pytest.mark.parametrize(("role", "idle_s"), [("sales", 1800), ("customer", 8 * 3600)])
def test_a_session_ends_after_its_idle_time_and_activity_extends_it(role: str, idle_s: int) -> None:
    user = getattr(factories, role)(username=f"idle-{role}")
    client = Client()
    with time_machine.travel(timezone.now(), tick=False) as clock:
        assert client.post("/accounts/login/", {"username": user.username, "password": PASSWORD}).status_code == 302
        assert client.cookies["sessionid"]["max-age"] == idle_s
        clock.shift(timedelta(seconds=idle_s - 60))
        assert client.get("/accounts/").status_code == 200  # active: the end moves to now + idle_s
        clock.shift(timedelta(seconds=idle_s - 60))
        assert client.get("/accounts/").status_code == 200
        clock.shift(timedelta(seconds=idle_s + 1))
        gone = client.get("/accounts/")
        assert gone.status_code == 302 and gone["Location"].startswith("/accounts/login/")
        assert SESSION_KEY not in client.session


# --------------------------------------------------------------------------- JSON log events


def _events(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    formatter = JsonLinesFormatter()
    lines = [json.loads(formatter.format(r)) for r in caplog.records if r.name == "accounts.audit"]
    return [line for line in lines if "event" in line]


def test_logins_failures_lockouts_and_tokens_are_logged_as_json(caplog: pytest.LogCaptureFixture) -> None:
    user = factories.customer(username="alice")
    caplog.set_level(logging.INFO, logger="accounts.audit")
    client = Client(REMOTE_ADDR="203.0.113.20")
    client.post("/accounts/login/", {"username": "Alice", "password": "wrong"})
    client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    api = APIClient(REMOTE_ADDR="203.0.113.20")
    created = api.post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic("alice", PASSWORD))
    api.post("/api/v1/auth/token", HTTP_AUTHORIZATION=f"Token {created.json()['token']}")
    api.credentials(HTTP_AUTHORIZATION=basic("alice", PASSWORD))
    api.delete("/api/v1/auth/token")
    for attempt in range(20):
        Client(REMOTE_ADDR="203.0.113.21").post("/accounts/login/", {"username": "alice", "password": f"g{attempt}"})
    Client(REMOTE_ADDR="203.0.113.21").post("/accounts/login/", {"username": "alice", "password": PASSWORD})

    events = _events(caplog)
    kinds = [e["event"] for e in events]
    assert kinds[:2] == ["login_failed", "login_succeeded"]
    assert kinds[2:7] == ["login_succeeded", "token_created", "token_rotated", "login_succeeded", "token_revoked"]
    assert kinds[7:27] == ["login_failed"] * 20 and kinds[27] == "login_locked"
    account = events[0]["account"]
    assert all(e.get("account", account) == account for e in events)  # "Alice" and "alice": one account
    assert "alice" not in json.dumps([e for e in events if "account" in e]).casefold()  # no raw username
    assert {e["door"] for e in events if "door" in e} == {"login_page", "api_basic"}
    assert events[3]["user_id"] == user.pk and events[0]["address"] == "203.0.113.20"
    assert all(e["logger"] == "accounts.audit" and e["level"] in ("INFO", "WARNING") for e in events)
