"""Routes of the configurator API under /api/v1/ (estimate, builds, recommendations, llm-models)."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
