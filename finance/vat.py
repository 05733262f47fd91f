"""The VAT rate in force on a date, from the dated table (finance.models.VatRate)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.conf import settings


def vat_percent_on(day: dt.date) -> Decimal:
    """The rate of the newest VatRate row on or before `day`; settings.QUOTE_VAT_PERCENT when the table has
    none that early (an empty table in a fresh database before migrations load it)."""
    from finance.models import VatRate

    row = VatRate.objects.filter(valid_from__lte=day).order_by("-valid_from").values_list("percent", flat=True).first()
    return Decimal(row) if row is not None else Decimal(settings.QUOTE_VAT_PERCENT)


def net_of_vat(gross: Decimal, percent: Decimal) -> Decimal:
    """A VAT-inclusive price without its VAT, to the kopeck (half-up): gross × 100 / (100 + rate)."""
    from decimal import ROUND_HALF_UP

    return (gross * 100 / (100 + percent)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
