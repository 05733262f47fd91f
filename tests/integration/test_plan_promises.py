"""Two orders placed on the last units, planned at once on real PostgreSQL (issue 38): both were promised the
in-stock date. The plans lock the offers (`select_for_update`, in id order) in their transactions, so one
takes the 8 DIMMs in stock and the other buys them on back order, its promise moved: different, honest
promises. Two threads, two connections; no worker (the plans are called directly)."""

from __future__ import annotations

import datetime as dt
import threading
from decimal import Decimal
from typing import Any

import pytest

from tests.integration.services import require_real_services

require_real_services()

from django.contrib.auth.models import Group  # noqa: E402
from django.db import connections  # noqa: E402
from django.utils import timezone  # noqa: E402

from config.celery import app  # noqa: E402
from orders import services as order_services  # noqa: E402
from orders.models import Order, PurchaseLine  # noqa: E402
from procurement.models import Supplier, SupplierOffer  # noqa: E402
from quotes import services as quote_services  # noqa: E402
from tests import factories  # noqa: E402
from tests.builds import GOOD_BUILD  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

DIMM = "ddr5-rdimm-64gb"
PARTS = {
    "ws-tr-pro-2gpu-4u5": "chassis",
    "tr-pro-7975wx": "cpus",
    "rtx-pro-6000-blackwell-maxq": "gpus",
    "psu-crps-2000w": "psus",
    "nvme-4tb": "storage",
}


@pytest.fixture
def eager_renders() -> Any:
    """Quote renders in process: nothing published to the broker (the plans are called directly)."""
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


def test_two_orders_planned_at_once_on_the_last_dimms_get_different_promises(
    catalog: None, eager_renders: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(order_services, "_plan_queue_on_commit", lambda order_id: None)  # planned below
    for name in ("customers", "sales"):
        Group.objects.get_or_create(name=name)
    customer, sales = factories.customer(), factories.sales()
    supplier = Supplier.objects.create(slug="pg-a", name="A")
    valid_until = timezone.localdate() + dt.timedelta(days=30)
    for sku, kind in PARTS.items():
        SupplierOffer.objects.create(
            supplier=supplier, sku=sku, kind=kind, purchase_price=Decimal("1000.00"), stock_qty=100,
            lead_time_days=10, valid_until=valid_until,
        )  # fmt: skip
    SupplierOffer.objects.create(
        supplier=supplier, sku=DIMM, kind="memory", purchase_price=Decimal("30000.00"), stock_qty=8,
        lead_time_days=30, valid_until=valid_until,
    )  # fmt: skip
    orders = []
    for _ in range(2):
        quote = quote_services.quote_create(customer=customer, created_by=customer, payload=GOOD_BUILD)
        quote = quote_services.quote_send(quote=quote, user=sales)
        quote = quote_services.quote_accept(quote=quote, user=customer)
        orders.append(order_services.order_place(quote=quote, user=customer)[0])
    promised = {order.promised_ship_date for order in orders}
    assert len(promised) == 1  # both placed on the same stock: the same promise, as in the issue

    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def plan(order_id: int) -> None:
        try:
            start.wait(10)
            order_services.order_plan(order_id=order_id)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=plan, args=(order.pk,)) for order in orders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []

    after: dict[Any, Any] = {
        order.pk: order.promised_ship_date for order in Order.objects.filter(pk__in=[o.pk for o in orders])
    }
    assert len(set(after.values())) == 2  # different promises
    (kept,) = promised
    assert min(after.values()) == kept and max(after.values()) > kept
    dimms = sorted(PurchaseLine.objects.filter(sku=DIMM).values_list("qty", "from_stock", "expected_days"))
    assert dimms == [(8, False, 30), (8, True, 2)]
    assert SupplierOffer.objects.get(sku=DIMM).reserved_qty == 8
