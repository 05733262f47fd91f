"""Quote numbers: `Q-<year>-<6 digits>` from a database sequence (PostgreSQL) or a locked counter row (SQLite)."""

from __future__ import annotations

from django.db import connection
from django.db.models import F
from django.utils import timezone

from quotes.models import QuoteCounter

QUOTE_NUMBER_SEQUENCE = "quotes_quote_number_seq"  # made by migration 0002 on PostgreSQL
QUOTE_COUNTER_NAME = "quote_number"


def document_number_next(*, prefix: str, sequence: str, counter: str) -> str:
    """`<prefix>-<year>-<6 digits>` from the database sequence `sequence` (PostgreSQL) or the counter row
    `counter` (SQLite); quotes and orders draw their numbers here.

    Runs inside the creating transaction: a sequence value is never handed out twice, even when the
    transaction rolls back (a gap, never a reuse); the SQLite counter's UPDATE takes the write lock, so
    concurrent creators queue behind it.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT nextval(%s)", [sequence])
            value = int(cursor.fetchone()[0])
    else:
        if not QuoteCounter.objects.filter(name=counter).update(value=F("value") + 1):
            QuoteCounter.objects.create(name=counter, value=1)
        value = QuoteCounter.objects.get(name=counter).value
    return f"{prefix}-{timezone.localdate().year}-{value:06d}"


def quote_number_next() -> str:
    """`Q-<year>-<6 digits>` (document_number_next)."""
    return document_number_next(prefix="Q", sequence=QUOTE_NUMBER_SEQUENCE, counter=QUOTE_COUNTER_NAME)
