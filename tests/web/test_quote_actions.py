"""`quotes.actions.quote_allowed_actions` offers exactly what `quotes.services` would do.

For every status a quote can be in and every role (owner, another customer's view is 404 so not here,
the sales engineer who made it, another sales engineer), each action is tried through its service inside
a transaction that is rolled back: the page offers the button if and only if the service succeeds.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from configurator.engine.errors import DomainError
from quotes import services
from quotes.actions import ACTIONS, quote_allowed_actions
from quotes.models import Quote
from tests.builds import GOOD_BUILD
from tests.web.conftest import build

pytestmark = pytest.mark.django_db


class _Rollback(Exception):
    pass


def _service_allows(action: str, quote: Quote, user: User) -> bool:
    call: dict[str, Callable[..., Any]] = {
        "submit": services.quote_submit,
        "approve": services.quote_approve,
        "send": services.quote_send,
        "revise": services.quote_revise,
        "refresh_prices": services.quote_refresh_prices,
        "accept": services.quote_accept,
        "reject": services.quote_reject,
    }
    try:
        with transaction.atomic():
            call[action](quote=Quote.objects.get(pk=quote.pk), user=user)
            raise _Rollback
    except _Rollback:
        return True
    except DomainError:
        return False


def _states(customer: User, maker: User, other_sales: User) -> dict[str, Quote]:
    def new(discount: str = "0") -> Quote:
        return services.quote_create(
            customer=customer, created_by=maker, payload=build(GOOD_BUILD), discount_percent=Decimal(discount)
        )

    quotes: dict[str, Quote] = {"draft": new(), "draft_big_discount": new("15")}
    pending = new("15")
    quotes["pending_approval"] = services.quote_submit(quote=pending, user=maker)
    approved = services.quote_submit(quote=new("15"), user=maker)
    quotes["approved"] = services.quote_approve(quote=approved, user=other_sales)
    quotes["sent"] = services.quote_send(quote=new(), user=maker)
    expired_by_date = services.quote_send(quote=new(), user=maker)
    Quote.objects.filter(pk=expired_by_date.pk).update(valid_until=timezone.now() - timedelta(minutes=1))
    quotes["sent_past_validity"] = expired_by_date
    quotes["accepted"] = services.quote_accept(quote=services.quote_send(quote=new(), user=maker), user=customer)
    quotes["rejected"] = services.quote_reject(quote=services.quote_send(quote=new(), user=maker), user=customer)
    old = services.quote_send(quote=new(), user=maker)
    services.quote_revise(quote=old, user=maker)
    quotes["superseded"] = old
    return {state: Quote.objects.get(pk=quote.pk) for state, quote in quotes.items()}


def test_the_buttons_match_the_services_for_every_status_and_role(catalog: None) -> None:
    from tests import factories

    customer = factories.customer(username="alice")
    maker = factories.sales(username="sam")
    other_sales = factories.sales(username="lena")
    quotes = _states(customer, maker, other_sales)
    mismatches = []
    for state, quote in quotes.items():
        for user in (customer, maker, other_sales):
            fresh = Quote.objects.get(pk=quote.pk)
            offered = quote_allowed_actions(quote=fresh, user=user)
            for action in ACTIONS:
                allowed = _service_allows(action, fresh, user)
                if (action in offered) != allowed:
                    mismatches.append((state, user.username, action, "offered" if action in offered else "hidden"))
    assert mismatches == []


def test_some_known_answers(catalog: None) -> None:
    from tests import factories

    customer = factories.customer(username="alice")
    maker = factories.sales(username="sam")
    other_sales = factories.sales(username="lena")
    quotes = _states(customer, maker, other_sales)
    assert quote_allowed_actions(quote=quotes["draft"], user=customer) == {"submit", "refresh_prices"}
    assert quote_allowed_actions(quote=quotes["draft_big_discount"], user=maker) == {"submit", "refresh_prices"}
    assert quote_allowed_actions(quote=quotes["pending_approval"], user=maker) == {"revise"}
    assert quote_allowed_actions(quote=quotes["pending_approval"], user=other_sales) == {"approve", "revise"}
    assert quote_allowed_actions(quote=quotes["sent"], user=customer) == {"accept", "reject"}
    assert quote_allowed_actions(quote=quotes["sent_past_validity"], user=customer) == frozenset()
    assert quote_allowed_actions(quote=quotes["superseded"], user=maker) == frozenset()
