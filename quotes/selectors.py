"""Selectors: which quotes a user may see. Customers see their own, sales see all (404 otherwise)."""

from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery
from django.http import Http404

from accounts.models import User
from quotes.models import Quote, QuoteEventType


def quote_visible(*, user: User) -> QuerySet[Quote]:
    latest = Quote.objects.filter(number=OuterRef("number")).order_by("-revision").values("revision")[:1]
    queryset = Quote.objects.select_related("owner", "created_by").annotate(latest_revision=Subquery(latest))
    return queryset if user.is_sales else queryset.filter(owner=user)


def quote_list(*, user: User, status: str | None = None, latest_only: bool = False) -> QuerySet[Quote]:
    queryset = quote_visible(user=user)
    if status:
        queryset = queryset.filter(status=status)
    if latest_only:
        queryset = queryset.filter(
            revision=Subquery(
                Quote.objects.filter(number=OuterRef("number")).order_by("-revision").values("revision")[:1]
            )
        )
    return queryset.order_by("-created_at", "-id")


def quote_get(*, user: User, number: str, revision: int | None = None) -> Quote:
    """The latest revision of `number` (or the one asked for) if the user may see it; else Http404."""
    queryset = quote_visible(user=user).filter(number=number)
    if revision is not None:
        queryset = queryset.filter(revision=revision)
    quote = queryset.order_by("-revision").first()
    if quote is None:
        raise Http404(f"No quote {number}" + (f" R{revision}" if revision else "") + ".")
    return quote


def quote_revisions(*, quote: Quote) -> list[int]:
    return list(Quote.objects.filter(number=quote.number).order_by("revision").values_list("revision", flat=True))


def quote_request_note(quote: Quote) -> dict[str, str] | None:
    """The customer's own request (name, company, contact, comment) kept with the quote's `created` event."""
    event = quote.events.filter(type=QuoteEventType.CREATED).order_by("pk").first()
    note = (event.data or {}).get("request") if event is not None else None
    return {str(k): str(v) for k, v in note.items()} if isinstance(note, dict) else None
