"""Services on sale: the defaults of a machine class, services by SKU, and the sample services. A quote prices
the services it sells by one rule (quotes.pricing, quotes.services._shared.lines_price): a fixed service at
its price, a percentage one at that share of the quote's hardware after its discount, never discounted."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from django.db import transaction

from servicelines.models import Category, DefaultFor, ServiceItem

SERVICES_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "services.json"


def service_defaults(*, workstation: bool) -> list[ServiceItem]:
    wanted = {DefaultFor.ALL, DefaultFor.WORKSTATION if workstation else DefaultFor.SERVER}
    return list(ServiceItem.objects.filter(is_active=True, default_for__in=wanted).order_by("category", "sku"))


#: Kinds a machine gets one of: one warranty term, one on-site contract, one delivery (a customer trial of issue
#: 37 ticked all three warranties and both deliveries on a card and was quoted 1 + 3 + 5 years, 30 000 ₽ to ship).
ONE_PER_QUOTE = frozenset({Category.WARRANTY, Category.ONSITE, Category.DELIVERY})


def services_doubled(items: Iterable[ServiceItem]) -> list[str]:
    """The categories of ONE_PER_QUOTE that `items` name more than once, in category order."""
    seen: dict[str, int] = {}
    for item in items:
        seen[item.category] = seen.get(item.category, 0) + 1
    return [category for category in Category.values if category in ONE_PER_QUOTE and seen.get(category, 0) > 1]


def services_by_sku(skus: Iterable[str]) -> tuple[list[ServiceItem], dict[str, list[str]]]:
    """The active services named, in the order given, and as `services[i]` field errors the unknown ones and a
    second service of a kind a quote sells once (ONE_PER_QUOTE: a warranty, an on-site contract, a delivery)."""
    wanted = list(skus)
    found = {item.sku: item for item in ServiceItem.objects.filter(sku__in=wanted, is_active=True)}
    errors = {f"services[{i}]": [f"unknown service {sku!r}"] for i, sku in enumerate(wanted) if sku not in found}
    items = [found[sku] for sku in dict.fromkeys(wanted) if sku in found]
    first: dict[str, str] = {}
    for i, sku in enumerate(wanted):
        item = found.get(sku)
        if item is None or item.category not in ONE_PER_QUOTE:
            continue
        if first.setdefault(item.category, sku) != sku:
            errors[f"services[{i}]"] = [f"one {item.category} service per quote: {first[item.category]!r} is chosen"]
    return items, errors


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
