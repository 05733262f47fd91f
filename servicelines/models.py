"""Services sold with a machine: warranty (1/3/5 years, its level), on-site service, a preinstalled
software stack, a burn-in test report, delivery by region. Priced fixed (RUB) or as a percentage of the
quote's hardware; `default_for` says which machine class gets the service by default."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Category(models.TextChoices):
    WARRANTY = "warranty", _("warranty")
    ONSITE = "onsite", _("on-site service")
    SOFTWARE = "software", _("preinstalled software")
    BURN_IN_REPORT = "burn_in_report", _("burn-in test report")
    DELIVERY = "delivery", _("delivery")


#: The category in the words of a Russian quote line (its spec line; the name says the rest).
CATEGORY_RU = {
    "warranty": "гарантия",
    "onsite": "обслуживание на месте",
    "software": "программное обеспечение",
    "burn_in_report": "нагрузочный прогон",
    "delivery": "доставка",
}


class Pricing(models.TextChoices):
    FIXED = "fixed", _("fixed price")
    PERCENT = "percent", _("percentage of the hardware")


class DefaultFor(models.TextChoices):
    NONE = "", _("no machine class")
    WORKSTATION = "workstation", _("workstations")
    SERVER = "server", _("rack servers")
    ALL = "all", _("every machine")


class ServiceItem(models.Model):
    sku = models.SlugField(_("SKU"), max_length=64, unique=True)
    name = models.CharField(_("name"), max_length=200)
    name_ru = models.CharField(
        _("name (Russian)"), max_length=200, blank=True, default="", help_text=_("Shown on Russian pages and documents")
    )
    category = models.CharField(_("category"), max_length=20, choices=Category.choices)
    years = models.PositiveSmallIntegerField(_("years"), null=True, blank=True, help_text=_("Warranty / service term"))
    level = models.CharField(
        _("level"), max_length=100, blank=True, help_text=_("e.g. return to base, next business day on site")
    )
    region = models.CharField(_("region"), max_length=100, blank=True, help_text=_("Delivery region"))
    pricing = models.CharField(_("pricing"), max_length=8, choices=Pricing.choices)
    price = models.DecimalField(
        _("price"),
        max_digits=settings.MONEY_MAX_DIGITS,
        decimal_places=settings.MONEY_DECIMAL_PLACES,
        default=Decimal(0),
    )
    percent = models.DecimalField(
        _("percent"),
        max_digits=5,
        decimal_places=2,
        default=Decimal(0),
        validators=[MinValueValidator(0), MaxValueValidator(100)],
    )
    currency = models.CharField(_("currency"), max_length=3, default="RUB")
    default_for = models.CharField(_("default for"), max_length=12, choices=DefaultFor.choices, blank=True, default="")
    is_active = models.BooleanField(_("on sale"), default=True)
    is_sample = models.BooleanField(
        _("sample data"), default=False, help_text=_("Sample data: the price is not a real offer")
    )
    source = models.TextField(_("source"), blank=True)

    class Meta:
        verbose_name = _("service")
        verbose_name_plural = _("services")
        ordering = ("category", "sku")
        constraints = [
            models.CheckConstraint(condition=Q(price__gte=0), name="service_price_nonnegative"),
            models.CheckConstraint(condition=Q(percent__gte=0) & Q(percent__lte=100), name="service_percent_range"),
        ]

    def __str__(self) -> str:
        return f"{self.sku} ({self.name})"

    def summary_ru(self) -> str:
        """`summary` in Russian, for the quote line's `spec_summary_ru`."""
        parts = [CATEGORY_RU.get(self.category, ""), f"{self.years} г." if self.years else ""]
        if self.pricing == Pricing.PERCENT:
            parts.append(f"{self.percent.normalize():f} % от стоимости оборудования".replace(".", ","))
        return ", ".join(part for part in parts if part)

    def summary(self) -> str:
        parts = [f"{self.years} y" if self.years else "", self.level, self.region]
        if self.pricing == Pricing.PERCENT:
            parts.append(f"{self.percent.normalize():f} % of the hardware")
        return ", ".join(part for part in parts if part)
