"""Translated words for quote statuses, render states and history events on the web pages.

The model's choice labels are English and belong to the admin and the API; the pages use these.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

STATUS_LABELS: dict[str, Promise] = {
    "draft": _("Draft"),
    "pending_approval": _("Awaiting approval"),
    "approved": _("Approved"),
    "sent": _("Sent"),
    "accepted": _("Accepted"),
    "rejected": _("Rejected"),
    "expired": _("Expired"),
    "superseded": _("Superseded"),
}

RENDER_LABELS: dict[str, Promise] = {
    "pending": _("Queued"),
    "generating": _("Rendering"),
    "ready": _("Ready"),
    "failed": _("Failed, will be retried"),
}

EVENT_LABELS: dict[str, Promise] = {
    "created": _("Quote created"),
    "status_changed": _("Status changed"),
    "revised": _("New revision"),
    "prices_refreshed": _("Prices refreshed"),
    "pdf_ready": _("PDF ready"),
    "pdf_failed": _("PDF rendering failed"),
    "render_requeued": _("PDF rendering queued again"),
    "emailed": _("E-mailed to the customer"),
    "email_failed": _("E-mail failed"),
    "discount_changed": _("Discount changed"),
}

#: The user's next step on a quote (quotes.policy.quote_next_step), shown above the actions.
NEXT_STEPS: dict[str, Promise] = {
    "customer_submit": _("Next step: submit the quote for approval. A sales engineer checks it and sends it to you."),
    "sales_submit": _(
        "Next step: submit for approval. The discount is above your limit, so another sales engineer approves it."
    ),
    "sales_send": _("Next step: send the quote to the customer."),
    "customer_wait_approval": _("The quote is with a sales engineer for approval; you will get it by e-mail."),
    "sales_approve": _("Next step: check the quote and approve it."),
    "sales_wait_approval": _("Waiting for another sales engineer to approve the quote."),
    "customer_wait_send": _("The quote is approved; a sales engineer sends it to you shortly."),
    "customer_accept": _("Next step: accept the quote (or reject it) while it is valid."),
    "sales_wait_customer": _("Waiting for the customer to accept the quote."),
    "customer_order": _(
        "Next step: the order. A sales engineer places it from this quote and tells you the ship date."
    ),
    "sales_order": _("Next step: place the order from this quote."),
    "customer_ask_revision": _("Ask your sales engineer for a new revision of the quote."),
    "sales_revise": _("Next step: make a new revision to offer the quote again."),
    "open_latest": _("This revision is closed; open the latest revision."),
}

ACTION_LABELS: dict[str, Promise] = {
    "submit": _("Submit for approval"),
    "approve": _("Approve"),
    "send": _("Send to the customer"),
    "revise": _("Make a new revision"),
    "accept": _("Accept the quote"),
    "reject": _("Reject the quote"),
    "refresh_prices": _("Refresh prices"),
}

ACTION_DONE: dict[str, Promise] = {
    "submit": _("The quote was submitted for approval."),
    "approve": _("The quote was approved."),
    "send": _("The quote was sent to the customer."),
    "revise": _("A new revision was made."),
    "accept": _("You accepted the quote."),
    "reject": _("You rejected the quote."),
    "refresh_prices": _("The prices were refreshed from the catalog."),
}

#: Messages for the domain's error codes (configurator.engine.errors, quotes.services); others show their own text.
ERROR_MESSAGES: dict[str, Promise] = {
    "forbidden": _("You are not allowed to do this."),
    "discount_not_allowed": _("Only sales engineers may give a discount."),
    "approver_must_differ": _("Another sales engineer must approve this quote."),
    "invalid_transition": _("The quote cannot do this in its current status."),
    "approval_required": _("The discount is above the limit: submit the quote for approval first."),
    "not_latest_revision": _("This is not the latest revision; open the latest one."),
    "quote_expired": _("The quote has expired."),
    "sku_unavailable": _("Some parts are no longer sold; revise the build."),
    "build_invalid": _("The build has errors: fix them before asking for a quote."),
    "warnings_not_acknowledged": _("The build has warnings: tick “I have read the warnings” to ask for a quote."),
    "not_found": _("Not found."),
    "invalid": _("The input is not valid."),
    "idempotency_mismatch": _(
        "This quote request was already sent with other contents; reload the page and try again."
    ),
}
