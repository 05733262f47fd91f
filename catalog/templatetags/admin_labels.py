"""Admin template filters: a model field's verbose name (translated) from its name, for the history pages."""

from __future__ import annotations

from typing import Any

from django import template
from django.core.exceptions import FieldDoesNotExist
from django.utils.text import capfirst

register = template.Library()


@register.filter
def field_label(opts: Any, name: str) -> str:
    """`opts|field_label:"list_price"` → "Прайсовая цена" (ru); the name itself when the model has no such field."""
    try:
        return str(capfirst(opts.get_field(name).verbose_name))
    except (AttributeError, FieldDoesNotExist):
        return str(name)
