"""Orders against real PostgreSQL, Redis and `celery worker` processes started by the test.

Runs only when DATABASE_URL points at PostgreSQL and CELERY_BROKER_URL at Redis (as the quotes'
integration tests). Cases:

* 50 concurrent `POST /api/v1/quotes/<number>/order` on one accepted quote make exactly one order (one
  201, 49 × 200 with the same number), planned once by the worker;
* two orders placed at once, planned by two workers at once, never reserve the same units: the cheap
  supplier's two GPUs go to one order, the other order buys elsewhere, and every offer's reservations
  equal the stock its purchase lines took.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.integration.services import BROKER_URL, require_real_services

require_real_services()

from django.contrib.auth.models import Group  # noqa: E402
from django.db import connections  # noqa: E402
from django.db.models import Sum  # noqa: E402
from django.utils import timezone  # noqa: E402
from rest_framework.test import APIRequestFactory, force_authenticate  # noqa: E402

from accounts.models import User  # noqa: E402
from config.celery import app  # noqa: E402
from orders.apis import QuoteOrderApi  # noqa: E402
from orders.models import Order, OrderEvent, PurchaseLine  # noqa: E402
from procurement.models import Supplier, SupplierOffer  # noqa: E402
from quotes import services as quote_services  # noqa: E402
from quotes.models import Quote  # noqa: E402
from tests import factories  # noqa: E402
from tests.builds import GOOD_BUILD  # noqa: E402
from tests.integration.test_quotes_worker import Worker, wait_idle  # noqa: E402
from tests.security.live import wait_for  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

RUN_ID = uuid.uuid4().hex[:8]
QUEUE = f"orders-it-{RUN_ID}"
# no worker reads it: the quotes' PDF renders, which these cases do not need. Rendered by the order
# workers, a render still writing when a case ends deadlocked with the flush that follows the case.
SINK_QUEUE = f"orders-it-{RUN_ID}-sink"
GPU = "rtx-pro-6000-blackwell-maxq"
PARTS = {
    "ws-tr-pro-2gpu-4u5": "chassis",
    "tr-pro-7975wx": "cpus",
    "psu-crps-2000w": "psus",
    "ddr5-rdimm-64gb": "memory",
    "nvme-4tb": "storage",
}


def _cleanup_redis() -> None:
    import redis

    client = redis.Redis.from_url(BROKER_URL)
    for queue in (QUEUE, SINK_QUEUE):
        client.delete(queue, *(f"{queue}\x06\x16{priority}" for priority in range(10)))
    for key in client.scan_iter(match=f"*{QUEUE}*"):
        client.delete(key)
    for key in client.scan_iter(match="_kombu.binding.*"):
        for member in client.smembers(key):
            if QUEUE.encode() in member:
                client.srem(key, member)
    for tag, payload in client.hscan_iter("unacked"):
        if QUEUE.encode() in payload:
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)


@pytest.fixture(scope="module", autouse=True)
def _run_queue(django_db_setup: None) -> Iterator[None]:
    previous = app.conf.task_default_queue, app.conf.task_always_eager
    app.conf.task_default_queue, app.conf.task_always_eager = QUEUE, False
    yield
    app.conf.task_default_queue, app.conf.task_always_eager = previous
    _cleanup_redis()


@pytest.fixture(scope="module")
def workers(_run_queue: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Worker]]:
    log_dir: Path = tmp_path_factory.mktemp("order-workers")
    running = [Worker(QUEUE, log_dir), Worker(QUEUE, log_dir)]  # two plans can run at once
    yield running
    for worker in running:
        worker.stop()


@pytest.fixture
def idle_workers(transactional_db: None, workers: list[Worker]) -> Iterator[list[Worker]]:
    """The workers; after the case (and before its database flush, which this fixture's dependence on
    `transactional_db` orders after it) wait until neither runs a task, so no worker's transaction is
    open while the tables are truncated."""
    yield workers
    wait_idle(workers)


@pytest.fixture
def people(catalog: None) -> dict[str, User]:
    for name in ("customers", "sales", "catalog"):
        Group.objects.get_or_create(name=name)
    return {"customer": factories.customer(), "sales": factories.sales()}


@pytest.fixture
def offers(catalog: None) -> tuple[Supplier, Supplier]:
    """Cheap supplier A: 2 GPUs in stock (back order 40 days); dearer B: 10 in stock. Other parts at A."""
    a = Supplier.objects.create(slug="it-a", name="A")
    b = Supplier.objects.create(slug="it-b", name="B")
    valid_until = timezone.localdate() + dt.timedelta(days=30)

    def offer(supplier: Supplier, sku: str, kind: str, price: str, stock: int, lead: int) -> None:
        SupplierOffer.objects.create(
            supplier=supplier, sku=sku, kind=kind, purchase_price=Decimal(price), stock_qty=stock,
            lead_time_days=lead, valid_until=valid_until,
        )  # fmt: skip

    for sku, kind in PARTS.items():
        offer(a, sku, kind, "1000.00", 100, 10)
    offer(a, GPU, "gpus", "700000.00", 2, 40)
    offer(b, GPU, "gpus", "720000.00", 10, 14)
    return a, b


def _accepted(people: dict[str, User]) -> Quote:
    """An accepted quote; its render goes to the sink queue, so no worker writes quotes during a case."""
    app.conf.task_default_queue = SINK_QUEUE
    try:
        quote = quote_services.quote_create(
            customer=people["customer"], created_by=people["customer"], payload=GOOD_BUILD
        )
        quote = quote_services.quote_send(quote=quote, user=people["sales"])
        return quote_services.quote_accept(quote=quote, user=people["customer"])
    finally:
        app.conf.task_default_queue = QUEUE


def _post_order(user: User, number: str) -> tuple[int, dict[str, Any]]:
    try:
        request = APIRequestFactory().post(f"/api/v1/quotes/{number}/order")
        force_authenticate(request, user=user)
        response = QuoteOrderApi.as_view()(request, number=number)
        return response.status_code, response.data
    finally:
        connections.close_all()


def _wait_planned(numbers: list[str], timeout_s: float = 60) -> None:
    wait_for(
        lambda: Order.objects.filter(number__in=numbers, plan_status="ready").count() == len(numbers),
        timeout_s,
        f"orders {numbers} to be planned (now {list(Order.objects.values_list('number', 'plan_status'))})",
    )


def test_50_concurrent_order_calls_on_one_quote_make_one_order(
    idle_workers: list[Worker], people: dict[str, User], offers: tuple[Supplier, Supplier]
) -> None:
    quote = _accepted(people)
    with ThreadPoolExecutor(max_workers=25) as pool:
        results = list(pool.map(lambda _: _post_order(people["customer"], quote.number), range(50)))
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] * 49 + [201], statuses
    numbers = {body["number"] for _, body in results}
    assert len(numbers) == 1
    assert Order.objects.count() == 1
    _wait_planned(list(numbers))
    order = Order.objects.get()
    assert [e.type for e in OrderEvent.objects.filter(order=order)] == ["placed", "planned"]
    gpus = PurchaseLine.objects.filter(order=order, sku=GPU)
    assert [(p.supplier.slug, p.qty, p.from_stock) for p in gpus] == [("it-a", 2, True)]


def test_two_concurrent_orders_never_reserve_the_same_units(
    idle_workers: list[Worker], people: dict[str, User], offers: tuple[Supplier, Supplier]
) -> None:
    quotes = [_accepted(people), _accepted(people)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda quote: _post_order(people["customer"], quote.number), quotes))
    assert [status for status, _ in results] == [201, 201]
    numbers = [body["number"] for _, body in results]
    _wait_planned(numbers)
    by_order = {
        number: sorted(
            (p.supplier.slug, p.qty)
            for p in PurchaseLine.objects.filter(order__number=number, sku=GPU, from_stock=True)
        )
        for number in numbers
    }
    assert sorted(by_order.values()) == [[("it-a", 2)], [("it-b", 2)]], by_order  # A's two units go to one order
    for offer in SupplierOffer.objects.all():
        taken = PurchaseLine.objects.filter(offer=offer, from_stock=True).aggregate(total=Sum("qty"))["total"] or 0
        assert offer.reserved_qty == taken <= offer.stock_qty, offer


def test_a_worker_that_starts_makes_a_plan_whose_worker_died(
    idle_workers: list[Worker],
    people: dict[str, User],
    offers: tuple[Supplier, Supplier],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The plan's worker died after claiming it (only the claim was committed): a worker that starts sweeps
    (quotes.tasks.WORKER_SWEEPS, no beat) and the plan is made, once."""
    from orders import services as order_services
    from orders.tasks import order_plan_task

    monkeypatch.setattr(order_plan_task, "apply_async", lambda *args, **kwargs: None)  # the message died too
    status, body = _post_order(people["customer"], _accepted(people).number)
    monkeypatch.undo()
    assert status == 201
    started = timezone.now() - order_services.PLAN_STUCK_AFTER - dt.timedelta(seconds=1)
    Order.objects.filter(number=body["number"]).update(plan_status="planning", plan_started_at=started)
    fresh = Worker(QUEUE, tmp_path)
    try:
        _wait_planned([body["number"]])
    finally:
        fresh.stop()
    order = Order.objects.get(number=body["number"])
    events = list(OrderEvent.objects.filter(order=order))
    assert [(e.type, e.data.get("reason")) for e in events] == [
        ("placed", None), ("plan_requeued", "planning_too_long"), ("planned", None),
    ]  # fmt: skip
    assert PurchaseLine.objects.filter(order=order, sku=GPU).aggregate(total=Sum("qty"))["total"] == 2
