"""Routes of the procurement API beside the suppliers list (servicelines/urls.py); config/urls.py mounts
them under /api/v1/."""

from __future__ import annotations

from django.urls import URLPattern, path

from procurement.apis import SupplierPriceListApi

urlpatterns: list[URLPattern] = [
    path("suppliers/<slug:slug>/price-lists", SupplierPriceListApi.as_view(), name="supplier-price-lists"),
]
