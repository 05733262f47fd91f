"""Web pages of purchasing (issue 36 item 7), for sales and catalog staff: the purchase orders (`/orders/purchase-
orders/`, `?status=`), one purchase order with its lines, what has arrived, its moves, its PDF and XLSX and the
receipt form (quantity and serial numbers per line: scanned or typed, one per line of the box); on an order's
page the button that makes its purchase orders and the assembly and burn-in form; the delivery note (the
customer's too). Every change is made, and checked again, by orders.purchasing; a refusal is shown as a message
naming what was wrong, nothing changes.
"""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from configurator.engine import purchasing as rules
from configurator.engine.errors import ApplicationError
from orders import purchasing
from orders.models import PurchaseOrder, PurchaseOrderStatus
from orders.po_documents import delivery_note_pdf, po_pdf, po_xlsx
from orders.selectors import may_see_purchases, order_get

LOGIN_URL = reverse_lazy("accounts:login")
PAGE_SIZE = 25
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _staff(request: HttpRequest) -> User:
    user = cast(User, request.user)
    if not may_see_purchases(user):
        raise PermissionDenied(_("Only sales and catalog staff see purchase orders."))
    return user


def _po(number: str) -> PurchaseOrder:
    return get_object_or_404(PurchaseOrder.objects.select_related("supplier", "order"), number=number)


def _refused(request: HttpRequest, exc: ApplicationError) -> None:
    """The service's refusal as a message: what was wrong with which field."""
    details = "; ".join(f"{field}: {', '.join(map(str, reasons))}" for field, reasons in (exc.fields or {}).items())
    messages.error(request, _("Not done: %(reason)s") % {"reason": details or str(exc)})


@login_required(login_url=LOGIN_URL)
@require_GET
def purchase_order_list_page(request: HttpRequest) -> HttpResponse:
    _staff(request)
    status = request.GET.get("status") or ""
    pos = PurchaseOrder.objects.select_related("supplier", "order")
    if status in PurchaseOrderStatus.values:
        pos = pos.filter(status=status)
    page = Paginator(pos, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"page": page, "status": status, "statuses": PurchaseOrderStatus.choices, "active": "purchasing"}
    return render(request, "orders/purchase_order_list.html", context)


@login_required(login_url=LOGIN_URL)
@require_GET
def purchase_order_page(request: HttpRequest, number: str) -> HttpResponse:
    _staff(request)
    po = _po(number)
    lines = po.lines.select_related("purchase__order_line").order_by("id")
    context = {
        "po": po,
        "lines": lines,
        "receivable": po.status in rules.RECEIVABLE,
        "serial_kinds": rules.SERIAL_KINDS,
        "moves": [to for to in ("sent", "confirmed", "cancelled") if rules.po_can_transition(po.status, to)],
        "receipts": po.receipts.select_related("received_by").prefetch_related("lines__po_line", "lines__serials"),
        "active": "purchasing",
    }
    return render(request, "orders/purchase_order_detail.html", context)


@login_required(login_url=LOGIN_URL)
@require_GET
def purchase_order_file(request: HttpRequest, number: str, fmt: str) -> HttpResponse:
    _staff(request)
    po = _po(number)
    content, content_type = (po_pdf(po), "application/pdf") if fmt == "pdf" else (po_xlsx(po), XLSX)
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{po.number}.{fmt}"'
    return response


@login_required(login_url=LOGIN_URL)
@require_POST
def purchase_order_transition_action(request: HttpRequest, number: str) -> HttpResponse:
    user = _staff(request)
    po = _po(number)
    try:
        purchasing.po_transition(po=po, to=str(request.POST.get("to") or ""), user=user)
    except ApplicationError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("The purchase order's status was changed."))
    return redirect("orders:purchase-order", po.number)


def _serials(text: str) -> list[str]:
    """Serial numbers as a scanner or a person enters them: one per line, or parted by spaces, tabs, commas or
    semicolons (a packing list pasted from a spreadsheet or an e-mail); configurator.engine.purchasing."""
    return rules.serials_split(text)


@login_required(login_url=LOGIN_URL)
@require_POST
def purchase_order_receive_action(request: HttpRequest, number: str) -> HttpResponse:
    """POST `qty_<line id>` and `serials_<line id>` for the lines that arrived (empty or 0: not in this receipt)."""
    user = _staff(request)
    po = _po(number)
    lines: list[purchasing.ReceiptLineInput] = []
    for line in po.lines.order_by("id"):
        raw = str(request.POST.get(f"qty_{line.pk}") or "").strip()
        if not raw or raw == "0":
            continue
        if not raw.isdigit():
            messages.error(request, _("Not done: %(reason)s") % {"reason": f"{line.sku}: {_('a whole number')}"})
            return redirect("orders:purchase-order", po.number)
        origin = [
            str(request.POST.get(f"{name}_{line.pk}") or "") for name in ("country_code", "country_name", "declaration")
        ]
        lines.append(
            purchasing.ReceiptLineInput(line.pk, int(raw), _serials(str(request.POST.get(f"serials_{line.pk}") or "")),
                                        *origin)
        )  # fmt: skip
    try:
        purchasing.receipt_record(po=po, lines=lines, user=user, note=str(request.POST.get("note") or "")[:500])
    except ApplicationError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("The receipt was recorded."))
    return redirect("orders:purchase-order", po.number)


@login_required(login_url=LOGIN_URL)
@require_POST
def order_purchase_orders_action(request: HttpRequest, number: str) -> HttpResponse:
    user = cast(User, request.user)
    order = order_get(user=user, number=number)
    _staff(request)
    try:
        made, created = purchasing.purchase_orders_create(order=order, user=user)
    except ApplicationError as exc:
        _refused(request, exc)
    else:
        if created:
            messages.success(
                request, _("Purchase orders made: %(numbers)s") % {"numbers": ", ".join(p.number for p in made)}
            )
    return redirect("orders:detail", order.number)


@login_required(login_url=LOGIN_URL)
@require_POST
def order_build_step_action(request: HttpRequest, number: str) -> HttpResponse:
    user = cast(User, request.user)
    order = order_get(user=user, number=number)
    _staff(request)
    try:
        purchasing.build_step_record(
            order=order, kind=str(request.POST.get("kind") or ""), result=str(request.POST.get("result") or ""),
            user=user, note=str(request.POST.get("note") or "")[:500],
        )  # fmt: skip
    except ApplicationError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("The step was recorded."))
    return redirect("orders:detail", order.number)


@login_required(login_url=LOGIN_URL)
@require_GET
def order_delivery_note(request: HttpRequest, number: str) -> HttpResponse:
    order = order_get(user=cast(User, request.user), number=number)
    response = HttpResponse(delivery_note_pdf(order), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{order.number}-delivery-note.pdf"'
    return response
