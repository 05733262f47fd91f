"""Celery tasks of quotes. Each takes an id (or nothing), loads, and calls a service.

`quote_render` is safe to deliver more than once: the service claims the quote with a conditional
UPDATE (`pending|failed → generating`) and returns when no row changed. Messages are acknowledged after
the task finishes (`acks_late`), so a worker that dies mid-render leaves the message to be redelivered,
and `quotes_sweep_stuck` — from beat every 15 s, and from every worker at its start and then on its own
timer — re-queues anything left `generating`, never queued, or whose message was lost.
Nothing here reads the result backend.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import astuple
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_process_init, worker_ready, worker_shutdown
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connections
from django.utils.module_loading import import_string

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


@worker_process_init.connect(dispatch_uid="quotes.tasks.warm_up_renderer")
def _warm_up_renderer(**_: Any) -> None:
    """Each worker process reads the PDF fonts once, before its first render (quotes/pdf.py)."""
    from quotes.pdf import pdf_worker_warm_up

    try:
        pdf_worker_warm_up()
    except Exception:  # missing fonts must not stop the worker: the render task reports them
        logger.exception("PDF renderer warm-up failed")


_stop_sweeping = threading.Event()


def _worker_sweep_interval_s() -> float:
    """QUOTE_WORKER_SWEEP_S: seconds between a worker's own sweeps of WORKER_SWEEPS (default 15; 0 = only at start)."""
    return float(env_str("QUOTE_WORKER_SWEEP_S", "15"))


#: What a worker sweeps on its own, each as beat's job does: lost renders (and due e-mails), lost order plans.
WORKER_SWEEPS = ("quotes.services.quotes_sweep_stuck", "orders.services.orders_sweep_stuck")


def _sweep_once() -> None:
    try:
        for path in WORKER_SWEEPS:
            try:
                close_old_connections()
                report = import_string(path)()
                if any(astuple(report)):
                    logger.info("worker sweep %s: %s", path.rsplit(".", 1)[1], report)
            except Exception:  # the database or the broker is away: the next round tries again
                logger.exception("worker sweep %s failed", path)
    finally:
        connections.close_all()


def _sweep_while_running(interval_s: float) -> None:
    _sweep_once()
    while interval_s > 0 and not _stop_sweeping.wait(interval_s):
        _sweep_once()


@worker_ready.connect(dispatch_uid="quotes.tasks.sweep_on_worker_ready")
def _sweep_from_the_worker(**_: Any) -> None:
    """A worker does not wait for beat: when it starts it re-queues renders and order plans whose message
    was lost (the broker restarted empty while nothing consumed) or whose worker died (WORKER_SWEEPS), and
    then sweeps again every QUOTE_WORKER_SWEEP_S seconds, so a lost render or plan is queued again within
    RENDER_LOST_AFTER (PLAN_LOST_AFTER) plus that even where no beat runs. It runs in a thread of the
    worker's main process; several workers and beat sweeping at once is harmless (each re-queue is a
    conditional UPDATE, each delivery claims first)."""
    _stop_sweeping.clear()
    threading.Thread(
        target=_sweep_while_running, args=(_worker_sweep_interval_s(),), name="quotes-sweep", daemon=True
    ).start()


@worker_shutdown.connect(dispatch_uid="quotes.tasks.stop_sweeping")
def _stop_the_sweep(**_: Any) -> None:
    _stop_sweeping.set()


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
