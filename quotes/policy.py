"""May this user do this action to this quote now, and if not, why: the one answer for the services, the
API and the pages.

`quote_permission(user, quote, action)` runs the checks of one action in the order the services always
ran them (who you are, then the revision, then the quote's state) and answers a `Decision`: allowed, or
the stable code and the message of the first check that failed. `quote_actions(user, quote)` lists the
allowed ones (the buttons of the quote page); `quote_require(user, quote, action)` raises the refusal as
the matching `ApplicationError` (Forbidden or Conflict). The status table itself stays in
`quotes.models.TRANSITIONS`; the services check it again when they move the quote.

`quote_create_permission` answers the same question for making a quote, which has no quote yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from accounts.models import User
from configurator.engine.errors import ApplicationError, Conflict, ErrorCode, Forbidden, InvalidInput
from quotes.models import Quote, QuoteEventType, QuoteStatus, can_transition

S = QuoteStatus

#: Every action on an existing quote, in the order the quote page shows them.
ACTIONS: tuple[str, ...] = ("submit", "approve", "send", "revise", "refresh_prices", "accept", "reject")
SALES_ACTIONS = frozenset({"approve", "send", "revise"})
CUSTOMER_ACTIONS = frozenset({"accept", "reject"})
#: The status each action moves the (latest) quote to.
TARGETS: dict[str, str] = {
    "submit": S.PENDING_APPROVAL,
    "approve": S.APPROVED,
    "send": S.SENT,
    "revise": S.SUPERSEDED,
    "accept": S.ACCEPTED,
    "reject": S.REJECTED,
}
#: How the services' messages name an action ("Only sales engineers may <verb> a quote.").
VERBS: dict[str, str] = {"refresh_prices": "refresh the prices of"}


class InvalidTransition(Conflict):
    """The status table (or the quote's state) does not allow this move; the message names from and to."""

    default_code = ErrorCode.INVALID_TRANSITION


@dataclass(frozen=True, slots=True)
class Decision:
    """`allowed`, or why not: a stable `code` (an ErrorCode), a `reason` a person can read, the `fields`
    at fault and the `kind` of error a refusal raises."""

    allowed: bool
    code: str = ""
    reason: str = ""
    fields: dict[str, list[str]] = field(default_factory=dict)
    kind: type[ApplicationError] = ApplicationError

    def __bool__(self) -> bool:
        return self.allowed

    def error(self) -> ApplicationError:
        """The refusal as the error the services raise."""
        return self.kind(self.reason, code=self.code, fields=self.fields)


ALLOWED = Decision(allowed=True)


def _forbidden(reason: str, code: str = ErrorCode.FORBIDDEN) -> Decision:
    return Decision(False, str(code), reason, kind=Forbidden)


def _conflict(reason: str, code: str, fields: dict[str, list[str]] | None = None) -> Decision:
    return Decision(False, str(code), reason, dict(fields or {}), kind=Conflict)


def _invalid_transition(reason: str, fields: dict[str, list[str]]) -> Decision:
    return Decision(False, ErrorCode.INVALID_TRANSITION, reason, fields, kind=InvalidTransition)


def transition_decision(quote: Quote, to: str) -> Decision:
    """Whether TRANSITIONS lets `quote` go to `to`, with the message the services have always given."""
    if can_transition(quote.status, to):
        return ALLOWED
    return _invalid_transition(
        f"Quote {quote.label} cannot go from {quote.status} to {to}.",
        {"status": [f"{quote.status} → {to} is not allowed"]},
    )


def is_latest(quote: Quote) -> bool:
    """Whether no later revision of the quote's number exists (read from the `latest_revision`
    annotation of `quotes.selectors` when there is one, so a list page asks no query per quote)."""
    latest = getattr(quote, "latest_revision", None)
    if latest is not None:
        return bool(quote.revision == latest)
    return not Quote.objects.filter(number=quote.number, revision__gt=quote.revision).exists()


def latest_decision(quote: Quote) -> Decision:
    if is_latest(quote):
        return ALLOWED
    latest = Quote.objects.filter(number=quote.number).aggregate(m=Max("revision"))["m"]
    return _conflict(
        f"Quote {quote.label} is not the latest revision (R{latest} is); act on the latest one.",
        ErrorCode.NOT_LATEST_REVISION,
    )


def _sales(user: User, action: str) -> Decision:
    return ALLOWED if user.is_sales else _forbidden(f"Only sales engineers may {action} a quote.")


def _submit(user: User, quote: Quote) -> Decision:
    """A sales engineer, or the quote's own customer (asking sales to check and send their draft)."""
    if not user.is_sales and quote.owner_id != user.pk:
        return _forbidden("Only sales engineers or the quote's customer may submit a quote.")
    return latest_decision(quote)


#: Events that set what an approval vouches for: the discount, or the quote's terms (an edit after approval).
TERMS_SETTING_EVENTS = (QuoteEventType.DISCOUNT_CHANGED, QuoteEventType.TERMS_CHANGED)


def last_terms_setter_id(quote: Quote) -> int | None:
    """Who last set the discount or the terms of `quote` (its latest such event's user), else None: the
    creator set them (a discount given at creation or in a revision is the revision's creator's)."""
    return (
        quote.events.filter(type__in=TERMS_SETTING_EVENTS, user__isnull=False)
        .order_by("-created_at", "-id")
        .values_list("user_id", flat=True)
        .first()
    )


def approver_conflict(user: User, quote: Quote) -> str:
    """Why `user` may not approve `quote` under four eyes ("" when they may): the approver is neither its
    creator, its submitter nor whoever last set its discount or terms (issue 38: the sales engineer who set a
    60 % discount approved it himself once the customer submitted)."""
    if user.pk == quote.created_by_id:
        return "A quote must be approved by someone other than who made it."
    if user.pk == quote.submitted_by_id:
        return "A quote must be approved by someone other than who submitted it."
    if user.pk == last_terms_setter_id(quote):
        return "A quote must be approved by someone other than who last set its discount or terms."
    return ""


def _approve(user: User, quote: Quote) -> Decision:
    if reason := approver_conflict(user, quote):
        return _forbidden(reason, ErrorCode.APPROVER_MUST_DIFFER)
    return latest_decision(quote)


def _send(quote: Quote) -> Decision:
    if not (decision := latest_decision(quote)):
        return decision
    if quote.status == S.DRAFT and quote.needs_approval:
        return _conflict(
            f"A discount of {quote.discount_percent} % is above the limit of "
            f"{settings.SALES_DISCOUNT_LIMIT_PERCENT} %: submit the quote for approval first.",
            ErrorCode.APPROVAL_REQUIRED,
        )
    return ALLOWED


def _customer_decision(user: User, quote: Quote, action: str) -> Decision:
    """accept / reject: the customer's own, open, latest and still valid quote."""
    if quote.owner_id != user.pk:
        return _forbidden(f"Only the customer may {action} the quote.")
    if quote.status in (S.EXPIRED, S.SUPERSEDED):
        return _invalid_transition(
            f"Quote {quote.label} is {quote.status} and can no longer be {action}ed.",
            {"status": [f"{quote.status} → {action}ed is not allowed"]},
        )
    if not (decision := latest_decision(quote)):
        return decision
    if quote.status == S.SENT and quote.valid_until is not None and timezone.now() > quote.valid_until:
        return _conflict(
            f"Quote {quote.label} expired at the end of {timezone.localtime(quote.valid_until):%d.%m.%Y}.",
            ErrorCode.QUOTE_EXPIRED,
        )
    return ALLOWED


def _refresh_prices(user: User, quote: Quote) -> Decision:
    if quote.owner_id != user.pk and not user.is_sales:
        return _forbidden("You may not refresh the prices of this quote.")
    if quote.status != S.DRAFT:
        return _invalid_transition(
            f"Only a draft can be re-priced; quote {quote.label} is {quote.status}.",
            {"status": [f"{quote.status}: prices are fixed"]},
        )
    return ALLOWED


def quote_permission(user: User, quote: Quote, action: str) -> Decision:
    """May `user` do `action` (one of ACTIONS) to `quote` as it is now, and if not, why."""
    if action not in ACTIONS:
        raise ValueError(f"unknown quote action {action!r}")
    if action == "refresh_prices":
        return _refresh_prices(user, quote)
    if action in CUSTOMER_ACTIONS:
        decision = _customer_decision(user, quote, action)
    elif action == "submit":
        decision = _submit(user, quote)
    elif not (decision := _sales(user, action)):
        return decision
    elif action == "approve":
        decision = _approve(user, quote)
    elif action == "send":
        decision = _send(quote)
    else:  # revise
        decision = latest_decision(quote)
    return decision if not decision else transition_decision(quote, TARGETS[action])


def quote_actions(user: User, quote: Quote) -> list[str]:
    """The actions `user` may take on `quote` now, in ACTIONS order (none on an earlier revision)."""
    if not is_latest(quote):
        return []
    return [action for action in ACTIONS if quote_permission(user, quote, action)]


def quote_require(user: User, quote: Quote, action: str) -> None:
    """Raise the refusal (Forbidden or Conflict) unless `user` may do `action` to `quote` now."""
    decision = quote_permission(user, quote, action)
    if not decision:
        raise decision.error()


def quote_create_permission(*, user: User, customer_id: int, discount_percent: Decimal = Decimal(0)) -> Decision:
    """May `user` make a quote for the customer `customer_id` with this discount: for another customer, or
    with a discount, only sales engineers may."""
    if customer_id != user.pk and not user.is_sales:
        return _forbidden("Only sales engineers may make a quote for another customer.")
    if discount_percent and not user.is_sales:
        return _forbidden("Only sales engineers may give a discount.", ErrorCode.DISCOUNT_NOT_ALLOWED)
    return ALLOWED


def quote_discount_permission(user: User, quote: Quote, discount_percent: Decimal) -> Decision:
    """May `user` set the discount of `quote` to `discount_percent` now: a sales engineer, on the latest revision
    while it is a draft. Up to SALES_DISCOUNT_LIMIT_PERCENT the draft can be sent as it is; above it the quote must
    be submitted for approval first (`_send` says so), as with a discount given when the quote was made."""
    if not user.is_sales:
        return _forbidden("Only sales engineers may give a discount.", ErrorCode.DISCOUNT_NOT_ALLOWED)
    if not (decision := latest_decision(quote)):
        return decision
    if quote.status != S.DRAFT:
        return _invalid_transition(
            f"Only a draft's discount can be changed; quote {quote.label} is {quote.status}: make a new revision.",
            {"status": [f"{quote.status}: the discount is fixed"]},
        )
    if not Decimal(0) <= discount_percent <= Decimal(100):
        return Decision(
            False,
            ErrorCode.INVALID,
            "The discount must be between 0 and 100 %.",
            {"discount_percent": ["0..100"]},
            kind=InvalidInput,
        )
    return ALLOWED


#: The user's next step on a quote, by (status, role): a key of quotes.labels.NEXT_STEPS.
def quote_next_step(user: User, quote: Quote) -> str:
    """What `user` does next with `quote` (or waits for), as a stable key the page words."""
    if not is_latest(quote) or quote.status == S.SUPERSEDED:
        return "open_latest"
    is_customer = quote.owner_id == user.pk and not user.is_sales
    steps: dict[str, tuple[str, str]] = {  # status: (customer's step, sales engineer's step)
        S.DRAFT: ("customer_submit", "sales_submit" if quote.needs_approval else "sales_send"),
        S.PENDING_APPROVAL: ("customer_wait_approval", "sales_approve"),
        S.APPROVED: ("customer_wait_send", "sales_send"),
        S.SENT: ("customer_accept", "sales_wait_customer"),
        S.ACCEPTED: ("customer_order", "sales_order"),
        S.REJECTED: ("customer_ask_revision", "sales_revise"),
        S.EXPIRED: ("customer_ask_revision", "sales_revise"),
    }
    customer_step, sales_step = steps.get(quote.status, ("", ""))
    if not is_customer and quote.status == S.PENDING_APPROVAL and approver_conflict(user, quote):
        return "sales_wait_approval"
    return customer_step if is_customer else sales_step
