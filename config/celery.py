"""Celery application. Configuration comes from Django settings prefixed CELERY_."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery, Task
from kombu.exceptions import KombuError
from redis.exceptions import RedisError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


#: Publishing a task must not hold a request for long when the broker is down: two quick retries, then the
#: caller's record stays as it was (`pending`, nothing queued) and its sweep publishes it later.
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


def publish(task: Task, *args: Any, what: str) -> bool:
    """Hand `task(*args)` to the broker. A broker failure is logged (naming `what`), not raised: False, and the
    sweep of whoever called queues it again once the broker answers."""
    try:
        task.apply_async(args, retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except (KombuError, RedisError, OSError) as exc:
        logging.getLogger(__name__).warning("%s not queued, broker unavailable (%s); the sweep will retry", what, exc)
        return False
    return True
