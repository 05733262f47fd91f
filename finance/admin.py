"""Exchange rates and VAT rates in the admin: catalog staff enter a rate by hand when the CBR's job cannot
reach the bank (a hand-entered rate of a day is never overwritten by the job)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from finance.models import ExchangeRate, VatRate


@admin.register(ExchangeRate)
class ExchangeRateAdmin(SimpleHistoryAdmin):
    list_display = ("date", "currency", "rub_per_unit", "source")
    list_filter = ("currency", "source")
    date_hierarchy = "date"
    ordering = ("-date", "currency")

    def save_model(self, request: Any, obj: ExchangeRate, form: Any, change: bool) -> None:
        obj.currency = obj.currency.upper()
        if not change:
            obj.source = ExchangeRate.Source.MANUAL
        super().save_model(request, obj, form, change)


@admin.register(VatRate)
class VatRateAdmin(SimpleHistoryAdmin):
    list_display = ("valid_from", "percent", "note")
    ordering = ("-valid_from",)
