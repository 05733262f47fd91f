"""Quote numbers: `Q-<year>-<6 digits>` from a database sequence (PostgreSQL) or a locked counter row (SQLite)."""

from __future__ import annotations

from django.db import connection
from django.db.models import F
from django.utils import timezone

from quotes.models import QuoteCounter

QUOTE_NUMBER_SEQUENCE = "quotes_quote_number_seq"  # made by migration 0002 on PostgreSQL
QUOTE_COUNTER_NAME = "quote_number"


def quote_number_next() -> str:
    """`Q-<year>-<6 digits>` from the database sequence (PostgreSQL) or the counter row (SQLite).

    Runs inside the creating transaction: a sequence value is never handed out twice, even when the
    transaction rolls back (a gap, never a reuse); the SQLite counter's UPDATE takes the write lock, so
    concurrent creators queue behind it.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT nextval(%s)", [QUOTE_NUMBER_SEQUENCE])
            value = int(cursor.fetchone()[0])
    else:
        if not QuoteCounter.objects.filter(name=QUOTE_COUNTER_NAME).update(value=F("value") + 1):
            QuoteCounter.objects.create(name=QUOTE_COUNTER_NAME, value=1)
        value = QuoteCounter.objects.get(name=QUOTE_COUNTER_NAME).value
    return f"Q-{timezone.localdate().year}-{value:06d}"
