"""Service prices and defaults, and the sample services."""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from pathlib import Path

from django.db import transaction

from configurator.engine.builds import money
from servicelines.models import DefaultFor, Pricing, ServiceItem

SERVICES_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "services.json"


def service_price(item: ServiceItem, *, hardware_net: Decimal) -> Decimal:
    """Fixed: the price. Percent: that share of the hardware's net total, rounded half-up to kopecks."""
    if item.pricing == Pricing.PERCENT:
        return money(hardware_net * item.percent / Decimal(100))
    return item.price


def service_defaults(*, workstation: bool) -> list[ServiceItem]:
    wanted = {DefaultFor.ALL, DefaultFor.WORKSTATION if workstation else DefaultFor.SERVER}
    return list(ServiceItem.objects.filter(is_active=True, default_for__in=wanted).order_by("category", "sku"))


def services_by_sku(skus: Iterable[str]) -> tuple[list[ServiceItem], dict[str, list[str]]]:
    """The active services named, in the order given, and the unknown ones as `services[i]` field errors."""
    wanted = list(skus)
    found = {item.sku: item for item in ServiceItem.objects.filter(sku__in=wanted, is_active=True)}
    errors = {f"services[{i}]": [f"unknown service {sku!r}"] for i, sku in enumerate(wanted) if sku not in found}
    return [found[sku] for sku in dict.fromkeys(wanted) if sku in found], errors


@transaction.atomic
def services_load_fixture(*, path: Path = SERVICES_FIXTURE) -> int:
    """Add the sample services that are missing (idempotent); the number created."""
    data = json.loads(path.read_text(encoding="utf-8"))
    made = 0
    for row in data["services"]:
        _, created = ServiceItem.objects.get_or_create(sku=row["sku"], defaults={**row, "is_sample": True})
        made += created
    return made
