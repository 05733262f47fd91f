"""Service lines on a draft quote: warranty, on-site service, software, burn-in report, delivery.

`quote_services_set` replaces the quote's service lines (kind `services`) with the services named, or
with the defaults of the machine class when none are named, and recomputes the totals. Each line copies
how the service is sold: a fixed price, or a percentage of the hardware (`QuoteLine.service_percent`).
A percentage service is priced on the hardware's net (the non-optional hardware lines after the quote's
discount) and priced again whenever that changes — a discount, a revision, a refresh of prices, lines
set here — by the one rule, `_shared.lines_price`; services themselves are not discounted. The PDF is made
again. Who may: as for refreshing a draft's prices (its customer or sales).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from django.conf import settings
from django.db import transaction

from accounts.models import User
from catalog.specs import catalog_snapshot
from configurator.engine.errors import InvalidInput
from quotes.models import Quote, QuoteEventType, QuoteLine
from quotes.policy import quote_require
from quotes.pricing import SERVICE_KIND
from quotes.services._shared import TOTAL_FIELDS, event_add, lines_price, locked, totals_dict
from quotes.services.render import render_mark_pending
from quotes.services.terms import quote_terms, service_terms, service_terms_of_lines
from servicelines.models import Pricing, ServiceItem
from servicelines.services import service_defaults, services_by_sku


def _is_workstation(quote: Quote) -> bool:
    chassis = catalog_snapshot().chassis.get(str(quote.build_payload.get("chassis", "")))
    return bool(chassis is None or chassis.is_workstation)


def service_line(quote: Quote, position: int, item: ServiceItem) -> QuoteLine:
    """The service as an unsaved line of `quote`, its pricing copied; `lines_price` sets its prices."""
    percent = item.percent if item.pricing == Pricing.PERCENT else None
    price = item.price if percent is None else Decimal(0)
    return QuoteLine(
        quote=quote,
        position=position,
        kind=SERVICE_KIND,
        sku=item.sku,
        name=item.name,
        name_ru=item.name_ru,
        spec_summary=item.summary()[:300],
        spec_summary_ru=item.summary_ru()[:300],
        qty=1,
        list_price=price,
        discount_percent=Decimal(0),
        unit_price=price,
        line_total=price,
        service_percent=percent,
    )


@transaction.atomic
def quote_services_set(*, quote: Quote, user: User, skus: Sequence[str] | None = None) -> Quote:
    quote_require(user, quote, "refresh_prices")
    if skus is None:
        items = service_defaults(workstation=_is_workstation(quote))
    else:
        items, errors = services_by_sku(skus)
        if errors:
            raise InvalidInput("Unknown or doubled services.", fields=errors)
    current = locked(quote)
    before = list(current.lines.filter(kind=SERVICE_KIND).values_list("sku", flat=True))
    current.lines.filter(kind=SERVICE_KIND).delete()
    hardware = list(current.lines.all())
    first = max((line.position for line in hardware), default=0) + 1
    services = [service_line(current, first + offset, item) for offset, item in enumerate(items)]
    lines_price(current, [*hardware, *services])
    QuoteLine.objects.bulk_create(services)
    fields = [*TOTAL_FIELDS, "updated_at"]
    days = settings.QUOTE_VALIDITY_DAYS
    if current.terms == quote_terms(
        vat_percent=current.vat_percent, validity_days=days, services=service_terms_of_lines(before)
    ):  # terms as made for the old services (not edited by hand): they follow the new ones
        current.terms = quote_terms(vat_percent=current.vat_percent, validity_days=days, services=service_terms(items))
        fields.append("terms")
    current.save(update_fields=fields)
    event_add(
        current,
        QuoteEventType.PRICES_REFRESHED,
        user=user,
        data={"services": [item.sku for item in items], "totals": totals_dict(current)},
    )
    render_mark_pending(current)
    return current
