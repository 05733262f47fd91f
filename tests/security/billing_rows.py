"""The authorization matrix's billing pieces (issue 36): URLs that make the document they point at (inside the
cell's test, rolled back after it), bodies and the expected statuses per persona.

Customers see their own orders' invoices, payments and УПД (another customer's: 404) and never margins
(403); sales engineers and superusers issue documents, record payments and service costs and export to 1C;
catalog staff read documents but may not write them, see margins or export."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from billing import services as billing_services
from billing.models import Invoice, TransferDocument
from orders import services as order_services
from orders.models import Order, OrderStatus

ANON, CUST, OTHER, SALES, CAT, SUPER = "anonymous", "customer", "other_customer", "sales", "catalog", "superuser"

DOCUMENT_READ = {ANON: 401, CUST: 200, OTHER: 404, SALES: 200, CAT: 200, SUPER: 200}
BILLERS_CREATE = {ANON: 401, CUST: 403, OTHER: 403, SALES: 201, CAT: 403, SUPER: 201}
BILLERS_READ = {ANON: 401, CUST: 403, OTHER: 403, SALES: 200, CAT: 403, SUPER: 200}
MARGIN_READ = {ANON: 401, CUST: 403, OTHER: 404, SALES: 200, CAT: 403, SUPER: 200}
MARGIN_WRITE = {**MARGIN_READ, SALES: 201, SUPER: 201}


def _order() -> Order:
    """The world's order (the first one made: make_world places it before anything else)."""
    order = Order.objects.order_by("pk").first()
    assert order is not None, "the world has no order"
    return order


def _invoice(world: Any) -> Invoice:
    invoice, _ = billing_services.invoice_create(order=world.order(), user=world.users[SALES])
    return invoice


def _shipped(world: Any) -> Order:
    order = Order.objects.get(pk=world.order().pk)
    for status in (OrderStatus.PARTS_ORDERED, OrderStatus.ASSEMBLING, OrderStatus.BURN_IN, OrderStatus.SHIPPED):
        if order.status != OrderStatus.SHIPPED:
            order = order_services.order_advance(order=order, to=status, user=world.users[SALES])
    return order


def _upd(world: Any) -> TransferDocument:
    document, _ = billing_services.upd_create(order=_shipped(world), user=world.users[SALES])
    return document


def invoice_url(suffix: str = "") -> Callable[[Any], str]:
    return lambda world: f"/api/v1/invoices/{_invoice(world).number}/{suffix}"


def upd_pdf_url(world: Any) -> str:
    return f"/api/v1/transfer-documents/{_upd(world).number}/pdf"


def payments_with_an_invoice(world: Any) -> str:
    _invoice(world)
    return "/api/v1/payments/"


def upd_create_url(world: Any) -> str:
    _shipped(world)
    return "/api/v1/transfer-documents/"


def order_body() -> dict[str, str]:
    return {"order": _order().number}


def payment_body() -> dict[str, str]:
    invoice = Invoice.objects.get(order=_order())
    return {"invoice": invoice.number, "amount": "1000.00", "reference": "п/п 1"}


SERVICE_COST_BODY = {"description": "Доставка курьером", "amount_rub": "3500.00"}


billing_invoice = _invoice  # the admin matrix's objects
billing_upd = _upd
