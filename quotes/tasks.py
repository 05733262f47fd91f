"""Celery tasks of quotes. Each takes an id (or nothing), loads, and calls a service.

`quote_render` is safe to deliver more than once: the service claims the quote with a conditional
UPDATE (`pending|failed → generating`) and returns when no row changed. Messages are acknowledged after
the task finishes (`acks_late`), so a worker that dies mid-render leaves the message to be redelivered,
and the beat-driven `quotes_sweep_stuck` re-queues anything left `generating` or never queued.
Nothing here reads the result backend.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

from config.env import env_str
from quotes import services

logger = logging.getLogger(__name__)

RENDER_SOFT_TIME_LIMIT_S = 60
RENDER_TIME_LIMIT_S = 90
#: Transient failures worth another try; a template or data bug is not retried.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (OperationalError, InterfaceError, ConnectionError, TimeoutError)


def _test_render_delay() -> None:
    """Tests only: QUOTE_RENDER_TEST_DELAY_S makes rendering slow so a test can kill the worker mid-render.
    Ignored unless the process runs the test settings."""
    if settings.SETTINGS_MODULE != "config.settings.test":
        return
    delay = env_str("QUOTE_RENDER_TEST_DELAY_S", "")
    if delay:
        time.sleep(float(delay))


class QuoteRenderTask(Task):
    def on_failure(self, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        quote_id = args[0] if args else kwargs.get("quote_id")
        if quote_id is not None:
            services.quote_render_failed(quote_id=int(quote_id), error=repr(exc))


@shared_task(
    base=QuoteRenderTask,
    bind=True,
    name="quotes.render",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    dont_autoretry_for=(SoftTimeLimitExceeded,),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
    soft_time_limit=RENDER_SOFT_TIME_LIMIT_S,
    time_limit=RENDER_TIME_LIMIT_S,
    ignore_result=True,
)
def quote_render(self: Task, quote_id: int) -> bool:
    return services.quote_pdf_render(quote_id=quote_id, before_render=_test_render_delay)


@shared_task(name="quotes.expire", acks_late=True, soft_time_limit=300, time_limit=360, ignore_result=True)
def quotes_expire() -> int:
    expired = services.quotes_expire()
    if expired:
        logger.info("expired %d quotes", len(expired))
    return len(expired)


@shared_task(name="quotes.sweep_stuck", acks_late=True, soft_time_limit=50, time_limit=55, ignore_result=True)
def quotes_sweep_stuck() -> int:
    report = services.quotes_sweep_stuck()
    if report.requeued or report.emailed:
        logger.info("sweep: re-queued %s, e-mailed %s", report.requeued, report.emailed)
    return len(report.requeued)
