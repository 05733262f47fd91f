"""Invoices and УПД in the admin: read-only records (the API, the pages and billing.services make them), with
their lines and payments inline; sales and catalog staff look, superusers too."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from billing import models as m


class _ReadOnly:
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class InvoiceLineInline(_ReadOnly, admin.TabularInline):
    model = m.InvoiceLine
    extra = 0
    fields = ("position", "sku", "name", "qty", "unit_price", "line_total", "vat", "gross")


class PaymentInline(_ReadOnly, admin.TabularInline):
    model = m.Payment
    extra = 0
    fields = ("paid_on", "amount", "reference", "prepayment", "created_by")


class TransferLineInline(_ReadOnly, admin.TabularInline):
    model = m.TransferLine
    extra = 0
    fields = ("position", "sku", "name", "qty", "unit_price", "line_total", "vat", "gross")


@admin.register(m.Invoice)
class InvoiceAdmin(_ReadOnly, admin.ModelAdmin):
    list_display = ("number", "order", "issued_on", "gross_total", "paid_total", "status")
    list_filter = ("status",)
    search_fields = ("number", "order__number", "order__owner__username")
    inlines = [InvoiceLineInline, PaymentInline]


@admin.register(m.TransferDocument)
class TransferDocumentAdmin(_ReadOnly, admin.ModelAdmin):
    list_display = ("number", "order", "issued_on", "gross_total")
    search_fields = ("number", "order__number", "order__owner__username")
    inlines = [TransferLineInline]
