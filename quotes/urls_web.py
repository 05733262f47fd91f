"""Routes of the quote pages (mounted at /quotes/ by config/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, path

from quotes import views

app_name = "quotes"

urlpatterns: list[URLPattern] = [
    path("", views.quote_list_page, name="list"),
    path("request", views.quote_request_page, name="request"),
    path("<str:number>", views.quote_detail_page, name="detail"),
    path("<str:number>/pdf", views.quote_pdf_download, name="pdf"),
    path("<str:number>/pdf-status", views.quote_pdf_status, name="pdf-status"),
    path("<str:number>/discount", views.quote_discount, name="discount"),
    path("<str:number>/services", views.quote_services, name="services"),
    path("<str:number>/<str:action>", views.quote_action, name="action"),
]
