"""Quotes against real PostgreSQL, Redis and `celery worker` processes started by the test.

Runs only when DATABASE_URL points at PostgreSQL and CELERY_BROKER_URL at Redis (CI sets both; a skip
is a failure there). The workers are pointed at pytest-django's test database and consume a queue
unique to this run; Redis keys of those queues are removed afterwards. Cases:

* a quote goes from created to a ready PDF rendered by the worker;
* 50 concurrent creates with one Idempotency-Key make exactly one quote and draw one number; racing
  creates with one key and two bodies make one quote, the other body gets 422;
* 200 concurrent creates get 200 distinct numbers;
* the worker is SIGKILLed mid-render → after a restart and the sweep the quote is ready, with one PDF and
  no duplicate events;
* the broker is unreachable when the quote is made → the client still gets 201, the quote is saved
  `pending`, and it becomes ready once the broker answers (the sweep re-queues it);
* a render whose message was lost (deleted from Redis, as a broker restarted without persistence loses
  it) is queued again by a worker without beat: by the check when the worker starts, and by the worker's
  own sweep while it runs.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.integration.services import BROKER_URL, require_real_services

require_real_services()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import Group  # noqa: E402
from django.db import connection, connections  # noqa: E402
from rest_framework.test import APIRequestFactory, force_authenticate  # noqa: E402

from accounts.models import User  # noqa: E402
from config.celery import app  # noqa: E402
from quotes import services  # noqa: E402
from quotes.apis import QuoteListCreateApi  # noqa: E402
from quotes.models import Quote, QuoteEvent  # noqa: E402
from tests import factories  # noqa: E402
from tests.builds import GOOD_BUILD  # noqa: E402
from tests.security.live import Service, wait_for  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

BASE_DIR = Path(settings.BASE_DIR)
RUN_ID = uuid.uuid4().hex[:8]
QUEUE = f"quotes-it-{RUN_ID}"
SINK_QUEUE = f"quotes-it-{RUN_ID}-sink"  # no worker reads it: creates whose renders we do not need
CRASH_QUEUE = f"quotes-it-{RUN_ID}-crash"


def _test_database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _environment(broker_url: str = BROKER_URL, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("QUOTE_RENDER_TEST_DELAY_S", None)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=_test_database_url(),
        CELERY_BROKER_URL=broker_url,
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


class Worker(Service):
    """A `celery -A config worker` subprocess in its own process group, consuming one queue."""

    stop_timeout_s = 15.0
    log_tail_chars = 4000

    def __init__(self, queue: str, log_dir: Path, **env: str) -> None:
        self.queue = queue
        self.node = f"{queue}-{uuid.uuid4().hex[:4]}@{socket.gethostname()}"
        self.what = f"worker {self.node}"
        argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "-l", "info", "-c", "1", "-Q", queue]
        argv += ["-n", self.node, "--without-gossip", "--without-mingle", "--without-heartbeat"]
        # re-queues go to the worker's own queue; the cases sweep when they mean to (the worker's own timer
        # is off unless a case turns it on), so its counts are theirs
        env = {"CELERY_TASK_DEFAULT_QUEUE": queue, "QUOTE_WORKER_SWEEP_S": "0", **env}
        super().__init__(
            argv,
            cwd=BASE_DIR,
            env=_environment(**env),
            log_path=log_dir / f"{self.node.split('@')[0]}.log",
            interval_s=0.5,
        )

    def ready(self) -> bool:
        return bool(app.control.ping(destination=[self.node], timeout=0.5))


def queue_worker(queue: str, sink_queue: str, log_dir: Path) -> Iterator[Worker]:
    """A module's worker on its own `queue`, tasks published for real while it runs (not eager); afterwards the
    settings back and this run's queues (`queue` and the `sink_queue` no worker reads) removed from Redis."""
    previous = app.conf.task_default_queue, app.conf.task_always_eager
    app.conf.task_default_queue, app.conf.task_always_eager = queue, False
    running = Worker(queue, log_dir)
    yield running
    running.stop()
    app.conf.task_default_queue, app.conf.task_always_eager = previous
    _cleanup_redis([queue, sink_queue])


def wait_idle(workers: Sequence[Worker]) -> None:
    """Wait until none of `workers` runs a task (before a case's database flush, so no worker's transaction is
    open while the tables are truncated)."""
    nodes = [worker.node for worker in workers]

    def idle() -> bool:
        active = app.control.inspect(destination=nodes, timeout=1.0).active() or {}
        return set(active) == set(nodes) and not any(active.values())

    wait_for(idle, 60, f"workers {nodes} to finish their tasks")


def _cleanup_redis(queues: list[str]) -> None:
    """Remove this run's queues, bindings and unacknowledged messages; touch nothing else in the DB."""
    import redis

    client = redis.Redis.from_url(BROKER_URL)
    for queue in queues:
        client.delete(queue, *(f"{queue}\x06\x16{priority}" for priority in range(10)))
    for key in client.scan_iter(match=f"*quotes-it-{RUN_ID}*"):
        client.delete(key)
    for key in client.scan_iter(match="_kombu.binding.*"):
        for member in client.smembers(key):
            if any(queue.encode() in member for queue in queues):
                client.srem(key, member)
    for tag, payload in client.hscan_iter("unacked"):
        if any(queue.encode() in payload for queue in queues):
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("celery-logs")


@pytest.fixture(scope="module", autouse=True)
def _run_queues(django_db_setup: None) -> Iterator[None]:
    previous = app.conf.task_default_queue, app.conf.task_always_eager
    app.conf.task_default_queue, app.conf.task_always_eager = QUEUE, False  # publish for real, to our queue
    yield
    app.conf.task_default_queue, app.conf.task_always_eager = previous
    _cleanup_redis([QUEUE, SINK_QUEUE, CRASH_QUEUE])


@pytest.fixture(scope="module")
def worker(_run_queues: None, log_dir: Path) -> Iterator[Worker]:
    running = Worker(QUEUE, log_dir)
    yield running
    running.stop()


@pytest.fixture
def setup_data(catalog: None) -> dict[str, User]:
    for name in ("customers", "sales", "catalog"):
        Group.objects.get_or_create(name=name)
    return {"customer": factories.customer(), "sales": factories.sales()}


def _pdf_files(quote: Quote) -> list[Path]:
    return sorted((Path(settings.MEDIA_ROOT) / "quotes").glob(f"{quote.number}-R{quote.revision}-*.pdf"))


def _remove_pdf_files(number_prefix: str = "Q-") -> None:
    for path in (Path(settings.MEDIA_ROOT) / "quotes").glob(f"{number_prefix}*.pdf"):
        path.unlink()


def _wait_ready(quote: Quote, timeout_s: float = 60) -> Quote:
    wait_for(
        lambda: Quote.objects.filter(pk=quote.pk, render_status="ready").exists(),
        timeout_s,
        f"{quote.label} to be ready (now {Quote.objects.get(pk=quote.pk).render_status})",
    )
    return Quote.objects.get(pk=quote.pk)


def _assert_one_pdf(quote: Quote) -> None:
    import hashlib

    files = _pdf_files(quote)
    assert [path.name for path in files] == [Path(quote.pdf.name).name]
    assert hashlib.sha256(files[0].read_bytes()).hexdigest() == quote.pdf_sha256
    assert QuoteEvent.objects.filter(quote=quote, type="pdf_ready").count() == 1
    assert QuoteEvent.objects.filter(quote=quote, type="created").count() == 1


def _post_create(user: User, key: str | None = None, build: dict[str, Any] = GOOD_BUILD) -> tuple[int, dict[str, Any]]:
    """POST /api/v1/quotes/ through the real view; closes this thread's DB connection afterwards."""
    try:
        headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        request = APIRequestFactory().post("/api/v1/quotes/", {"build": build}, format="json", **headers)
        force_authenticate(request, user=user)
        response = QuoteListCreateApi.as_view()(request)
        return response.status_code, response.data
    finally:
        connections.close_all()


# --------------------------------------------------------------------------- cases


def test_a_quote_goes_from_created_to_ready(worker: Worker, setup_data: dict[str, User]) -> None:
    _remove_pdf_files()
    status, body = _post_create(setup_data["customer"])
    assert status == 201
    quote = Quote.objects.get(number=body["number"])
    assert quote.render_queued_at is not None
    quote = _wait_ready(quote, 30)
    _assert_one_pdf(quote)
    assert quote.render_attempts == 1
    assert quote.pdf.read().startswith(b"%PDF-")
    quote.pdf.close()


def _numbers_drawn_so_far() -> int:
    """How many values the quote number sequence has handed out (rolled-back draws included)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT last_value, is_called FROM quotes_quote_number_seq")
        last_value, is_called = cursor.fetchone()
    return int(last_value) if is_called else int(last_value) - 1


def test_50_concurrent_creates_with_one_key_make_one_quote(worker: Worker, setup_data: dict[str, User]) -> None:
    _remove_pdf_files()
    customer = setup_data["customer"]
    drawn_before = _numbers_drawn_so_far()
    with ThreadPoolExecutor(max_workers=25) as pool:
        results = list(pool.map(lambda _: _post_create(customer, key=f"key-{RUN_ID}"), range(50)))
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] * 49 + [201], statuses
    assert len({body["number"] for _, body in results}) == 1
    assert Quote.objects.count() == 1
    assert _numbers_drawn_so_far() - drawn_before == 1  # the key is locked before the number is drawn
    quote = _wait_ready(Quote.objects.get(), 30)
    _assert_one_pdf(quote)


def test_racing_creates_with_one_key_and_two_bodies_make_one_quote(worker: Worker, setup_data: dict[str, User]) -> None:
    """Whichever body wins, the others with the same body replay it and the ones with the other body get
    422; one quote, one number."""
    customer = setup_data["customer"]
    other_build = {**GOOD_BUILD, "storage": [{"sku": "nvme-4tb", "qty": 2}]}
    drawn_before = _numbers_drawn_so_far()
    app.conf.task_default_queue = SINK_QUEUE
    try:
        with ThreadPoolExecutor(max_workers=20) as pool:
            results = list(
                pool.map(
                    lambda i: (i % 2, *_post_create(customer, f"two-{RUN_ID}", other_build if i % 2 else GOOD_BUILD)),
                    range(40),
                )
            )
    finally:
        app.conf.task_default_queue = QUEUE
    quote = Quote.objects.get()
    winner = 1 if quote.build_payload["storage"][0]["qty"] == 2 else 0
    by_status = sorted((status, side == winner) for side, status, _ in results)
    assert by_status == [(200, True)] * 19 + [(201, True)] + [(422, False)] * 20, by_status
    mismatches = [body for side, status, body in results if status == 422]
    assert {body["error"]["code"] for body in mismatches} == {"idempotency_mismatch"}
    assert _numbers_drawn_so_far() - drawn_before == 1


def test_200_concurrent_creates_get_200_distinct_numbers(worker: Worker, setup_data: dict[str, User]) -> None:
    customer = setup_data["customer"]
    app.conf.task_default_queue = SINK_QUEUE  # the renders are not what this case measures
    try:
        with ThreadPoolExecutor(max_workers=20) as pool:
            results = list(pool.map(lambda _: _post_create(customer), range(200)))
    finally:
        app.conf.task_default_queue = QUEUE
    assert [status for status, _ in results] == [201] * 200
    numbers = [body["number"] for _, body in results]
    assert len(set(numbers)) == 200
    assert sorted(Quote.objects.values_list("number", flat=True)) == sorted(numbers)
    assert all(number.startswith("Q-") and len(number) == len("Q-2026-000001") for number in numbers)


@pytest.mark.usefixtures("_run_queues")
def test_worker_killed_mid_render_recovers_with_one_pdf(log_dir: Path, setup_data: dict[str, User]) -> None:
    _remove_pdf_files()
    app.conf.task_default_queue = CRASH_QUEUE
    slow = Worker(CRASH_QUEUE, log_dir, QUOTE_RENDER_TEST_DELAY_S="60")
    try:
        status, body = _post_create(setup_data["customer"])
        assert status == 201
        quote = Quote.objects.get(number=body["number"])
        wait_for(lambda: Quote.objects.get(pk=quote.pk).render_status == "generating", 30, "the render to start")
        slow.kill()
        quote.refresh_from_db()
        assert (quote.render_status, quote.render_attempts, _pdf_files(quote)) == ("generating", 1, [])

        restarted = Worker(CRASH_QUEUE, log_dir)
        try:
            report = services.quotes_sweep_stuck(older_than=timedelta(0))
            assert report.requeued == (quote.pk,)
            quote = _wait_ready(quote, 30)
        finally:
            restarted.stop()
    finally:
        slow.stop()
        app.conf.task_default_queue = QUEUE
    _assert_one_pdf(quote)
    requeues = list(QuoteEvent.objects.filter(quote=quote, type="render_requeued").values_list("data", flat=True))
    assert requeues == [{"reason": "generating_too_long", "started_at": requeues[0]["started_at"]}]
    types = list(QuoteEvent.objects.filter(quote=quote).values_list("type", flat=True))
    assert types.count("created") == 1 and types.count("pdf_ready") == 1 and "pdf_failed" not in types


def test_broker_unreachable_at_creation_then_ready_once_it_is_back(worker: Worker, setup_data: dict[str, User]) -> None:
    _remove_pdf_files()
    with socket.socket() as probe:  # a port nothing listens on: connection refused
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    script = textwrap.dedent(
        f"""
        import json, time, django
        django.setup()
        from config.celery import app
        app.conf.task_always_eager = False  # this process is the web side: it must publish, not render
        from rest_framework.test import APIRequestFactory, force_authenticate
        from accounts.models import User
        from quotes.apis import QuoteListCreateApi
        request = APIRequestFactory().post("/api/v1/quotes/", {{"build": {GOOD_BUILD!r}}}, format="json")
        force_authenticate(request, user=User.objects.get(pk={setup_data["customer"].pk}))
        started = time.monotonic()
        response = QuoteListCreateApi.as_view()(request)
        print(json.dumps({{"status": response.status_code, "number": response.data.get("number"),
                           "elapsed_s": time.monotonic() - started}}))
        """
    )
    web = subprocess.run(
        [sys.executable, "-c", script],
        cwd=BASE_DIR,
        env=_environment(broker_url=f"redis://127.0.0.1:{closed_port}/0"),
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert web.returncode == 0, web.stderr[-3000:]
    result = json.loads(web.stdout.strip().splitlines()[-1])
    assert result["status"] == 201, result
    assert result["elapsed_s"] < 5, result
    quote = Quote.objects.get(number=result["number"])
    assert (quote.render_status, quote.render_queued_at) == ("pending", None)

    # the broker is back (this process reaches it): the sweep queues the render, the worker makes the PDF
    report = services.quotes_sweep_stuck(unqueued_grace=timedelta(0))
    assert report.requeued == (quote.pk,)
    quote = _wait_ready(quote, 30)
    _assert_one_pdf(quote)
    assert QuoteEvent.objects.filter(quote=quote, type="render_requeued").get().data == {"reason": "not_queued"}


# --------------------------------------------------------------------------- lost messages, no beat

LOST_QUEUE = f"quotes-it-{RUN_ID}-lost"


def _quote_whose_message_is_lost(user: User) -> Quote:
    """A quote queued to a queue no worker reads, its message then deleted from Redis (what a broker that
    restarts without persistence does), handed to the broker longer ago than RENDER_LOST_AFTER."""
    import redis

    app.conf.task_default_queue = SINK_QUEUE
    try:
        status, body = _post_create(user)
    finally:
        app.conf.task_default_queue = QUEUE
    assert status == 201
    redis.Redis.from_url(BROKER_URL).delete(SINK_QUEUE)
    quote = Quote.objects.get(number=body["number"])
    assert quote.render_status == "pending" and quote.render_queued_at is not None
    handed_over = quote.render_queued_at - services.RENDER_LOST_AFTER - timedelta(seconds=1)
    Quote.objects.filter(pk=quote.pk).update(render_queued_at=handed_over, updated_at=handed_over)
    return quote


@pytest.mark.usefixtures("_run_queues")
def test_a_worker_requeues_a_lost_render_when_it_starts(log_dir: Path, setup_data: dict[str, User]) -> None:
    _remove_pdf_files()
    quote = _quote_whose_message_is_lost(setup_data["customer"])
    starting = Worker(LOST_QUEUE, log_dir)  # no beat, no sweep from this test; the worker's timer is off
    try:
        quote = _wait_ready(quote, 60)
    finally:
        starting.stop()
        _cleanup_redis([LOST_QUEUE])
    _assert_one_pdf(quote)
    assert QuoteEvent.objects.filter(quote=quote, type="render_requeued").get().data == {"reason": "message_lost"}


@pytest.mark.usefixtures("_run_queues")
def test_a_running_worker_requeues_a_lost_render_without_beat(log_dir: Path, setup_data: dict[str, User]) -> None:
    _remove_pdf_files()
    running = Worker(LOST_QUEUE, log_dir, QUOTE_WORKER_SWEEP_S="1")
    try:
        quote = _quote_whose_message_is_lost(setup_data["customer"])  # lost after the worker started
        quote = _wait_ready(quote, 60)
    finally:
        running.stop()
        _cleanup_redis([LOST_QUEUE])
    _assert_one_pdf(quote)
    requeues = QuoteEvent.objects.filter(quote=quote, type="render_requeued").values_list("data", flat=True)
    assert list(requeues) == [{"reason": "message_lost"}]
