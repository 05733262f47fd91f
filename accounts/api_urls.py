"""Routes of the accounts API; config/urls.py mounts them at /api/v1/auth/."""

from __future__ import annotations

from django.urls import URLPattern, path

from accounts.apis import TokenApi

urlpatterns: list[URLPattern] = [
    path("token", TokenApi.as_view(), name="auth-token"),
]
