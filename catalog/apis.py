"""Read-only catalog API: GET /api/v1/catalog/<kind>/ and /api/v1/catalog/<kind>/<sku>/.

One list and one detail class per part kind (generated below), so the OpenAPI schema names each
kind's fields. Inactive parts are hidden unless `?active=false` or `?active=all` is asked for. Each part
carries its `availability` (live offers, free stock, the earliest date one unit can be here) for everyone
and its suppliers' `offers` (purchase prices) for sales and catalog staff only.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import generics, serializers

from catalog import models as m
from catalog.model_base import CatalogItem
from procurement.selectors import PartOffers, part_offers


class CatalogFilter(django_filters.FilterSet):
    vendor = django_filters.CharFilter(field_name="vendor", lookup_expr="iexact")
    active = django_filters.ChoiceFilter(
        method="filter_active",
        choices=[("true", "active only"), ("false", "inactive only"), ("all", "all")],
        empty_label=None,
        help_text="true (default), false or all",
    )

    def filter_active(self, queryset: QuerySet[Any], name: str, value: str) -> QuerySet[Any]:
        if value == "all":
            return queryset
        return queryset.filter(is_active=(value != "false"))

    def filter_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if not self.form.cleaned_data.get("active"):
            queryset = queryset.filter(is_active=True)
        return super().filter_queryset(queryset)


class GpuFilter(CatalogFilter):
    min_vram_gib = django_filters.NumberFilter(field_name="vram_gib", lookup_expr="gte")
    nvlink = django_filters.BooleanFilter(method="filter_nvlink", help_text="true: GPUs with NVLink")
    ecc = django_filters.BooleanFilter()
    form_factor = django_filters.ChoiceFilter(choices=m.GpuFormFactor.choices)
    nvlink_kind = django_filters.ChoiceFilter(choices=m.NvlinkKind.choices)

    class Meta:
        model = m.Gpu
        fields = ["vendor", "min_vram_gib", "nvlink", "ecc", "form_factor", "nvlink_kind", "active"]

    def filter_nvlink(self, queryset: QuerySet[Any], name: str, value: bool | None) -> QuerySet[Any]:
        if value is None:
            return queryset
        linked = queryset.filter(nvlink_kind__in=["bridge-2way", "bridge-2or4way", "nvswitch-sxm"])
        return linked if value else queryset.exclude(pk__in=linked.values("pk"))


class CpuFilter(CatalogFilter):
    socket = django_filters.CharFilter()
    max_sockets = django_filters.NumberFilter()

    class Meta:
        model = m.Cpu
        fields = ["vendor", "socket", "max_sockets", "active"]


class ChassisFilter(CatalogFilter):
    kind = django_filters.ChoiceFilter(choices=m.ChassisKind.choices)
    form_factor = django_filters.ChoiceFilter(field_name="gpu_form_factor", choices=m.GpuFormFactor.choices)
    min_gpus = django_filters.NumberFilter(field_name="max_gpu_count", lookup_expr="gte")

    class Meta:
        model = m.Chassis
        fields = ["vendor", "kind", "form_factor", "min_gpus", "active"]


class MemoryFilter(CatalogFilter):
    ecc = django_filters.BooleanFilter()
    kind = django_filters.ChoiceFilter(choices=m.MemoryKind.choices)

    class Meta:
        model = m.MemoryModule
        fields = ["vendor", "ecc", "kind", "active"]


class PsuFilter(CatalogFilter):
    form_factor = django_filters.ChoiceFilter(choices=m.PsuFormFactor.choices)

    class Meta:
        model = m.Psu
        fields = ["vendor", "form_factor", "active"]


def _plain_filter(model: type[CatalogItem]) -> type[CatalogFilter]:
    meta = type("Meta", (), {"model": model, "fields": ["vendor", "active"]})
    return type(f"{model.__name__}Filter", (CatalogFilter,), {"Meta": meta})


FILTERS: dict[str, type[CatalogFilter]] = {
    "gpus": GpuFilter,
    "cpus": CpuFilter,
    "chassis": ChassisFilter,
    "psus": PsuFilter,
    "memory": MemoryFilter,
    "storage": _plain_filter(m.StorageDevice),
    "nics": _plain_filter(m.Nic),
    "bridges": _plain_filter(m.NvlinkBridge),
}


class OfferOutputSerializer(serializers.Serializer):
    """One supplier's offer of the part (sales and catalog staff only: purchase prices)."""

    supplier = serializers.CharField(source="supplier.slug")
    supplier_name = serializers.CharField(source="supplier.name")
    purchase_price = serializers.DecimalField(
        max_digits=14, decimal_places=2, allow_null=True, help_text="Net of VAT; null: price on request"
    )
    currency = serializers.CharField()
    stock_qty = serializers.IntegerField()
    free_qty = serializers.IntegerField(help_text="Stock not reserved by orders")
    lead_time_days = serializers.IntegerField(help_text="Days to get the part when it is not in stock")
    valid_until = serializers.DateField()
    stale = serializers.BooleanField(source="is_stale", help_text="Past its validity: not used for dates or prices")
    updated_at = serializers.DateTimeField()


class AvailabilityOutputSerializer(serializers.Serializer):
    live_offers = serializers.IntegerField()
    in_stock_qty = serializers.IntegerField(help_text="Free units across the live offers")
    lead_time_days = serializers.IntegerField(
        allow_null=True, help_text="Days until one unit can be here (null: no live offer)"
    )
    earliest_date = serializers.DateField(allow_null=True, help_text="The date one unit can be here")


NO_OFFERS = {"live_offers": 0, "in_stock_qty": 0, "lead_time_days": None, "earliest_date": None}


def _sees_purchase_prices(user: Any) -> bool:
    return bool(getattr(user, "is_sales", False) or getattr(user, "is_catalog_staff", False) or user.is_superuser)


class PartOutputSerializer(serializers.ModelSerializer):
    """A catalog part with its availability (everyone) and its suppliers' offers (sales and catalog staff;
    null for everyone else). The offers of the whole kind are read once per request."""

    kind = ""
    availability = serializers.SerializerMethodField()
    offers = serializers.SerializerMethodField(help_text="Sales and catalog staff only; null for everyone else")

    def _found(self, item: Any) -> PartOffers | None:
        cache = self.context.setdefault("part_offers", {})
        if self.kind not in cache:
            cache[self.kind] = part_offers(kind=self.kind)
        found: PartOffers | None = cache[self.kind].get(item.sku)
        return found

    @extend_schema_field(AvailabilityOutputSerializer)
    def get_availability(self, item: Any) -> dict[str, Any]:
        found = self._found(item)
        if found is None:
            return dict(NO_OFFERS)
        return {
            "live_offers": sum(not offer.is_stale for offer in found.offers),
            "in_stock_qty": found.availability.in_stock_qty,
            "lead_time_days": found.availability.days,
            "earliest_date": found.earliest_date.isoformat() if found.earliest_date else None,
        }

    @extend_schema_field(OfferOutputSerializer(many=True, allow_null=True))
    def get_offers(self, item: Any) -> list[dict[str, Any]] | None:
        request = self.context.get("request")
        if request is None or not _sees_purchase_prices(request.user):
            return None
        found = self._found(item)
        if found is None:
            return []
        # one offer serializer per request: a serializer made per part deep-copied its fields for each row
        # (~60 % of a sales engineer's GPU list)
        offer = self.context.get("offer_output")
        if offer is None:
            offer = self.context["offer_output"] = OfferOutputSerializer(context=self.context)
        return [dict(offer.to_representation(row)) for row in found.offers]


class BridgeOutputSerializer(PartOutputSerializer):
    kind = "bridges"
    gpus = serializers.SlugRelatedField(slug_field="sku", many=True, read_only=True)  # type: ignore[var-annotated]

    class Meta:
        model = m.NvlinkBridge
        exclude = ("id",)


def _serializer(kind: str, model: type[CatalogItem]) -> type[serializers.ModelSerializer]:
    if model is m.NvlinkBridge:
        return BridgeOutputSerializer
    meta = type("Meta", (), {"model": model, "exclude": ("id",)})
    return type(f"{model.__name__}OutputSerializer", (PartOutputSerializer,), {"Meta": meta, "kind": kind})


def _queryset(model: type[CatalogItem]) -> QuerySet[Any]:
    queryset = model.objects.all()
    if model is m.NvlinkBridge:
        queryset = queryset.prefetch_related("gpus")
    return queryset


def _views(kind: str, model: type[CatalogItem]) -> tuple[type[generics.ListAPIView], type[generics.RetrieveAPIView]]:
    output = _serializer(kind, model)
    list_view = type(
        f"{model.__name__}ListApi",
        (generics.ListAPIView,),
        {
            "queryset": _queryset(model),
            "serializer_class": output,
            "filterset_class": FILTERS[kind],
            "__doc__": f"List catalog {model._meta.verbose_name_plural} (active ones unless ?active= says otherwise).",
        },
    )
    detail_view = type(
        f"{model.__name__}DetailApi",
        (generics.RetrieveAPIView,),
        {
            "queryset": _queryset(model),
            "serializer_class": output,
            "lookup_field": "sku",
            "__doc__": f"One catalog {model._meta.verbose_name} by SKU.",
        },
    )
    return list_view, detail_view


CATALOG_APIS = {kind: _views(kind, model) for kind, model in m.CATALOG_MODELS.items()}
