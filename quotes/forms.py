"""Forms of the quote pages: the list filter, the inputs of the actions that take any, and the quote
request of the build editor."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import CUSTOMERS, User
from quotes.labels import STATUS_LABELS
from quotes.models import QuoteStatus


class QuoteFilterForm(forms.Form):
    status = forms.ChoiceField(
        label=_("Status"),
        required=False,
        choices=[("", _("All statuses")), *((s, STATUS_LABELS[s]) for s in QuoteStatus.values)],
    )
    all_revisions = forms.BooleanField(label=_("Show earlier revisions too"), required=False)


class RevisionForm(forms.Form):
    """`revision` names the revision the page showed; the services refuse acting on an older one."""

    revision = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)


class ReviseForm(RevisionForm):
    discount_percent = forms.DecimalField(
        label=_("Discount, %"),
        required=False,
        min_value=Decimal(0),
        max_value=Decimal(100),
        max_digits=5,
        decimal_places=2,
    )


class DiscountForm(RevisionForm):
    """A draft's discount, changed in place by a sales engineer (quotes.services.quote_discount_set)."""

    discount_percent = forms.DecimalField(
        label=_("Discount, %"), min_value=Decimal(0), max_value=Decimal(100), max_digits=5, decimal_places=2
    )


class RejectForm(RevisionForm):
    reason = forms.CharField(
        label=_("Reason (optional)"), required=False, max_length=1000, widget=forms.Textarea(attrs={"rows": 2})
    )


class CustomerChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.username} — {obj.company}" if obj.company else str(obj.username)


class QuoteRequestForm(forms.Form):
    """Asking for a quote from the editor: warnings must be acknowledged; sales must choose the customer (no
    silent default: a quote made for "myself" by mistake would go to the wrong company)."""

    acknowledge_warnings = forms.BooleanField(label=_("I have read the warnings"), required=False)
    customer = CustomerChoiceField(
        label=_("Customer"),
        queryset=User.objects.none(),
        required=False,
        empty_label=_("— choose the customer —"),
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast(forms.ModelChoiceField, self.fields["customer"])
        if user.is_sales:
            field.queryset = User.objects.filter(groups__name=CUSTOMERS, is_active=True).order_by("username")
            field.required = True
            field.error_messages["required"] = _("Choose the customer the quote is for.")
        else:
            del self.fields["customer"]
