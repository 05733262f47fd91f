"""Dropped price lists against real PostgreSQL, Redis and two `celery worker` processes started by the test.

Runs only when DATABASE_URL points at PostgreSQL and CELERY_BROKER_URL at Redis (as the other integration
tests). Three files wait in a supplier's folder: a good list, the same bytes under another name, and a list
with a bad row. Scans are sent to two workers at once, again until nothing waits: the good bytes are
applied exactly once (one import row, each offer's price history written once), the copy is a duplicate
in `done/`, the bad list is in `failed/` with its report and changed nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from tests.integration.services import BROKER_URL, require_real_services

require_real_services()

from django.utils import timezone  # noqa: E402

from config.celery import app  # noqa: E402
from procurement.models import PriceListImport, Supplier, SupplierOffer  # noqa: E402
from procurement.tasks import price_list_scan_task  # noqa: E402
from tests.integration.test_quotes_worker import Worker, _cleanup_redis  # noqa: E402
from tests.security.live import wait_for  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

RUN_ID = uuid.uuid4().hex[:8]
QUEUE = f"price-lists-it-{RUN_ID}"
VALID = (timezone.localdate() + dt.timedelta(days=30)).isoformat()


@pytest.fixture(scope="module")
def drop_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("price-lists")


@pytest.fixture(scope="module")
def workers(django_db_setup: None, drop_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    log_dir = tmp_path_factory.mktemp("drop-workers")
    running = [Worker(QUEUE, log_dir, PRICE_LIST_DROP_DIR=str(drop_root)) for _ in range(2)]
    yield
    for worker in running:
        worker.stop()
    app.conf.task_always_eager = previous
    _cleanup_redis([QUEUE])  # this run's queue, its bindings and unacknowledged messages
    import redis

    redis.Redis.from_url(BROKER_URL).delete(f"_kombu.binding_permanent.{QUEUE}")


def _csv(rows: list[str]) -> bytes:
    return ("Артикул;Цена;Остаток;Срок;valid_until\n" + "\n".join(rows) + "\n").encode()


def test_racing_scans_import_each_file_once(workers: None, drop_root: Path, catalog: None) -> None:
    supplier = Supplier.objects.create(
        slug=f"it-drop-{RUN_ID}",
        name="Drop",
        column_mapping={"sku": "Артикул", "purchase_price": "Цена", "stock_qty": "Остаток", "lead_time_days": "Срок"},
    )
    for sku in ("rtx-4090", "rtx-5090"):
        SupplierOffer.objects.create(
            supplier=supplier, sku=sku, kind="gpus", purchase_price=Decimal(1000), stock_qty=1, lead_time_days=9,
            valid_until=timezone.localdate() + dt.timedelta(days=9),
        )  # fmt: skip
    folder = drop_root / supplier.slug
    folder.mkdir()
    good = _csv([f"rtx-4090;1100;5;7;{VALID}", f"rtx-5090;1200;3;10;{VALID}"])  # within the ±30 % hold
    files = {"good.csv": good, "copy.csv": good, "bad.csv": _csv([f"rtx-4090;x;5;7;{VALID}"])}
    settled = time.time() - 3600  # older than the settle time: finished copies
    for name, body in files.items():
        (folder / name).write_bytes(body)
        os.utime(folder / name, (settled, settled))

    def waiting() -> list[str]:
        return sorted(path.name for path in folder.iterdir() if path.is_file())

    rounds = 0
    while waiting() and rounds < 5:  # a scan that lost a race leaves the file to a later one
        before = waiting()
        for _ in range(2):
            price_list_scan_task.apply_async(queue=QUEUE)

        def moved(before: list[str] = before) -> bool:
            return waiting() != before

        wait_for(moved, 60, f"a scan to take a file (waiting: {before})")
        rounds += 1
    wait_for(lambda: not waiting(), 60, f"every file to be taken (waiting: {waiting()})")
    wait_for(lambda: len(list(folder.glob("*/*.report.json"))) == 3, 30, "the three reports")

    imports = list(PriceListImport.objects.filter(supplier=supplier).order_by("pk"))
    assert [i.status for i in imports if i.status != "failed"] == ["applied"]  # the good bytes, once
    assert {i.filename for i in imports if i.status == "failed"} == {"bad.csv"}  # read by one scan or both
    done = sorted(path.name for path in (folder / "done").iterdir())
    assert done == ["copy.csv", "copy.csv.report.json", "good.csv", "good.csv.report.json"]
    outcomes = {
        name: json.loads((folder / "done" / f"{name}.report.json").read_text())["outcome"]
        for name in ("good.csv", "copy.csv")
    }
    assert sorted(outcomes.values()) == ["applied", "duplicate"]
    bad = json.loads((folder / "failed" / "bad.csv.report.json").read_text())
    assert [(e["line"], e["column"], e["value"]) for e in bad["errors"]] == [(2, "Цена", "x")]
    offer = SupplierOffer.objects.get(supplier=supplier, sku="rtx-4090")
    assert offer.purchase_price == Decimal(1100)
    assert [h.purchase_price for h in offer.history.order_by("history_date")] == [Decimal(1000), Decimal(1100)]
