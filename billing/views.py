"""Web pages of an order's money (`/billing/orders/<number>`): its invoice for payment, payments and УПД with
their PDFs, for the customer and staff; the sales engineer's forms that issue the documents and record
payments and service costs; the margin for sales engineers and superusers only. Who sees what is decided by
billing.selectors and orders.selectors (another customer's order is 404); every change is made (and checked
again) by billing.services, whose refusals come back as a message on the page."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import cast

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from accounts.forms import RequisitesForm
from accounts.models import User
from accounts.services import requisites_update
from billing import services
from billing.models import Invoice, Payment, TransferDocument
from billing.pdf import invoice_pdf, upd_pdf
from billing.selectors import invoice_get, margin_of, may_see_margin, upd_get
from configurator.engine.errors import ApplicationError, Forbidden
from orders.selectors import order_get

LOGIN_URL = reverse_lazy("accounts:login")


def _user(request: HttpRequest) -> User:
    return cast(User, request.user)


class PaymentForm(forms.Form):
    amount = forms.DecimalField(label=gettext_lazy("Amount, RUB"), max_digits=14, decimal_places=2,
                                min_value=Decimal("0.01"))  # fmt: skip
    paid_on = forms.DateField(label=gettext_lazy("Paid on"), required=False)
    reference = forms.CharField(label=gettext_lazy("Payment order No."), required=False, max_length=100)


class ServiceCostForm(forms.Form):
    description = forms.CharField(label=gettext_lazy("What for"), max_length=200)
    amount_rub = forms.DecimalField(label=gettext_lazy("Amount, RUB"), max_digits=14, decimal_places=2,
                                    min_value=Decimal("0.01"))  # fmt: skip


@login_required(login_url=LOGIN_URL)
@require_GET
def order_billing_page(request: HttpRequest, number: str) -> HttpResponse:
    user = _user(request)
    order = order_get(user=user, number=number)
    invoice = Invoice.objects.filter(order=order).first()
    context = {
        "order": order,
        "invoice": invoice,
        "payments": list(Payment.objects.filter(invoice=invoice)) if invoice else [],
        "upd": TransferDocument.objects.filter(order=order).first(),
        "may_bill": services.may_bill(user),
        "shipped": order.status in services.SHIPPED_STATUSES,
        "margin": margin_of(user=user, order=order) if may_see_margin(user) else None,
        "service_costs": list(order.service_costs.all()) if may_see_margin(user) else [],
        "payment_form": PaymentForm(),
        "requisites_form": RequisitesForm(instance=order.owner) if services.may_bill(user) else None,
        "cost_form": ServiceCostForm(),
        "active": "orders",
    }
    return render(request, "billing/order_billing.html", context)


def _act(
    request: HttpRequest, number: str, done: str, act: Callable[[], object], explain: dict[str, str] | None = None
) -> HttpResponse:
    """Run `act()` (a billing service); a Forbidden is 403, any other refusal a message: the sentence
    `explain` has for a field at fault, else the service's reasons."""
    try:
        act()
    except Forbidden:
        raise PermissionDenied(_("Only sales engineers may issue documents and record payments.")) from None
    except ApplicationError as error:
        explained = explain or {}
        reasons = "; ".join(explained.get(field) or f"{field}: {', '.join(why)}" for field, why in error.fields.items())
        messages.error(request, _("Not done: %(reason)s") % {"reason": reasons or error.message})
        return redirect("billing:order", number)
    messages.success(request, done)
    return redirect("billing:order", number)


@login_required(login_url=LOGIN_URL)
@require_POST
def invoice_action(request: HttpRequest, number: str) -> HttpResponse:
    user = _user(request)
    order = order_get(user=user, number=number)
    return _act(request, order.number, _("The invoice was issued."),
                lambda: services.invoice_create(order=order, user=user),
                {"order": _("the order is cancelled or not in roubles")})  # fmt: skip


@login_required(login_url=LOGIN_URL)
@require_POST
def upd_action(request: HttpRequest, number: str) -> HttpResponse:
    user = _user(request)
    order = order_get(user=user, number=number)
    return _act(request, order.number, _("The УПД was made."), lambda: services.upd_create(order=order, user=user),
                {"order": _("the order has not shipped yet"),
                 "inn": _("the buyer is an organisation: fill in its ИНН (10 digits) and КПП first"),
                 "kpp": _("the buyer is an organisation: fill in its КПП first")})  # fmt: skip


@login_required(login_url=LOGIN_URL)
@require_POST
def payment_action(request: HttpRequest, number: str) -> HttpResponse:
    user = _user(request)
    order = order_get(user=user, number=number)
    if not services.may_bill(user):
        raise PermissionDenied(_("Only sales engineers may issue documents and record payments."))
    form = PaymentForm(request.POST)
    invoice = Invoice.objects.filter(order=order).first()
    if invoice is None or not form.is_valid():
        messages.error(request, _("The input is not valid.") if invoice else _("Issue the invoice first."))
        return redirect("billing:order", order.number)
    data = form.cleaned_data
    return _act(request, order.number, _("The payment was recorded."),
                lambda: services.payment_record(invoice=invoice, amount=data["amount"], user=user,
                                                paid_on=data["paid_on"], reference=data["reference"]),
                {"amount": _("the amount is more than is still due, %(due)s RUB")
                 % {"due": invoice.gross_total - invoice.paid_total}})  # fmt: skip


@login_required(login_url=LOGIN_URL)
@require_POST
def service_cost_action(request: HttpRequest, number: str) -> HttpResponse:
    user = _user(request)
    order = order_get(user=user, number=number)
    if not services.may_bill(user):
        raise PermissionDenied(_("Only sales engineers may issue documents and record payments."))
    form = ServiceCostForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The input is not valid."))
        return redirect("billing:order", order.number)
    data = form.cleaned_data
    return _act(request, order.number, _("The service cost was recorded."),
                lambda: services.service_cost_add(order=order, user=user, **data))  # fmt: skip


@login_required(login_url=LOGIN_URL)
@require_GET
def invoice_pdf_download(request: HttpRequest, number: str) -> HttpResponse:
    invoice = invoice_get(user=_user(request), number=number)
    response = HttpResponse(invoice_pdf(invoice), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{invoice.number}.pdf"'
    return response


@login_required(login_url=LOGIN_URL)
@require_GET
def upd_pdf_download(request: HttpRequest, number: str) -> HttpResponse:
    document = upd_get(user=_user(request), number=number)
    response = HttpResponse(upd_pdf(document), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{document.number}.pdf"'
    return response


@login_required(login_url=LOGIN_URL)
@require_POST
def buyer_action(request: HttpRequest, number: str) -> HttpResponse:
    """A sales engineer sets the buyer's requisites (the order's customer's company, ИНН, КПП, address); the
    documents issued after it print them."""
    user = _user(request)
    order = order_get(user=user, number=number)
    if not services.may_bill(user):
        raise PermissionDenied(_("Only sales engineers may issue documents and record payments."))
    form = RequisitesForm(request.POST, instance=User())
    if not form.is_valid():
        reasons = "; ".join(f"{field}: {', '.join(map(str, why))}" for field, why in form.errors.items())
        messages.error(request, _("Not done: %(reason)s") % {"reason": reasons})
        return redirect("billing:order", order.number)
    return _act(request, order.number, _("The buyer's requisites were saved."),
                lambda: requisites_update(actor=user, customer=order.owner, **form.cleaned_data))  # fmt: skip
