"""Sign-up form for customers (sales and catalog accounts are made by an administrator) and the login
forms of the site and the admin, both limited against password guessing (accounts/throttle.py)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm, UsernameField
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.throttle import client_address, login_failed, login_limits, login_locked, login_succeeded

LOCKED_OUT = _("Too many failed attempts to log in. Try again in %(minutes)s minutes.")


class ThrottledLoginMixin:
    """Refuse the attempt before checking the password once the username or the address is locked out;
    count a failure otherwise. The refusal is the same for any username, right password or not."""

    request: Any
    data: Any
    user_cache: Any

    door = "login_page"

    def clean(self) -> dict[str, Any]:
        username = str(self.data.get("username") or "")
        address = client_address(self.request)
        if login_locked(username=username, address=address):
            minutes = max(1, login_limits().window_s // 60)
            raise forms.ValidationError(LOCKED_OUT, code="locked", params={"minutes": minutes})
        try:
            cleaned: dict[str, Any] = super().clean()  # type: ignore[misc]
        except forms.ValidationError:
            login_failed(username=username, address=address, door=self.door)
            raise
        if self.user_cache is not None:
            login_succeeded(username=username, address=address, door=self.door)
        return cleaned


class LoginForm(ThrottledLoginMixin, AuthenticationForm):
    """The site's login form (/accounts/login/)."""


class AdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    """The admin's login form (/admin/login/)."""

    door = "admin_login"


class SignupForm(UserCreationForm):
    email = forms.EmailField(label=_("E-mail"), help_text=_("Quotes are sent to this address."))
    company = forms.CharField(label=_("Company"), required=False, max_length=200)

    class Meta:
        model = User
        fields = ("username", "email", "company")
        field_classes = {"username": UsernameField}

    def clean_email(self) -> str:
        # Whether another account has this address is not the form's business: saying so would tell
        # anyone which addresses have accounts. The view e-mails the address instead (accounts.views).
        return str(self.cleaned_data["email"]).strip()


class RequisitesForm(forms.ModelForm):
    """A customer's company and the requisites a счёт and an УПД print (checked by User.clean: ИНН checksum,
    КПП format). The customer edits their own on the account page; a sales engineer a customer's on an
    order's billing page."""

    class Meta:
        model = User
        fields = ("company", "inn", "kpp", "legal_address")
