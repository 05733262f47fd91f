"""Routes of log in, log out, sign up and the account page (mounted at /accounts/ by config/urls.py)."""

from __future__ import annotations

from django.urls import URLPattern, path

from accounts import mfa, views

app_name = "accounts"

urlpatterns: list[URLPattern] = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("signup/", views.signup, name="signup"),
    path("activate/<str:uidb64>/<str:token>/", views.activate, name="activate"),
    path("mfa/", mfa.mfa, name="mfa"),
    path("password-reset/", views.PasswordResetView.as_view(), name="password-reset"),
    path("password-reset/sent/", views.PasswordResetSentView.as_view(), name="password-reset-sent"),
    path(
        "password-reset/<str:uidb64>/<str:token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
    path("password-reset/done/", views.PasswordResetCompleteView.as_view(), name="password-reset-complete"),
    path("", views.account, name="account"),
]
