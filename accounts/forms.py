"""Sign-up form for customers (sales and catalog accounts are made by an administrator)."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm, UsernameField
from django.utils.translation import gettext_lazy as _

from accounts.models import User


class SignupForm(UserCreationForm):
    email = forms.EmailField(label=_("E-mail"), help_text=_("Quotes are sent to this address."))
    company = forms.CharField(label=_("Company"), required=False, max_length=200)

    class Meta:
        model = User
        fields = ("username", "email", "company")
        field_classes = {"username": UsernameField}

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(_("An account with this e-mail already exists."))
        return email
