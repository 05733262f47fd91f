"""`quotes.policy`: who may do what to a quote in which status, and why not.

The quotes are made through the services (as in `tests/web/test_quote_actions.py`): one per status, all
for the customer `alice`, made and submitted by the sales engineer `sam`; `lena` is another sales engineer
(she approves), `bob` another customer (the pages and the API answer him 404 before asking the policy;
the policy itself refuses him).
"""

from __future__ import annotations

import copy
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from accounts.models import User
from configurator.engine.errors import Conflict, Forbidden
from quotes import services
from quotes.models import Quote
from quotes.policy import (
    ACTIONS,
    InvalidTransition,
    quote_actions,
    quote_create_permission,
    quote_permission,
    quote_require,
)
from tests import factories
from tests.builds import GOOD_BUILD

pytestmark = pytest.mark.django_db

OK = "allowed"
FORBIDDEN, DIFFER, DISCOUNT = "forbidden", "approver_must_differ", "discount_not_allowed"
TRANSITION, LATEST, APPROVAL, EXPIRED = (
    "invalid_transition",
    "not_latest_revision",
    "approval_required",
    "quote_expired",
)

#: (user, status, action) → allowed, or the code of the refusal.
TABLE: list[tuple[str, str, str, str]] = [
    # the customer
    ("alice", "draft", "refresh_prices", OK),
    ("alice", "draft", "submit", OK),  # a customer submits their own draft (issue 16)
    ("alice", "draft", "send", FORBIDDEN),
    ("alice", "draft", "revise", FORBIDDEN),
    ("alice", "draft", "accept", TRANSITION),
    ("alice", "sent", "accept", OK),
    ("alice", "sent", "reject", OK),
    ("alice", "sent", "refresh_prices", TRANSITION),
    ("alice", "sent_past_validity", "accept", EXPIRED),
    ("alice", "sent_past_validity", "reject", EXPIRED),
    ("alice", "accepted", "reject", TRANSITION),
    ("alice", "superseded", "accept", TRANSITION),
    # another customer
    ("bob", "draft", "refresh_prices", FORBIDDEN),
    ("bob", "sent", "accept", FORBIDDEN),
    ("bob", "sent", "reject", FORBIDDEN),
    ("bob", "draft", "submit", FORBIDDEN),
    # the sales engineer who made (and submitted) the quotes
    ("sam", "draft", "submit", OK),
    ("sam", "draft", "send", OK),
    ("sam", "draft", "refresh_prices", OK),
    ("sam", "draft", "approve", DIFFER),
    ("sam", "draft", "revise", TRANSITION),
    ("sam", "draft", "accept", FORBIDDEN),
    ("sam", "draft_big_discount", "send", APPROVAL),
    ("sam", "draft_big_discount", "submit", OK),
    ("sam", "pending_approval", "approve", DIFFER),
    ("sam", "pending_approval", "revise", OK),
    ("sam", "pending_approval", "send", TRANSITION),
    ("sam", "approved", "send", OK),
    ("sam", "sent", "revise", OK),
    ("sam", "sent", "send", TRANSITION),
    ("sam", "sent", "accept", FORBIDDEN),
    ("sam", "rejected", "revise", OK),
    ("sam", "accepted", "revise", TRANSITION),
    ("sam", "superseded", "send", LATEST),
    ("sam", "superseded", "revise", LATEST),
    ("sam", "superseded", "refresh_prices", TRANSITION),
    # another sales engineer
    ("lena", "pending_approval", "approve", OK),
    ("lena", "draft", "approve", TRANSITION),
    ("lena", "approved", "approve", TRANSITION),
    ("lena", "draft", "refresh_prices", OK),
    ("lena", "sent", "reject", FORBIDDEN),
    ("lena", "superseded", "approve", LATEST),
]

#: (user, status) → every action offered; the rest of the grid offers nothing.
OFFERED: dict[tuple[str, str], set[str]] = {
    ("alice", "draft"): {"submit", "refresh_prices"},
    ("alice", "draft_big_discount"): {"submit", "refresh_prices"},
    ("alice", "sent"): {"accept", "reject"},
    ("sam", "draft"): {"submit", "send", "refresh_prices"},
    ("sam", "draft_big_discount"): {"submit", "refresh_prices"},
    ("sam", "pending_approval"): {"revise"},
    ("sam", "approved"): {"send", "revise"},
    ("sam", "sent"): {"revise"},
    ("sam", "sent_past_validity"): {"revise"},
    ("sam", "rejected"): {"revise"},
    ("lena", "draft"): {"submit", "send", "refresh_prices"},
    ("lena", "draft_big_discount"): {"submit", "refresh_prices"},
    ("lena", "pending_approval"): {"approve", "revise"},
    ("lena", "approved"): {"send", "revise"},
    ("lena", "sent"): {"revise"},
    ("lena", "sent_past_validity"): {"revise"},
    ("lena", "rejected"): {"revise"},
}
STATES = (
    "draft",
    "draft_big_discount",
    "pending_approval",
    "approved",
    "sent",
    "sent_past_validity",
    "accepted",
    "rejected",
    "superseded",
)


@pytest.fixture
def world(catalog: None) -> tuple[dict[str, User], dict[str, Quote]]:
    users = {
        "alice": factories.customer(username="alice"),
        "bob": factories.customer(username="bob"),
        "sam": factories.sales(username="sam"),
        "lena": factories.sales(username="lena"),
    }
    alice, sam, lena = users["alice"], users["sam"], users["lena"]

    def new(discount: str = "0") -> Quote:
        return services.quote_create(
            customer=alice, created_by=sam, payload=copy.deepcopy(GOOD_BUILD), discount_percent=Decimal(discount)
        )

    quotes = {"draft": new(), "draft_big_discount": new("15")}
    quotes["pending_approval"] = services.quote_submit(quote=new("15"), user=sam)
    quotes["approved"] = services.quote_approve(quote=services.quote_submit(quote=new("15"), user=sam), user=lena)
    quotes["sent"] = services.quote_send(quote=new(), user=sam)
    past = services.quote_send(quote=new(), user=sam)
    Quote.objects.filter(pk=past.pk).update(valid_until=timezone.now() - timedelta(minutes=1))
    quotes["sent_past_validity"] = past
    quotes["accepted"] = services.quote_accept(quote=services.quote_send(quote=new(), user=sam), user=alice)
    quotes["rejected"] = services.quote_reject(quote=services.quote_send(quote=new(), user=sam), user=alice)
    old = services.quote_send(quote=new(), user=sam)
    services.quote_revise(quote=old, user=sam)
    quotes["superseded"] = old
    return users, {state: Quote.objects.get(pk=quote.pk) for state, quote in quotes.items()}


def test_the_table_of_user_status_and_action(world: tuple[dict[str, User], dict[str, Quote]]) -> None:
    users, quotes = world
    answers = [
        (user, state, action, quote_permission(users[user], quotes[state], action).code or OK)
        for user, state, action, _expected in TABLE
    ]
    assert answers == TABLE
    for user, state, action, expected in TABLE:
        decision = quote_permission(users[user], quotes[state], action)
        assert decision.allowed is (expected == OK)
        assert bool(decision.reason) is (expected != OK), (user, state, action)


def test_the_offered_actions_of_every_user_and_status(world: tuple[dict[str, User], dict[str, Quote]]) -> None:
    users, quotes = world
    offered = {(user, state): set(quote_actions(users[user], quotes[state])) for user in users for state in STATES}
    assert {key: value for key, value in offered.items() if value} == OFFERED
    # the order is the page's
    assert quote_actions(users["sam"], quotes["draft"]) == ["submit", "send", "refresh_prices"]


def test_the_reasons_are_the_services_messages(world: tuple[dict[str, User], dict[str, Quote]]) -> None:
    users, quotes = world
    assert quote_permission(users["bob"], quotes["draft"], "submit").reason == (
        "Only sales engineers or the quote's customer may submit a quote."
    )
    assert quote_permission(users["bob"], quotes["sent"], "accept").reason == "Only the customer may accept the quote."
    assert quote_permission(users["bob"], quotes["draft"], "refresh_prices").reason == (
        "You may not refresh the prices of this quote."
    )
    superseded = quotes["superseded"]
    assert quote_permission(users["sam"], superseded, "send").reason == (
        f"Quote {superseded.label} is not the latest revision (R2 is); act on the latest one."
    )
    refused = quote_permission(users["alice"], quotes["accepted"], "reject")
    assert refused.fields == {"status": ["accepted → rejected is not allowed"]}


def test_a_refusal_raises_its_kind_and_the_services_raise_the_same(
    world: tuple[dict[str, User], dict[str, Quote]],
) -> None:
    users, quotes = world
    with pytest.raises(Forbidden) as forbidden:
        quote_require(users["alice"], quotes["draft"], "send")
    assert forbidden.value.code == "forbidden"
    with pytest.raises(InvalidTransition) as transition:
        quote_require(users["alice"], quotes["accepted"], "reject")
    assert isinstance(transition.value, Conflict)
    for user, state, action, expected in TABLE:
        if expected == OK:
            continue
        service = getattr(services, "quote_refresh_prices" if action == "refresh_prices" else f"quote_{action}")
        with pytest.raises((Forbidden, Conflict)) as raised:
            service(quote=quotes[state], user=users[user])
        assert raised.value.code == expected, (user, state, action)


def test_unknown_actions_are_a_programming_error(world: tuple[dict[str, User], dict[str, Quote]]) -> None:
    users, quotes = world
    assert "delete" not in ACTIONS
    with pytest.raises(ValueError, match="delete"):
        quote_permission(users["sam"], quotes["draft"], "delete")


def test_making_a_quote(db: None) -> None:
    alice, bob, sam = factories.customer(username="alice"), factories.customer(username="bob"), factories.sales()
    assert quote_create_permission(user=alice, customer_id=alice.pk).allowed
    assert quote_create_permission(user=sam, customer_id=alice.pk, discount_percent=Decimal(15)).allowed
    for_other = quote_create_permission(user=alice, customer_id=bob.pk)
    assert (for_other.allowed, for_other.code, for_other.kind) == (False, "forbidden", Forbidden)
    assert for_other.reason == "Only sales engineers may make a quote for another customer."
    discount = quote_create_permission(user=alice, customer_id=alice.pk, discount_percent=Decimal(1))
    assert (discount.allowed, discount.code) == (False, "discount_not_allowed")
