"""Routes of the order pages (mounted at /orders/ by config/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, path, register_converter

from orders import views


class DownloadFormatConverter:
    regex = "csv|xlsx"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(DownloadFormatConverter, "download_format")

app_name = "orders"

urlpatterns: list[URLPattern] = [
    path("", views.order_list_page, name="list"),
    path("purchasing", views.purchasing_page, name="purchasing"),
    path("purchasing/<slug:supplier>.<download_format:fmt>", views.purchasing_download, name="purchasing-download"),
    path("from-quote/<str:number>", views.quote_order_action, name="from-quote"),
    path("<str:number>", views.order_detail_page, name="detail"),
    path("<str:number>/advance", views.order_advance_action, name="advance"),
    path(
        "<str:number>/purchases/<slug:supplier>.<download_format:fmt>",
        views.order_purchase_download,
        name="purchase-download",
    ),
]
