"""Routes of the order pages (mounted at /orders/ by config/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, path, register_converter

from orders import purchasing_views as pv
from orders import views


class DownloadFormatConverter:
    regex = "csv|xlsx"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class DocumentFormatConverter(DownloadFormatConverter):
    regex = "pdf|xlsx"


register_converter(DownloadFormatConverter, "download_format")
register_converter(DocumentFormatConverter, "document_format")

app_name = "orders"

urlpatterns: list[URLPattern] = [
    path("", views.order_list_page, name="list"),
    path("purchasing", views.purchasing_page, name="purchasing"),
    path("purchasing/<slug:supplier>.<download_format:fmt>", views.purchasing_download, name="purchasing-download"),
    path("purchase-orders/", pv.purchase_order_list_page, name="purchase-orders"),
    path("purchase-orders/<str:number>.<document_format:fmt>", pv.purchase_order_file, name="purchase-order-file"),
    path("purchase-orders/<str:number>", pv.purchase_order_page, name="purchase-order"),
    path(
        "purchase-orders/<str:number>/transition", pv.purchase_order_transition_action, name="purchase-order-transition"
    ),
    path("purchase-orders/<str:number>/receive", pv.purchase_order_receive_action, name="purchase-order-receive"),
    path("from-quote/<str:number>", views.quote_order_action, name="from-quote"),
    path("<str:number>", views.order_detail_page, name="detail"),
    path("<str:number>/advance", views.order_advance_action, name="advance"),
    path("<str:number>/purchase-orders", pv.order_purchase_orders_action, name="make-purchase-orders"),
    path("<str:number>/build-step", pv.order_build_step_action, name="build-step"),
    path("<str:number>/delivery-note.pdf", pv.order_delivery_note, name="delivery-note"),
    path(
        "<str:number>/purchases/<slug:supplier>.<download_format:fmt>",
        views.order_purchase_download,
        name="purchase-download",
    ),
]
