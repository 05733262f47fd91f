"""Services sold with a machine: warranty (1/3/5 years, its level), on-site service, a preinstalled
software stack, a burn-in test report, delivery by region. Priced fixed (RUB) or as a percentage of the
quote's hardware; `default_for` says which machine class gets the service by default."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q


class Category(models.TextChoices):
    WARRANTY = "warranty", "warranty"
    ONSITE = "onsite", "on-site service"
    SOFTWARE = "software", "preinstalled software"
    BURN_IN_REPORT = "burn_in_report", "burn-in test report"
    DELIVERY = "delivery", "delivery"


class Pricing(models.TextChoices):
    FIXED = "fixed", "fixed price"
    PERCENT = "percent", "percentage of the hardware"


class DefaultFor(models.TextChoices):
    NONE = "", "no machine class"
    WORKSTATION = "workstation", "workstations"
    SERVER = "server", "rack servers"
    ALL = "all", "every machine"


class ServiceItem(models.Model):
    sku = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    category = models.CharField(max_length=20, choices=Category.choices)
    years = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Warranty / service term")
    level = models.CharField(max_length=100, blank=True, help_text="e.g. return to base, next business day on site")
    region = models.CharField(max_length=100, blank=True, help_text="Delivery region")
    pricing = models.CharField(max_length=8, choices=Pricing.choices)
    price = models.DecimalField(
        max_digits=settings.MONEY_MAX_DIGITS, decimal_places=settings.MONEY_DECIMAL_PLACES, default=Decimal(0)
    )
    percent = models.DecimalField(
        max_digits=5, decimal_places=2, default=Decimal(0), validators=[MinValueValidator(0), MaxValueValidator(100)]
    )
    currency = models.CharField(max_length=3, default="RUB")
    default_for = models.CharField(max_length=12, choices=DefaultFor.choices, blank=True, default="")
    is_active = models.BooleanField(default=True)
    is_sample = models.BooleanField(default=False, help_text="Sample data: the price is not a real offer")
    source = models.TextField(blank=True)

    class Meta:
        ordering = ("category", "sku")
        constraints = [
            models.CheckConstraint(condition=Q(price__gte=0), name="service_price_nonnegative"),
            models.CheckConstraint(condition=Q(percent__gte=0) & Q(percent__lte=100), name="service_percent_range"),
        ]

    def __str__(self) -> str:
        return f"{self.sku} ({self.name})"

    def summary(self) -> str:
        parts = [f"{self.years} y" if self.years else "", self.level, self.region]
        if self.pricing == Pricing.PERCENT:
            parts.append(f"{self.percent.normalize():f} % of the hardware")
        return ", ".join(part for part in parts if part)
