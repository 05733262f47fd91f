"""The per-process catalog snapshot: rebuilt when the catalog changes, checked at most once per TTL."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog import specs
from catalog.models import Gpu


@pytest.mark.django_db
def test_a_catalog_change_rebuilds_the_snapshot(catalog: None) -> None:
    first = specs.catalog_snapshot()
    gpu = Gpu.objects.get(sku="rtx-4090")
    gpu.list_price = Decimal("123.45")
    gpu.save()
    second = specs.catalog_snapshot()
    assert second is not first
    assert second.gpus["rtx-4090"].price == Decimal("123.45")


@pytest.mark.django_db
def test_version_is_checked_at_most_once_per_ttl(
    catalog: None, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.CATALOG_SNAPSHOT_TTL_S = 1.0  # type: ignore[attr-defined]
    clock = [1000.0]
    monkeypatch.setattr(specs.time, "monotonic", lambda: clock[0])
    specs.catalog_snapshot_clear()
    warm = specs.catalog_snapshot()
    with CaptureQueriesContext(connection) as within_ttl:
        assert specs.catalog_snapshot() is warm
    assert len(within_ttl) == 0
    Gpu.objects.filter(sku="rtx-4090").update(list_price=Decimal("1.00"))
    clock[0] += 1.5
    with CaptureQueriesContext(connection) as after_ttl:
        specs.catalog_snapshot()
    assert len(after_ttl) == 1  # the version stamp; update() keeps updated_at, so no rebuild
    Gpu.objects.get(sku="rtx-4090").save()
    clock[0] += 1.5
    assert specs.catalog_snapshot().gpus["rtx-4090"].price == Decimal("1.00")
