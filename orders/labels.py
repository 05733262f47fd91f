"""What the order pages call things: statuses (the model's choices), history events, the buttons that move
an order, and the messages after an action."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from orders.models import OrderStatus

STATUS_LABELS = OrderStatus

#: The order of statuses an order goes through (cancelled is off the path).
STATUS_PATH = (
    OrderStatus.PLACED,
    OrderStatus.PARTS_ORDERED,
    OrderStatus.ASSEMBLING,
    OrderStatus.BURN_IN,
    OrderStatus.SHIPPED,
    OrderStatus.DELIVERED,
)

EVENT_LABELS = {
    "placed": _("Order placed"),
    "planned": _("Procurement plan made"),
    "plan_requeued": _("Procurement plan queued again"),
    "status_changed": _("Status changed"),
}

#: Why the sweep queued a procurement plan again (orders.services.orders_sweep_stuck).
PLAN_REQUEUE_REASONS = {
    "planning_too_long": _("the worker making it stopped"),
    "not_queued": _("the task queue was unavailable when the order was placed"),
    "message_lost": _("the task queue lost it"),
    "asked_by_staff": _("asked for by staff after it failed"),
}

#: The button that moves an order to a status.
ADVANCE_LABELS: dict[str, Promise] = {
    OrderStatus.PARTS_ORDERED: _("Mark parts ordered"),
    OrderStatus.ASSEMBLING: _("Start assembly"),
    OrderStatus.BURN_IN: _("Start burn-in test"),
    OrderStatus.SHIPPED: _("Mark shipped"),
    OrderStatus.DELIVERED: _("Mark delivered"),
    OrderStatus.CANCELLED: pgettext_lazy("order action", "Cancel the order"),
}

PLAN_LABELS = {
    "pending": _("Procurement plan pending"),
    "planning": _("Procurement plan being made"),
    "ready": _("Procurement plan ready"),
    "failed": _("Procurement plan failed"),
}
