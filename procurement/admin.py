"""Procurement in the admin: suppliers with their price-list format, column mapping and part numbers, and
the price-list upload (preview, then apply), offers with the stale flag, the imports with their reports,
freezes and the list-price log.

The upload view is the supplier's own page (`<supplier>/price-list/`): the file is read and checked and
its report shown; "Apply" applies exactly the previewed file. Nothing changes until then, nor when a row
is bad. Held price moves (beyond PROCUREMENT_PRICE_HOLD_PERCENT) and a full list's retirements are shown
as warnings and applied only when their boxes are ticked; otherwise "Apply" changes nothing and the
import stays held. The same page reviews an earlier import (`?import=<id>`: one held in the drop folder,
say), and the imports' list has "Apply again" (a new preview of an earlier file, imported on purpose)
and "Discard".
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
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from simple_history.admin import SimpleHistoryAdmin

from procurement import models as m
from procurement.conf import setting
from procurement.pricelist.files import PriceListTooLarge
from procurement.services import (
    list_prices_follow_offers,
    price_list_apply,
    price_list_discard,
    price_list_preview,
    price_list_reapply,
)

MULTIPART_SLACK_BYTES = 1024 * 1024  # the upload form's other fields and boundaries beside the file


def price_list_body_bytes() -> int:
    """The request body the price-list upload page takes (config.body_limits): a list at its size limit and
    the form around it."""
    return int(setting("PRICE_LIST_MAX_BYTES")) + MULTIPART_SLACK_BYTES


class PriceListForm(forms.Form):
    file = forms.FileField(
        label=_("File"),
        help_text=_(
            "CSV (UTF-8 or Windows-1251; semicolon, comma or tab) or XLSX (the first sheet). The header may sit "
            "below title rows; columns are found by the supplier's mapping or their usual names (Артикул, "
            "Цена, Остаток, Срок поставки, Part number, Price, Stock…); numbers are read with the supplier's "
            "separators"
        ),
    )
    scope = forms.ChoiceField(
        label=_("Scope"),
        choices=m.PriceListScope.choices,
        required=False,
        help_text=_(
            "A full list retires the supplier's offers it does not list (after you confirm it); "
            "the supplier's setting when not chosen"
        ),
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith((".csv", ".xlsx")):
            raise forms.ValidationError(_("Only .csv and .xlsx files."))
        most = setting("PRICE_LIST_MAX_BYTES")
        if upload.size > most:
            raise forms.ValidationError(
                _("The file is %(size)s bytes; the limit is %(limit)s bytes.") % {"size": upload.size, "limit": most}
            )
        return upload


class ApplyForm(forms.Form):
    import_id = forms.IntegerField(widget=forms.HiddenInput)
    confirm_held = forms.BooleanField(required=False, label=_("Apply the held price moves"))
    confirm_retire = forms.BooleanField(required=False, label=_("Retire the offers missing from the list"))


class SupplierPartNumberInline(admin.TabularInline):
    """The supplier's part numbers: whoever may change the supplier may change them."""

    model = m.SupplierPartNumber
    fields = ("part_number", "sku")
    extra = 1

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("procurement.view_supplier"))

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("procurement.change_supplier"))

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("procurement.change_supplier"))

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.has_perm("procurement.change_supplier"))


@admin.register(m.Supplier)
class SupplierAdmin(SimpleHistoryAdmin):
    list_display = ("name", "slug", "currency", "default_scope", "is_sample")
    search_fields = ("name", "slug")
    change_form_template = "admin/procurement/supplier_change_form.html"
    inlines = [SupplierPartNumberInline]
    fieldsets = (
        (None, {"fields": ("slug", "name", "currency", "contact", "terms", "is_sample")}),
        (
            _("Price lists"),
            {
                "fields": (
                    "decimal_separator", "thousands_separator", "prices_include_vat", "default_scope",
                    "offer_valid_days", "column_mapping",
                )
            },
        ),
    )  # fmt: skip

    def get_urls(self) -> list[URLPattern]:
        upload = self.admin_site.admin_view(self.price_list_view)
        # the body this page takes (config.body_limits): a price list at its size limit and the form around it
        upload.max_body_bytes = price_list_body_bytes
        own = [path("<int:supplier_id>/price-list/", upload, name="procurement_supplier_price_list")]
        return own + super().get_urls()

    def price_list_view(self, request: HttpRequest, supplier_id: int) -> HttpResponse:
        supplier = get_object_or_404(m.Supplier, pk=supplier_id)
        if not self.has_change_permission(request, supplier):
            raise PermissionDenied
        price_import = None
        form = PriceListForm(initial={"scope": supplier.default_scope})
        if request.method == "POST" and ("apply" in request.POST or "discard" in request.POST):
            price_import = get_object_or_404(m.PriceListImport, pk=request.POST.get("import_id"), supplier=supplier)
            done = self._apply_or_discard(request, price_import)
            if done is not None:
                return done
            price_import.refresh_from_db()
        elif request.method == "POST":
            form = PriceListForm(request.POST, request.FILES)
            if form.is_valid():
                upload = form.cleaned_data["file"]
                try:
                    price_import = price_list_preview(
                        supplier=supplier, filename=upload.name, content=upload.read(), user=request.user,
                        scope=form.cleaned_data["scope"] or None,
                    )  # fmt: skip
                except PriceListTooLarge as exc:
                    form.add_error("file", gettext(exc.message) % exc.params)
        elif request.GET.get("import", "").isdigit():
            price_import = get_object_or_404(m.PriceListImport, pk=request.GET["import"], supplier=supplier)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Price list of %(supplier)s") % {"supplier": supplier},
            "supplier": supplier,
            "form": form,
            "price_import": price_import,
            "hold_percent": setting("PRICE_HOLD_PERCENT"),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/procurement/price_list.html", context)

    def _apply_or_discard(self, request: HttpRequest, price_import: m.PriceListImport) -> HttpResponse | None:
        """Apply (with the boxes ticked) or discard the import; a redirect when that is done, else None."""
        if "discard" in request.POST:
            if price_list_discard(price_import=price_import, user=request.user):
                self.message_user(request, _("Price list %(file)s discarded.") % {"file": price_import.filename})
            return None
        form = ApplyForm(request.POST)
        form.is_valid()
        confirm = {name: bool(form.cleaned_data.get(name)) for name in ("confirm_held", "confirm_retire")}
        try:
            price_import = price_list_apply(price_import=price_import, **confirm)
        except ValueError as exc:
            self.message_user(request, str(exc), level=messages.ERROR)
            return None
        if price_import.status == m.PriceListImport.Status.APPLIED:
            self.message_user(request, _("Price list %(file)s applied.") % {"file": price_import.filename})
            return HttpResponseRedirect(reverse("admin:procurement_pricelistimport_change", args=[price_import.pk]))
        if price_import.status == m.PriceListImport.Status.HELD:
            self.message_user(
                request,
                _("Nothing was changed: confirm the held price moves and the offers to retire, then apply."),
                level=messages.WARNING,
            )
            return None
        self.message_user(request, _("The file has errors; nothing was changed."), level=messages.ERROR)
        return None


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


def _review_url(price_import: m.PriceListImport) -> str:
    url = reverse("admin:procurement_supplier_price_list", args=[price_import.supplier_id])
    return f"{url}?import={price_import.pk}"


@admin.action(description=_("Apply again (a new preview of the same file, on purpose)"), permissions=["change"])
def apply_again(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
    if queryset.count() != 1:
        modeladmin.message_user(request, _("Choose one import to apply again."), level=messages.WARNING)
        return None
    earlier = queryset.get()
    if not request.user.has_perm("procurement.change_supplier"):
        raise PermissionDenied
    try:
        price_import = price_list_reapply(price_import=earlier, user=request.user)
    except PriceListTooLarge as exc:
        modeladmin.message_user(request, gettext(exc.message) % exc.params, level=messages.ERROR)
        return None
    return HttpResponseRedirect(_review_url(price_import))


@admin.action(description=_("Discard (held or previewed imports: nothing changes)"), permissions=["change"])
def discard(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Any]) -> None:
    count = sum(price_list_discard(price_import=item, user=request.user) for item in queryset)
    modeladmin.message_user(
        request,
        ngettext("%(count)s import discarded.", "%(count)s imports discarded.", count) % {"count": count},
    )


@admin.register(m.PriceListImport)
class PriceListImportAdmin(admin.ModelAdmin):
    list_display = ("created_at", "supplier", "filename", "scope", "status", "source", "created_by", "applied_at")
    list_filter = ("status", "source", "supplier")
    readonly_fields = (
        "supplier", "filename", "scope", "forced", "status", "review", "report", "created_by", "created_at",
        "applied_at",
    )  # fmt: skip
    exclude = ("content",)
    actions = [apply_again, discard]

    @admin.display(description=_("review"))
    def review(self, obj: m.PriceListImport) -> str:
        if obj.pk is None:
            return ""
        waiting = obj.status in (m.PriceListImport.Status.PREVIEWED, m.PriceListImport.Status.HELD)
        label = gettext("Review and apply") if waiting else gettext("Show the report")
        return format_html('<a href="{}">{}</a>', _review_url(obj), label)

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
