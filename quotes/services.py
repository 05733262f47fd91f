"""Services that write quotes. Keyword-only, each in one transaction, each writing a QuoteEvent.

Views, the admin and Celery tasks call these and stay thin. Status changes go through `_transition`,
which checks `quotes.models.TRANSITIONS` (the one table) and writes the event. Errors are
`configurator.engine.errors.DomainError` subclasses with stable codes; the API turns them into the envelope:

* 400 `build_invalid` (the build has error findings), `warnings_not_acknowledged`, `invalid`;
* 403 `forbidden` (the user lacks the right), `approver_must_differ`;
* 409 `invalid_transition` (names from/to), `approval_required`, `not_latest_revision`, `quote_expired`,
  `sku_unavailable`, `pdf_not_ready`.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.mail import EmailMessage
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Max, Q
from django.utils import timezone
from kombu.exceptions import KombuError
from redis.exceptions import RedisError

from accounts.models import User
from catalog.specs import catalog_snapshot
from configurator.engine.builds import PART_KINDS, build_lines, build_to_payload
from configurator.engine.errors import ConflictError, DomainError
from configurator.engine.types import CatalogSnapshot, Finding
from configurator.models import SavedBuild
from configurator.outputs import stored_verdict_data
from configurator.services import build_validate
from quotes.models import (
    Quote,
    QuoteCounter,
    QuoteEvent,
    QuoteEventType,
    QuoteLine,
    QuoteStatus,
    RenderStatus,
    can_transition,
)
from quotes.pricing import LineDraft, Totals, line_draft, line_total, totals, unit_price

logger = logging.getLogger(__name__)

S = QuoteStatus
E = QuoteEventType

QUOTE_NUMBER_SEQUENCE = "quotes_quote_number_seq"  # made by migration 0002 on PostgreSQL
QUOTE_COUNTER_NAME = "quote_number"
RENDER_STUCK_AFTER = timedelta(minutes=5)  # longer than the render task's hard time limit
RENDER_UNQUEUED_GRACE = timedelta(seconds=20)  # a pending quote not handed to the broker after this is swept
RENDER_MAX_ATTEMPTS = 5  # failed renders are re-queued by the sweep until this many attempts
#: Publishing a task must not hold a request for long when the broker is down: two quick retries,
#: then the quote stays `pending` and the sweep re-queues it.
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
BROKER_ERRORS: tuple[type[BaseException], ...] = (KombuError, RedisError, OSError)

DEFAULT_TERMS = (
    "Цены указаны в рублях и включают НДС {vat} %.\n"
    "Предложение действительно {days} дней с даты отправки; после этого цены и наличие уточняются.\n"
    "Оплата: 100 % предоплата по счёту. Срок поставки — по согласованию после оплаты.\n"
    "В стоимость входят сборка, установка ОС по запросу и 72-часовое нагрузочное тестирование.\n"
    "Гарантия: 36 месяцев на сборку, на комплектующие — гарантия производителя.\n"
    "Предложение не является публичной офертой."
)


class InvalidTransition(ConflictError):
    code = "invalid_transition"


def _forbidden(message: str, code: str = "forbidden") -> DomainError:
    return DomainError(message, code=code, http_status=403)


# --------------------------------------------------------------------------- helpers


def _event(quote: Quote, type_: str, *, user: User | None = None, data: Mapping[str, Any] | None = None) -> None:
    QuoteEvent.objects.create(quote=quote, type=type_, user=user, data=dict(data or {}))


def _transition(quote: Quote, to: str, *, user: User | None, data: Mapping[str, Any] | None = None) -> None:
    """Move `quote` (locked by the caller) to `to` if the table allows it, and record the event."""
    from_status = quote.status
    if not can_transition(from_status, to):
        raise InvalidTransition(
            f"Quote {quote.label} cannot go from {from_status} to {to}.",
            fields={"status": [f"{from_status} → {to} is not allowed"]},
        )
    quote.status = to
    quote.save(update_fields=["status", "updated_at"])
    _event(quote, E.STATUS_CHANGED, user=user, data={"from": from_status, "to": to, **(data or {})})


def _locked(quote: Quote) -> Quote:
    """The quote's current row, locked until the transaction ends (PostgreSQL; SQLite locks on write)."""
    return Quote.objects.select_for_update().get(pk=quote.pk)


def _is_latest(quote: Quote) -> bool:
    return not Quote.objects.filter(number=quote.number, revision__gt=quote.revision).exists()


def _require_latest(quote: Quote) -> None:
    if not _is_latest(quote):
        latest = Quote.objects.filter(number=quote.number).aggregate(m=Max("revision"))["m"]
        raise ConflictError(
            f"Quote {quote.label} is not the latest revision (R{latest} is); act on the latest one.",
            code="not_latest_revision",
        )


def _require_sales(user: User, action: str) -> None:
    if not user.is_sales:
        raise _forbidden(f"Only sales engineers may {action} a quote.")


def _require_owner_or_sales(quote: Quote, user: User, action: str) -> None:
    if quote.owner_id != user.pk and not user.is_sales:
        raise _forbidden(f"You may not {action} this quote.")


def end_of_validity(day: Any) -> datetime:
    """The last instant of `day` in the seller's time zone (settings.TIME_ZONE)."""
    return datetime.combine(day, time.max, tzinfo=ZoneInfo(settings.TIME_ZONE))


def quote_terms(*, vat_percent: Decimal, validity_days: int) -> str:
    template = getattr(settings, "QUOTE_TERMS", DEFAULT_TERMS)
    return str(template).format(vat=f"{vat_percent.normalize():f}", days=validity_days)


def _next_number() -> str:
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


def _finding_text(finding: Finding) -> str:
    return f"{finding.code}: {finding.message}"


def _save_lines(quote: Quote, drafts: Sequence[LineDraft]) -> None:
    QuoteLine.objects.bulk_create(
        QuoteLine(
            quote=quote,
            position=position,
            kind=d.kind,
            sku=d.sku,
            name=d.name,
            spec_summary=d.spec_summary,
            qty=d.qty,
            list_price=d.list_price,
            discount_percent=d.discount_percent,
            unit_price=d.unit_price,
            line_total=d.line_total,
            optional=d.optional,
        )
        for position, d in enumerate(drafts, start=1)
    )


def _set_totals(quote: Quote, value: Totals) -> None:
    quote.net_total, quote.vat_total, quote.gross_total = value.net, value.vat, value.gross


def _totals_dict(quote: Quote) -> dict[str, str]:
    return {"net": str(quote.net_total), "vat": str(quote.vat_total), "gross": str(quote.gross_total)}


def _find_spec(snapshot: CatalogSnapshot, sku: str, kind: str | None = None) -> tuple[str, Any] | None:
    kinds = (kind,) if kind else ("chassis", *PART_KINDS)
    for name in kinds:
        spec = snapshot.kind(name).get(sku)
        if spec is not None:
            return name, spec
    return None


def _optional_drafts(
    optional_lines: Iterable[Mapping[str, Any]], snapshot: CatalogSnapshot, discount: Decimal
) -> list[LineDraft]:
    drafts: list[LineDraft] = []
    errors: dict[str, list[str]] = {}
    for index, raw in enumerate(optional_lines):
        sku, qty = raw.get("sku"), raw.get("qty", 1)
        found = _find_spec(snapshot, sku) if isinstance(sku, str) else None
        if found is None or not found[1].is_active:
            errors[f"optional_lines[{index}].sku"] = [f"unknown or inactive SKU {sku!r}"]
            continue
        if isinstance(qty, bool) or not isinstance(qty, int) or not 1 <= qty <= 64:
            errors[f"optional_lines[{index}].qty"] = ["must be an integer from 1 to 64"]
            continue
        drafts.append(line_draft(found[0], found[1], qty, discount, optional=True))
    if errors:
        raise DomainError("An optional line is not valid.", fields=errors)
    return drafts


# --------------------------------------------------------------------------- create


def _find_idempotent(created_by: User, key: str) -> Quote | None:
    quote = Quote.objects.filter(created_by=created_by, idempotency_key=key).first()
    if quote is not None:
        quote.replayed = True
    return quote


def quote_create(
    *,
    customer: User,
    created_by: User,
    payload: Mapping[str, Any] | None = None,
    saved_build: SavedBuild | None = None,
    idempotency_key: str | None = None,
    acknowledge_warnings: bool = False,
    discount_percent: Decimal | int | str = 0,
    optional_lines: Iterable[Mapping[str, Any]] = (),
) -> Quote:
    """Make a draft quote (R1) from an inline build body or a saved build.

    Refused with `build_invalid` when the build has error findings and with `warnings_not_acknowledged`
    when it has warnings and `acknowledge_warnings` is false. Prices come from the catalog snapshot of
    this moment and are copied into the lines. With an `idempotency_key`, the same creator and key give
    back the quote made the first time (`quote.replayed` is then true), also under concurrent requests.
    The PDF render is queued when the transaction commits; if the broker is down the quote stays
    `pending` and `quotes_sweep_stuck` queues it later.
    """
    key = (idempotency_key or "").strip() or None
    if key is not None and (existing := _find_idempotent(created_by, key)) is not None:
        return existing

    discount = Decimal(str(discount_percent))
    if not Decimal(0) <= discount <= Decimal(100):
        raise DomainError("The discount must be between 0 and 100 %.", fields={"discount_percent": ["0..100"]})
    if customer.pk != created_by.pk and not created_by.is_sales:
        raise _forbidden("Only sales engineers may make a quote for another customer.")
    if discount and not created_by.is_sales:
        raise _forbidden("Only sales engineers may give a discount.", code="discount_not_allowed")
    if (payload is None) == (saved_build is None):
        raise DomainError("Give either a build or a saved build.", fields={"build": ["give build or saved_build"]})
    if saved_build is not None:
        if saved_build.owner_id not in (customer.pk, created_by.pk) and not created_by.is_sales:
            raise DomainError("Saved build not found.", code="not_found", http_status=404)
        payload = saved_build.payload
    if not isinstance(payload, Mapping):
        raise DomainError("The build must be a JSON object.", fields={"build": ["expected an object"]})

    snapshot = catalog_snapshot()
    try:
        build, verdict, price = build_validate(payload=payload, snapshot=snapshot)
    except DomainError as exc:
        if exc.code == "invalid" or exc.fields:
            exc.fields = {f"build.{name}": reasons for name, reasons in exc.fields.items()}
        raise
    if verdict.errors:
        raise DomainError(
            "The build has errors; fix them before making a quote: "
            + "; ".join(_finding_text(f) for f in verdict.errors),
            code="build_invalid",
            fields={"build": [_finding_text(f) for f in verdict.errors]},
        )
    if verdict.warnings and not acknowledge_warnings:
        raise DomainError(
            "The build has warnings; acknowledge them to make a quote: "
            + "; ".join(_finding_text(f) for f in verdict.warnings),
            code="warnings_not_acknowledged",
            fields={"acknowledge_warnings": [_finding_text(f) for f in verdict.warnings]},
        )

    drafts = [line_draft(kind, spec, qty, discount) for kind, spec, qty in build_lines(build)]
    optional = list(optional_lines)
    if optional:
        drafts += _optional_drafts(optional, snapshot, discount)
    vat_percent = Decimal(settings.QUOTE_VAT_PERCENT)
    quote_totals = totals(((d.line_total, d.optional) for d in drafts), vat_percent)

    try:
        with transaction.atomic():
            quote = Quote(
                number=_next_number(),
                revision=1,
                owner=customer,
                created_by=created_by,
                status=S.DRAFT,
                currency=price.currency,
                vat_percent=vat_percent,
                discount_percent=discount,
                terms=quote_terms(vat_percent=vat_percent, validity_days=settings.QUOTE_VALIDITY_DAYS),
                build_payload={**build_to_payload(build), "workload": payload.get("workload")},
                verdict=stored_verdict_data(verdict),
                saved_build=saved_build,
                idempotency_key=key or "",
            )
            _set_totals(quote, quote_totals)
            quote.save()
            _save_lines(quote, drafts)
            _event(
                quote,
                E.CREATED,
                user=created_by,
                data={
                    "totals": _totals_dict(quote),
                    "discount_percent": str(discount),
                    "acknowledged_warnings": [f.code for f in verdict.warnings],
                    "catalog_version": snapshot.version,
                    "saved_build": saved_build.pk if saved_build else None,
                },
            )
            _queue_render_on_commit(quote.pk)
    except IntegrityError:
        # Another request with the same key won the race; its row is committed now.
        if key is not None and (existing := _find_idempotent(created_by, key)) is not None:
            return existing
        raise
    return quote


# --------------------------------------------------------------------------- rendering


def quote_render_enqueue(*, quote_id: int) -> bool:
    """Hand the render task to the broker. A broker failure is logged, not raised: the quote stays
    `pending` with no `render_queued_at`, and the sweep queues it once the broker answers again."""
    from quotes.tasks import quote_render

    try:
        quote_render.apply_async((quote_id,), retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except BROKER_ERRORS as exc:
        logger.warning("quote %s: render not queued, broker unavailable (%s); the sweep will retry", quote_id, exc)
        return False
    Quote.objects.filter(pk=quote_id).update(render_queued_at=timezone.now())
    return True


def _queue_render_on_commit(quote_id: int) -> None:
    transaction.on_commit(lambda: quote_render_enqueue(quote_id=quote_id), robust=True)


def _mark_render_pending(quote: Quote) -> None:
    """The PDF must be made again (new prices): a running render loses its claim and discards its file."""
    quote.render_status = RenderStatus.PENDING
    quote.render_queued_at = None
    quote.save(update_fields=["render_status", "render_queued_at", "updated_at"])
    _queue_render_on_commit(quote.pk)


def quote_render_claim(*, quote_id: int) -> datetime | None:
    """Claim the render with a conditional UPDATE; the claim time is the token the store step checks.
    None when the quote is not pending/failed (another delivery has it, or it is done)."""
    claimed_at = timezone.now()
    claimed = Quote.objects.filter(pk=quote_id, render_status__in=[RenderStatus.PENDING, RenderStatus.FAILED]).update(
        render_status=RenderStatus.GENERATING,
        render_started_at=claimed_at,
        render_attempts=F("render_attempts") + 1,
        render_error="",
    )
    return claimed_at if claimed == 1 else None


def quote_render_release(*, quote_id: int, claimed_at: datetime, error: str) -> bool:
    """Give a failed claim back (`failed`), so a retry can claim it again."""
    return (
        Quote.objects.filter(pk=quote_id, render_status=RenderStatus.GENERATING, render_started_at=claimed_at).update(
            render_status=RenderStatus.FAILED, render_error=error[:2000]
        )
        == 1
    )


def quote_pdf_render(*, quote_id: int, before_render: Callable[[], None] | None = None) -> bool:
    """Claim, render and store the PDF of one quote. True when this call stored it.

    Idempotent: a second delivery of the same task finds the quote claimed or ready and does nothing;
    a render whose claim was taken away meanwhile (the sweep re-queued it, or prices changed) deletes
    its own file and leaves the row alone.
    """
    from quotes.pdf import render_quote_pdf

    claimed_at = quote_render_claim(quote_id=quote_id)
    if claimed_at is None:
        return False
    try:
        if before_render is not None:
            before_render()
        quote = Quote.objects.select_related("owner", "created_by").get(pk=quote_id)
        pdf_bytes = render_quote_pdf(quote)
        stored = _store_pdf(quote, pdf_bytes, claimed_at)
    except BaseException as exc:
        quote_render_release(quote_id=quote_id, claimed_at=claimed_at, error=repr(exc))
        raise
    if stored:
        quote_email_if_due(quote_id=quote_id)
    return stored


def _store_pdf(quote: Quote, pdf_bytes: bytes, claimed_at: datetime) -> bool:
    storage = quote.pdf.storage
    name = f"quotes/{quote.number}-R{quote.revision}-{quote.render_attempts}.pdf"
    if storage.exists(name):  # left by a render that died between writing the file and committing
        storage.delete(name)
    saved_name = storage.save(name, ContentFile(pdf_bytes))
    sha256 = hashlib.sha256(pdf_bytes).hexdigest()
    with transaction.atomic():
        locked = (
            Quote.objects.select_for_update()
            .filter(pk=quote.pk, render_status=RenderStatus.GENERATING, render_started_at=claimed_at)
            .first()
        )
        if locked is None:
            transaction.on_commit(lambda: storage.delete(saved_name))
            return False
        previous = locked.pdf.name
        locked.pdf.name = saved_name
        locked.pdf_sha256 = sha256
        locked.render_status = RenderStatus.READY
        locked.render_error = ""
        locked.save(update_fields=["pdf", "pdf_sha256", "render_status", "render_error", "updated_at"])
        _event(
            locked,
            E.PDF_READY,
            data={"file": saved_name, "sha256": sha256, "bytes": len(pdf_bytes), "attempt": locked.render_attempts},
        )
        if previous and previous != saved_name:
            transaction.on_commit(lambda: storage.delete(previous))
    return True


def quote_render_failed(*, quote_id: int, error: str) -> None:
    """Called when the task gives up: the quote shows `failed` and the history says why."""
    with transaction.atomic():
        quote = Quote.objects.select_for_update().filter(pk=quote_id).first()
        if quote is None or quote.render_status == RenderStatus.READY:
            return
        if quote.render_status == RenderStatus.GENERATING:
            quote.render_status = RenderStatus.FAILED
        quote.render_error = error[:2000]
        quote.save(update_fields=["render_status", "render_error", "updated_at"])
        _event(quote, E.PDF_FAILED, data={"error": error[:500], "attempts": quote.render_attempts})


@dataclass(frozen=True, slots=True)
class SweepReport:
    requeued: tuple[int, ...]
    emailed: tuple[int, ...]


def quotes_sweep_stuck(
    *, older_than: timedelta = RENDER_STUCK_AFTER, unqueued_grace: timedelta = RENDER_UNQUEUED_GRACE
) -> SweepReport:
    """Re-queue renders that were lost: `generating` for longer than `older_than` (the worker died),
    `pending` but never handed to the broker (it was down) or handed over longer than `older_than` ago
    (the message was lost), and `failed` with attempts left. Also e-mails sent quotes whose e-mail is due.
    """
    now = timezone.now()
    requeued: list[int] = []
    stuck = Quote.objects.filter(render_status=RenderStatus.GENERATING, render_started_at__lt=now - older_than)
    for quote_id, started in stuck.values_list("pk", "render_started_at"):
        with transaction.atomic():
            if not Quote.objects.filter(
                pk=quote_id, render_status=RenderStatus.GENERATING, render_started_at=started
            ).update(render_status=RenderStatus.PENDING, render_queued_at=None):
                continue
            QuoteEvent.objects.create(
                quote_id=quote_id,
                type=E.RENDER_REQUEUED,
                data={"reason": "generating_too_long", "started_at": started.isoformat() if started else None},
            )
        requeued.append(quote_id)
    lost = Quote.objects.filter(render_status=RenderStatus.PENDING).filter(
        Q(render_queued_at__isnull=True, updated_at__lt=now - unqueued_grace) | Q(render_queued_at__lt=now - older_than)
    )
    failed = Quote.objects.filter(
        render_status=RenderStatus.FAILED,
        render_attempts__lt=RENDER_MAX_ATTEMPTS,
        render_started_at__lt=now - older_than,
    )
    for quote_id, reason in [
        *((pk, "not_queued") for pk in lost.exclude(pk__in=requeued).values_list("pk", flat=True)),
        *((pk, "failed_retry") for pk in failed.values_list("pk", flat=True)),
    ]:
        QuoteEvent.objects.create(quote_id=quote_id, type=E.RENDER_REQUEUED, data={"reason": reason})
        requeued.append(quote_id)
    for quote_id in requeued:
        quote_render_enqueue(quote_id=quote_id)

    emailed = [
        quote_id
        for quote_id in Quote.objects.filter(
            status=S.SENT, render_status=RenderStatus.READY, emailed_at__isnull=True, sent_at__lt=now - unqueued_grace
        ).values_list("pk", flat=True)
        if quote_email_if_due(quote_id=quote_id)
    ]
    return SweepReport(requeued=tuple(requeued), emailed=tuple(emailed))


# --------------------------------------------------------------------------- e-mail


def quote_email_if_due(*, quote_id: int) -> bool:
    """E-mail a sent quote to its customer once, with the PDF attached; claimed with a conditional UPDATE
    on `emailed_at` so the send action, the render task and the sweep never e-mail twice."""
    now = timezone.now()
    if not Quote.objects.filter(
        pk=quote_id, status=S.SENT, render_status=RenderStatus.READY, emailed_at__isnull=True
    ).update(emailed_at=now):
        return False
    quote = Quote.objects.select_related("owner").get(pk=quote_id)
    valid_until = timezone.localtime(quote.valid_until).strftime("%d.%m.%Y") if quote.valid_until else "—"
    message = EmailMessage(
        subject=f"Коммерческое предложение {quote.number} (R{quote.revision})",
        body=(
            f"Здравствуйте, {quote.owner.get_full_name() or quote.owner.username}!\n\n"
            f"Направляем коммерческое предложение {quote.number}, редакция R{quote.revision}.\n"
            f"Сумма с НДС: {quote.gross_total} {quote.currency}.\n"
            f"Предложение действительно до {valid_until} включительно.\n"
        ),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[quote.owner.email],
    )
    try:
        with quote.pdf.open("rb") as handle:
            message.attach(f"{quote.number}-R{quote.revision}.pdf", handle.read(), "application/pdf")
        message.send()
    except Exception as exc:
        logger.exception("quote %s: e-mail to the customer failed", quote.label)
        Quote.objects.filter(pk=quote_id, emailed_at=now).update(emailed_at=None)
        QuoteEvent.objects.create(quote_id=quote_id, type=E.EMAIL_FAILED, data={"error": repr(exc)[:500]})
        return False
    QuoteEvent.objects.create(
        quote_id=quote_id, type=E.EMAILED, data={"to": quote.owner.email, "sha256": quote.pdf_sha256}
    )
    return True


# --------------------------------------------------------------------------- status actions


def quote_submit(*, quote: Quote, user: User) -> Quote:
    """draft → pending_approval: ask another sales engineer to approve (needed above the discount limit)."""
    _require_sales(user, "submit")
    with transaction.atomic():
        quote = _locked(quote)
        _require_latest(quote)
        _transition(quote, S.PENDING_APPROVAL, user=user, data={"discount_percent": str(quote.discount_percent)})
        quote.submitted_by = user
        quote.save(update_fields=["submitted_by", "updated_at"])
    return quote


def quote_approve(*, quote: Quote, user: User) -> Quote:
    """pending_approval → approved, by a sales engineer other than the one who made or submitted it."""
    _require_sales(user, "approve")
    with transaction.atomic():
        quote = _locked(quote)
        if user.pk in (quote.created_by_id, quote.submitted_by_id):
            raise _forbidden(
                "A quote must be approved by someone other than who made or submitted it.",
                code="approver_must_differ",
            )
        _require_latest(quote)
        _transition(quote, S.APPROVED, user=user, data={"discount_percent": str(quote.discount_percent)})
        quote.approved_by = user
        quote.save(update_fields=["approved_by", "updated_at"])
    return quote


def quote_send(*, quote: Quote, user: User) -> Quote:
    """draft (within the discount limit) or approved → sent. Only the latest revision. Validity runs to the
    end of today + QUOTE_VALIDITY_DAYS in the seller's time zone. The customer is e-mailed with the PDF
    once it is ready (now, or when the render finishes)."""
    _require_sales(user, "send")
    with transaction.atomic():
        quote = _locked(quote)
        _require_latest(quote)
        if quote.status == S.DRAFT and quote.needs_approval:
            raise ConflictError(
                f"A discount of {quote.discount_percent} % is above the limit of "
                f"{settings.SALES_DISCOUNT_LIMIT_PERCENT} %: submit the quote for approval first.",
                code="approval_required",
            )
        now = timezone.now()
        valid_until = end_of_validity(timezone.localdate(now) + timedelta(days=settings.QUOTE_VALIDITY_DAYS))
        _transition(quote, S.SENT, user=user, data={"valid_until": valid_until.isoformat()})
        quote.sent_at = now
        quote.valid_until = valid_until
        quote.save(update_fields=["sent_at", "valid_until", "updated_at"])
        quote_id = quote.pk
        transaction.on_commit(lambda: quote_email_if_due(quote_id=quote_id), robust=True)
    return quote


def _require_open_for_customer(quote: Quote, user: User, action: str) -> None:
    if quote.owner_id != user.pk:
        raise _forbidden(f"Only the customer may {action} the quote.")
    if quote.status in (S.EXPIRED, S.SUPERSEDED):
        raise InvalidTransition(
            f"Quote {quote.label} is {quote.status} and can no longer be {action}ed.",
            fields={"status": [f"{quote.status} → {action}ed is not allowed"]},
        )
    _require_latest(quote)
    if quote.status == S.SENT and quote.valid_until is not None and timezone.now() > quote.valid_until:
        raise ConflictError(
            f"Quote {quote.label} expired at the end of {timezone.localtime(quote.valid_until):%d.%m.%Y}.",
            code="quote_expired",
        )


def quote_accept(*, quote: Quote, user: User) -> Quote:
    with transaction.atomic():
        quote = _locked(quote)
        _require_open_for_customer(quote, user, "accept")
        _transition(quote, S.ACCEPTED, user=user)
    return quote


def quote_reject(*, quote: Quote, user: User, reason: str = "") -> Quote:
    with transaction.atomic():
        quote = _locked(quote)
        _require_open_for_customer(quote, user, "reject")
        _transition(quote, S.REJECTED, user=user, data={"reason": reason[:1000]})
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
            _transition(quote, S.EXPIRED, user=None, data={"valid_until": quote.valid_until.isoformat()})
            expired.append(quote_id)
    return expired


# --------------------------------------------------------------------------- revisions and prices


def quote_revise(*, quote: Quote, user: User, discount_percent: Decimal | int | str | None = None) -> Quote:
    """A new draft revision with the same number and copied lines; the old revision becomes superseded.
    `discount_percent` (optional) changes the discount of the new revision and re-prices its lines from
    their copied list prices (not from the catalog: use refresh-prices for that)."""
    _require_sales(user, "revise")
    with transaction.atomic():
        old = _locked(quote)
        _require_latest(old)
        discount = old.discount_percent if discount_percent is None else Decimal(str(discount_percent))
        if not Decimal(0) <= discount <= Decimal(100):
            raise DomainError("The discount must be between 0 and 100 %.", fields={"discount_percent": ["0..100"]})
        _transition(old, S.SUPERSEDED, user=user, data={"by_revision": old.revision + 1})
        new = Quote(
            number=old.number,
            revision=old.revision + 1,
            owner_id=old.owner_id,
            created_by=user,
            status=S.DRAFT,
            currency=old.currency,
            vat_percent=old.vat_percent,
            discount_percent=discount,
            terms=old.terms,
            build_payload=old.build_payload,
            verdict=old.verdict,
            saved_build_id=old.saved_build_id,
        )
        drafts = [
            LineDraft(
                kind=line.kind,
                sku=line.sku,
                name=line.name,
                spec_summary=line.spec_summary,
                qty=line.qty,
                list_price=line.list_price,
                discount_percent=discount,
                unit_price=unit_price(line.list_price, discount),
                line_total=line_total(line.list_price, line.qty, discount),
                optional=line.optional,
            )
            for line in old.lines.all()
        ]
        _set_totals(new, totals(((d.line_total, d.optional) for d in drafts), new.vat_percent))
        new.save()
        _save_lines(new, drafts)
        _event(
            new,
            E.REVISED,
            user=user,
            data={"from_revision": old.revision, "discount_percent": str(discount), "totals": _totals_dict(new)},
        )
        _queue_render_on_commit(new.pk)
    return new


def quote_refresh_prices(*, quote: Quote, user: User) -> Quote:
    """Re-price a draft from the current catalog (list price, name and spec summary of every line) and
    record old and new prices. Issued quotes are never re-priced: they keep what the customer was sent."""
    _require_owner_or_sales(quote, user, "refresh the prices of")
    snapshot = catalog_snapshot()
    with transaction.atomic():
        quote = _locked(quote)
        if quote.status != S.DRAFT:
            raise InvalidTransition(
                f"Only a draft can be re-priced; quote {quote.label} is {quote.status}.",
                fields={"status": [f"{quote.status}: prices are fixed"]},
            )
        lines = list(quote.lines.all())
        unavailable: dict[str, list[str]] = {}
        changes: list[dict[str, Any]] = []
        old_totals = _totals_dict(quote)
        for line in lines:
            found = _find_spec(snapshot, line.sku, line.kind)
            if found is None or not found[1].is_active:
                unavailable[f"lines[{line.position}].sku"] = [f"{line.sku} is no longer sold"]
                continue
            spec = found[1]
            new = line_draft(line.kind, spec, line.qty, quote.discount_percent, optional=line.optional)
            if (new.list_price, new.name, new.spec_summary) != (line.list_price, line.name, line.spec_summary):
                changes.append(
                    {"sku": line.sku, "old": str(line.list_price), "new": str(new.list_price), "qty": line.qty}
                )
            line.name, line.spec_summary, line.list_price = new.name, new.spec_summary, new.list_price
            line.discount_percent, line.unit_price, line.line_total = (
                new.discount_percent,
                new.unit_price,
                new.line_total,
            )
        if unavailable:
            raise ConflictError(
                "Some parts of the quote are no longer sold; revise the build.",
                code="sku_unavailable",
                fields=unavailable,
            )
        QuoteLine.objects.bulk_update(
            lines, ["name", "spec_summary", "list_price", "discount_percent", "unit_price", "line_total"]
        )
        _set_totals(quote, totals(((line.line_total, line.optional) for line in lines), quote.vat_percent))
        quote.save(update_fields=["net_total", "vat_total", "gross_total", "updated_at"])
        _event(
            quote,
            E.PRICES_REFRESHED,
            user=user,
            data={
                "lines": changes,
                "totals": {"old": old_totals, "new": _totals_dict(quote)},
                "catalog_version": snapshot.version,
            },
        )
        if changes:
            _mark_render_pending(quote)
    return quote
