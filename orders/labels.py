"""What the order pages call things: statuses (the model's choices), history events, the buttons that move
an order, the messages after an action, why an order is at risk, and amounts with their roubles."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.utils.formats import date_format
from django.utils.functional import Promise
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from configurator.wording import CURRENCY_SIGNS, num
from finance.rates import Rate
from orders.models import OrderStatus

STATUS_LABELS = OrderStatus

#: The order of statuses an order goes through (cancelled is off the path).
STATUS_PATH = (
    OrderStatus.PLACED,
    OrderStatus.PARTS_ORDERED,
    OrderStatus.ASSEMBLING,
    OrderStatus.BURN_IN,
    OrderStatus.SHIPPED,
    OrderStatus.DELIVERED,
)

EVENT_LABELS = {
    "placed": _("Order placed"),
    "planned": _("Procurement plan made"),
    "plan_requeued": _("Procurement plan queued again"),
    "status_changed": _("Status changed"),
    "risk_changed": _("Risk of missing the ship date re-assessed"),
    "purchase_orders_made": _("Purchase orders made"),
    "purchase_order_changed": _("Purchase order status changed"),
    "purchase_orders_cancelled": _("Open purchase orders cancelled"),
    "purchase_order_emailed": _("Purchase order e-mailed to the supplier"),
    "purchase_order_email_failed": _("Purchase order e-mail failed"),
    "goods_received": _("Goods received"),
    "ready_to_assemble": _("Every part has arrived"),
    "build_step": _("Assembly or burn-in recorded"),
}

#: Why the sweep queued a procurement plan again (orders.services.orders_sweep_stuck).
PLAN_REQUEUE_REASONS = {
    "planning_too_long": _("the worker making it stopped"),
    "not_queued": _("the task queue was unavailable when the order was placed"),
    "message_lost": _("the task queue lost it"),
    "asked_by_staff": _("asked for by staff after it failed"),
}

#: The button that moves an order to a status.
ADVANCE_LABELS: dict[str, Promise] = {
    OrderStatus.PARTS_ORDERED: _("Mark parts ordered"),
    OrderStatus.ASSEMBLING: _("Start assembly"),
    OrderStatus.BURN_IN: _("Start burn-in test"),
    OrderStatus.SHIPPED: _("Mark shipped"),
    OrderStatus.DELIVERED: _("Mark delivered"),
    OrderStatus.CANCELLED: pgettext_lazy("order action", "Cancel the order"),
}

PLAN_LABELS = {
    "pending": _("Procurement plan pending"),
    "planning": _("Procurement plan being made"),
    "ready": _("Procurement plan ready"),
    "failed": _("Procurement plan failed"),
    "skipped": _("No procurement plan: the order was cancelled before it was made"),
}

#: Why an order is at risk (orders.risks): `%(part)s` is the SKU, `%(supplier)s` the supplier's code.
RISK_SENTENCES: dict[str, Promise] = {
    "short": _("%(qty)s × %(part)s: no offer with a price to buy from"),
    "late": _("%(qty)s × %(part)s arrive too late: the build can ship on %(date)s, after the promised date"),
    "overdue": _("The promised ship date %(date)s has passed"),
    "stale_offer": _("The offer of %(supplier)s for %(part)s expired on %(date)s"),
    "offer_gone": _("The offer of %(supplier)s for %(part)s was deleted"),
    "stock_short": _("%(supplier)s's latest price list lacks %(qty)s × %(part)s reserved for this order"),
    "not_received": _("%(qty)s × %(part)s from %(supplier)s were expected by %(date)s and have not arrived"),
    "po_cancelled": _("%(qty)s × %(part)s: the purchase order from %(supplier)s was cancelled before they arrived"),
}


#: Why the plan left an offer out of the price choice (procurement.planning: PRICE_ON_REQUEST, NO_RATE).
NOT_COMPARED_SENTENCES: dict[str, Promise] = {
    "no_rate": _("The offer of %(supplier)s for %(part)s is in %(currency)s, which has no exchange rate: not compared"),
    "price_on_request": _("The offer of %(supplier)s for %(part)s has its price on request: not compared"),
}


def not_compared_sentence(item: Mapping[str, Any]) -> str:
    """One offer the plan did not compare, said in the active language (staff only: it names the supplier)."""
    template = NOT_COMPARED_SENTENCES.get(str(item.get("reason")))
    values = {"supplier": item.get("supplier", ""), "part": item.get("sku", ""), "currency": item.get("currency", "")}
    return str(template) % values if template is not None else str(item.get("reason") or "")


def risk_sentence(
    reason: Mapping[str, Any], *, show_supplier: bool = True, names: Mapping[str, str] | None = None
) -> str:
    """One stored risk reason said in the active language (dates as the language writes them); the supplier's
    code only for staff (`show_supplier`); the part by its name when `names` (SKU → name) has it."""
    template = RISK_SENTENCES.get(str(reason.get("code")))
    if template is None:
        return str(reason.get("code") or "")
    day = reason.get("date")
    values = {
        "qty": reason.get("qty") or "",
        "part": (names or {}).get(str(reason.get("sku") or ""), reason.get("sku") or ""),
        "supplier": (reason.get("supplier") or "") if show_supplier else gettext("a supplier"),
        "date": date_format(dt.date.fromisoformat(day), "SHORT_DATE_FORMAT") if day else "",
    }
    return str(template) % values


def with_roubles(amount: Decimal, currency: str, *, rub: Decimal | None, rate: Rate | None) -> str:
    """An amount as the purchase pages write it: roubles as they are ("799 999,50 ₽"); another currency with
    its roubles, the rate's source and date ("12 000,00 USD ≈ 938 682,00 ₽ по курсу ЦБ на 03.12.2026"), or
    that it has no rate."""
    said = f"{num(amount, 2)}\u00a0{CURRENCY_SIGNS.get(currency, currency)}"
    if rate is None:
        no_rate = gettext("no exchange rate")
        return said if rub is not None else f"{said} ({no_rate})"
    day = rate.date.strftime("%d.%m.%Y")
    if rate.source == "cbr":
        at = gettext("at the CBR rate of %(date)s") % {"date": day}
    else:
        at = gettext("at the rate of %(date)s") % {"date": day}
    return f"{said} ≈ {num(rub, 2)}\u00a0₽ {at}"
