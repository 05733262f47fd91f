"""Quotes in the admin: lines and history inline. Status only changes through the services (the API),
never by editing a row here; once a quote is issued (sent or later) the whole quote is read-only."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin
from django.http import HttpRequest

from accounts.models import User
from quotes import services
from quotes.models import Quote, QuoteEvent, QuoteLine

ALWAYS_READ_ONLY = (
    "number",
    "idempotency_hash",
    "revision",
    "status",
    "owner",
    "created_by",
    "submitted_by",
    "approved_by",
    "currency",
    "vat_percent",
    "discount_percent",
    "net_total",
    "vat_total",
    "gross_total",
    "valid_until",
    "sent_at",
    "emailed_at",
    "build_payload",
    "verdict",
    "saved_build",
    "pdf",
    "pdf_sha256",
    "render_status",
    "render_started_at",
    "render_queued_at",
    "render_attempts",
    "render_error",
    "idempotency_key",
    "created_at",
    "updated_at",
)


class QuoteLineInline(admin.TabularInline):
    model = QuoteLine
    extra = 0
    can_delete = False
    fields = QuoteLine.SHOWN_FIELDS
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class QuoteEventInline(admin.TabularInline):
    model = QuoteEvent
    extra = 0
    can_delete = False
    fields = ("created_at", "type", "user", "data")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Quote)
class QuoteAdmin(admin.ModelAdmin):
    list_display = ("number", "revision", "status", "owner", "gross_total", "currency", "render_status", "created_at")
    list_filter = ("status", "render_status", "currency")
    search_fields = ("number", "owner__username", "owner__email", "owner__company")
    date_hierarchy = "created_at"
    inlines = (QuoteLineInline, QuoteEventInline)
    list_select_related = ("owner",)

    def get_readonly_fields(self, request: HttpRequest, obj: Quote | None = None) -> Any:
        if obj is not None and obj.is_issued:
            return (*ALWAYS_READ_ONLY, "terms")
        return ALWAYS_READ_ONLY

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # quotes are made from a validated build, through quote_create

    def save_model(self, request: HttpRequest, obj: Quote, form: Any, change: bool) -> None:
        """Through the quotes service, never a bare save: a change of the terms is an event, makes the PDF
        again and takes a quote awaiting or past approval back to draft (quote_terms_set)."""
        if change and "terms" in form.changed_data:
            services.quote_terms_set(quote=obj, user=cast(User, request.user), terms=obj.terms)

    def has_delete_permission(self, request: HttpRequest, obj: Quote | None = None) -> bool:
        return False  # numbers are never reused and the history is kept

    def has_change_permission(self, request: HttpRequest, obj: Quote | None = None) -> bool:
        if obj is not None and obj.is_issued:
            return False
        return super().has_change_permission(request, obj)
