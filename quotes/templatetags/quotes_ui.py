"""Template filters of the quote pages: translated statuses, render states, history events and actions."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from configurator.labels import PART_KIND_LABELS, label, label_filters
from configurator.templatetags.configurator_ui import request_build_json
from configurator.wording import num
from quotes.cluster_doc import CLUSTER_KIND_LABELS
from quotes.forms import service_label, services_on_sale
from quotes.labels import ACTION_LABELS, EVENT_LABELS, NEXT_STEPS, RENDER_LABELS, STATUS_LABELS
from servicelines.services import ONE_PER_QUOTE, service_defaults

register = template.Library()
label_filters(
    register,
    status_label=STATUS_LABELS,
    render_label=RENDER_LABELS,
    event_label=EVENT_LABELS,
    action_label=ACTION_LABELS,
    line_kind_label={**PART_KIND_LABELS, **CLUSTER_KIND_LABELS, "services": gettext_lazy("Services")},
    next_step_label=NEXT_STEPS,
)


@register.filter
def event_detail(event: Any) -> str:
    """One line about what an event changed, from its data (statuses translated)."""
    data = event.data if isinstance(getattr(event, "data", None), dict) else {}
    if event.type == "status_changed" and "from" in data and "to" in data:
        text = f"{label(STATUS_LABELS, data['from'])} → {label(STATUS_LABELS, data['to'])}"
        if data.get("reason"):
            text += f" ({data['reason']})"
        return text
    if event.type == "revised" and data.get("from_revision"):
        return _("from revision R%(revision)s") % {"revision": data["from_revision"]}
    if event.type == "emailed" and data.get("to"):
        return str(data["to"])
    if event.type == "discount_changed" and isinstance(data.get("discount_percent"), dict):
        change = data["discount_percent"]
        return f"{num(change.get('old'), 2)} % → {num(change.get('new'), 2)} %"
    if event.type == "prices_refreshed":
        count = len(data.get("lines") or ())
        return ngettext("%(count)s line changed", "%(count)s lines changed", count) % {"count": count}
    return ""


@register.inclusion_tag("quotes/_request_box.html", takes_context=True)
def quote_request_box(context: Any, candidate: Any, workload: Any = None) -> dict[str, Any]:
    """On a recommended build's card: its services to tick and "Request a quote" (a GET to the request page,
    which asks an anonymous visitor to sign in or up first and keeps the choice in its address)."""
    items = services_on_sale()
    workstation = not candidate.rack_units
    defaults = {item.sku for item in service_defaults(workstation=workstation)}
    net = candidate.price.net
    return {
        "rank": candidate.rank,
        "build_json": request_build_json(candidate.body, workload),
        "services": [
            {
                "sku": item.sku,
                "text": service_label(item, net, candidate.price.currency),
                "checked": item.sku in defaults,
                # a kind a quote sells once: its boxes exclude each other (static/js/app.js, data-one-of)
                "one_of": item.category if item.category in ONE_PER_QUOTE else "",
            }
            for item in items
        ],
        "user": context.get("user"),
    }
