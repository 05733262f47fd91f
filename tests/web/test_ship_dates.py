"""The verdict panel says when the build ships (in working days), and names parts no supplier offers."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import User
from procurement.models import Supplier, SupplierOffer
from tests.builds import GOOD_BUILD
from tests.web.conftest import HTMX, build, editor_data

pytestmark = pytest.mark.django_db

PARTS = {
    "ws-tr-pro-2gpu-4u5": "chassis", "tr-pro-7975wx": "cpus", "rtx-pro-6000-blackwell-maxq": "gpus",
    "psu-crps-2000w": "psus", "ddr5-rdimm-64gb": "memory", "nvme-4tb": "storage",
}  # fmt: skip


def test_the_verdict_says_ships_in_n_days_and_flags_parts_without_an_offer(
    catalog: None, customer_user: User, client_for: Callable[[User | None], Client]
) -> None:
    supplier = Supplier.objects.create(slug="s", name="S")
    for sku, kind in PARTS.items():
        SupplierOffer.objects.create(
            supplier=supplier, sku=sku, kind=kind, purchase_price=Decimal(100), stock_qty=0, lead_time_days=12,
            valid_until=timezone.localdate() + dt.timedelta(days=30),
        )  # fmt: skip
    client = client_for(customer_user)
    page = client.post("/builds/check", editor_data(build(GOOD_BUILD)), headers=HTMX).content.decode()
    assert 'data-ships-in="17"' in page  # 12 working days lead time + 3 assembly + 2 burn-in
    assert "через 17 рабочих дней" in page
    # the calendar date first (issue 37 item 5): the 17th working day on the Russian production calendar
    from configurator.engine.workdays import add_working_days

    assert f"{add_working_days(timezone.localdate(), 17):%d.%m.%Y}, через 17 рабочих дней" in page
    assert "data-without-offer" not in page
    SupplierOffer.objects.filter(sku="nvme-4tb").delete()
    page = client.post("/builds/check", editor_data(build(GOOD_BUILD)), headers=HTMX).content.decode()
    assert "data-ships-in" not in page
    assert "срок отгрузки неизвестен" in page
    assert '<span class="sku">nvme-4tb</span>' in page
