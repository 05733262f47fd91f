"""Forms of the quote pages: the list filter, the inputs of the actions that take any, the quote request of
the build editor, a draft's services and a customer's own quote request from a recommended build."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import CUSTOMERS, User
from configurator.wording import CURRENCY_SIGNS, num, part_name
from quotes.inputs import (
    REQUEST_COMMENT_MAX,
    REQUEST_COMPANY_MAX,
    REQUEST_CONTACT_MAX,
    REQUEST_NAME_MAX,
    contact_error,
)
from quotes.labels import STATUS_LABELS
from quotes.models import QuoteStatus
from quotes.pricing import service_unit_price
from servicelines.models import Category, Pricing, ServiceItem
from servicelines.services import services_doubled


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


# --------------------------------------------------------------------------- services and the customer's own request


def service_label(item: ServiceItem, hardware_net: Decimal | None = None, currency: str = "RUB") -> str:
    """A service as a customer reads it: its name in the page's language and its price — fixed, or its share of
    the hardware (and what that comes to for `hardware_net`, by the quote's one rule, `service_unit_price`)."""
    sign = CURRENCY_SIGNS.get(currency, currency)
    if item.pricing == Pricing.PERCENT:
        share = _("%(percent)s %% of the hardware") % {"percent": num(item.percent, 0 if item.percent % 1 == 0 else 2)}
        if hardware_net is not None:
            amount = service_unit_price(list_price=Decimal(0), percent=item.percent, hardware_net=hardware_net)
            share += f" ≈ {num(amount, 0)}\u00a0{sign}"
        price = share
    elif item.price:
        price = f"{num(item.price, 0)}\u00a0{sign}"
    else:
        price = str(_("included"))
    return f"{part_name(item)} — {price}"


def services_on_sale() -> list[ServiceItem]:
    return list(ServiceItem.objects.filter(is_active=True).order_by("category", "sku"))


class ServicesChoiceField(forms.MultipleChoiceField):
    widget = forms.CheckboxSelectMultiple

    def set_services(self, items: list[ServiceItem], hardware_net: Decimal | None = None) -> None:
        self.choices = [(item.sku, service_label(item, hardware_net)) for item in items]
        self.items = {item.sku: item for item in items}

    def validate(self, value: Any) -> None:
        """One warranty, one on-site contract, one delivery (servicelines.services.ONE_PER_QUOTE)."""
        super().validate(value)
        items = getattr(self, "items", {})
        doubled = services_doubled(items[sku] for sku in value or () if sku in items)
        if doubled:
            kinds = ", ".join(str(Category(category).label) for category in doubled)
            raise forms.ValidationError(
                _("Choose one service of each of these kinds: %(kinds)s."), code="one_per_kind", params={"kinds": kinds}
            )


class QuoteServicesForm(RevisionForm):
    """A draft's services, changed on the quote page (quotes.services.extras.quote_services_set)."""

    services = ServicesChoiceField(label=_("Services"), required=False)

    def __init__(self, *args: Any, hardware_net: Decimal | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(ServicesChoiceField, self.fields["services"]).set_services(services_on_sale(), hardware_net)


#: The longest build a request form takes (JSON characters): a recommended build is ~1 KB; a pasted config.json
#: is never part of it (configurator_ui.editor_url leaves it out), so 20 000 leaves room and stops a flood.
MAX_BUILD_CHARS = 20_000


class CustomerQuoteRequestForm(forms.Form):
    """A customer's own way to a quote from a recommended build: who asks, how to reach them, the services,
    a comment. Makes a draft quote for sales (quotes.services.quote_create), without the build editor."""

    build = forms.CharField(widget=forms.HiddenInput, max_length=MAX_BUILD_CHARS)
    services = ServicesChoiceField(label=_("Services"), required=False)
    name = forms.CharField(label=_("Your name"), max_length=REQUEST_NAME_MAX)
    company = forms.CharField(label=_("Company"), max_length=REQUEST_COMPANY_MAX, required=False)
    contact = forms.CharField(
        label=_("E-mail or phone"),
        max_length=REQUEST_CONTACT_MAX,
        help_text=_("Sales will reach you here about the quote."),
    )
    comment = forms.CharField(
        label=_("Your comment"),
        required=False,
        max_length=REQUEST_COMMENT_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Delivery address, deadline, questions: anything sales should know."),
    )
    acknowledge_warnings = forms.BooleanField(label=_("I have read the warnings"), required=False)

    def __init__(self, *args: Any, hardware_net: Decimal | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(ServicesChoiceField, self.fields["services"]).set_services(services_on_sale(), hardware_net)

    def clean_build(self) -> dict[str, Any]:
        try:
            body = json.loads(self.cleaned_data["build"])
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise forms.ValidationError(_("The build could not be read; open it again from the recommendation."))
        return body

    def clean_contact(self) -> str:
        value = str(self.cleaned_data["contact"]).strip()
        if (problem := contact_error(value)) is not None:
            raise forms.ValidationError(problem)
        return value

    def request_note(self) -> dict[str, str]:
        return {key: str(self.cleaned_data.get(key) or "").strip() for key in ("name", "company", "contact", "comment")}
