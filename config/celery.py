"""Celery application. Configuration comes from Django settings prefixed CELERY_."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery, Task
from kombu.exceptions import KombuError
from kombu.transport import redis as kombu_redis
from redis.exceptions import RedisError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

_restore_unacked = kombu_redis.QoS.restore_unacked


def restore_unacked_unless_disconnected(qos: kombu_redis.QoS, client: Any = None) -> None:
    """kombu's Redis `QoS.restore_unacked`, except on a channel whose connection is already gone.

    When the broker connection drops while the worker holds delivered, unacknowledged messages (a render
    running, others prefetched), the consumer closes its channel to reconnect, and closing restores those
    messages, on a new client built from the connection, which closing has just set to None: kombu 5.7.0
    raises AttributeError ('NoneType' object has no attribute 'hostname', in `Channel._connparams`), and
    Celery stops the worker with "Unrecoverable error" instead of reconnecting (seen in
    tests/integration/test_faults.py with Redis stopped under load; the same failure on a channel close is
    celery/kombu#582). There is nothing to restore then that is not safe already: each delivered message was
    written to Redis's unacked index when it was delivered, and kombu puts it back on its queue after the
    visibility timeout (`restore_visible`), or, if Redis lost its memory, the render and plan sweeps queue the
    work again. So the worker forgets them (as a restore would) and reconnects."""
    if client is None and _disconnected(qos):
        logging.getLogger(__name__).warning(
            "broker connection lost with %d unacknowledged message(s): they stay in the broker's unacked index "
            "and come back after the visibility timeout",
            len(qos._delivered),
        )
        qos._delivered.clear()
        return
    _restore_unacked(qos, client)


_ack = kombu_redis.QoS.ack
_reject = kombu_redis.QoS.reject


def _disconnected(qos: kombu_redis.QoS) -> bool:
    return getattr(qos.channel.connection, "client", None) is None


def ack_unless_disconnected(qos: kombu_redis.QoS, delivery_tag: Any) -> None:
    """kombu's Redis `QoS.ack`, except on a channel whose connection is already gone: a task that finished
    while Redis was away is acknowledged on a channel closing has just cut from its connection, and kombu
    5.7.0 builds its client from that None ('NoneType' object has no attribute 'client', in
    `Channel._connparams`; Celery then stops the worker with "Unrecoverable error", seen in
    tests/integration/test_faults.py). The message stays in Redis's unacked index and comes back after the
    visibility timeout; the task runs again and finds its work done (renders and plans are claimed by a
    conditional UPDATE), so the worker forgets it here and reconnects."""
    if _disconnected(qos):
        logging.getLogger(__name__).warning(
            "broker connection lost before message %s was acknowledged: it comes back after the visibility timeout",
            delivery_tag,
        )
        kombu_redis.virtual.QoS.ack(qos, delivery_tag)
        return
    _ack(qos, delivery_tag)


def reject_unless_disconnected(qos: kombu_redis.QoS, delivery_tag: Any, requeue: bool = False) -> None:
    """kombu's Redis `QoS.reject`, with `ack_unless_disconnected`'s guard (the same None connection)."""
    if _disconnected(qos):
        ack_unless_disconnected(qos, delivery_tag)
        return
    _reject(qos, delivery_tag, requeue)


kombu_redis.QoS.restore_unacked = restore_unacked_unless_disconnected  # type: ignore[method-assign]
kombu_redis.QoS.ack = ack_unless_disconnected  # type: ignore[method-assign]
kombu_redis.QoS.reject = reject_unless_disconnected  # type: ignore[method-assign]

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
