"""Routes of the configurator's web pages (mounted at the site root by config/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, path

from configurator.web import clusters, views

app_name = "configurator"

urlpatterns: list[URLPattern] = [
    path("", views.workload_page, name="workload"),
    path("models/search", views.model_suggestions, name="model-search"),
    path("glossary/", views.glossary, name="glossary"),
    path("builds/", views.build_list, name="build-list"),
    path("builds/new", views.build_new, name="build-new"),
    path("builds/check", views.build_check, name="build-check"),
    path("builds/<int:pk>", views.build_edit, name="build-edit"),
    path("clusters/", clusters.cluster_page, name="clusters"),
    path("clusters/quote", clusters.cluster_quote_request, name="cluster-quote"),
]
