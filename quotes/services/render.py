"""The quote PDF in the background: queue the render, claim it with a conditional UPDATE, store the file,
give a failed claim back, and sweep renders that were lost (ARCHITECTURE.md §Quotes)."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.files.base import ContentFile, File
from django.core.files.storage import Storage
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from config.celery import publish
from quotes.models import Quote, QuoteEvent, QuoteEventType, QuoteStatus, RenderStatus
from quotes.services._shared import event_add
from quotes.services.notify import quote_email_if_due

S = QuoteStatus
E = QuoteEventType

logger = logging.getLogger(__name__)

RENDER_STUCK_AFTER = timedelta(minutes=2)  # longer than the render task's hard time limit (90 s): its worker died
RENDER_UNQUEUED_GRACE = timedelta(seconds=20)  # a pending quote not handed to the broker after this is swept
#: A pending quote handed to the broker this long ago and still not claimed: its message is presumed lost
#: (a broker restarted without persistence, a queue purged) and it is queued again. A render waits in the
#: queue for ~0.2 s per quote ahead of it, so this is only wrong under a backlog of > 100 renders per
#: worker, and then costs one extra message per quote per period: the second delivery finds the quote
#: claimed or ready and does nothing. With the sweep every 15 s (quotes/schedule.py, and the worker's own
#: sweep in quotes/tasks.py) a lost render is queued again within 45 s.
RENDER_LOST_AFTER = timedelta(seconds=30)
RENDER_MAX_ATTEMPTS = 5  # failed renders are re-queued by the sweep until this many attempts


def quote_render_enqueue(*, quote_id: int) -> bool:
    """Hand the render task to the broker. A broker failure is logged, not raised: the quote stays
    `pending` with no `render_queued_at`, and the sweep queues it once the broker answers again."""
    from quotes.tasks import quote_render

    if not publish(quote_render, quote_id, what=f"quote {quote_id}: render"):
        return False
    Quote.objects.filter(pk=quote_id).update(render_queued_at=timezone.now())
    return True


def render_queue_on_commit(quote_id: int) -> None:
    transaction.on_commit(lambda: quote_render_enqueue(quote_id=quote_id), robust=True)


def render_mark_pending(quote: Quote) -> None:
    """The PDF must be made again (new prices): a running render loses its claim and discards its file."""
    quote.render_status = RenderStatus.PENDING
    quote.render_queued_at = None
    quote.save(update_fields=["render_status", "render_queued_at", "updated_at"])
    render_queue_on_commit(quote.pk)


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
    try:
        return _point_at_pdf(quote, storage, saved_name, pdf_bytes, claimed_at)
    except BaseException:
        storage.delete(saved_name)  # the row never pointed at it: no orphan file is left behind
        raise


def _point_at_pdf(quote: Quote, storage: Storage, saved_name: str, pdf_bytes: bytes, claimed_at: datetime) -> bool:
    """Point the quote at the stored file if this render still holds the claim (the file is deleted after
    the commit otherwise)."""
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
        event_add(
            locked,
            E.PDF_READY,
            data={"file": saved_name, "sha256": sha256, "bytes": len(pdf_bytes), "attempt": locked.render_attempts},
        )
        if previous and previous != saved_name:
            transaction.on_commit(lambda: storage.delete(previous))
    return True


def quote_pdf_open(quote: Quote) -> File | None:
    """The quote's stored PDF, open for reading. None when the store has no such file (FILE_STORE was changed,
    or the file was lost): the quote goes back to `pending` and its render is queued, so the reader is told
    the PDF is being rendered (and gets it a few seconds later) instead of an error."""
    try:
        return quote.pdf.open("rb")
    except FileNotFoundError:
        logger.warning("quote %s: its PDF %s is not in the file store; rendering it again", quote.label, quote.pdf.name)
    with transaction.atomic():
        lost = Quote.objects.filter(pk=quote.pk, render_status=RenderStatus.READY, pdf=quote.pdf.name).update(
            render_status=RenderStatus.PENDING, render_queued_at=None, updated_at=timezone.now()
        )
        if lost:
            render_queue_on_commit(quote.pk)
    quote.refresh_from_db(fields=["render_status", "render_queued_at", "updated_at"])
    return None


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
        event_add(quote, E.PDF_FAILED, data={"error": error[:500], "attempts": quote.render_attempts})


@dataclass(frozen=True, slots=True)
class SweepReport:
    requeued: tuple[int, ...]
    emailed: tuple[int, ...]


def quotes_sweep_stuck(
    *,
    older_than: timedelta = RENDER_STUCK_AFTER,
    unqueued_grace: timedelta = RENDER_UNQUEUED_GRACE,
    lost_after: timedelta = RENDER_LOST_AFTER,
) -> SweepReport:
    """Re-queue renders that were lost: `generating` for longer than `older_than` (the worker died),
    `pending` but never handed to the broker (it was down) or handed over longer than `lost_after` ago
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
    unqueued = Quote.objects.filter(
        render_status=RenderStatus.PENDING, render_queued_at__isnull=True, updated_at__lt=now - unqueued_grace
    )
    lost = Quote.objects.filter(render_status=RenderStatus.PENDING, render_queued_at__lt=now - lost_after)
    failed = Quote.objects.filter(
        render_status=RenderStatus.FAILED,
        render_attempts__lt=RENDER_MAX_ATTEMPTS,
        render_started_at__lt=now - older_than,
    )
    for quote_id, reason in [
        *((pk, "not_queued") for pk in unqueued.exclude(pk__in=requeued).values_list("pk", flat=True)),
        *((pk, "message_lost") for pk in lost.exclude(pk__in=requeued).values_list("pk", flat=True)),
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
