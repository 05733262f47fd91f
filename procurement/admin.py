"""Procurement in the admin: suppliers with their column mapping and price-list upload (preview, then
apply), offers with the stale flag, the imports with their reports, freezes and the list-price log.

The upload view is the supplier's own page (`<supplier>/price-list/`): the file is read and checked and
its report shown; "Apply" applies exactly the previewed file. Nothing changes until then, nor when a row
is bad.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from simple_history.admin import SimpleHistoryAdmin

from procurement import models as m
from procurement.services import list_prices_follow_offers, price_list_apply, price_list_preview

MAX_PRICE_LIST_BYTES = 5 * 1024 * 1024


class PriceListForm(forms.Form):
    file = forms.FileField(
        label=_("File"), help_text=_("CSV (UTF-8, comma or semicolon) or XLSX, the first sheet; header on row 1")
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith((".csv", ".xlsx")):
            raise forms.ValidationError(_("Only .csv and .xlsx files."))
        if upload.size > MAX_PRICE_LIST_BYTES:
            raise forms.ValidationError(_("The file is larger than 5 MB."))
        return upload


@admin.register(m.Supplier)
class SupplierAdmin(SimpleHistoryAdmin):
    list_display = ("name", "slug", "currency", "is_sample")
    search_fields = ("name", "slug")
    change_form_template = "admin/procurement/supplier_change_form.html"

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<int:supplier_id>/price-list/",
                self.admin_site.admin_view(self.price_list_view),
                name="procurement_supplier_price_list",
            ),
        ]
        return own + super().get_urls()

    def price_list_view(self, request: HttpRequest, supplier_id: int) -> HttpResponse:
        supplier = get_object_or_404(m.Supplier, pk=supplier_id)
        if not self.has_change_permission(request, supplier):
            raise PermissionDenied
        price_import = None
        form = PriceListForm()
        if request.method == "POST" and "apply" in request.POST:
            price_import = get_object_or_404(m.PriceListImport, pk=request.POST.get("import_id"), supplier=supplier)
            try:
                price_import = price_list_apply(price_import=price_import)
            except ValueError as exc:
                self.message_user(request, str(exc), level=messages.ERROR)
            else:
                if price_import.status == m.PriceListImport.Status.APPLIED:
                    self.message_user(request, _("Price list %(file)s applied.") % {"file": price_import.filename})
                    return HttpResponseRedirect(
                        reverse("admin:procurement_pricelistimport_change", args=[price_import.pk])
                    )
                self.message_user(request, _("The file has errors; nothing was changed."), level=messages.ERROR)
        elif request.method == "POST":
            form = PriceListForm(request.POST, request.FILES)
            if form.is_valid():
                upload = form.cleaned_data["file"]
                price_import = price_list_preview(
                    supplier=supplier, filename=upload.name, content=upload.read(), user=request.user
                )
        context = {
            **self.admin_site.each_context(request),
            "title": _("Price list of %(supplier)s") % {"supplier": supplier},
            "supplier": supplier,
            "form": form,
            "price_import": price_import,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/procurement/price_list.html", context)


@admin.display(boolean=True, description=_("stale"))
def stale(offer: m.SupplierOffer) -> bool:
    return offer.is_stale


class StaleFilter(admin.SimpleListFilter):
    title = _("validity")
    parameter_name = "stale"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("stale (past valid until)")), ("no", _("live"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        today = timezone.localdate()
        if self.value() == "yes":
            return queryset.filter(valid_until__lt=today)
        if self.value() == "no":
            return queryset.filter(valid_until__gte=today)
        return queryset


@admin.action(description=_("Set list prices from the best live offers (markup per kind)"), permissions=["change"])
def follow_offers(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Any]) -> None:
    changes = list_prices_follow_offers()
    modeladmin.message_user(
        request,
        ngettext(
            "%(count)s list price changed; see List price changes.",
            "%(count)s list prices changed; see List price changes.",
            len(changes),
        )
        % {"count": len(changes)},
    )


@admin.register(m.SupplierOffer)
class SupplierOfferAdmin(SimpleHistoryAdmin):
    list_display = (
        "sku", "supplier", "kind", "purchase_price", "currency", "stock_qty", "reserved_qty", "lead_time_days",
        "valid_until", stale, "updated_at",
    )  # fmt: skip
    list_filter = (StaleFilter, "supplier", "kind")
    search_fields = ("sku",)
    actions = [follow_offers]
    history_list_display = ["purchase_price", "stock_qty", "valid_until"]


@admin.register(m.PriceListImport)
class PriceListImportAdmin(admin.ModelAdmin):
    list_display = ("created_at", "supplier", "filename", "status", "created_by", "applied_at")
    list_filter = ("status", "supplier")
    readonly_fields = ("supplier", "filename", "status", "report", "created_by", "created_at", "applied_at")
    exclude = ("content",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(m.PriceFreeze)
class PriceFreezeAdmin(admin.ModelAdmin):
    list_display = ("sku", "reason", "created_at")
    search_fields = ("sku",)


@admin.register(m.ListPriceChange)
class ListPriceChangeAdmin(admin.ModelAdmin):
    list_display = ("created_at", "sku", "kind", "old_price", "new_price", "markup_percent", "offer")
    search_fields = ("sku",)
    readonly_fields = ("sku", "kind", "old_price", "new_price", "offer", "markup_percent", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
