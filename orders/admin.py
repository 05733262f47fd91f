"""Orders in the admin: read-only records (the API and its services change them), with lines, events and
the purchase plan inline; sales and catalog staff look, superusers too."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from orders import models as m


class _ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class LineInline(_ReadOnlyInline):
    model = m.OrderLine
    fields = ("position", "kind", "sku", "name", "qty", "unit_price", "line_total")


class PurchaseInline(_ReadOnlyInline):
    model = m.PurchaseLine
    fields = ("supplier", "sku", "qty", "unit_price", "currency", "from_stock", "expected_days", "released")


class EventInline(_ReadOnlyInline):
    model = m.OrderEvent
    fields = ("created_at", "type", "data", "user")
    readonly_fields = ("created_at",)


@admin.register(m.Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = ("number", "quote", "owner", "status", "promised_ship_date", "plan_status", "gross_total")
    list_filter = ("status", "plan_status")
    search_fields = ("number", "quote__number", "owner__username")
    inlines = [LineInline, PurchaseInline, EventInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in m.Order._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
