"""The login counters on a real Redis cache (CACHE_URL in production): counted across clients as with
locmem, and still limited — in this process — when Redis cannot be reached (fail closed, not open)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.integration.services import BROKER_URL, require_real_services

require_real_services()

import redis  # noqa: E402
from django.contrib.auth import SESSION_KEY  # noqa: E402
from django.test import Client, override_settings  # noqa: E402

from accounts.models import User  # noqa: E402
from accounts.throttle import local_counts  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

PASSWORD = "right-pass-2026"
LOCKED_RU = "Слишком много неудачных попыток входа."


def _redis_cache(url: str) -> dict[str, dict[str, object]]:
    return {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}}


def _dead_redis_url() -> str:
    """A port nothing listens on (bound, then closed): connections to it are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


@pytest.fixture
def root(db: None) -> Iterator[User]:
    yield User.objects.create_superuser("root", "root@example.com", PASSWORD)
    local_counts.clear()


def _attempt(client: Client, password: str) -> str:
    response = client.post("/accounts/login/", {"username": "root", "password": password})
    return "logged in" if response.status_code == 302 else response.content.decode()


@pytest.mark.parametrize("redis_up", [True, False], ids=["redis", "redis-down"])
def test_guesses_are_limited_and_the_owner_still_logs_in_elsewhere(root: User, redis_up: bool) -> None:
    with override_settings(CACHES=_redis_cache(BROKER_URL if redis_up else _dead_redis_url())):
        from django.core.cache import cache

        if redis_up:
            cache.clear()
        for attempt in range(20):
            assert LOCKED_RU not in _attempt(Client(REMOTE_ADDR="198.51.100.30"), f"guess-{attempt}")
        assert LOCKED_RU in _attempt(Client(REMOTE_ADDR="198.51.100.30"), PASSWORD)
        owner = Client(REMOTE_ADDR="198.51.100.31")
        assert _attempt(owner, PASSWORD) == "logged in" and owner.session[SESSION_KEY] == str(root.pk)
        assert bool(local_counts.get_any()) is not redis_up  # the fallback held the counts only while Redis was down
        in_redis = redis.Redis.from_url(BROKER_URL).keys("*login-failures:addr:*")
        assert bool(in_redis) is redis_up
        if redis_up:
            cache.clear()
