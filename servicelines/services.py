"""Services on sale: the defaults of a machine class, services by SKU, and the sample services. A quote prices
the services it sells by one rule (quotes.pricing, quotes.services._shared.lines_price): a fixed service at
its price, a percentage one at that share of the quote's hardware after its discount, never discounted."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from django.db import transaction

from servicelines.models import DefaultFor, ServiceItem

SERVICES_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "services.json"


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
    """Add the sample services that are missing (idempotent) and the Russian name of a row that has none (a
    name staff wrote is kept); the number created."""
    data = json.loads(path.read_text(encoding="utf-8"))
    made = 0
    for row in data["services"]:
        _, created = ServiceItem.objects.get_or_create(sku=row["sku"], defaults={**row, "is_sample": True})
        made += created
        if not created and row.get("name_ru"):
            ServiceItem.objects.filter(sku=row["sku"], name_ru="").update(name_ru=row["name_ru"])
    return made
