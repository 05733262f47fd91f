"""Lost render messages are queued again within 60 s: the sweep's thresholds and schedule, and which
pending quotes it takes (the worker-side sweep with a real worker: tests/integration/test_quotes_worker.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.utils import timezone

from quotes import services
from quotes.models import Quote, QuoteEvent
from quotes.schedule import CELERY_BEAT_SCHEDULE, SWEEP_INTERVAL_S
from quotes.tasks import _worker_sweep_interval_s

pytestmark = pytest.mark.django_db


def test_a_lost_render_is_found_within_a_minute_by_beat_and_by_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    beat = CELERY_BEAT_SCHEDULE["quotes-sweep-stuck"]
    assert beat["task"] == "quotes.sweep_stuck" and beat["schedule"] == SWEEP_INTERVAL_S
    assert services.RENDER_LOST_AFTER.total_seconds() + SWEEP_INTERVAL_S < 60
    monkeypatch.delenv("QUOTE_WORKER_SWEEP_S", raising=False)
    assert services.RENDER_LOST_AFTER.total_seconds() + _worker_sweep_interval_s() < 60
    # a render still running is never taken from its worker before the task's hard time limit kills it
    from quotes.tasks import RENDER_TIME_LIMIT_S

    assert services.RENDER_STUCK_AFTER.total_seconds() > RENDER_TIME_LIMIT_S


def test_the_sweep_requeues_a_pending_render_handed_over_too_long_ago(
    make_quote: Callable[..., Quote], monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[int] = []
    monkeypatch.setattr("quotes.services.render.quote_render_enqueue", lambda *, quote_id: sent.append(quote_id))
    lost, waiting = make_quote(), make_quote()
    now = timezone.now()
    Quote.objects.filter(pk__in=[lost.pk, waiting.pk]).update(render_status="pending")
    Quote.objects.filter(pk=lost.pk).update(render_queued_at=now - services.RENDER_LOST_AFTER - timedelta(seconds=1))
    Quote.objects.filter(pk=waiting.pk).update(render_queued_at=now - timedelta(seconds=5))
    report = services.quotes_sweep_stuck()
    assert report.requeued == (lost.pk,) and sent == [lost.pk]
    assert QuoteEvent.objects.filter(quote=lost, type="render_requeued").get().data == {"reason": "message_lost"}
    assert not QuoteEvent.objects.filter(quote=waiting, type="render_requeued").exists()
