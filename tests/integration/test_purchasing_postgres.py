"""Purchasing against real PostgreSQL, Redis and a `celery worker` started by the test (issue 36 items 1-3, 5).

Runs only when DATABASE_URL points at PostgreSQL and CELERY_BROKER_URL at Redis (tests/integration/services.py).
One walk: an accepted quote → an order planned by the worker → two purchase orders (supplier "it-r" in roubles,
"it-u" in US dollars at the CBR's rate of 03.12.2026, USD 78.2235, finance/fixtures/cbr_daily_sample.xml) → both
sent, e-mailed by the worker → a partial receipt with serial numbers, raced → the full receipt → assembly and
burn-in. The races: two receipts of the same line at once carrying the same serial number (one is recorded,
the other refused: the serial is known), then two receipts of the line's last unit at once (one is recorded, the
other finds the purchase order received: the line is never over-received). Every document's totals agree to
the kopeck with a hand calculation.
"""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path

import pytest

from tests.integration.services import require_real_services

require_real_services()

from django.contrib.auth.models import Group  # noqa: E402
from django.db import connections  # noqa: E402
from django.utils import timezone  # noqa: E402

from accounts.models import User  # noqa: E402
from config.celery import app  # noqa: E402
from configurator.engine.errors import ApplicationError  # noqa: E402
from finance.cbr import cbr_store  # noqa: E402
from orders import purchasing  # noqa: E402
from orders.models import Order, OrderEvent, OrderStatus, PurchaseOrder, PurchaseOrderLine, ReceivedSerial  # noqa: E402
from orders.purchasing import ReceiptLineInput  # noqa: E402
from orders.services import order_place  # noqa: E402
from procurement.models import Supplier, SupplierOffer  # noqa: E402
from quotes import services as quote_services  # noqa: E402
from tests import factories  # noqa: E402
from tests.builds import GOOD_BUILD  # noqa: E402
from tests.integration.test_quotes_worker import Worker, queue_worker, wait_idle  # noqa: E402
from tests.security.live import wait_for  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

RUN_ID = uuid.uuid4().hex[:8]
QUEUE = f"purchasing-it-{RUN_ID}"
SINK_QUEUE = f"purchasing-it-{RUN_ID}-sink"  # quote renders: no worker reads it (as test_orders_worker.py)
GPU = "rtx-pro-6000-blackwell-maxq"
PARTS = {  # GOOD_BUILD's other parts and their quantities (tests/builds.py)
    "ws-tr-pro-2gpu-4u5": ("chassis", 1),
    "tr-pro-7975wx": ("cpus", 1),
    "psu-crps-2000w": ("psus", 2),
    "ddr5-rdimm-64gb": ("memory", 8),
    "nvme-4tb": ("storage", 1),
}
SAMPLE_RATES = Path(__file__).resolve().parents[2] / "finance" / "fixtures" / "cbr_daily_sample.xml"


@pytest.fixture(scope="module")
def worker(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    yield from queue_worker(QUEUE, SINK_QUEUE, tmp_path_factory.mktemp("purchasing-worker"))


@pytest.fixture
def idle_worker(transactional_db: None, worker: Worker) -> Iterator[Worker]:
    yield worker
    wait_idle([worker])


@pytest.fixture
def people(catalog: None) -> dict[str, User]:
    for name in ("customers", "sales", "catalog"):
        Group.objects.get_or_create(name=name)
    return {"customer": factories.customer(), "sales": factories.sales()}


def _offers() -> None:
    """it-r: every part at 1,000.00 RUB and the GPU at 799,999.50 RUB; it-u: the GPU at 9,000.00 USD
    (= 704,011.50 RUB at 78.2235: cheaper, so the plan buys the GPUs there)."""
    r = Supplier.objects.create(slug="it-r", name="Поставщик Р", contact="zakaz@r.example")
    u = Supplier.objects.create(slug="it-u", name="Supplier U", currency="USD", contact="orders@u.example")
    valid_until = timezone.localdate() + dt.timedelta(days=30)
    for sku, (kind, qty) in PARTS.items():
        SupplierOffer.objects.create(supplier=r, sku=sku, kind=kind, purchase_price=Decimal("1000.00"),
                                     stock_qty=qty * 10, lead_time_days=10, valid_until=valid_until)  # fmt: skip
    SupplierOffer.objects.create(supplier=r, sku=GPU, kind="gpus", purchase_price=Decimal("799999.50"), stock_qty=5,
                                 lead_time_days=10, valid_until=valid_until)  # fmt: skip
    SupplierOffer.objects.create(supplier=u, sku=GPU, kind="gpus", purchase_price=Decimal("9000.00"), currency="USD",
                                 supplier_sku="900-5G153-2200-000", stock_qty=5, lead_time_days=10,
                                 valid_until=valid_until)  # fmt: skip


def _serials(line: PurchaseOrderLine, kinds: set[str]) -> list[str]:
    return [f"R-{line.sku}-{n}" for n in range(line.qty)] if line.kind in kinds else []


def _race(calls: Sequence[Callable[[], object]]) -> list[str]:
    """Run the calls at once (each in its own thread and connection); "ok" or the refusal's class name each."""
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], object]) -> str:
        try:
            barrier.wait(10)
            call()
            return "ok"
        except ApplicationError as exc:
            return type(exc).__name__
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return sorted(pool.map(run, calls))


def test_order_to_two_purchase_orders_to_raced_receipts_to_assembly(
    idle_worker: Worker, people: dict[str, User]
) -> None:
    cbr_store(SAMPLE_RATES.read_bytes())
    _offers()
    sales = people["sales"]
    app.conf.task_default_queue = SINK_QUEUE
    try:
        quote = quote_services.quote_create(customer=people["customer"], created_by=people["customer"],
                                            payload=GOOD_BUILD)  # fmt: skip
        quote = quote_services.quote_accept(quote=quote_services.quote_send(quote=quote, user=sales),
                                            user=people["customer"])  # fmt: skip
    finally:
        app.conf.task_default_queue = QUEUE
    order, _ = order_place(quote=quote, user=people["customer"])
    wait_for(lambda: Order.objects.filter(pk=order.pk, plan_status="ready").exists(), 60, "the plan by the worker")

    _, created = purchasing.purchase_orders_create(order=order, user=sales)
    assert created and PurchaseOrder.objects.filter(order=order).count() == 2
    usd, rub = PurchaseOrder.objects.get(supplier__slug="it-u"), PurchaseOrder.objects.get(supplier__slug="it-r")
    # by hand: 2 × 9,000.00 USD = 18,000.00 USD × 78.2235 = 1,408,023.00 RUB; 13 parts × 1,000.00 = 13,000.00 RUB
    assert (usd.currency, usd.rate, usd.total, usd.total_rub) == (
        "USD", Decimal("78.2235"), Decimal("18000.00"), Decimal("1408023.00"),
    )  # fmt: skip
    assert (rub.currency, rub.total, rub.total_rub) == ("RUB", Decimal("13000.00"), Decimal("13000.00"))
    for po in (usd, rub):
        lines = PurchaseOrderLine.objects.filter(purchase_order=po)
        assert sum(line.line_total_rub for line in lines) == po.total_rub
        assert sum(line.line_total for line in lines) == po.total
    assert usd.number.startswith(f"PO-{timezone.localdate().year}-") and len(usd.number) == 14

    for po in (usd, rub):
        purchasing.po_transition(po=po, to="sent", user=sales)  # commits: the worker e-mails it
    wait_for(
        lambda: OrderEvent.objects.filter(order=order, type="purchase_order_emailed").count() == 2,
        60,
        "both purchase orders e-mailed by the worker",
    )
    emailed = OrderEvent.objects.filter(order=order, type="purchase_order_emailed").values_list("data", flat=True)
    assert sorted(data["to"] for data in emailed) == ["orders@u.example", "zakaz@r.example"]
    assert Order.objects.get(pk=order.pk).status == OrderStatus.PARTS_ORDERED

    gpu = PurchaseOrderLine.objects.get(purchase_order=usd)
    same_serial = [
        lambda: purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["SN-DUP"])], user=sales)
    ] * 2
    assert _race(same_serial) == ["InvalidInput", "ok"]  # the second waited for the line, then knew the serial
    assert ReceivedSerial.objects.filter(sku=GPU, serial="SN-DUP").count() == 1
    gpu.refresh_from_db()
    usd.refresh_from_db()
    assert (gpu.received_qty, usd.status) == (1, "partly_received")
    assert {"sku": GPU, "qty": 1} in purchasing.shortfalls(order)

    last_unit = [
        lambda serial=serial: purchasing.receipt_record(
            po=usd, lines=[ReceiptLineInput(gpu.pk, 1, [serial])], user=sales
        )
        for serial in ("SN-A", "SN-B")
    ]
    # 1 of 2 due: one is recorded; the other waited for the lock and found the purchase order received (409)
    assert _race(last_unit) == ["Conflict", "ok"]
    gpu.refresh_from_db()
    assert gpu.received_qty == 2

    serial_kinds = {"cpus", "storage", "psus"}
    purchasing.receipt_record(
        po=rub,
        lines=[
            ReceiptLineInput(line.pk, line.qty, _serials(line, serial_kinds))
            for line in PurchaseOrderLine.objects.filter(purchase_order=rub)
        ],
        user=sales,
    )
    assert set(PurchaseOrder.objects.filter(order=order).values_list("status", flat=True)) == {"received"}
    assert purchasing.ready_to_assemble(order)
    assert ReceivedSerial.objects.filter(order=order).count() == 2 + 1 + 2 + 1  # GPUs, CPU, PSUs, drive

    purchasing.build_step_record(order=order, kind="assembly", result="passed", user=sales)
    purchasing.build_step_record(order=order, kind="burn_in", result="passed", user=sales)
    assert Order.objects.get(pk=order.pk).status == OrderStatus.BURN_IN
    assert list(purchasing.serial_orders("SN-DUP")) == [Order.objects.get(pk=order.pk)]
