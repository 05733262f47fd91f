"""Template filters of the quote pages: translated statuses, render states, history events and actions."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from configurator.labels import PART_KIND_LABELS, label
from quotes.labels import ACTION_LABELS, EVENT_LABELS, RENDER_LABELS, STATUS_LABELS

register = template.Library()


@register.filter
def status_label(status: str) -> str:
    return label(STATUS_LABELS, status)


@register.filter
def render_label(status: str) -> str:
    return label(RENDER_LABELS, status)


@register.filter
def event_label(event_type: str) -> str:
    return label(EVENT_LABELS, event_type)


@register.filter
def action_label(action: str) -> str:
    return label(ACTION_LABELS, action)


@register.filter
def line_kind_label(kind: str) -> str:
    return label(PART_KIND_LABELS, kind)


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
    if event.type == "prices_refreshed":
        count = len(data.get("lines") or ())
        return ngettext("%(count)s line changed", "%(count)s lines changed", count) % {"count": count}
    return ""
