"""Routes of the billing pages (mounted at /billing/ by config/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, path

from billing import views

app_name = "billing"

urlpatterns: list[URLPattern] = [
    path("orders/<str:number>", views.order_billing_page, name="order"),
    path("orders/<str:number>/invoice", views.invoice_action, name="invoice"),
    path("orders/<str:number>/payment", views.payment_action, name="payment"),
    path("orders/<str:number>/upd", views.upd_action, name="upd"),
    path("orders/<str:number>/buyer", views.buyer_action, name="buyer"),
    path("orders/<str:number>/service-cost", views.service_cost_action, name="service-cost"),
    path("invoices/<str:number>.pdf", views.invoice_pdf_download, name="invoice-pdf"),
    path("upd/<str:number>.pdf", views.upd_pdf_download, name="upd-pdf"),
]
