"""The VAT rate in force on a date, from the dated table (finance.models.VatRate).

Everything that prices with VAT reads it here: a quote takes `vat_percent_on(its date)`, the configurator's
prices (validate, apply-fix, recommendations) `vat_percent_today()`. settings.QUOTE_VAT_PERCENT is read in
this module only, as the fallback of an empty table.
"""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal

from django.conf import settings
from django.utils import timezone

from configurator.engine.builds import money


def vat_percent_on(day: dt.date) -> Decimal:
    """The rate of the newest VatRate row on or before `day`; settings.QUOTE_VAT_PERCENT when the table has
    none that early (an empty table in a fresh database before migrations load it)."""
    from finance.models import VatRate

    row = VatRate.objects.filter(valid_from__lte=day).order_by("-valid_from").values_list("percent", flat=True).first()
    return Decimal(row) if row is not None else Decimal(settings.QUOTE_VAT_PERCENT)


#: (time.monotonic() of the read, the day, its rate): the last `vat_percent_today` read of this process.
_recent: tuple[float, dt.date, Decimal] | None = None


def vat_percent_today() -> Decimal:
    """`vat_percent_on` the seller's today (settings.TIME_ZONE), as read at most CATALOG_SNAPSHOT_TTL_S seconds
    ago by this process (0 = on every call), as the catalog snapshot and the offers are: validate, apply-fix
    and recommendations price every answer with it without a query per request, and a rate added in the
    admin is seen within that time (a new day is always read afresh)."""
    global _recent
    ttl = float(getattr(settings, "CATALOG_SNAPSHOT_TTL_S", 0.0))
    now, day, last = time.monotonic(), timezone.localdate(), _recent
    if ttl > 0 and last is not None and last[1] == day and now - last[0] < ttl:
        return last[2]
    rate = vat_percent_on(day)
    _recent = (now, day, rate)
    return rate


def net_of_vat(gross: Decimal, percent: Decimal) -> Decimal:
    """A VAT-inclusive price without its VAT, to the kopeck (half-up): gross × 100 / (100 + rate)."""
    return money(gross * 100 / (100 + percent))
