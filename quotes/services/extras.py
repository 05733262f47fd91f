"""Service lines on a draft quote: warranty, on-site service, software, burn-in report, delivery.

`quote_services_set` replaces the quote's service lines (kind `services`) with the services named, or
with the defaults of the machine class when none are named, and recomputes the totals. A percentage
service is priced on the hardware's net (the non-optional hardware lines after the quote's discount);
services themselves are not discounted. The PDF is made again. Who may: as for refreshing a draft's
prices (its customer or sales).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from django.db import transaction
from django.db.models import Max

from accounts.models import User
from catalog.specs import catalog_snapshot
from configurator.engine.errors import InvalidInput
from quotes.models import Quote, QuoteEventType, QuoteLine
from quotes.policy import quote_require
from quotes.pricing import totals
from quotes.services._shared import event_add, locked, totals_dict, totals_set
from quotes.services.render import render_mark_pending
from servicelines.services import service_defaults, service_price, services_by_sku

SERVICE_KIND = "services"


def _is_workstation(quote: Quote) -> bool:
    chassis = catalog_snapshot().chassis.get(str(quote.build_payload.get("chassis", "")))
    return bool(chassis is None or chassis.is_workstation)


@transaction.atomic
def quote_services_set(*, quote: Quote, user: User, skus: Sequence[str] | None = None) -> Quote:
    quote_require(user, quote, "refresh_prices")
    if skus is None:
        items = service_defaults(workstation=_is_workstation(quote))
    else:
        items, errors = services_by_sku(skus)
        if errors:
            raise InvalidInput("Unknown services.", fields=errors)
    current = locked(quote)
    current.lines.filter(kind=SERVICE_KIND).delete()
    hardware = list(current.lines.all())
    hardware_net = sum((line.line_total for line in hardware if not line.optional), Decimal(0))
    position = (current.lines.aggregate(last=Max("position"))["last"] or 0) + 1
    QuoteLine.objects.bulk_create(
        QuoteLine(
            quote=current,
            position=position + offset,
            kind=SERVICE_KIND,
            sku=item.sku,
            name=item.name,
            spec_summary=item.summary()[:300],
            qty=1,
            list_price=price,
            discount_percent=Decimal(0),
            unit_price=price,
            line_total=price,
        )
        for offset, (item, price) in enumerate((item, service_price(item, hardware_net=hardware_net)) for item in items)
    )
    totals_set(current, totals(((line.line_total, line.optional) for line in current.lines.all()), current.vat_percent))
    current.save(update_fields=["net_total", "vat_total", "gross_total", "updated_at"])
    event_add(
        current,
        QuoteEventType.PRICES_REFRESHED,
        user=user,
        data={"services": [item.sku for item in items], "totals": totals_dict(current)},
    )
    render_mark_pending(current)
    return current
