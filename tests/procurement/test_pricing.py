"""List prices that follow the best live offer by the markup of the kind; freezes; the sample fixture."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone

from catalog.models import CATALOG_MODELS, Gpu
from procurement.models import ListPriceChange, PriceFreeze, Supplier, SupplierOffer
from procurement.services import OFFERS_FIXTURE, list_prices_follow_offers

pytestmark = pytest.mark.django_db


def _offer(supplier: Supplier, sku: str, price: str, *, days: int = 10) -> SupplierOffer:
    return SupplierOffer.objects.create(
        supplier=supplier, sku=sku, kind="gpus", purchase_price=Decimal(price), stock_qty=1, lead_time_days=5,
        valid_until=timezone.localdate() + dt.timedelta(days=days),
    )  # fmt: skip


def test_list_price_follows_the_cheapest_live_offer_with_the_kind_markup(catalog: None) -> None:
    a = Supplier.objects.create(slug="a", name="A")
    b = Supplier.objects.create(slug="b", name="B")
    _offer(a, "rtx-4090", "100000.00")
    _offer(b, "rtx-4090", "90000.00", days=-1)  # stale: ignored
    _offer(b, "rtx-5090", "200000.00")
    PriceFreeze.objects.create(sku="rtx-5090", reason="promo")
    old = Gpu.objects.get(sku="rtx-4090").list_price

    changes = list_prices_follow_offers()

    assert [(c.sku, c.old_price, c.new_price, c.markup_percent) for c in changes] == [
        ("rtx-4090", old, Decimal("118000.00"), Decimal(18))
    ]
    assert Gpu.objects.get(sku="rtx-4090").list_price == Decimal("118000.00")
    assert ListPriceChange.objects.count() == 1
    assert Gpu.history.filter(sku="rtx-4090").latest("history_date").list_price == Decimal("118000.00")
    assert list_prices_follow_offers() == []  # nothing moves twice


def test_sample_offers_cover_every_catalog_part_and_load_idempotently(catalog: None) -> None:
    data = json.loads(OFFERS_FIXTURE.read_text(encoding="utf-8"))
    assert data["_meta"]["sample_data"] is True
    assert "SAMPLE DATA" in data["_meta"]["description"]
    call_command("load_offers")
    call_command("load_offers")
    assert Supplier.objects.filter(is_sample=True).count() == 3
    for model in CATALOG_MODELS.values():
        for sku in model.objects.filter(is_active=True).values_list("sku", flat=True):
            assert 2 <= SupplierOffer.objects.filter(sku=sku).count() <= 3, sku
        for sku in model.objects.filter(is_active=False).values_list("sku", flat=True):
            assert not SupplierOffer.objects.filter(sku=sku).exists(), sku  # not for sale (AWS's A10G)
    assert SupplierOffer.objects.count() == sum(len(s["offers"]) for s in data["suppliers"])
    assert not any(offer.is_stale for offer in SupplierOffer.objects.all())


def test_suppliers_list_counts_live_and_stale_offers(catalog: None) -> None:
    from rest_framework.test import APIClient

    from tests.factories import customer, sales

    supplier = Supplier.objects.create(slug="a", name="A", contact="ivan@example.com")
    _offer(supplier, "rtx-4090", "1.00")
    _offer(supplier, "rtx-5090", "1.00", days=-2)
    client = APIClient()
    client.force_authenticate(sales())
    assert client.get("/api/v1/suppliers/").json() == [
        {
            "slug": "a", "name": "A", "currency": "RUB", "contact": "ivan@example.com", "terms": "",
            "is_sample": False, "live_offers": 1, "stale_offers": 1,
        }
    ]  # fmt: skip
    client.force_authenticate(customer())
    assert client.get("/api/v1/suppliers/").status_code == 403
