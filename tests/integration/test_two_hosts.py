"""Two hosts that share only PostgreSQL and Redis (issue 38 item 6), as real processes: two gunicorn web
servers and two `celery worker`s, each host with a local MEDIA_ROOT of its own and FILE_STORE=database.

Host A's web server sends its renders to host A's worker (queue A), host B's to host B's: a quote made on
one host is rendered by that host's worker and downloaded from the other host's web server, the same bytes
(%PDF…, the SHA-256 the quote records), and no host's local folder holds a file. A price list dropped once,
with scans sent to both workers at once, is imported once, its bytes kept in the shared database.

Runs only when DATABASE_URL points at PostgreSQL and CELERY_BROKER_URL at Redis (as the other integration
tests); the processes use pytest-django's test database and queues unique to this run.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.integration.services import BROKER_URL, require_real_services

require_real_services()

from django.contrib.auth.models import Group  # noqa: E402
from django.utils import timezone  # noqa: E402

from accounts.tokens import token_issue  # noqa: E402
from config.celery import app  # noqa: E402
from filestore.models import StoredFile  # noqa: E402
from procurement.models import PriceListImport, Supplier, SupplierOffer  # noqa: E402
from procurement.tasks import price_list_scan_task  # noqa: E402
from quotes.models import Quote  # noqa: E402
from tests import factories  # noqa: E402
from tests.builds import GOOD_BUILD  # noqa: E402
from tests.integration.test_quotes_worker import Worker, _cleanup_redis, _test_database_url  # noqa: E402
from tests.security.live import Gunicorn, environment, wait_for  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

RUN_ID = uuid.uuid4().hex[:8]
QUEUES = (f"two-hosts-{RUN_ID}-a", f"two-hosts-{RUN_ID}-b")
SHARED = {"FILE_STORE": "database"}


@dataclass
class Host:
    name: str
    media: Path
    web: Gunicorn
    worker: Worker

    def local_files(self) -> list[Path]:
        return [path for path in self.media.rglob("*") if path.is_file()]


@pytest.fixture(scope="module")
def drop_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("price-lists")


@pytest.fixture(scope="module")
def hosts(django_db_setup: None, drop_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Host]]:
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False  # this process publishes the scans for real
    logs = tmp_path_factory.mktemp("two-hosts-logs")
    started: list[Host] = []
    try:
        for name, queue in zip("ab", QUEUES, strict=True):
            media = tmp_path_factory.mktemp(f"host-{name}-media")
            local = {**SHARED, "MEDIA_ROOT": str(media)}
            worker = Worker(queue, logs, PRICE_LIST_DROP_DIR=str(drop_root), **local)
            try:
                env = environment(
                    _test_database_url(), CELERY_BROKER_URL=BROKER_URL, CELERY_TASK_DEFAULT_QUEUE=queue, **local
                )
                web = Gunicorn(env, logs / f"web-{name}.log", workers=1)
            except BaseException:
                worker.stop()
                raise
            started.append(Host(name, media, web, worker))
        yield started
    finally:
        for host in started:
            host.web.stop()
            host.worker.stop()
        app.conf.task_always_eager = previous
        _cleanup_redis(list(QUEUES))
        import redis

        client = redis.Redis.from_url(BROKER_URL)
        client.delete(*(f"_kombu.binding_permanent.{queue}" for queue in QUEUES))


def _call(host: Host, path: str, token: str, body: dict[str, Any] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(  # noqa: S310 - http://127.0.0.1:<port>
        f"{host.web.base_url}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
        return int(response.status), response.read()


@pytest.mark.parametrize(("made_on", "read_on"), [(0, 1), (1, 0)], ids=["a-to-b", "b-to-a"])
def test_a_pdf_rendered_on_one_host_downloads_from_the_other(
    hosts: list[Host], catalog: None, made_on: int, read_on: int
) -> None:
    Group.objects.get_or_create(name="customers")
    customer = factories.customer()
    token = token_issue(user=customer)[1]
    maker, reader = hosts[made_on], hosts[read_on]
    renders_before = [_renders(host) for host in hosts]

    status, body = _call(maker, "/api/v1/quotes/", token, {"build": GOOD_BUILD})
    assert status == 201, body[:2000]
    number = json.loads(body)["number"]
    quote = Quote.objects.get(number=number)
    wait_for(
        lambda: Quote.objects.filter(pk=quote.pk, render_status="ready").exists(),
        90,
        f"{number} to be rendered (worker {maker.name}:\n{maker.worker.log()})",
        interval_s=0.5,
    )
    quote.refresh_from_db()

    status, pdf = _call(reader, f"/api/v1/quotes/{number}/pdf/", token)
    assert status == 200
    assert pdf.startswith(b"%PDF-")
    assert hashlib.sha256(pdf).hexdigest() == quote.pdf_sha256
    assert bytes(StoredFile.objects.get(name=quote.pdf.name).content) == pdf
    # rendered by the maker's worker, not the reader's; no host keeps a local copy
    assert [_renders(host) - before for host, before in zip(hosts, renders_before, strict=True)] == [
        int(host is maker) for host in hosts
    ]
    assert [host.local_files() for host in hosts] == [[], []]


def _renders(host: Host) -> int:
    return sum(
        1
        for line in host.worker.log_path.read_text(errors="replace").splitlines()
        if "Task quotes.render[" in line and "succeeded" in line
    )


def test_a_price_list_dropped_once_is_imported_once(hosts: list[Host], drop_root: Path, catalog: None) -> None:
    supplier = Supplier.objects.create(
        slug=f"two-hosts-{RUN_ID}",
        name="Two hosts",
        column_mapping={"sku": "Артикул", "purchase_price": "Цена", "stock_qty": "Остаток", "lead_time_days": "Срок"},
    )
    SupplierOffer.objects.create(
        supplier=supplier, sku="rtx-4090", kind="gpus", purchase_price=Decimal(1000), stock_qty=1, lead_time_days=9,
        valid_until=timezone.localdate() + dt.timedelta(days=9),
    )  # fmt: skip
    valid = (timezone.localdate() + dt.timedelta(days=30)).isoformat()
    body = f"Артикул;Цена;Остаток;Срок;valid_until\nrtx-4090;1100;5;7;{valid}\n".encode()  # within the ±30 % hold
    folder = drop_root / supplier.slug
    folder.mkdir()
    (folder / "list.csv").write_bytes(body)
    settled = time.time() - 3600  # older than the settle time: a finished copy
    os.utime(folder / "list.csv", (settled, settled))

    for _ in range(2):  # each round: a scan on each host at once; the second round finds nothing to take
        for queue in QUEUES:
            price_list_scan_task.apply_async(queue=queue)
        wait_for(
            lambda: len(list(folder.glob("done/*.report.json"))) == 1,
            90,
            f"the list to be taken (folder: {sorted(p.name for p in folder.rglob('*'))})",
            interval_s=0.5,
        )
    wait_for(lambda: all(_scans(host) >= 2 for host in hosts), 60, "both hosts' workers to scan twice")

    imports = list(PriceListImport.objects.filter(supplier=supplier))
    assert [(i.filename, i.status) for i in imports] == [("list.csv", "applied")]
    assert bytes(imports[0].content) == body  # the stored copy is in the shared database
    assert sorted(path.name for path in (folder / "done").iterdir()) == ["list.csv", "list.csv.report.json"]
    assert SupplierOffer.objects.get(supplier=supplier, sku="rtx-4090").purchase_price == Decimal(1100)
    assert [host.local_files() for host in hosts] == [[], []]


def _scans(host: Host) -> int:
    return sum(
        1
        for line in host.worker.log_path.read_text(errors="replace").splitlines()
        if "Task procurement.scan_price_lists[" in line and "succeeded" in line
    )
