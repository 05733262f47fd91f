"""The throttle counter on a real Redis (CELERY_BROKER_URL's server): one atomic count per key and
window across clients, a TTL on every key, and DRF's 429 with Retry-After through it."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.services import BROKER_URL, require_real_services

require_real_services()

import redis  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402
from rest_framework.throttling import SimpleRateThrottle  # noqa: E402

from config import throttle  # noqa: E402
from tests.security.bodies import ESTIMATE  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.fixture(params=[throttle.RespCounter, throttle.RedisCounter], ids=["plain-socket", "redis-py"])
def counter(request: pytest.FixtureRequest) -> throttle.Counter:
    made: throttle.Counter = request.param(BROKER_URL)
    return made


def test_concurrent_hits_are_counted_once_each(counter: throttle.Counter, monkeypatch: pytest.MonkeyPatch) -> None:
    window = throttle._window
    monkeypatch.setattr(throttle, "_window", lambda duration_s, now: window(duration_s, 6000.0 + 10))  # one window
    key = f"it-{uuid.uuid4().hex}"
    with ThreadPoolExecutor(8) as pool:
        counts = sorted(pool.map(lambda _: counter.hit(key, 60)[0], range(200)))
    assert counts == list(range(1, 201))  # INCR is atomic: no lost or doubled count
    client = redis.Redis.from_url(BROKER_URL)
    keys = list(client.scan_iter(match=f"{throttle.KEY_PREFIX}:{key}:*"))
    assert len(keys) == 1 and 0 < int(client.ttl(keys[0])) <= 61  # bounded life: no key stays forever
    client.delete(*keys)


@pytest.mark.django_db
def test_the_api_answers_429_with_retry_after_from_redis_counts(
    catalog: None, settings: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.CACHE_URL = BROKER_URL  # type: ignore[attr-defined]
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon_estimate", "2/min")
    monkeypatch.setattr(throttle.time, "time", lambda: 1_800_000_030.0)  # mid-window: 30 s to its end
    address = f"198.18.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"
    client = APIClient(REMOTE_ADDR=address)
    assert [client.post("/api/v1/estimate", ESTIMATE, format="json").status_code for _ in range(2)] == [200, 200]
    refused = client.post("/api/v1/estimate", ESTIMATE, format="json")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "30"
    assert APIClient(REMOTE_ADDR=address + "1").post("/api/v1/estimate", ESTIMATE, format="json").status_code == 200
    assert isinstance(throttle.throttle_counter(), throttle.RespCounter)
    redis.Redis.from_url(BROKER_URL).delete(*redis.Redis.from_url(BROKER_URL).scan_iter(match=f"*{address}*"))
