"""Log in, log out, sign up (customers, confirmed by e-mail) and the account page with the API token."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.encoding import force_bytes
from django.utils.http import url_has_allowed_host_and_scheme, urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.forms import LoginForm, RequisitesForm, SignupForm
from accounts.models import User
from accounts.services import customer_signup, requisites_update
from accounts.throttle import mail_allowed
from accounts.tokens import token_get, token_issue, token_revoke

LOGIN_URL = reverse_lazy("accounts:login")


class LoginView(auth_views.LoginView):
    form_class = LoginForm  # limited against password guessing (accounts/throttle.py)
    template_name = "accounts/login.html"
    redirect_authenticated_user = True
    extra_context = {"active": "login"}


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form (it mails only active accounts with that address and says the same either way),
    with its mails limited per address like the sign-up's."""

    def send_mail(self, *args: Any, **kwargs: Any) -> None:
        to_email = str(args[4] if len(args) > 4 else kwargs["to_email"])
        if mail_allowed(to_email):
            super().send_mail(*args, **kwargs)


class PasswordResetView(auth_views.PasswordResetView):
    """A reset link by e-mail (a locked-out or forgetful user's way back in)."""

    form_class = PasswordResetForm
    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password-reset-sent")


class PasswordResetSentView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_sent.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password-reset-complete")


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_complete.html"


class LogoutView(auth_views.LogoutView):
    next_page = "configurator:workload"


def _safe_next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=False)
    return target if target and allowed else str(reverse_lazy("configurator:workload"))


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A customer account, in the `customers` group, active once its owner opens the link mailed to the address.

    The answer is the same whether the address already has an account or not — a redirect to the login page
    saying a message was sent — so the page does not tell anyone which addresses have accounts: a new address
    gets the confirmation link, a taken one a note to its owner. Either mail goes at most once per
    SIGNUP_MAIL_INTERVAL_S to one address (`accounts.throttle.mail_allowed`), so the form cannot be used to
    flood a mailbox."""
    if request.user.is_authenticated:
        return redirect(_safe_next(request))
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        if User.objects.filter(email__iexact=email).exists():
            if mail_allowed(email):
                _signup_address_taken_mail(request, email)
        else:
            user = customer_signup(
                username=form.cleaned_data["username"],
                email=email,
                password=form.cleaned_data["password1"],
                company=form.cleaned_data.get("company") or "",
                active=False,
            )
            if mail_allowed(email):
                _signup_confirm_mail(request, user)
        sent = _("We have sent a message to %(email)s; please check your inbox.") % {"email": email}
        messages.info(request, sent)
        return redirect("accounts:login")
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


def _signup_confirm_mail(request: HttpRequest, user: User) -> None:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    link = request.build_absolute_uri(
        reverse("accounts:activate", kwargs={"uidb64": uid, "token": default_token_generator.make_token(user)})
    )
    send_mail(
        subject=_("Confirm your e-mail address"),
        message=_(
            "Someone, perhaps you, created an account with this e-mail address. To activate it, open %(url)s. "
            "If it was not you, you can ignore this message."
        )
        % {"url": link},
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[user.email],
        fail_silently=True,
    )


@require_http_methods(["GET"])
def activate(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """The link of the confirmation mail: activates the account (without logging anyone in: a mail scanner
    may open links) and sends its owner to the login page."""
    try:
        user = User.objects.get(pk=int(urlsafe_base64_decode(uidb64).decode()))
    except (ValueError, UnicodeDecodeError, OverflowError, User.DoesNotExist):
        user = None
    if user is not None and not user.is_active and default_token_generator.check_token(user, token):
        user.is_active = True
        user.save(update_fields=["is_active"])
        messages.success(request, _("Your account is active. Please log in."))
    elif user is None or not user.is_active:
        messages.error(request, _("This link is not valid or has expired. Please sign up again."))
    return redirect("accounts:login")


@login_required(login_url=LOGIN_URL)
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """Who you are, your role, and your API token: POST `issue` creates it (or replaces it) and shows the key
    on this answer only (only its sha256 is stored); POST `revoke` deletes it."""
    user = cast(User, request.user)
    new_key = ""
    requisites = RequisitesForm(instance=User(company=user.company, inn=user.inn, kpp=user.kpp,
                                              legal_address=user.legal_address))  # fmt: skip
    if request.method == "POST" and request.POST.get("action") == "requisites":
        requisites = RequisitesForm(request.POST, instance=User())
        if requisites.is_valid():
            requisites_update(actor=user, customer=user, **requisites.cleaned_data)
            messages.success(request, _("Your company's requisites were saved."))
            return redirect("accounts:account")
    elif request.method == "POST":
        if request.POST.get("action") == "revoke":
            if token_revoke(user=user):
                messages.success(request, _("Your API token was revoked."))
            return redirect("accounts:account")
        had_token = token_get(user=user) is not None
        _token, new_key = token_issue(user=user)
        messages.success(request, _("A new API token was issued.") if had_token else _("Your API token was created."))
    roles = [
        role
        for role, member in (
            (_("Sales engineer"), user.is_sales),
            (_("Catalog staff"), user.is_catalog_staff),
            (_("Customer"), user.in_group("customers")),
        )
        if member
    ]
    context = {"token": token_get(user=user), "new_key": new_key, "roles": roles, "active": "account",
               "requisites": requisites}  # fmt: skip
    return render(request, "accounts/account.html", context)
