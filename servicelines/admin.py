from __future__ import annotations

from django.contrib import admin

from servicelines.models import ServiceItem


@admin.register(ServiceItem)
class ServiceItemAdmin(admin.ModelAdmin):
    list_display = ("sku", "name", "category", "years", "pricing", "price", "percent", "default_for", "is_active")
    list_filter = ("category", "pricing", "default_for", "is_active")
    search_fields = ("sku", "name")
