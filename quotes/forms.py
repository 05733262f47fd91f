"""Forms of the quote pages: the list filter and the inputs of the actions that take any."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

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


class RejectForm(RevisionForm):
    reason = forms.CharField(
        label=_("Reason (optional)"), required=False, max_length=1000, widget=forms.Textarea(attrs={"rows": 2})
    )
