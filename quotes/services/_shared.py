"""Pieces every quote service uses: the event row, the one status transition, the row lock, lines and the one
rule that prices service lines and totals (`lines_price`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from accounts.models import CUSTOMERS, User
from configurator.engine.builds import PART_KINDS
from configurator.engine.errors import InvalidInput
from configurator.engine.types import CatalogSnapshot
from quotes.models import Quote, QuoteEvent, QuoteEventType, QuoteLine, QuoteStatus
from quotes.policy import quote_create_permission, transition_decision
from quotes.pricing import SERVICE_KIND, LineDraft, Totals, hardware_net, service_unit_price, totals

S = QuoteStatus
E = QuoteEventType


def event_add(quote: Quote, type_: str, *, user: User | None = None, data: Mapping[str, Any] | None = None) -> None:
    QuoteEvent.objects.create(quote=quote, type=type_, user=user, data=dict(data or {}))


def transition(quote: Quote, to: str, *, user: User | None, data: Mapping[str, Any] | None = None) -> None:
    """Move `quote` (locked by the caller) to `to` if the table allows it, and record the event."""
    from_status = quote.status
    if not (decision := transition_decision(quote, to)):
        raise decision.error()
    quote.status = to
    quote.save(update_fields=["status", "updated_at"])
    event_add(quote, E.STATUS_CHANGED, user=user, data={"from": from_status, "to": to, **(data or {})})


def locked(quote: Quote) -> Quote:
    """The quote's current row, locked until the transaction ends (PostgreSQL; SQLite locks on write)."""
    return Quote.objects.select_for_update().get(pk=quote.pk)


def lines_build(quote: Quote, drafts: Sequence[LineDraft]) -> list[QuoteLine]:
    """The drafts as unsaved lines of `quote`, numbered from 1 (`quote` may be unsaved yet: the lines take its
    id when they are saved after it)."""
    return [
        QuoteLine(
            quote=quote,
            position=position,
            kind=d.kind,
            sku=d.sku,
            name=d.name,
            name_ru=d.name_ru,
            spec_summary=d.spec_summary,
            spec_summary_ru=d.spec_summary_ru,
            qty=d.qty,
            list_price=d.list_price,
            discount_percent=d.discount_percent,
            unit_price=d.unit_price,
            line_total=d.line_total,
            optional=d.optional,
            service_percent=d.service_percent,
            section=d.section,
        )
        for position, d in enumerate(drafts, start=1)
    ]


def lines_price(quote: Quote, lines: Sequence[QuoteLine]) -> list[QuoteLine]:
    """The one rule for a quote's service lines and totals (quotes.pricing), applied to `lines`: every line of
    `quote` in memory (saved or not), its hardware lines already priced at the quote's discount.

    Each service line is priced again from the hardware net (`pricing.hardware_net`: the non-optional hardware
    lines after the discount): a percentage service at its copied percentage of it, a fixed one at its copied
    price, neither discounted (`pricing.service_unit_price`); then the quote's totals are set from every line
    at the quote's VAT rate (`pricing.totals`). Every service that changes a quote's lines or discount calls it
    (create, discount, revise, refresh prices, services), so what the page, the API and the PDF read — the
    stored lines and totals — always follow this rule. Returns the service lines whose prices changed; the
    caller saves them and the quote's totals."""
    base = hardware_net((line.kind, line.line_total, line.optional) for line in lines)
    changed: list[QuoteLine] = []
    for line in lines:
        if line.kind != SERVICE_KIND:
            continue
        unit = service_unit_price(list_price=line.list_price, percent=line.service_percent, hardware_net=base)
        list_price = line.list_price if line.service_percent is None else unit  # a percentage's price is its list
        priced = (list_price, Decimal(0), unit, unit * line.qty)
        if priced != (line.list_price, line.discount_percent, line.unit_price, line.line_total):
            line.list_price, line.discount_percent, line.unit_price, line.line_total = priced
            changed.append(line)
    totals_set(quote, totals(((line.line_total, line.optional) for line in lines), quote.vat_percent))
    return changed


#: The price fields of a line that `lines_price` and the re-pricing services write.
PRICE_FIELDS = ["list_price", "discount_percent", "unit_price", "line_total"]
#: The quote's fields that `lines_price` sets.
TOTAL_FIELDS = ["net_total", "vat_total", "gross_total"]


def totals_set(quote: Quote, value: Totals) -> None:
    quote.net_total, quote.vat_total, quote.gross_total = value.net, value.vat, value.gross


def totals_dict(quote: Quote) -> dict[str, str]:
    return {"net": str(quote.net_total), "vat": str(quote.vat_total), "gross": str(quote.gross_total)}


def spec_find(snapshot: CatalogSnapshot, sku: str, kind: str | None = None) -> tuple[str, Any] | None:
    kinds = (kind,) if kind else ("chassis", *PART_KINDS)
    for name in kinds:
        spec = snapshot.kind(name).get(sku)
        if spec is not None:
            return name, spec
    return None


def creation_checked(*, customer: User, created_by: User, discount_percent: Decimal | int | str) -> Decimal:
    """The discount a new quote may carry, after the checks every quote's creation makes (a server's and a
    cluster's): 0..100 %, the creator's right to make it with that discount, and a customer to make it for."""
    discount = Decimal(str(discount_percent))
    if not Decimal(0) <= discount <= Decimal(100):
        raise InvalidInput("The discount must be between 0 and 100 %.", fields={"discount_percent": ["0..100"]})
    if not (decision := quote_create_permission(user=created_by, customer_id=customer.pk, discount_percent=discount)):
        raise decision.error()
    if customer.pk != created_by.pk and not customer.in_group(CUSTOMERS):
        raise InvalidInput(
            "Quotes are made for customers only; this user is not a customer.",
            fields={"customer": ["not a member of the customers group"]},
        )
    return discount
