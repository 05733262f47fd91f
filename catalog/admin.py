"""The catalog staff's workplace: lists with the columns that matter, filters, search, CSV/XLSX
import with a dry-run preview, export, full change history, and a bulk price change.

Who may do what comes from Django model permissions held by the groups (accounts.roles):
`catalog` changes everything here, `sales` only views.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from import_export.admin import ImportExportModelAdmin
from import_export.formats.base_formats import CSV, XLSX
from simple_history.admin import SimpleHistoryAdmin

from catalog import cluster_models as cm
from catalog import models as m
from catalog.resources import RESOURCES
from catalog.services import PricePreview, catalog_change_prices, catalog_price_preview
from config.spreadsheets import formula_safe
from configurator.wording import num


def _formula_safe_rows(dataset: Any) -> Any:
    """The dataset with every text a spreadsheet would run (`=…`, `+…`, `-…`, `@…`) written as text: a `'` in
    front (config/spreadsheets.py). django-import-export's own escape drops the `=` and nothing else."""
    for _row in range(dataset.height):
        dataset.append([formula_safe(cell) for cell in dataset.lpop()])
    return dataset


class FormulaSafeCSV(CSV):
    def export_data(self, dataset: Any, **kwargs: Any) -> Any:
        return super().export_data(_formula_safe_rows(dataset), **kwargs)


class FormulaSafeXLSX(XLSX):
    def export_data(self, dataset: Any, **kwargs: Any) -> Any:
        return super().export_data(_formula_safe_rows(dataset), **kwargs)


class PriceChangeForm(forms.Form):
    percent = forms.DecimalField(
        label=_("Change prices by, %"),
        max_digits=6,
        decimal_places=2,
        min_value=Decimal("-90"),
        max_value=Decimal("500"),
        help_text=_("Positive raises, negative lowers; each price is rounded to kopecks."),
    )


@admin.action(description=_("Change list prices of the selected rows by a percentage"), permissions=["change"])
def change_prices(modeladmin: CatalogAdmin, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
    """Two steps: "Preview" shows every row's old and new price; only then "Apply" changes them (with the
    percentage as the change reason in each row's history)."""
    form = PriceChangeForm(request.POST if ("apply" in request.POST or "preview" in request.POST) else None)
    preview: list[PricePreview] = []
    if form.is_bound and form.is_valid():
        percent = form.cleaned_data["percent"]
        if "apply" in request.POST:
            try:
                count = catalog_change_prices(queryset=queryset, percent=percent)
            except (ValueError, InvalidOperation) as exc:
                modeladmin.message_user(request, str(exc), level=messages.ERROR)
                return None
            modeladmin.message_user(
                request,
                ngettext(
                    "Changed the price of %(count)s row by %(percent)s %%.",
                    "Changed the price of %(count)s rows by %(percent)s %%.",
                    count,
                )
                % {"count": count, "percent": num(percent, 2)},
            )
            return None
        try:
            preview = catalog_price_preview(queryset=queryset, percent=percent)
        except ValueError as exc:
            form.add_error("percent", str(exc))
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": _("Change prices by a percentage"),
        "form": form,
        "queryset": queryset,
        "preview": preview,
        "opts": modeladmin.model._meta,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/catalog/change_prices.html", context)


class CatalogAdmin(ImportExportModelAdmin, SimpleHistoryAdmin):
    search_fields = ("sku", "name", "name_ru", "vendor")
    actions = [change_prices]
    formats = [FormulaSafeCSV, FormulaSafeXLSX]
    readonly_fields = ("created_at", "updated_at")
    list_per_page = 100
    history_list_display = ["list_price", "is_active"]

    def get_resource_classes(self, request: HttpRequest) -> list[Any]:
        return [RESOURCES[self.model]]

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        obj._change_reason = str(_("Edited in the admin") if change else _("Added in the admin"))
        super().save_model(request, obj, form, change)


@admin.register(m.Gpu)
class GpuAdmin(CatalogAdmin):
    list_display = (
        "sku", "name", "name_ru", "vram_gib", "bandwidth_gbs", "tdp_w", "fp16_tflops", "ecc", "nvlink_kind",
        "form_factor", "list_price", "currency", "is_active",
    )  # fmt: skip
    list_filter = ("vendor", "form_factor", "nvlink_kind", "ecc", "cooling", "is_consumer", "is_active")
    ordering = ("vram_gib", "sku")


@admin.register(m.Cpu)
class CpuAdmin(CatalogAdmin):
    list_display = (
        "sku", "name", "socket", "cores", "tdp_w", "pcie_lanes_1p", "pcie_lanes_per_socket_2p",
        "memory_channels", "max_sockets", "list_price", "is_active",
    )  # fmt: skip
    list_filter = ("vendor", "family", "socket", "max_sockets", "is_active")


@admin.register(m.Chassis)
class ChassisAdmin(CatalogAdmin):
    list_display = (
        "sku", "name", "name_ru", "kind", "rack_units", "cpu_socket", "cpu_sockets", "max_gpu_count", "max_gpu_tdp_w",
        "psu_bays", "dimm_slots", "list_price", "is_active",
    )  # fmt: skip
    list_filter = ("kind", "cpu_socket", "gpu_form_factor", "pcie_topology", "server_airflow", "is_active")


@admin.register(m.Psu)
class PsuAdmin(CatalogAdmin):
    list_display = (
        "sku", "name", "name_ru", "form_factor", "watts_high_line", "watts_low_line", "efficiency", "list_price",
        "is_active",
    )  # fmt: skip
    list_filter = ("form_factor", "efficiency", "is_active")


@admin.register(m.MemoryModule)
class MemoryModuleAdmin(CatalogAdmin):
    list_display = ("sku", "name", "kind", "capacity_gb", "speed_mts", "ecc", "list_price", "is_active")
    list_filter = ("kind", "ecc", "capacity_gb", "is_active")


@admin.register(m.StorageDevice)
class StorageDeviceAdmin(CatalogAdmin):
    list_display = (
        "sku",
        "name",
        "interface",
        "capacity_tb",
        "pcie_lanes",
        "power_w",
        "list_price",
        "is_active",
    )
    list_filter = ("interface", "is_active")


@admin.register(m.Nic)
class NicAdmin(CatalogAdmin):
    list_display = ("sku", "name", "speed_gbps", "ports", "pcie_lanes", "power_w", "list_price", "is_active")
    list_filter = ("speed_gbps", "is_active")


@admin.register(m.NvlinkBridge)
class NvlinkBridgeAdmin(CatalogAdmin):
    list_display = ("sku", "name", "ways", "slot_spacing", "list_price", "is_active")
    list_filter = ("ways", "is_active")
    filter_horizontal = ("gpus",)


# cluster parts (issue 39)
@admin.register(cm.NetworkSwitch)
class NetworkSwitchAdmin(CatalogAdmin):
    list_display = ("sku", "name", "fabric", "role", "ports", "port_speed_gbps", "power_w", "list_price", "is_active")
    list_filter = ("fabric", "role", "is_active")


@admin.register(cm.NetworkAdapter)
class NetworkAdapterAdmin(CatalogAdmin):
    list_display = ("sku", "name", "speed_gbps", "ports", "is_dpu", "power_w", "list_price", "is_active")


@admin.register(cm.Cable)
class CableAdmin(CatalogAdmin):
    list_display = ("sku", "name", "medium", "speed_gbps", "length_m", "reach_m", "list_price", "is_active")
    list_filter = ("medium", "speed_gbps", "is_active")


@admin.register(cm.StorageNode)
class StorageNodeAdmin(CatalogAdmin):
    list_display = ("sku", "name", "usable_tb", "read_gbs", "write_gbs", "power_w", "list_price", "is_active")


@admin.register(cm.Rack)
class RackAdmin(CatalogAdmin):
    list_display = ("sku", "name", "rack_units", "static_load_kg", "list_price", "is_active")


@admin.register(cm.Pdu)
class PduAdmin(CatalogAdmin):
    list_display = ("sku", "name", "phases", "voltage_v", "current_a", "list_price", "is_active")
