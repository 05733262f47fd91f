"""Log in, log out, sign up (customers) and the account page with the API token."""

from __future__ import annotations

from typing import cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.apis import token_rotate
from accounts.forms import LoginForm, SignupForm
from accounts.models import User
from accounts.services import api_token_get, customer_signup

LOGIN_URL = reverse_lazy("accounts:login")


class LoginView(auth_views.LoginView):
    form_class = LoginForm  # limited against password guessing (accounts/throttle.py)
    template_name = "accounts/login.html"
    redirect_authenticated_user = True
    extra_context = {"active": "login"}


class LogoutView(auth_views.LogoutView):
    next_page = "configurator:workload"


def _safe_next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=False)
    return target if target and allowed else str(reverse_lazy("configurator:workload"))


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A customer account: joins the `customers` group and is logged in at once."""
    if request.user.is_authenticated:
        return redirect(_safe_next(request))
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        if User.objects.filter(email__iexact=email).exists():
            # Not said on the page (it would tell anyone which addresses have accounts): the address's
            # owner gets an e-mail, the visitor a message that names no account.
            _signup_address_taken_mail(request, email)
            sent = _("We have sent a message to %(email)s; please check your inbox.") % {"email": email}
            messages.info(request, sent)
            return redirect("accounts:login")
        user = customer_signup(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
            company=form.cleaned_data.get("company") or "",
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome! Your account is ready."))
        return redirect(_safe_next(request))
    next_url = request.GET.get("next") or request.POST.get("next") or ""
    return render(request, "accounts/signup.html", {"form": form, "next": next_url, "active": "signup"})


def _signup_address_taken_mail(request: HttpRequest, email: str) -> None:
    login_url = request.build_absolute_uri(str(LOGIN_URL))
    send_mail(
        subject=_("Sign-up with your e-mail address"),
        message=_(
            "Someone, perhaps you, tried to create an account with this e-mail address, which already has "
            "one. To sign in, open %(url)s. If it was not you, you can ignore this message."
        )
        % {"url": login_url},
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[email],
        fail_silently=True,
    )


@login_required(login_url=LOGIN_URL)
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """Who you are, your role, and your API token (POST creates it, or replaces it with a new one)."""
    user = cast(User, request.user)
    if request.method == "POST":
        had_token = api_token_get(user=user) is not None
        token_rotate(user=user)
        messages.success(request, _("A new API token was issued.") if had_token else _("Your API token was created."))
        return redirect("accounts:account")
    roles = [
        role
        for role, member in (
            (_("Sales engineer"), user.is_sales),
            (_("Catalog staff"), user.is_catalog_staff),
            (_("Customer"), user.in_group("customers")),
        )
        if member
    ]
    context = {"token": api_token_get(user=user), "roles": roles, "active": "account"}
    return render(request, "accounts/account.html", context)
