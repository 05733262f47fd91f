"""Where parts come from: suppliers (distributors) with the format of their price lists, their part
numbers mapped to our SKUs, their offers per catalog SKU, price-list imports with their reports, the log
of list-price changes made by following the offers, and price freezes.

An offer belongs to a supplier and names a catalog SKU and its kind (the catalog fixture's key: `gpus`,
`cpus`, …); offers are matched on (supplier, sku). Prices are net purchase prices (without VAT) in the
offer's currency; an offer "on request" has no price (`purchase_price` is null): it tells when the part can
be had, never what it costs (nothing prices a build or plans a purchase from it).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

MONEY: dict[str, Any] = {"max_digits": settings.MONEY_MAX_DIGITS, "decimal_places": settings.MONEY_DECIMAL_PLACES}

#: Price-list columns a supplier's mapping may name: our field → their column header (`name` is read for
#: the report only).
MAPPABLE_FIELDS = ("sku", "purchase_price", "currency", "stock_qty", "lead_time_days", "valid_until", "name")
DEFAULT_COLUMN_MAPPING = {name: name for name in MAPPABLE_FIELDS}


class PriceListScope(models.TextChoices):
    """A partial list changes the offers it names; a full list also retires the supplier's offers it does
    not name (except those holding reservations)."""

    PARTIAL = "partial", _("partial: only the parts it lists")
    FULL = "full", _("full: retire the offers it does not list")


def part_number_key(text: str) -> str:
    """A supplier's part number as it is matched: case and spaces ignored ("RTX 4090-24G" = "rtx4090-24g")."""
    return "".join(text.split()).casefold()


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
    decimal_separator = models.CharField(
        _("decimal separator"),
        max_length=1,
        choices=[(",", _("comma: 215 500,50")), (".", _("point: 215,500.50"))],
        default=",",
        help_text=_("How the supplier's price list writes the decimal part of a number"),
    )
    thousands_separator = models.CharField(
        _("thousands separator"),
        max_length=1,
        blank=True,
        choices=[
            (" ", _("space (or non-breaking space)")),
            (",", _("comma")),
            (".", _("point")),
            ("'", _("apostrophe")),
            ("", _("none")),
        ],
        default=" ",
        help_text=_("How the price list groups thousands; a number grouped otherwise is an error, never a guess"),
    )
    prices_include_vat = models.BooleanField(
        _("prices include VAT"),
        default=False,
        help_text=_(
            "The list's prices include VAT: they are stored net, at the VAT rate in force on the import day "
            "(a price column headed 'with VAT' or 'without VAT' decides for its file)"
        ),
    )
    default_scope = models.CharField(
        _("price list scope"),
        max_length=8,
        choices=PriceListScope.choices,
        default=PriceListScope.PARTIAL,
        help_text=_("What a price list of this supplier covers unless the upload says otherwise"),
    )
    offer_valid_days = models.PositiveSmallIntegerField(
        _("offers valid, days"),
        default=30,
        help_text=_("An offer without a valid-until date is valid this many days from the import"),
    )
    is_sample = models.BooleanField(_("sample data"), default=False, help_text=_("Sample data, not a real supplier"))
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("supplier")
        verbose_name_plural = _("suppliers")
        ordering = ("name",)
        constraints = [
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="supplier_currency_iso"),
            models.CheckConstraint(
                condition=~Q(decimal_separator=F("thousands_separator")), name="supplier_separators_differ"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def mapping(self) -> dict[str, str]:
        return {**DEFAULT_COLUMN_MAPPING, **{k: v for k, v in (self.column_mapping or {}).items() if v}}


class SupplierPartNumber(models.Model):
    """A supplier's own part number and the catalog SKU it is: a price-list row naming `part_number`
    (case and spaces ignored) is an offer of `sku`."""

    supplier = models.ForeignKey(
        Supplier, verbose_name=_("supplier"), on_delete=models.CASCADE, related_name="part_numbers"
    )
    part_number = models.CharField(_("supplier's part number"), max_length=100)
    key = models.CharField(max_length=100, editable=False)  # part_number_key(part_number)
    sku = models.SlugField(_("our SKU"), max_length=64)

    class Meta:
        verbose_name = _("supplier's part number")
        verbose_name_plural = _("supplier's part numbers")
        ordering = ("supplier", "part_number")
        constraints = [models.UniqueConstraint(fields=("supplier", "key"), name="part_number_once_per_supplier")]

    def __str__(self) -> str:
        return f"{self.part_number} → {self.sku}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.key = part_number_key(self.part_number)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        from catalog.models import CATALOG_MODELS

        self.key = part_number_key(self.part_number)
        errors: dict[str, Any] = {}
        if not self.key:
            errors["part_number"] = _("Write the supplier's part number.")
        elif (
            self.supplier_id
            and SupplierPartNumber.objects.filter(supplier_id=self.supplier_id, key=self.key)
            .exclude(pk=self.pk)
            .exists()
        ):
            errors["part_number"] = _("This supplier's part number is already mapped.")
        self.sku = self.sku.strip().lower()
        if not any(model.objects.filter(sku=self.sku).exists() for model in CATALOG_MODELS.values()):
            errors["sku"] = _("No catalog part has this SKU.")
        if errors:
            raise ValidationError(errors)


class SupplierOffer(models.Model):
    supplier = models.ForeignKey(Supplier, verbose_name=_("supplier"), on_delete=models.CASCADE, related_name="offers")
    sku = models.SlugField(_("SKU"), max_length=64, db_index=True)
    supplier_sku = models.CharField(
        _("supplier's SKU"), max_length=100, blank=True, help_text=_("The supplier's own part number")
    )
    kind = models.CharField(_("kind"), max_length=16, help_text=_("Catalog kind: gpus, cpus, chassis, …"))
    purchase_price = models.DecimalField(
        _("purchase price"),
        **MONEY,
        null=True,
        blank=True,
        help_text=_("Net of VAT; empty: price on request (the offer tells availability only)"),
    )
    currency = models.CharField(_("currency"), max_length=3, default="RUB")
    stock_qty = models.PositiveIntegerField(_("in stock"), default=0)
    reserved_qty = models.PositiveIntegerField(
        _("reserved"), default=0, help_text=_("Units reserved by orders' procurement plans")
    )
    # `stock_qty` never falls below what orders reserved; what the supplier's own list said is kept apart, so a
    # shortage it reports reaches the orders that rely on the offer (orders/risks.py)
    listed_stock_qty = models.PositiveIntegerField(
        _("in the supplier's list"), null=True, blank=True,
        help_text=_("Units the supplier's latest applied price list gave (empty: no list applied yet)"),
    )  # fmt: skip
    listed_at = models.DateTimeField(_("listed"), null=True, blank=True, help_text=_("When that list was applied"))
    lead_time_days = models.PositiveSmallIntegerField(
        _("lead time, days"), help_text=_("Working days to get the part when it is not in stock")
    )
    valid_until = models.DateField(
        _("valid until"),
    )
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("supplier offer")
        verbose_name_plural = _("supplier offers")
        ordering = ("sku", F("purchase_price").asc(nulls_last=True))
        constraints = [
            models.UniqueConstraint(fields=("supplier", "sku"), name="offer_one_per_supplier_sku"),
            models.CheckConstraint(
                condition=Q(purchase_price__isnull=True) | Q(purchase_price__gt=0), name="offer_price_positive"
            ),
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

    @property
    def has_price(self) -> bool:
        return self.purchase_price is not None


class PriceListImport(models.Model):
    class Status(models.TextChoices):
        PREVIEWED = "previewed", _("previewed")
        HELD = "held", _("held for review")  # price moves or retirements wait for a person's confirmation
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
    scope = models.CharField(_("scope"), max_length=8, choices=PriceListScope.choices, default=PriceListScope.PARTIAL)
    forced = models.BooleanField(
        _("on purpose"),
        default=False,
        help_text=_("Imported again on purpose (the admin's 'apply again', the drop folder's force/)"),
    )
    status = models.CharField(_("status"), max_length=16, choices=Status.choices)
    report = models.JSONField(
        _("report"),
        default=dict,
        help_text=_("Errors, skipped and unmatched rows, and the changes: new, moved, held, gone, unchanged"),
    )
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
            # the drop directory never imports the same file twice by accident (procurement/dropbox.py); a
            # failed one changed nothing and may be read again (after the catalog is fixed); one dropped into
            # force/ is imported again on purpose
            models.UniqueConstraint(
                fields=("supplier", "sha256"),
                condition=Q(source="drop") & ~Q(status="failed") & Q(forced=False),
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
