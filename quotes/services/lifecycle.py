"""A quote's life after it is made: submit, approve, send, accept, reject, expire, revise, refresh prices.

Each action is one transaction on the locked row: `quotes.policy` says whether this user may do it to the
quote as it is now (and raises its refusal: Forbidden or Conflict), `transition` checks the status table
and writes the event.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from catalog.specs import catalog_snapshot
from configurator.engine.errors import Conflict, ErrorCode, InvalidInput
from finance.vat import vat_percent_on
from quotes.models import Quote, QuoteEventType, QuoteLine, QuoteStatus
from quotes.policy import quote_discount_permission, quote_require
from quotes.pricing import SERVICE_KIND, LineDraft, line_draft, line_total, unit_price
from quotes.services._shared import (
    PRICE_FIELDS,
    TOTAL_FIELDS,
    event_add,
    lines_build,
    lines_price,
    locked,
    spec_find,
    totals_dict,
    transition,
)
from quotes.services.notify import quote_email_if_due
from quotes.services.render import render_mark_pending, render_queue_on_commit
from quotes.services.terms import quote_terms, service_terms_of_lines

S = QuoteStatus
E = QuoteEventType


def end_of_validity(day: Any) -> datetime:
    """The last instant of `day` in the seller's time zone (settings.TIME_ZONE)."""
    return datetime.combine(day, time.max, tzinfo=ZoneInfo(settings.TIME_ZONE))


def _sign_off(quote: Quote, user: User, action: str, to: str, signer_field: str) -> Quote:
    """One step of the approval path: the policy's check, the transition with the discount, the signer."""
    with transaction.atomic():
        quote = locked(quote)
        quote_require(user, quote, action)
        transition(quote, to, user=user, data={"discount_percent": str(quote.discount_percent)})
        setattr(quote, signer_field, user)
        quote.save(update_fields=[signer_field, "updated_at"])
    return quote


def quote_submit(*, quote: Quote, user: User) -> Quote:
    """draft → pending_approval: ask another sales engineer to approve (needed above the discount limit)."""
    return _sign_off(quote, user, "submit", S.PENDING_APPROVAL, "submitted_by")


def quote_approve(*, quote: Quote, user: User) -> Quote:
    """pending_approval → approved, by a sales engineer other than the one who made or submitted it."""
    return _sign_off(quote, user, "approve", S.APPROVED, "approved_by")


def quote_send(*, quote: Quote, user: User) -> Quote:
    """draft (within the discount limit) or approved → sent. Only the latest revision. Validity runs to the
    end of today + QUOTE_VALIDITY_DAYS in the seller's time zone. The PDF is made again, so the document the
    customer gets says the validity as a date (the draft's said "N days from the date it is sent"), and the
    customer is e-mailed with it once that render finishes."""
    with transaction.atomic():
        quote = locked(quote)
        quote_require(user, quote, "send")
        now = timezone.now()
        valid_until = end_of_validity(timezone.localdate(now) + timedelta(days=settings.QUOTE_VALIDITY_DAYS))
        transition(quote, S.SENT, user=user, data={"valid_until": valid_until.isoformat()})
        quote.sent_at = now
        quote.valid_until = valid_until
        quote.save(update_fields=["sent_at", "valid_until", "updated_at"])
        render_mark_pending(quote)
        quote_id = quote.pk
        transaction.on_commit(lambda: quote_email_if_due(quote_id=quote_id), robust=True)
    return quote


def quote_accept(*, quote: Quote, user: User) -> Quote:
    with transaction.atomic():
        quote = locked(quote)
        quote_require(user, quote, "accept")
        transition(quote, S.ACCEPTED, user=user)
    return quote


def quote_reject(*, quote: Quote, user: User, reason: str = "") -> Quote:
    with transaction.atomic():
        quote = locked(quote)
        quote_require(user, quote, "reject")
        transition(quote, S.REJECTED, user=user, data={"reason": reason[:1000]})
    return quote


def quotes_expire(*, now: datetime | None = None) -> list[int]:
    """sent → expired for every quote past the end of its validity day. Returns the ids expired."""
    now = now or timezone.now()
    expired: list[int] = []
    for quote_id in Quote.objects.filter(status=S.SENT, valid_until__lt=now).values_list("pk", flat=True):
        with transaction.atomic():
            quote = Quote.objects.select_for_update().get(pk=quote_id)
            if quote.status != S.SENT or quote.valid_until is None or quote.valid_until >= now:
                continue
            transition(quote, S.EXPIRED, user=None, data={"valid_until": quote.valid_until.isoformat()})
            expired.append(quote_id)
    return expired


# --------------------------------------------------------------------------- revisions and prices


def _revised_line(line: QuoteLine, discount: Decimal) -> LineDraft:
    """A line of the revision before, copied: hardware at the new discount from its copied list price; a service
    line as it was sold (its copied price or percentage), priced by `lines_price`, never discounted."""
    service = line.kind == SERVICE_KIND
    line_discount = Decimal(0) if service else discount
    return LineDraft(
        kind=line.kind,
        sku=line.sku,
        name=line.name,
        name_ru=line.name_ru,
        spec_summary=line.spec_summary,
        spec_summary_ru=line.spec_summary_ru,
        qty=line.qty,
        list_price=line.list_price,
        discount_percent=line_discount,
        unit_price=unit_price(line.list_price, line_discount),
        line_total=line_total(line.list_price, line.qty, line_discount),
        optional=line.optional,
        service_percent=line.service_percent,
        section=line.section,
    )


def quote_revise(*, quote: Quote, user: User, discount_percent: Decimal | int | str | None = None) -> Quote:
    """A new draft revision with the same number and copied lines; the old revision becomes superseded.
    `discount_percent` (optional) changes the discount of the new revision and re-prices its hardware lines
    from their copied list prices (not from the catalog: use refresh-prices for that); its service lines keep
    what was sold (a fixed price, or a percentage) and are priced by `lines_price` on the new hardware total,
    undiscounted.

    A revision is a new offer made today: its VAT rate is the one in force on its own date (the seller's
    today, finance.vat.vat_percent_on), not the earlier revision's — a revision made on 01.01.2026 of a quote
    of 31.12.2025 charges 22 %, not 20 % — and its terms are made afresh (`quote_terms`) with that rate,
    in QUOTE_LANGUAGE: the earlier text states the earlier rate, so hand edits of it are not carried over
    (a draft's terms may be edited again in the admin)."""
    with transaction.atomic():
        old = locked(quote)
        quote_require(user, old, "revise")
        discount = old.discount_percent if discount_percent is None else Decimal(str(discount_percent))
        if not Decimal(0) <= discount <= Decimal(100):
            raise InvalidInput("The discount must be between 0 and 100 %.", fields={"discount_percent": ["0..100"]})
        transition(old, S.SUPERSEDED, user=user, data={"by_revision": old.revision + 1})
        vat_percent = vat_percent_on(timezone.localdate())
        service_skus = [line.sku for line in old.lines.all() if line.kind == SERVICE_KIND]
        new = Quote(
            number=old.number,
            revision=old.revision + 1,
            owner_id=old.owner_id,
            created_by=user,
            status=S.DRAFT,
            currency=old.currency,
            vat_percent=vat_percent,
            discount_percent=discount,
            terms=quote_terms(
                vat_percent=vat_percent,
                validity_days=settings.QUOTE_VALIDITY_DAYS,
                services=service_terms_of_lines(service_skus),
            ),
            build_payload=old.build_payload,
            verdict=old.verdict,
            saved_build_id=old.saved_build_id,
        )
        lines = lines_build(new, [_revised_line(line, discount) for line in old.lines.all()])
        lines_price(new, lines)
        new.save()
        QuoteLine.objects.bulk_create(lines)
        event_add(
            new,
            E.REVISED,
            user=user,
            data={
                "from_revision": old.revision,
                "discount_percent": str(discount),
                "vat_percent": str(vat_percent),
                "totals": totals_dict(new),
            },
        )
        render_queue_on_commit(new.pk)
    return new


def quote_refresh_prices(*, quote: Quote, user: User) -> Quote:
    """Re-price a draft from the current catalog (list price, name and spec summary of every hardware line) and
    record old and new prices; its service lines keep what was sold and are priced again by `lines_price` on
    the new hardware total (a percentage service follows it). Issued quotes are never re-priced: they keep what
    the customer was sent."""
    snapshot = catalog_snapshot()
    with transaction.atomic():
        quote = locked(quote)
        quote_require(user, quote, "refresh_prices")
        if "cluster" in (quote.build_payload or {}):  # its parts are designed, not looked up line by line
            raise Conflict(
                "A cluster quote is re-priced by making it again from its cluster request.",
                fields={"quote": ["cluster quote: make a new one from the cluster card or API"]},
            )
        lines = list(quote.lines.all())
        unavailable: dict[str, list[str]] = {}
        changes: list[dict[str, Any]] = []
        old_totals = totals_dict(quote)
        for line in lines:
            if line.kind == SERVICE_KIND:  # services are not catalog parts: lines_price prices them below
                continue
            found = spec_find(snapshot, line.sku, line.kind)
            if found is None or not found[1].is_active:
                unavailable[f"lines[{line.position}].sku"] = [f"{line.sku} is no longer sold"]
                continue
            spec = found[1]
            new = line_draft(line.kind, spec, line.qty, quote.discount_percent, optional=line.optional)
            if (new.list_price, new.name, new.name_ru, new.spec_summary, new.spec_summary_ru) != (
                line.list_price,
                line.name,
                line.name_ru,
                line.spec_summary,
                line.spec_summary_ru,
            ):
                changes.append(
                    {"sku": line.sku, "old": str(line.list_price), "new": str(new.list_price), "qty": line.qty}
                )
            line.name, line.name_ru, line.spec_summary, line.spec_summary_ru, line.list_price = (
                new.name,
                new.name_ru,
                new.spec_summary,
                new.spec_summary_ru,
                new.list_price,
            )
            line.discount_percent, line.unit_price, line.line_total = (
                new.discount_percent,
                new.unit_price,
                new.line_total,
            )
        if unavailable:
            raise Conflict(
                "Some parts of the quote are no longer sold; revise the build.",
                code=ErrorCode.SKU_UNAVAILABLE,
                fields=unavailable,
            )
        services_before = {line.pk: line.unit_price for line in lines if line.kind == SERVICE_KIND}
        changes += [
            {"sku": line.sku, "old": str(services_before[line.pk]), "new": str(line.unit_price), "qty": line.qty}
            for line in lines_price(quote, lines)
        ]
        QuoteLine.objects.bulk_update(lines, ["name", "name_ru", "spec_summary", "spec_summary_ru", *PRICE_FIELDS])
        quote.save(update_fields=[*TOTAL_FIELDS, "updated_at"])
        event_add(
            quote,
            E.PRICES_REFRESHED,
            user=user,
            data={
                "lines": changes,
                "totals": {"old": old_totals, "new": totals_dict(quote)},
                "catalog_version": snapshot.version,
            },
        )
        if changes:
            render_mark_pending(quote)
    return quote


def quote_discount_set(*, quote: Quote, user: User, discount_percent: Decimal | int | str) -> Quote:
    """Change a draft's discount in place (no new revision: nothing was issued yet), re-price its hardware lines
    from their copied list prices and then its service lines on the new hardware total (`lines_price`: a
    percentage service follows the discounted hardware, no service is discounted). Above the sales limit the
    draft then needs approval before it is sent."""
    discount = Decimal(str(discount_percent))
    with transaction.atomic():
        quote = locked(quote)
        decision = quote_discount_permission(user, quote, discount)
        if not decision:
            raise decision.error()
        old = quote.discount_percent
        lines = list(quote.lines.all())
        for line in lines:
            if line.kind != SERVICE_KIND:
                line.discount_percent = discount
                line.unit_price = unit_price(line.list_price, discount)
                line.line_total = line_total(line.list_price, line.qty, discount)
        quote.discount_percent = discount
        lines_price(quote, lines)
        QuoteLine.objects.bulk_update(lines, PRICE_FIELDS)
        quote.save(update_fields=["discount_percent", *TOTAL_FIELDS, "updated_at"])
        event_add(
            quote,
            E.DISCOUNT_CHANGED,
            user=user,
            data={"discount_percent": {"old": str(old), "new": str(discount)}, "totals": totals_dict(quote)},
        )
        render_mark_pending(quote)
    return quote


def quote_terms_set(*, quote: Quote, user: User, terms: str) -> Quote:
    """Change the terms of a quote not yet issued (the admin's one editable field), as a service: a
    `terms_changed` event with the old and new text, the PDF made again, and a quote awaiting or past
    approval back to draft (issue 38: terms edited after approval changed what the approver had vouched
    for, with no event, and the customer's PDF kept the old terms). The change's author then counts as
    having set the terms (quotes.policy.approver_conflict). An issued quote's terms never change here."""
    with transaction.atomic():
        quote = locked(quote)
        if quote.is_issued:
            raise Conflict(
                f"Quote {quote.label} is {quote.status}: its terms are fixed; make a new revision.",
                code=ErrorCode.INVALID_TRANSITION,
            )
        old = quote.terms
        if terms == old:
            return quote
        quote.terms = terms
        fields = ["terms", "updated_at"]
        back_to_draft = quote.status in (S.PENDING_APPROVAL, S.APPROVED)
        from_status = quote.status
        if back_to_draft:
            quote.status, quote.approved_by, quote.submitted_by = S.DRAFT, None, None
            fields += ["status", "approved_by", "submitted_by"]
        quote.save(update_fields=fields)
        event_add(quote, E.TERMS_CHANGED, user=user, data={"terms": {"old": old[:2000], "new": terms[:2000]}})
        if back_to_draft:
            reason = "the terms changed after approval" if from_status == S.APPROVED else "the terms changed"
            event_add(quote, E.STATUS_CHANGED, user=user, data={"from": from_status, "to": S.DRAFT, "reason": reason})
        render_mark_pending(quote)
    return quote
