"""Where parts come from: suppliers (distributors), their offers per catalog SKU, price-list imports
with their reports, the log of list-price changes made by following the offers, and price freezes.

An offer belongs to a supplier and names a catalog SKU and its kind (the catalog fixture's key: `gpus`,
`cpus`, …); offers are matched on (supplier, sku). Prices are purchase prices in the offer's currency.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

MONEY: dict[str, Any] = {"max_digits": settings.MONEY_MAX_DIGITS, "decimal_places": settings.MONEY_DECIMAL_PLACES}

#: Price-list columns a supplier's mapping may name: our field → their column header.
MAPPABLE_FIELDS = ("sku", "purchase_price", "currency", "stock_qty", "lead_time_days", "valid_until")
DEFAULT_COLUMN_MAPPING = {name: name for name in MAPPABLE_FIELDS}


class Supplier(models.Model):
    slug = models.SlugField(_("code"), max_length=64, unique=True)
    name = models.CharField(_("name"), max_length=200)
    currency = models.CharField(_("currency"), max_length=3, default="RUB")
    contact = models.TextField(_("contact"), blank=True, help_text=_("Manager, e-mail, phone"))
    terms = models.TextField(_("terms"), blank=True, help_text=_("Payment and delivery terms"))
    column_mapping = models.JSONField(
        _("column mapping"),
        default=dict,
        blank=True,
        help_text=_("Our field → the column header in this supplier's price list; missing fields use our names"),
    )
    is_sample = models.BooleanField(_("sample data"), default=False, help_text=_("Sample data, not a real supplier"))
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("supplier")
        verbose_name_plural = _("suppliers")
        ordering = ("name",)
        constraints = [models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="supplier_currency_iso")]

    def __str__(self) -> str:
        return self.name

    def mapping(self) -> dict[str, str]:
        return {**DEFAULT_COLUMN_MAPPING, **{k: v for k, v in (self.column_mapping or {}).items() if v}}


class SupplierOffer(models.Model):
    supplier = models.ForeignKey(Supplier, verbose_name=_("supplier"), on_delete=models.CASCADE, related_name="offers")
    sku = models.SlugField(_("SKU"), max_length=64, db_index=True)
    supplier_sku = models.CharField(
        _("supplier's SKU"), max_length=100, blank=True, help_text=_("The supplier's own part number")
    )
    kind = models.CharField(_("kind"), max_length=16, help_text=_("Catalog kind: gpus, cpus, chassis, …"))
    purchase_price = models.DecimalField(_("purchase price"), **MONEY)
    currency = models.CharField(_("currency"), max_length=3, default="RUB")
    stock_qty = models.PositiveIntegerField(_("in stock"), default=0)
    reserved_qty = models.PositiveIntegerField(
        _("reserved"), default=0, help_text=_("Units reserved by orders' procurement plans")
    )
    lead_time_days = models.PositiveSmallIntegerField(
        _("lead time, days"), help_text=_("Days to get the part when it is not in stock")
    )
    valid_until = models.DateField(
        _("valid until"),
    )
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("supplier offer")
        verbose_name_plural = _("supplier offers")
        ordering = ("sku", "purchase_price")
        constraints = [
            models.UniqueConstraint(fields=("supplier", "sku"), name="offer_one_per_supplier_sku"),
            models.CheckConstraint(condition=Q(purchase_price__gt=0), name="offer_price_positive"),
            models.CheckConstraint(
                condition=Q(reserved_qty__lte=models.F("stock_qty")), name="offer_reserved_le_stock"
            ),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="offer_currency_iso"),
        ]

    def __str__(self) -> str:
        return f"{self.sku} @ {self.supplier}"

    @property
    def is_stale(self) -> bool:
        return self.valid_until < timezone.localdate()

    @property
    def free_qty(self) -> int:
        return self.stock_qty - self.reserved_qty


class PriceListImport(models.Model):
    class Status(models.TextChoices):
        PREVIEWED = "previewed", _("previewed")
        FAILED = "failed", _("failed")
        APPLIED = "applied", _("applied")

    class Source(models.TextChoices):
        ADMIN = "admin", _("admin")
        DROP = "drop", _("drop directory")

    supplier = models.ForeignKey(Supplier, verbose_name=_("supplier"), on_delete=models.CASCADE, related_name="imports")
    filename = models.CharField(_("file"), max_length=255)
    content = models.BinaryField(
        _("content"),
    )
    sha256 = models.CharField(
        _("SHA-256"), max_length=64, blank=True, db_index=True, help_text=_("Of the file's bytes")
    )
    source = models.CharField(_("source"), max_length=8, choices=Source.choices, default=Source.ADMIN)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices)
    report = models.JSONField(_("report"), default=dict, help_text=_("Errors or changes: new, moved, gone, unchanged"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    applied_at = models.DateTimeField(_("applied"), null=True, blank=True)

    class Meta:
        verbose_name = _("price list import")
        verbose_name_plural = _("price list imports")
        ordering = ("-created_at",)
        constraints = [
            # the drop directory never imports the same file twice (procurement/dropbox.py); a failed one
            # changed nothing and may be read again (after the catalog is fixed)
            models.UniqueConstraint(
                fields=("supplier", "sha256"),
                condition=Q(source="drop") & ~Q(status="failed"),
                name="price_import_drop_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.supplier} {self.filename} ({self.status})"


class PriceFreeze(models.Model):
    """A catalog SKU whose list price catalog staff fixed: following the offers leaves it alone."""

    sku = models.SlugField(_("SKU"), max_length=64, unique=True)
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("price freeze")
        verbose_name_plural = _("price freezes")

    def __str__(self) -> str:
        return self.sku


class ListPriceChange(models.Model):
    """Append-only log of list prices moved by `list_prices_follow_offers`."""

    sku = models.SlugField(_("SKU"), max_length=64)
    kind = models.CharField(_("kind"), max_length=16)
    old_price = models.DecimalField(_("old price"), **MONEY)
    new_price = models.DecimalField(_("new price"), **MONEY)
    offer = models.ForeignKey(SupplierOffer, verbose_name=_("offer"), null=True, on_delete=models.SET_NULL)
    markup_percent = models.DecimalField(_("markup, %"), max_digits=5, decimal_places=2)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("list price change")
        verbose_name_plural = _("list price changes")
        ordering = ("-created_at", "sku")

    def __str__(self) -> str:
        return f"{self.sku}: {self.old_price} → {self.new_price}"
