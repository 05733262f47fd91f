"""Template tags of the order pages: translated statuses and events, and the "Order" box of a quote page."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from configurator.labels import label, label_filters
from orders.labels import ADVANCE_LABELS, EVENT_LABELS, PLAN_LABELS, PLAN_REQUEUE_REASONS, STATUS_LABELS
from orders.models import Order
from quotes.models import QuoteStatus

register = template.Library()
label_filters(
    register,
    order_status_label=STATUS_LABELS,
    order_event_label=EVENT_LABELS,
    advance_label=ADVANCE_LABELS,
    plan_label=PLAN_LABELS,
)


@register.filter
def order_event_detail(event: Any) -> str:
    """One line about what an order event changed, from its data (statuses translated)."""
    data = event.data if isinstance(getattr(event, "data", None), dict) else {}
    if event.type == "status_changed" and "from" in data and "to" in data:
        text = f"{label(STATUS_LABELS, data['from'])} → {label(STATUS_LABELS, data['to'])}"
        return f"{text} ({data['note']})" if data.get("note") else text
    if event.type == "placed" and data.get("quote"):
        return _("from quote %(number)s R%(revision)s") % {"number": data["quote"], "revision": data.get("revision")}
    if event.type == "planned":
        count = int(data.get("purchases") or 0)
        return ngettext("%(count)s purchase line", "%(count)s purchase lines", count) % {"count": count}
    if event.type == "plan_requeued" and data.get("reason") in PLAN_REQUEUE_REASONS:
        return str(PLAN_REQUEUE_REASONS[data["reason"]])
    return ""


@register.inclusion_tag("orders/_quote_order.html", takes_context=True)
def quote_order_box(context: Any, quote: Any) -> dict[str, Any]:
    """On a quote's page: a link to its order, or the "Order" button when the quote is accepted and the
    reader is its customer or sales (orders.services.order_place decides again on the POST)."""
    user = context["request"].user
    order = Order.objects.filter(quote__number=quote.number).only("number", "status").first()
    may_order = (
        order is None
        and quote.status == QuoteStatus.ACCEPTED
        and (getattr(user, "is_sales", False) or user.is_superuser or quote.owner_id == user.pk)
    )
    return {"quote": quote, "order": order, "may_order": may_order, "csrf_token": context.get("csrf_token")}
