"""What every catalog part shares: the abstract `CatalogItem` (SKU, names, vendor, list price, source) with its
database constraints, and the validators of positive figures. The part tables are catalog.models and
catalog.cluster_models.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

POSITIVE = [MinValueValidator(Decimal("0.1"), message=_("must be greater than zero"))]
POSITIVE_INT = [MinValueValidator(1, message=_("must be greater than zero"))]


class CatalogItem(models.Model):
    sku = models.SlugField(
        _("SKU"), max_length=64, unique=True, help_text=_("Stable lowercase identifier, e.g. h200-nvl")
    )
    name = models.CharField(
        _("name (English)"), max_length=200, help_text=_("English name; brand names (GPUs, CPUs) are the same in both")
    )
    name_ru = models.CharField(
        _("name (Russian)"),
        max_length=200,
        blank=True,
        default="",
        help_text=_("Russian name for Russian pages and documents; empty = the English name"),
    )
    vendor = models.CharField(_("vendor"), max_length=100)
    list_price = models.DecimalField(
        _("list price"),
        max_digits=settings.MONEY_MAX_DIGITS,
        decimal_places=settings.MONEY_DECIMAL_PLACES,
        validators=[MinValueValidator(Decimal(0), message=_("a price cannot be negative"))],
    )
    currency = models.CharField(_("currency"), max_length=3, default="RUB")
    is_active = models.BooleanField(_("on sale"), default=True)
    source = models.TextField(
        _("source"), help_text=_("Where the specifications come from (datasheet, spec DB, review)")
    )
    notes = models.TextField(_("notes"), blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    objects: models.Manager[Any] = models.Manager()

    class Meta:
        abstract = True
        ordering = ("sku",)

    def __str__(self) -> str:
        return f"{self.sku} ({self.name})"

    @classmethod
    def base_constraints(cls, prefix: str) -> list[models.BaseConstraint]:
        return [
            models.CheckConstraint(condition=Q(list_price__gte=0), name=f"{prefix}_price_nonnegative"),
            models.CheckConstraint(condition=~Q(sku=""), name=f"{prefix}_sku_not_empty"),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name=f"{prefix}_currency_iso"),
        ]
