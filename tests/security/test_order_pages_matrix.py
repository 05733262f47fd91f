"""Who may open and use the order pages (issue 15), for the personas of the authorization matrix: anonymous,
customer (owns the order), another customer, sales, catalog staff and superuser.

The page routes are enumerated from the URL resolver, so a new order page without a row here fails
`test_every_order_page_has_a_matrix_entry`. Rules: signing in is needed (anonymous → the login page);
customers see their own orders (another's is 404) and may order their accepted quote; sales see every
order and move it; sales and catalog staff see purchase lists and download them; catalog staff do not see
quotes (404) and may not move orders (403). Every refused POST is checked to have changed nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from orders.models import BuildStep, Order, OrderEvent, PurchaseLine, PurchaseOrder, PurchaseOrderLine, Receipt
from procurement.models import SupplierOffer
from quotes.models import Quote, QuoteEvent
from tests.module_rows import rows_for_the_module
from tests.security.test_authorization_matrix import PERSONAS, World, fingerprint, make_world

pytestmark = pytest.mark.django_db

ANON, CUST, OTHER, SALES, CAT, SUPER = PERSONAS
LOGIN = 302  # anonymous: to the login page
DONE = 302  # an allowed POST redirects to the order's page
TABLES = (
    Order, OrderEvent, PurchaseLine, SupplierOffer, Quote, QuoteEvent, PurchaseOrder, PurchaseOrderLine, Receipt,
    BuildStep,
)  # fmt: skip
PO_DONE = "/orders/purchase-orders/PO-"  # where an allowed POST on a purchase order redirects


@pytest.fixture(scope="module")
def module_world(django_db_setup: None, django_db_blocker: Any) -> Iterator[World]:
    """The personas and the customer's order, made once for the module's tests (tests/module_rows.py)."""
    with rows_for_the_module(django_db_blocker):
        yield make_world("pages", tokens=False)


@pytest.fixture
def world(catalog: None, module_world: World) -> World:
    return module_world


def _supplier(world: World) -> str:
    line = PurchaseLine.objects.filter(order=world.order()).order_by("pk").first()
    assert line is not None, "the sample offers gave the order no purchase lines"
    return line.supplier.slug


def _second_accepted_quote(world: World) -> str:
    """An accepted quote of the customer without an order yet (the world's first one has the order)."""
    from quotes import services as quote_services
    from tests.builds import GOOD_BUILD

    quote = quote_services.quote_create(customer=world.customer, created_by=world.customer, payload=GOOD_BUILD)
    quote = quote_services.quote_send(quote=quote, user=world.sales2)
    return quote_services.quote_accept(quote=quote, user=world.customer).number


def _po_page(world: World, *, sent: bool = False) -> str:
    from tests.security.procurement_rows import world_po

    return f"/orders/purchase-orders/{world_po(world, sent=sent).number}"


def _receive_body(world: World) -> dict[str, str]:
    from tests.security.procurement_rows import receipt_input, world_po

    line = receipt_input(world_po(world, sent=True))["lines"][0]
    return {f"qty_{line['line']}": "1", f"serials_{line['line']}": "\n".join(line["serials"])}


def _ready_order(world: World) -> str:
    """The world's order with every part received (so assembly may be recorded)."""
    from orders.models import PurchaseOrder
    from orders.purchasing import ReceiptLineInput, purchase_orders_create, receipt_record

    sales = world.users[SALES]
    for po in purchase_orders_create(order=world.order(), user=sales)[0]:
        PurchaseOrder.objects.filter(pk=po.pk).update(status="sent")
        lines = [
            ReceiptLineInput(line.pk, line.qty, [f"PAGES-{line.pk}-{n}" for n in range(line.qty)]
                             if line.kind in ("gpus", "cpus", "storage", "psus") else [])
            for line in po.lines.all()
        ]  # fmt: skip
        receipt_record(po=po, lines=lines, user=sales)
    Order.objects.filter(pk=world.order().pk).update(status="parts_ordered")
    return f"/orders/{world.order().number}"


@dataclass(frozen=True)
class Page:
    expected: dict[str, int]
    url: Callable[[World], str]
    body: dict[str, str] | None = None  # a POST body when the page is a form's target


def _statuses(**by_persona: int) -> dict[str, int]:
    return {ANON: LOGIN, **by_persona}


SIGNED_IN = _statuses(**{CUST: 200, OTHER: 200, SALES: 200, CAT: 200, SUPER: 200})
OWN_OR_STAFF = _statuses(**{CUST: 200, OTHER: 404, SALES: 200, CAT: 200, SUPER: 200})
STAFF_OF_AN_ORDER = _statuses(**{CUST: 403, OTHER: 404, SALES: 200, CAT: 200, SUPER: 200})
STAFF = _statuses(**{CUST: 403, OTHER: 403, SALES: 200, CAT: 200, SUPER: 200})
STAFF_POST = _statuses(**{CUST: 403, OTHER: 404, SALES: DONE, CAT: DONE, SUPER: DONE})  # on the customer's order


def _order(suffix: str = "") -> Callable[[World], str]:
    return lambda world: f"/orders/{world.order().number}{suffix}"


PAGE_MATRIX: dict[tuple[str, str], Page] = {
    ("orders/", "GET"): Page(SIGNED_IN, lambda world: "/orders/"),
    ("orders/<str:number>", "GET"): Page(OWN_OR_STAFF, _order()),
    ("orders/<str:number>/advance", "POST"): Page(
        _statuses(**{CUST: 403, OTHER: 404, SALES: DONE, CAT: 403, SUPER: DONE}),
        _order("/advance"),
        {"to": "parts_ordered"},
    ),
    ("orders/<str:number>/purchases/<slug:supplier>.<download_format:fmt>", "GET"): Page(
        STAFF_OF_AN_ORDER, lambda world: f"/orders/{world.order().number}/purchases/{_supplier(world)}.xlsx"
    ),
    ("orders/purchasing", "GET"): Page(STAFF, lambda world: "/orders/purchasing"),
    ("orders/purchasing/<slug:supplier>.<download_format:fmt>", "GET"): Page(
        STAFF, lambda world: f"/orders/purchasing/{_supplier(world)}.csv"
    ),
    # issue 36: purchase orders and receipts are staff's; the delivery note is the order's owner's too
    ("orders/purchase-orders/", "GET"): Page(STAFF, lambda world: "/orders/purchase-orders/"),
    ("orders/purchase-orders/<str:number>", "GET"): Page(STAFF, lambda world: _po_page(world)),
    ("orders/purchase-orders/<str:number>.<document_format:fmt>", "GET"): Page(
        STAFF, lambda world: _po_page(world) + ".pdf"
    ),
    ("orders/purchase-orders/<str:number>/transition", "POST"): Page(
        _statuses(**{CUST: 403, OTHER: 403, SALES: DONE, CAT: DONE, SUPER: DONE}),
        lambda world: _po_page(world) + "/transition",
        {"to": "cancelled"},
    ),
    ("orders/purchase-orders/<str:number>/receive", "POST"): Page(
        _statuses(**{CUST: 403, OTHER: 403, SALES: DONE, CAT: DONE, SUPER: DONE}),
        lambda world: _po_page(world, sent=True) + "/receive",
        None,  # made by _receive_body, with the line's id
    ),
    ("orders/<str:number>/purchase-orders", "POST"): Page(STAFF_POST, _order("/purchase-orders"), {}),
    ("orders/<str:number>/build-step", "POST"): Page(
        STAFF_POST, lambda world: _ready_order(world) + "/build-step", {"kind": "assembly", "result": "passed"}
    ),
    ("orders/<str:number>/delivery-note.pdf", "GET"): Page(OWN_OR_STAFF, _order("/delivery-note.pdf")),
    ("orders/from-quote/<str:number>", "POST"): Page(
        _statuses(**{CUST: DONE, OTHER: 404, SALES: DONE, CAT: 404, SUPER: DONE}),
        lambda world: f"/orders/from-quote/{_second_accepted_quote(world)}",
        {},
    ),
}


def _walk(patterns: list[URLPattern | URLResolver], prefix: str = "") -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            found += _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            found.append((prefix + str(pattern.pattern), pattern.callback))
    return found


def test_every_order_page_has_a_matrix_entry() -> None:
    routes = {route for route, _ in _walk(get_resolver().url_patterns) if route.startswith("orders/")}
    assert routes == {route for route, _ in PAGE_MATRIX}


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize(("route", "method"), sorted(PAGE_MATRIX), ids=str)
def test_order_page_matrix(world: World, route: str, method: str, persona: str) -> None:
    page = PAGE_MATRIX[route, method]
    url = page.url(world)
    client = world.client(persona)
    before = fingerprint(*TABLES)
    body = _receive_body(world) if route.endswith("/receive") else page.body
    response = client.post(url, body) if method == "POST" else client.get(url)
    expected = page.expected[persona]
    assert response.status_code == expected, (persona, method, url)
    if persona == ANON:
        assert response["Location"].startswith("/accounts/login/"), response["Location"]
    elif method == "POST" and expected == DONE:
        assert response["Location"].startswith(("/orders/O-", PO_DONE)), response["Location"]
    if (method == "POST" and expected != DONE) or persona == ANON:
        assert fingerprint(*TABLES) == before, f"a refused {method} {url} by {persona} changed the database"
    elif method == "POST":
        assert fingerprint(*TABLES) != before, f"an allowed {method} {url} by {persona} changed nothing"
