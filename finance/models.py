"""Dated tables the money is counted by: exchange rates to the rouble (the Central Bank of Russia's daily
rates, or one entered by hand) and the VAT rate in force from a date."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords


class ExchangeRate(models.Model):
    """How many roubles one unit of `currency` cost on `date`. The CBR publishes a rate per `nominal` units
    (10 CNY, 100 JPY …); the table keeps the rate per one unit, with all the CBR's decimals."""

    class Source(models.TextChoices):
        CBR = "cbr", _("Central Bank of Russia")
        MANUAL = "manual", _("entered by hand")

    currency = models.CharField(_("currency"), max_length=3)
    date = models.DateField(_("date"), help_text=_("The day the rate is set for"))
    rub_per_unit = models.DecimalField(_("roubles per unit"), max_digits=18, decimal_places=8)
    source = models.CharField(_("source"), max_length=8, choices=Source.choices, default=Source.MANUAL)
    note = models.CharField(
        _("note"), max_length=200, blank=True, help_text=_("Where a rate entered by hand comes from")
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("exchange rate")
        verbose_name_plural = _("exchange rates")
        ordering = ("-date", "currency")
        constraints = [
            models.UniqueConstraint(fields=("currency", "date"), name="exchange_rate_one_per_day"),
            models.CheckConstraint(condition=Q(rub_per_unit__gt=0), name="exchange_rate_positive"),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="exchange_rate_currency_iso"),
        ]

    def __str__(self) -> str:
        return f"{self.currency} {self.date:%d.%m.%Y}: {self.rub_per_unit} RUB"


class VatRate(models.Model):
    """The VAT rate in force from `valid_from` until the next row's date. The general rate of the Tax Code
    (art. 164 p. 3): 20 % from 01.01.2019, 22 % from 01.01.2026 (the 2025 tax amendments); migration 0001
    loads both."""

    valid_from = models.DateField(_("valid from"), unique=True)
    percent = models.DecimalField(_("VAT, %"), max_digits=5, decimal_places=2)
    note = models.CharField(_("note"), max_length=200, blank=True, help_text=_("The law that set it"))
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("VAT rate")
        verbose_name_plural = _("VAT rates")
        ordering = ("-valid_from",)
        constraints = [
            models.CheckConstraint(condition=Q(percent__gte=0) & Q(percent__lte=100), name="vat_rate_0_100"),
        ]

    def __str__(self) -> str:
        return f"{self.percent} % from {self.valid_from:%d.%m.%Y}"
