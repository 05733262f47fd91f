"""Services that write the catalog."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.fixture import CATALOG_FIXTURE, CLUSTER_FIXTURE, read_catalog_fixture
from catalog.model_base import CatalogItem
from catalog.models import CATALOG_MODELS, CLUSTER_MODELS, Gpu, NvlinkBridge


@dataclass
class LoadReport:
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)

    @property
    def total_created(self) -> int:
        return sum(self.created.values())

    @property
    def total_updated(self) -> int:
        return sum(self.updated.values())


def _assign(obj: CatalogItem, row: dict[str, Any]) -> bool:
    """Copy row values onto obj; True when anything differs."""
    changed = False
    for name, value in row.items():
        field_obj: Any = obj._meta.get_field(name)
        new = field_obj.to_python(value)
        if getattr(obj, name) != new:
            setattr(obj, name, new)
            changed = True
    return changed


def _checked_save(obj: CatalogItem, kind: str) -> None:
    """Save a fixture row after Django's field checks. The tables' check and unique constraints are left to the
    database, which refuses a breaking row on the INSERT or UPDATE itself (tests/catalog/test_constraints.py):
    `full_clean()` would run one query per constraint per row, ~1,250 for the fixture and four fifths of a
    load's time. The refusal names the kind, the SKU and the constraint, and the load is undone."""
    obj.full_clean(validate_constraints=False)
    try:
        obj.save()
    except IntegrityError as error:
        raise ValidationError(f"{kind} {obj.sku}: the database refused the row: {error}") from error


@transaction.atomic
def cluster_catalog_load_fixture(*, path: Path = CLUSTER_FIXTURE, update: bool = False) -> LoadReport:
    """The cluster parts (fixtures/cluster_catalog.json) as `catalog_load_fixture` loads the node parts."""
    return _load_kinds(read_catalog_fixture(path), CLUSTER_MODELS, update=update)


@transaction.atomic
def catalog_load_fixture(*, path: Path = CATALOG_FIXTURE, update: bool = False) -> LoadReport:
    """Insert fixture rows whose SKU is missing. With `update`, overwrite rows that differ.

    Idempotent: a second run creates and changes nothing, and rows catalog staff edited are kept
    unless `update` is asked for.
    """
    return _load_kinds(read_catalog_fixture(path), CATALOG_MODELS, update=update)


def _load_kinds(
    data: dict[str, list[dict[str, Any]]], models: dict[str, type[CatalogItem]], *, update: bool
) -> LoadReport:
    report = LoadReport()
    for kind, model in models.items():
        created = updated = unchanged = 0
        existing = {obj.sku: obj for obj in model.objects.all()}
        for raw in data.get(kind, []):
            row = dict(raw)
            gpu_skus = row.pop("gpus", None) if model is NvlinkBridge else None
            obj = existing.get(row["sku"])
            if obj is None:
                obj = model()
                _assign(obj, row)
                _checked_save(obj, kind)
                created += 1
            elif update and _assign(obj, row):
                _checked_save(obj, kind)
                updated += 1
            else:
                unchanged += 1
            if gpu_skus is not None and isinstance(obj, NvlinkBridge):
                wanted = set(gpu_skus)
                current = set(obj.gpus.values_list("sku", flat=True))
                if not current or (update and current != wanted):
                    gpus = list(Gpu.objects.filter(sku__in=wanted))
                    missing = wanted - {gpu.sku for gpu in gpus}
                    if missing:
                        raise ValueError(f"bridge {obj.sku} names unknown GPUs: {sorted(missing)}")
                    obj.gpus.set(gpus)
        report.created[kind] = created
        report.updated[kind] = updated
        report.unchanged[kind] = unchanged
    return report


@dataclass(frozen=True, slots=True)
class PricePreview:
    """One row of the bulk price change before it is applied."""

    sku: str
    name: str
    currency: str
    old_price: Decimal
    new_price: Decimal
    name_ru: str = ""  # shown by the `part_name` filter on a Russian page


def _price_factor(percent: Decimal) -> Decimal:
    factor = (Decimal(100) + percent) / Decimal(100)
    if factor <= 0:
        raise ValueError(str(_("The change must leave every price above zero.")))
    return factor


def _changed_price(price: Decimal, factor: Decimal) -> Decimal:
    return (price * factor).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def catalog_price_preview(*, queryset: Any, percent: Decimal) -> list[PricePreview]:
    """What `catalog_change_prices` would make of each row's price, changing nothing."""
    factor = _price_factor(percent)
    return [
        PricePreview(
            obj.sku, obj.name, obj.currency, obj.list_price, _changed_price(obj.list_price, factor), obj.name_ru
        )
        for obj in queryset.order_by("sku")
    ]


def catalog_change_prices(*, queryset: Any, percent: Decimal) -> int:
    """Change list prices of the rows by `percent` (e.g. 5 or -3.5), rounded to kopecks.

    Saves row by row so each change lands in the history with the acting user and the percentage as the reason.
    """
    factor = _price_factor(percent)
    reason = str(_("Bulk price change by %(percent)s %%") % {"percent": f"{percent:+}"})
    changed = 0
    with transaction.atomic():
        for obj in queryset.select_for_update():
            obj.list_price = _changed_price(obj.list_price, factor)
            obj.updated_at = timezone.now()
            obj._change_reason = reason
            obj.save(update_fields=["list_price", "updated_at"])
            changed += 1
    return changed


def cell_error(row: int | None, column: str, value: str, reason: str) -> str:
    """ "Row 3, column price, value 'abc': not a number" in the active language."""
    return _("Row %(row)s, column %(column)s, value '%(value)s': %(reason)s") % {
        "row": row if row is not None else "?",
        "column": column,
        "value": value,
        "reason": reason,
    }
