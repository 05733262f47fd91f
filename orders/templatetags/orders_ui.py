"""Template tags of the order pages: translated statuses and events, and the "Order" box of a quote page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from configurator.labels import label, label_filters
from orders.labels import (
    ADVANCE_LABELS,
    EVENT_LABELS,
    PLAN_LABELS,
    PLAN_REQUEUE_REASONS,
    STATUS_LABELS,
    risk_sentence,
    with_roubles,
)
from orders.models import BuildStepKind, BuildStepResult, Order
from orders.selectors import PurchaseRow
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
def order_event_detail(event: Any, names: Mapping[str, str] | None = None) -> str:
    """One line about what an order event changed, from its data (statuses translated; parts by their names
    when `names`, SKU → name, has them)."""
    names = names or {}
    data = event.data if isinstance(getattr(event, "data", None), dict) else {}
    if event.type == "status_changed" and "from" in data and "to" in data:
        text = f"{label(STATUS_LABELS, data['from'])} → {label(STATUS_LABELS, data['to'])}"
        return f"{text} ({data['note']})" if data.get("note") else text
    if event.type == "placed" and data.get("quote"):
        return _("from quote %(number)s R%(revision)s") % {"number": data["quote"], "revision": data.get("revision")}
    if event.type == "planned":
        count = int(data.get("purchases") or 0)
        said = [ngettext("%(count)s purchase line", "%(count)s purchase lines", count) % {"count": count}]
        said += [
            risk_sentence(
                {"code": "short", "sku": item.get("sku"), "qty": item.get("qty")}, show_supplier=False, names=names
            )
            for item in data.get("short") or ()
        ]
        said += [
            _("%(qty)s × %(part)s late")
            % {"qty": item.get("qty"), "part": names.get(str(item.get("sku")), item.get("sku"))}
            for item in data.get("late") or ()
            if isinstance(item, dict)
        ]
        return "; ".join(said)
    if event.type == "plan_requeued" and data.get("reason") in PLAN_REQUEUE_REASONS:
        return str(PLAN_REQUEUE_REASONS[data["reason"]])
    if event.type in ("purchase_orders_made", "purchase_orders_cancelled"):
        return ", ".join(map(str, data.get("numbers") or ()))
    if event.type in ("purchase_order_changed", "goods_received") and data.get("number"):
        return f"{data['number']}: {data.get('from', '')} → {data.get('to', '')}"
    if event.type == "purchase_order_emailed" and data.get("number"):
        return f"{data['number']} → {data.get('to', '')}"
    if event.type == "build_step":
        kinds, results = dict(BuildStepKind.choices), dict(BuildStepResult.choices)
        return f"{kinds.get(str(data.get('kind')), '')}: {results.get(str(data.get('result')), '')}"
    if event.type == "risk_changed":
        reasons = data.get("reasons") or ()
        said = [
            risk_sentence(reason, show_supplier=False, names=names) for reason in reasons
        ]  # the history is the customer's too
        return "; ".join(said) if said else _("no longer at risk")
    return ""


@register.filter
def unit_price_said(row: PurchaseRow) -> str:
    """A purchase row's unit price in its currency and, for another currency, in roubles with the rate's date."""
    line = row.line
    return with_roubles(line.unit_price, line.currency, rub=row.unit_price_rub, rate=row.rate)


@register.filter
def line_total_said(row: PurchaseRow) -> str:
    """A purchase row's line total, said as `unit_price_said` says the unit price."""
    return with_roubles(row.line_total, row.line.currency, rub=row.line_total_rub, rate=row.rate)


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
