"""Pieces every quote service uses: the event row, the one status transition, the row lock, lines and totals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from accounts.models import User
from configurator.engine.builds import PART_KINDS
from configurator.engine.types import CatalogSnapshot
from quotes.models import Quote, QuoteEvent, QuoteEventType, QuoteLine, QuoteStatus
from quotes.policy import transition_decision
from quotes.pricing import LineDraft, Totals

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


def lines_save(quote: Quote, drafts: Sequence[LineDraft]) -> None:
    QuoteLine.objects.bulk_create(
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
        )
        for position, d in enumerate(drafts, start=1)
    )


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
