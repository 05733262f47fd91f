"""Web pages of orders: the list (`/orders/`, `?at_risk=1`: only the orders at risk), an order
(`/orders/<number>`) with its history, why it is at risk, the sales engineer's buttons that move it and,
for sales and catalog staff, its purchase lists; the purchase lists still to buy across orders
(`/orders/purchasing`) with CSV and XLSX per supplier; and the "Order" button of an accepted quote's page
(`POST /orders/from-quote/<number>`, idempotent). Purchase amounts are shown in the offer's currency with
their roubles at today's rate and its date; every total is in roubles.

Who sees an order is decided by `orders.selectors` (another customer's order is 404); every change is
made (and checked again) by `orders.services`, whose refusals come back as a message on the page.
"""

from __future__ import annotations

from decimal import Decimal
from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from configurator.engine.errors import ApplicationError, Forbidden
from configurator.wording import part_name
from orders import services
from orders.exports import purchase_list_download
from orders.labels import STATUS_PATH, not_compared_sentence, risk_sentence
from orders.models import TRANSITIONS, OrderStatus
from orders.purchasing import STAFF_EVENTS, shortfalls
from orders.selectors import (
    may_see_purchases,
    order_get,
    order_visible,
    plan_not_compared,
    purchase_lists,
    purchase_lists_to_buy,
    purchase_rates,
    purchase_table,
)
from quotes.selectors import quote_get

LOGIN_URL = reverse_lazy("accounts:login")
PAGE_SIZE = 25
#: Advance buttons in the order of the path; cancelling last.
ADVANCE_ORDER = (*STATUS_PATH, OrderStatus.CANCELLED)


def _user(request: HttpRequest) -> User:
    return cast(User, request.user)


@login_required(login_url=LOGIN_URL)
@require_GET
def order_list_page(request: HttpRequest) -> HttpResponse:
    """Your orders (customers) or every order (sales and catalog staff), newest first; `?at_risk=1`: only
    those whose promised ship date is at risk."""
    user = _user(request)
    at_risk = request.GET.get("at_risk") == "1"
    orders = order_visible(user=user, at_risk=True if at_risk else None)
    page = Paginator(orders, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"page": page, "staff": may_see_purchases(user), "at_risk": at_risk, "active": "orders"}
    return render(request, "orders/order_list.html", context)


@login_required(login_url=LOGIN_URL)
@require_GET
def order_detail_page(request: HttpRequest, number: str) -> HttpResponse:
    """One order: status along its path, promised ship date, lines, history; the moves sales may make;
    the purchase lists for sales and catalog staff."""
    user = _user(request)
    order = order_get(user=user, number=number)
    allowed = TRANSITIONS.get(order.status, frozenset())
    reached = STATUS_PATH.index(order.status) if order.status in STATUS_PATH else -1
    staff = may_see_purchases(user)
    purchases, not_compared = None, []
    if staff:
        grouped = purchase_lists(user=user, order=order)
        rates = purchase_rates(lines=[line for lines in grouped.values() for line in lines])
        purchases = {supplier: purchase_table(lines=lines, rates=rates) for supplier, lines in grouped.items()}
        not_compared = [not_compared_sentence(item) for item in plan_not_compared(order=order)]
    names = {line.sku: part_name(line) for line in order.lines.all()}  # a customer reads names, not SKUs
    context = {
        "order": order,
        "lines": order.lines.all(),
        "events": order.events.select_related("user").exclude(type__in=() if staff else STAFF_EVENTS),
        "path": [(status, index <= reached) for index, status in enumerate(STATUS_PATH)],
        "moves": [status for status in ADVANCE_ORDER if status in allowed]
        if (user.is_sales or user.is_superuser)
        else [],
        "purchases": purchases,
        "risks": [risk_sentence(reason, show_supplier=staff, names=names) for reason in order.risk_reasons or ()],
        "part_names": names,
        "not_compared": not_compared,
        "purchase_orders": order.purchase_orders.select_related("supplier").order_by("number") if staff else None,
        "build_steps": order.build_steps.select_related("done_by"),
        "may_build": staff and order.status in (OrderStatus.PARTS_ORDERED, OrderStatus.ASSEMBLING, OrderStatus.BURN_IN),
        "shortfalls": shortfalls(order) if staff and order.purchase_orders.exists() else [],
        "active": "orders",
    }
    return render(request, "orders/order_detail.html", context)


@login_required(login_url=LOGIN_URL)
@require_POST
def order_advance_action(request: HttpRequest, number: str) -> HttpResponse:
    """POST `/orders/<number>/advance` with `to`: the service decides; a refusal is shown, nothing changes."""
    user = _user(request)
    order = order_get(user=user, number=number)
    to = str(request.POST.get("to") or "")
    if to not in OrderStatus.values:
        messages.error(request, _("The input is not valid."))
        return redirect("orders:detail", order.number)
    try:
        services.order_advance(order=order, to=to, user=user, note=str(request.POST.get("note") or "")[:500])
    except Forbidden:
        raise PermissionDenied(_("Only sales engineers may change an order's status.")) from None
    except ApplicationError:
        messages.error(request, _("The order cannot go to this status from its current one."))
        return redirect("orders:detail", order.number)
    messages.success(request, _("The order's status was changed."))
    return redirect("orders:detail", order.number)


@login_required(login_url=LOGIN_URL)
@require_POST
def quote_order_action(request: HttpRequest, number: str) -> HttpResponse:
    """The "Order" button of an accepted quote: its order, made once however often it is pressed."""
    user = _user(request)
    quote = quote_get(user=user, number=number)
    try:
        order, created = services.order_place(quote=quote, user=user)
    except Forbidden:
        raise PermissionDenied(_("Only the customer or sales may order this quote.")) from None
    except ApplicationError:
        messages.error(request, _("Only an accepted quote can be ordered."))
        return redirect("quotes:detail", quote.number)
    if created:
        messages.success(request, _("Order %(number)s was placed.") % {"number": order.number})
    return redirect("orders:detail", order.number)


@login_required(login_url=LOGIN_URL)
@require_GET
def purchasing_page(request: HttpRequest) -> HttpResponse:
    """What is still to buy, per supplier, across the orders whose parts are not ordered yet."""
    user = _user(request)
    if not may_see_purchases(user):
        raise PermissionDenied(_("Only sales and catalog staff see purchase lists."))
    grouped = purchase_lists_to_buy(user=user)
    rates = purchase_rates(lines=[line for lines in grouped.values() for line in lines])
    suppliers = [(lines[0].supplier, purchase_table(lines=lines, rates=rates)) for lines in grouped.values()]
    total = sum((table.total_rub for _, table in suppliers), Decimal(0))
    context = {"suppliers": suppliers, "total_rub": total, "rates_on": rates.day, "active": "purchasing"}
    return render(request, "orders/purchasing.html", context)


@login_required(login_url=LOGIN_URL)
@require_GET
def purchasing_download(request: HttpRequest, supplier: str, fmt: str) -> HttpResponse:
    """One supplier's list still to buy (every open order's lines) as CSV or XLSX."""
    user = _user(request)
    if not may_see_purchases(user):
        raise PermissionDenied(_("Only sales and catalog staff see purchase lists."))
    lines = purchase_lists_to_buy(user=user).get(supplier)
    if lines is None:
        raise Http404("Nothing to buy from this supplier.")
    return purchase_list_download(lines=lines, supplier=supplier, name=f"to-buy-{supplier}", fmt=fmt)


@login_required(login_url=LOGIN_URL)
@require_GET
def order_purchase_download(request: HttpRequest, number: str, supplier: str, fmt: str) -> HttpResponse:
    """One order's purchase list of one supplier as CSV or XLSX (sales and catalog staff)."""
    user = _user(request)
    order = order_get(user=user, number=number)
    if not may_see_purchases(user):
        raise PermissionDenied(_("Only sales and catalog staff see purchase lists."))
    lines = purchase_lists(user=user, order=order).get(supplier)
    if lines is None:
        raise Http404("No purchase list of this supplier in this order.")
    return purchase_list_download(lines=lines, supplier=supplier, name=f"{order.number}-{supplier}", fmt=fmt)
