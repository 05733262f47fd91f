"""Routes of the services API and the suppliers list; config/urls.py mounts them under /api/v1/."""

from __future__ import annotations

from django.urls import URLPattern, path

from procurement.apis import SupplierListApi
from servicelines import apis

urlpatterns: list[URLPattern] = [
    path("services/", apis.ServiceListApi.as_view(), name="service-list"),
    path("suppliers/", SupplierListApi.as_view(), name="supplier-list"),
    path("quotes/<quote_number_for_order:number>/services", apis.QuoteServicesApi.as_view(), name="quote-services"),
]
