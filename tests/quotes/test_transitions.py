"""The status machine: every allowed and forbidden transition of quotes.models.TRANSITIONS through the
services, approval by another user, revisions, and expiry at the end of the validity day."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.utils import timezone

from accounts.models import User
from config.api import error_status
from configurator.engine.errors import ConflictError, DomainError
from quotes import services
from quotes.models import TRANSITIONS, Quote, QuoteEvent, QuoteStatus, can_transition

S = QuoteStatus
MSK = ZoneInfo("Europe/Moscow")

# action → the status it moves a quote to
ACTIONS: dict[str, str] = {
    "submit": S.PENDING_APPROVAL,
    "approve": S.APPROVED,
    "send": S.SENT,
    "accept": S.ACCEPTED,
    "reject": S.REJECTED,
    "revise": S.SUPERSEDED,
    "expire": S.EXPIRED,
}


def test_the_table_is_the_documented_machine() -> None:
    assert {
        S.DRAFT: {S.PENDING_APPROVAL, S.SENT},
        S.PENDING_APPROVAL: {S.APPROVED, S.SUPERSEDED},
        S.APPROVED: {S.SENT, S.SUPERSEDED},
        S.SENT: {S.ACCEPTED, S.REJECTED, S.EXPIRED, S.SUPERSEDED},
        S.ACCEPTED: set(),
        S.REJECTED: {S.SUPERSEDED},
        S.EXPIRED: {S.SUPERSEDED},
        S.SUPERSEDED: set(),
    } == TRANSITIONS
    assert set(TRANSITIONS) == set(S.values)
    assert not can_transition(S.DRAFT, S.APPROVED)
    assert can_transition(S.SENT, S.EXPIRED)


def _run(action: str, quote: Quote, *, customer: User, maker: User, approver: User) -> Any:
    if action == "submit":
        return services.quote_submit(quote=quote, user=maker)
    if action == "approve":
        return services.quote_approve(quote=quote, user=approver)
    if action == "send":
        return services.quote_send(quote=quote, user=maker)
    if action == "accept":
        return services.quote_accept(quote=quote, user=customer)
    if action == "reject":
        return services.quote_reject(quote=quote, user=customer, reason="too expensive")
    if action == "revise":
        return services.quote_revise(quote=quote, user=maker)
    if action == "expire":
        return services.quotes_expire(now=timezone.now() + timedelta(days=400))
    raise AssertionError(action)


@pytest.mark.django_db
@pytest.mark.parametrize("action", list(ACTIONS))
@pytest.mark.parametrize("start", list(S.values))
def test_every_action_from_every_status_follows_the_table(
    make_quote: Callable[..., Quote],
    customer_user: User,
    sales_user: User,
    sales_lead: User,
    start: str,
    action: str,
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user)
    Quote.objects.filter(pk=quote.pk).update(
        status=start, valid_until=timezone.now() + timedelta(days=3), submitted_by=sales_user
    )
    quote.refresh_from_db()
    events_before = QuoteEvent.objects.filter(quote=quote).count()
    target = ACTIONS[action]

    if can_transition(start, target):
        result = _run(action, quote, customer=customer_user, maker=sales_user, approver=sales_lead)
        quote.refresh_from_db()
        assert quote.status == target
        change = QuoteEvent.objects.filter(quote=quote, type="status_changed").last()
        assert change is not None and change.data["from"] == start and change.data["to"] == target
        if action == "revise":
            assert result.revision == 2 and result.status == S.DRAFT
        if action == "expire":
            assert result == [quote.pk]
    elif action == "expire":
        assert _run(action, quote, customer=customer_user, maker=sales_user, approver=sales_lead) == []
        quote.refresh_from_db()
        assert quote.status == start
        assert QuoteEvent.objects.filter(quote=quote).count() == events_before
    else:
        with pytest.raises(ConflictError) as caught:
            _run(action, quote, customer=customer_user, maker=sales_user, approver=sales_lead)
        assert caught.value.code == "invalid_transition"
        assert start in caught.value.message
        assert error_status(caught.value) == 409
        quote.refresh_from_db()
        assert quote.status == start
        assert QuoteEvent.objects.filter(quote=quote).count() == events_before
        assert Quote.objects.count() == 1


@pytest.mark.django_db
def test_invalid_transition_names_from_and_to(make_quote: Callable[..., Quote], sales_lead: User) -> None:
    quote = make_quote()
    with pytest.raises(ConflictError) as caught:
        services.quote_approve(quote=quote, user=sales_lead)
    assert caught.value.message == f"Quote {quote.number} R1 cannot go from draft to approved."
    assert caught.value.fields == {"status": ["draft → approved is not allowed"]}


@pytest.mark.django_db
def test_a_discount_above_the_limit_needs_approval_by_another_sales_user(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, sales_lead: User, settings: Any
) -> None:
    settings.SALES_DISCOUNT_LIMIT_PERCENT = Decimal("10")
    quote = make_quote(customer=customer_user, created_by=sales_user, discount_percent=15)
    assert quote.needs_approval

    with pytest.raises(ConflictError) as caught:
        services.quote_send(quote=quote, user=sales_user)
    assert caught.value.code == "approval_required"

    services.quote_submit(quote=quote, user=sales_user)
    with pytest.raises(DomainError) as denied:
        services.quote_approve(quote=quote, user=sales_user)
    assert (denied.value.code, error_status(denied.value)) == ("approver_must_differ", 403)
    with pytest.raises(DomainError) as denied:
        services.quote_approve(quote=quote, user=customer_user)
    assert (denied.value.code, error_status(denied.value)) == ("forbidden", 403)
    quote.refresh_from_db()
    assert quote.status == S.PENDING_APPROVAL and quote.approved_by is None

    services.quote_approve(quote=quote, user=sales_lead)
    quote.refresh_from_db()
    assert (quote.status, quote.approved_by, quote.submitted_by) == (S.APPROVED, sales_lead, sales_user)
    services.quote_send(quote=quote, user=sales_user)
    quote.refresh_from_db()
    assert quote.status == S.SENT


@pytest.mark.django_db
def test_within_the_limit_a_draft_is_sent_directly(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user, discount_percent=10)
    assert not quote.needs_approval
    services.quote_send(quote=quote, user=sales_user)
    quote.refresh_from_db()
    assert quote.status == S.SENT and quote.sent_at is not None


@pytest.mark.django_db
def test_customers_cannot_send_or_approve_and_sales_cannot_accept_for_the_customer(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, other_customer: User
) -> None:
    quote = make_quote()
    for call in (services.quote_send, services.quote_revise):  # submitting their own draft is allowed (issue 16)
        with pytest.raises(DomainError) as denied:
            call(quote=quote, user=customer_user)
        assert error_status(denied.value) == 403
    services.quote_send(quote=quote, user=sales_user)
    for user in (sales_user, other_customer):
        with pytest.raises(DomainError) as denied:
            services.quote_accept(quote=quote, user=user)
        assert error_status(denied.value) == 403
    quote.refresh_from_db()
    assert quote.status == S.SENT


@pytest.mark.django_db
def test_revise_makes_the_next_revision_with_the_same_number_and_copied_lines(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    r1 = make_quote(customer=customer_user, created_by=sales_user)
    services.quote_send(quote=r1, user=sales_user)
    r2 = services.quote_revise(quote=r1, user=sales_user, discount_percent=5)
    r1.refresh_from_db()
    assert (r1.status, r2.status) == (S.SUPERSEDED, S.DRAFT)
    assert (r2.number, r2.revision) == (r1.number, 2)
    assert r2.owner == customer_user
    old_lines = list(r1.lines.values_list("sku", "qty", "list_price", "optional"))
    assert list(r2.lines.values_list("sku", "qty", "list_price", "optional")) == old_lines
    assert all(line.discount_percent == Decimal("5.00") for line in r2.lines.all())
    assert r2.net_total < r1.net_total
    assert QuoteEvent.objects.filter(quote=r2, type="revised").get().data["from_revision"] == 1

    # only the latest revision may be sent, revised or accepted
    with pytest.raises(ConflictError) as caught:
        services.quote_revise(quote=r1, user=sales_user)
    assert caught.value.code == "not_latest_revision"
    with pytest.raises(ConflictError):
        services.quote_accept(quote=r1, user=customer_user)

    services.quote_send(quote=r2, user=sales_user)
    r3 = services.quote_revise(quote=r2, user=sales_user)
    assert r3.revision == 3
    r2.refresh_from_db()
    Quote.objects.filter(pk=r2.pk).update(status=S.SENT)  # as if a stale client still held R2 as sent
    with pytest.raises(ConflictError) as caught:
        services.quote_send(quote=r2, user=sales_user)
    assert caught.value.code in {"not_latest_revision", "invalid_transition"}
    with pytest.raises(ConflictError) as caught:
        services.quote_accept(quote=r2, user=customer_user)
    assert caught.value.code == "not_latest_revision"
    assert Quote.objects.filter(number=r1.number).count() == 3


@pytest.mark.django_db
def test_expiry_at_the_end_of_the_validity_day_in_moscow(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, settings: Any
) -> None:
    settings.QUOTE_VALIDITY_DAYS = 14
    quote = make_quote(customer=customer_user, created_by=sales_user)
    with time_machine.travel(datetime(2026, 3, 10, 23, 30, tzinfo=MSK), tick=False):
        services.quote_send(quote=quote, user=sales_user)  # 20:30 UTC, already the 10th in Moscow
    quote.refresh_from_db()
    assert timezone.localtime(quote.valid_until, MSK) == datetime(2026, 3, 24, 23, 59, 59, 999999, tzinfo=MSK)

    with time_machine.travel(datetime(2026, 3, 24, 23, 59, 59, tzinfo=MSK), tick=False):
        assert services.quotes_expire() == []
        quote.refresh_from_db()
        assert quote.status == S.SENT
    with time_machine.travel(datetime(2026, 3, 25, 0, 0, 1, tzinfo=MSK), tick=False):
        with pytest.raises(ConflictError) as caught:  # before the daily job ran
            services.quote_accept(quote=quote, user=customer_user)
        assert caught.value.code == "quote_expired"
        assert services.quotes_expire() == [quote.pk]
        assert services.quotes_expire() == []
    quote.refresh_from_db()
    assert quote.status == S.EXPIRED
    event = QuoteEvent.objects.filter(quote=quote, type="status_changed").last()
    assert event is not None and (event.data["from"], event.data["to"], event.user) == ("sent", "expired", None)
    with pytest.raises(ConflictError) as caught:
        services.quote_accept(quote=quote, user=customer_user)
    assert caught.value.code == "invalid_transition"


@pytest.mark.django_db
def test_accept_on_the_last_valid_day(make_quote: Callable[..., Quote], customer_user: User, sales_user: User) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user)
    with time_machine.travel(datetime(2026, 3, 10, 9, 0, tzinfo=MSK), tick=False):
        services.quote_send(quote=quote, user=sales_user)
    with time_machine.travel(datetime(2026, 3, 24, 23, 59, tzinfo=MSK), tick=False):
        services.quote_accept(quote=quote, user=customer_user)
    quote.refresh_from_db()
    assert quote.status == S.ACCEPTED


@pytest.mark.django_db
def test_events_are_append_only(make_quote: Callable[..., Quote]) -> None:
    from quotes.models import AppendOnlyError

    quote = make_quote()
    event = QuoteEvent.objects.filter(quote=quote).first()
    assert event is not None and event.type == "created"
    event.data = {"changed": True}
    with pytest.raises(AppendOnlyError):
        event.save()
    with pytest.raises(AppendOnlyError):
        event.delete()
    with pytest.raises(AppendOnlyError):
        QuoteEvent.objects.filter(quote=quote).update(data={})
    with pytest.raises(AppendOnlyError):
        QuoteEvent.objects.filter(quote=quote).delete()
    assert QuoteEvent.objects.get(pk=event.pk).data != {"changed": True}
