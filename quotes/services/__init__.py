"""Services that write quotes, by concern. Keyword-only, each in one transaction, each writing a QuoteEvent.

* `create` — a draft quote (R1) from a build body or a saved build;
* `lifecycle` — submit, approve, send, accept, reject, expire, revise, refresh prices;
* `render` — the PDF: queue, claim, store, release, sweep lost renders;
* `notify` — the e-mail to the customer;
* `numbering` — `Q-<year>-<6 digits>`.

Who may do what is `quotes.policy`; status changes go through `_shared.transition`, which checks
`quotes.models.TRANSITIONS` (the one table) and writes the event. Errors are `ApplicationError` kinds with
stable codes (configurator.engine.errors); the API turns them into the envelope:

* invalid input (400): `build_invalid` (the build has error findings), `warnings_not_acknowledged`, `invalid`;
* forbidden (403): `forbidden` (the user lacks the right), `discount_not_allowed`, `approver_must_differ`;
* not found (404): `not_found`;
* conflict (409): `invalid_transition` (names from/to), `approval_required`, `not_latest_revision`,
  `quote_expired`, `sku_unavailable`, `pdf_not_ready`.

Callers import the services from here (`from quotes import services`).
"""

from quotes.policy import InvalidTransition
from quotes.services.create import quote_create
from quotes.services.lifecycle import (
    end_of_validity,
    quote_accept,
    quote_approve,
    quote_discount_set,
    quote_refresh_prices,
    quote_reject,
    quote_revise,
    quote_send,
    quote_submit,
    quote_terms_set,
    quotes_expire,
)
from quotes.services.notify import quote_email_if_due
from quotes.services.numbering import quote_number_next
from quotes.services.render import (
    RENDER_LOST_AFTER,
    RENDER_MAX_ATTEMPTS,
    RENDER_STUCK_AFTER,
    RENDER_UNQUEUED_GRACE,
    SweepReport,
    quote_pdf_open,
    quote_pdf_render,
    quote_render_claim,
    quote_render_enqueue,
    quote_render_failed,
    quote_render_release,
    quotes_sweep_stuck,
)
from quotes.services.terms import quote_terms

__all__ = [
    "RENDER_LOST_AFTER",
    "RENDER_MAX_ATTEMPTS",
    "RENDER_STUCK_AFTER",
    "RENDER_UNQUEUED_GRACE",
    "InvalidTransition",
    "SweepReport",
    "end_of_validity",
    "quote_accept",
    "quote_approve",
    "quote_create",
    "quote_discount_set",
    "quote_email_if_due",
    "quote_number_next",
    "quote_pdf_open",
    "quote_pdf_render",
    "quote_refresh_prices",
    "quote_reject",
    "quote_render_claim",
    "quote_render_enqueue",
    "quote_render_failed",
    "quote_render_release",
    "quote_revise",
    "quote_send",
    "quote_submit",
    "quote_terms",
    "quote_terms_set",
    "quotes_expire",
    "quotes_sweep_stuck",
]
