"""Which actions a user may take on a quote now: the buttons of the quote page.

The answer is `quotes.policy` (the same one the services and the API act on), so a page never offers a
button that would only be refused; `tests/web/test_quote_actions.py` checks it against the services for
every status and role.
"""

from __future__ import annotations

from accounts.models import User
from quotes.models import Quote
from quotes.policy import ACTIONS, quote_actions

__all__ = ["ACTIONS", "quote_allowed_actions"]


def quote_allowed_actions(*, quote: Quote, user: User) -> frozenset[str]:
    """The subset of ACTIONS that `user` may take on `quote` in its current state."""
    return frozenset(quote_actions(user, quote))
