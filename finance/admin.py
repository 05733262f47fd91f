"""Exchange rates and VAT rates in the admin: catalog staff enter a rate by hand when the CBR's job cannot
reach the bank (a hand-entered rate of a day is never overwritten by the job). Numbers are typed as the
reader's language writes them ("80,50" in Russian, "80.50" either way); a currency as people write it ("usd",
"$", "у.е.") is stored as its ISO code, and one the service cannot convert is refused in words."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from simple_history.admin import SimpleHistoryAdmin

from finance.currency import BASE, UnknownCurrency, currency_code
from finance.models import ExchangeRate, VatRate


class ExchangeRateForm(forms.ModelForm):
    class Meta:
        model = ExchangeRate
        fields = "__all__"  # noqa: DJ007 - the admin's own fieldsets decide what shows
        localized_fields = ("rub_per_unit",)

    def clean_currency(self) -> str:
        written = self.cleaned_data["currency"]
        try:
            code = currency_code(written)
        except UnknownCurrency:
            raise forms.ValidationError(
                _("Unknown currency %(currency)s: write its code, such as USD, EUR or CNY"),
                code="unknown_currency",
                params={"currency": written},
            ) from None
        if code == BASE:
            raise forms.ValidationError(_("The rouble needs no exchange rate"), code="base_currency")
        return code


class VatRateForm(forms.ModelForm):
    class Meta:
        model = VatRate
        fields = "__all__"  # noqa: DJ007 - the admin's own fieldsets decide what shows
        localized_fields = ("percent",)


@admin.register(ExchangeRate)
class ExchangeRateAdmin(SimpleHistoryAdmin):
    form = ExchangeRateForm
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
    form = VatRateForm
    list_display = ("valid_from", "percent", "note")
    ordering = ("-valid_from",)
