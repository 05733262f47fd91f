"""Orders in the admin: read-only records (the API and its services change them), with lines, events and
the purchase plan inline; sales and catalog staff look, superusers too."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from orders import models as m
from orders.services import order_plan_retry


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


class BuildStepInline(_ReadOnlyInline):
    model = m.BuildStep
    fields = ("kind", "result", "note", "done_by", "done_at")
    readonly_fields = ("done_at",)


class SerialInline(_ReadOnlyInline):
    model = m.ReceivedSerial
    fields = ("sku", "serial", "receipt_line")


class EventInline(_ReadOnlyInline):
    model = m.OrderEvent
    fields = ("created_at", "type", "data", "user")
    readonly_fields = ("created_at",)


@admin.register(m.Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = (
        "number", "quote", "owner", "status", "promised_ship_date", "plan_status", "at_risk", "gross_total",
    )  # fmt: skip
    list_filter = ("status", "plan_status", "at_risk")
    search_fields = ("number", "quote__number", "owner__username", "serials__serial")  # a serial: its server
    inlines = [LineInline, PurchaseInline, BuildStepInline, SerialInline, EventInline]

    actions = ["plan_again"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in m.Order._meta.fields]

    def has_plan_permission(self, request: HttpRequest) -> bool:
        """Sales engineers and superusers may ask for a failed procurement plan again."""
        user: Any = request.user
        return bool(user.is_superuser or getattr(user, "is_sales", False))

    @admin.action(description=_("Make the failed procurement plans again"), permissions=["plan"])
    def plan_again(self, request: HttpRequest, queryset: QuerySet[m.Order]) -> None:
        """orders.services.order_plan_retry for each selected order whose plan failed; the others are named."""
        done: list[str] = []
        skipped: list[str] = []
        user: Any = request.user
        for order in queryset.order_by("number"):
            (done if order_plan_retry(order=order, user=user) else skipped).append(order.number)
        if done:
            self.message_user(
                request,
                ngettext(
                    "The procurement plan of %(orders)s is queued again.",
                    "The procurement plans of %(orders)s are queued again.",
                    len(done),
                )
                % {"orders": ", ".join(done)},
                messages.SUCCESS,
            )
        if skipped:
            self.message_user(
                request,
                ngettext(
                    "%(orders)s was left as it is: only a failed plan is made again.",
                    "%(orders)s were left as they are: only a failed plan is made again.",
                    len(skipped),
                )
                % {"orders": ", ".join(skipped)},
                messages.WARNING,
            )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class _ReadOnlyAdmin(admin.ModelAdmin):
    """A record written by orders.purchasing only: looked at, never added, changed or deleted here."""

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class PoLineInline(_ReadOnlyInline):
    model = m.PurchaseOrderLine
    fields = (
        "sku", "supplier_sku", "kind", "qty", "received_qty", "unit_price", "line_total", "line_total_rub",
        "expected_date",
    )  # fmt: skip


@admin.register(m.PurchaseOrder)
class PurchaseOrderAdmin(_ReadOnlyAdmin):
    list_display = ("number", "order", "supplier", "status", "currency", "total", "total_rub", "expected_date")
    list_filter = ("status", "supplier")
    search_fields = ("number", "order__number", "supplier__name", "lines__sku")
    inlines = [PoLineInline]


@admin.register(m.ReceivedSerial)
class ReceivedSerialAdmin(_ReadOnlyAdmin):
    """Serial numbers of the parts received for each order's server: search one for a warranty claim."""

    list_display = ("serial", "sku", "order", "receipt_line")
    search_fields = ("serial", "sku", "order__number")
    list_select_related = ("order", "receipt_line__receipt")
