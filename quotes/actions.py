"""Which actions a user may take on a quote now: the buttons of the quote page.

The services in `quotes.services` are the authority — they check the same conditions again and refuse
anything not allowed — but a page must not offer a button that would only be refused. This selector
states those conditions once, from the same pieces the services use (`TRANSITIONS` via
`can_transition`, `User.is_sales`, ownership, the latest revision, the discount limit, the validity date),
and `tests/web/test_quote_actions.py` checks it against the services for every status and role.
"""

from __future__ import annotations

from django.utils import timezone

from accounts.models import User
from quotes.models import Quote, QuoteStatus, can_transition

S = QuoteStatus
ACTIONS: tuple[str, ...] = ("submit", "approve", "send", "revise", "refresh_prices", "accept", "reject")


def _is_latest(quote: Quote) -> bool:
    latest = getattr(quote, "latest_revision", None)
    if latest is not None:
        return bool(quote.revision == latest)
    return not Quote.objects.filter(number=quote.number, revision__gt=quote.revision).exists()


def quote_allowed_actions(*, quote: Quote, user: User) -> frozenset[str]:
    """The subset of ACTIONS that `user` may take on `quote` in its current state."""
    if not _is_latest(quote):
        return frozenset()
    allowed: set[str] = set()
    status = quote.status
    if user.is_sales:
        if can_transition(status, S.PENDING_APPROVAL):
            allowed.add("submit")
        if can_transition(status, S.APPROVED) and user.pk not in (quote.created_by_id, quote.submitted_by_id):
            allowed.add("approve")
        if can_transition(status, S.SENT) and not (status == S.DRAFT and quote.needs_approval):
            allowed.add("send")
        if can_transition(status, S.SUPERSEDED):
            allowed.add("revise")
    if status == S.DRAFT and (user.is_sales or quote.owner_id == user.pk):
        allowed.add("refresh_prices")
    if quote.owner_id == user.pk and status == S.SENT:
        expired = quote.valid_until is not None and timezone.now() > quote.valid_until
        if not expired:
            if can_transition(status, S.ACCEPTED):
                allowed.add("accept")
            if can_transition(status, S.REJECTED):
                allowed.add("reject")
    return frozenset(allowed)
