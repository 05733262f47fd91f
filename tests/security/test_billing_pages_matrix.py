"""Who may open and use the billing pages (issue 36), for the personas of the authorization matrix.

The page routes are enumerated from the URL resolver, so a new billing page without a row here fails
`test_every_billing_page_has_a_matrix_entry`. Rules: signing in is needed (anonymous → the login page);
customers see their own order's invoice, payments and УПД and download their PDFs (another customer's: 404);
sales engineers and superusers issue documents and record payments and service costs; catalog staff read but
may not write (403). The margin is shown to sales engineers and superusers only. Every refused POST is
checked to have changed nothing, every allowed one to have changed something. Sales engineers set a
customer's requisites (ИНН, КПП, address) too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import get_resolver

from accounts.models import User
from billing.models import Invoice, Payment, ServiceCost, TransferDocument
from orders.models import Order, OrderEvent
from tests.module_rows import rows_for_the_module
from tests.security.billing_rows import _invoice, _shipped, _upd
from tests.security.test_authorization_matrix import PERSONAS, World, fingerprint, make_world
from tests.security.test_order_pages_matrix import _walk

pytestmark = pytest.mark.django_db

ANON, CUST, OTHER, SALES, CAT, SUPER = PERSONAS
LOGIN, DONE = 302, 302
TABLES = (Order, OrderEvent, Invoice, Payment, TransferDocument, ServiceCost)


@pytest.fixture(scope="module")
def module_world(django_db_setup: None, django_db_blocker: Any) -> Iterator[World]:
    with rows_for_the_module(django_db_blocker):
        yield make_world("billing-pages", tokens=False)


@pytest.fixture
def world(catalog: None, module_world: World) -> World:
    return module_world


@dataclass(frozen=True)
class Page:
    expected: dict[str, int]
    url: Callable[[World], str]
    body: dict[str, str] | None = None


OWN_OR_STAFF = {ANON: LOGIN, CUST: 200, OTHER: 404, SALES: 200, CAT: 200, SUPER: 200}
BILLERS = {ANON: LOGIN, CUST: 403, OTHER: 404, SALES: DONE, CAT: 403, SUPER: DONE}


def _page(suffix: str = "", prepare: Callable[[World], object] | None = None) -> Callable[[World], str]:
    def url(world: World) -> str:
        if prepare is not None:
            prepare(world)
        return f"/billing/orders/{world.order().number}{suffix}"

    return url


PAGE_MATRIX: dict[tuple[str, str], Page] = {
    ("billing/orders/<str:number>", "GET"): Page(OWN_OR_STAFF, _page()),
    ("billing/orders/<str:number>/invoice", "POST"): Page(BILLERS, _page("/invoice"), {}),
    ("billing/orders/<str:number>/payment", "POST"): Page(
        BILLERS, _page("/payment", _invoice), {"amount": "1000.00", "reference": "п/п 5"}
    ),
    ("billing/orders/<str:number>/upd", "POST"): Page(BILLERS, _page("/upd", _shipped), {}),
    ("billing/orders/<str:number>/buyer", "POST"): Page(
        BILLERS,
        _page("/buyer"),
        {"company": "ООО Матрица", "inn": "7707083893", "kpp": "773601001", "legal_address": "Москва"},
    ),
    ("billing/orders/<str:number>/service-cost", "POST"): Page(
        BILLERS, _page("/service-cost"), {"description": "Доставка", "amount_rub": "3500.00"}
    ),
    ("billing/invoices/<str:number>.pdf", "GET"): Page(
        OWN_OR_STAFF, lambda world: f"/billing/invoices/{_invoice(world).number}.pdf"
    ),
    ("billing/upd/<str:number>.pdf", "GET"): Page(OWN_OR_STAFF, lambda world: f"/billing/upd/{_upd(world).number}.pdf"),
}


def _requisites() -> list[tuple[str, str, str, str]]:
    """The buyers' requisites (the users' other columns change on every sign-in, so not the whole table)."""
    return list(User.objects.order_by("pk").values_list("company", "inn", "kpp", "legal_address"))


def test_every_billing_page_has_a_matrix_entry() -> None:
    routes = {route for route, _ in _walk(get_resolver().url_patterns) if route.startswith("billing/")}
    assert routes == {route for route, _ in PAGE_MATRIX}


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize(("route", "method"), sorted(PAGE_MATRIX), ids=str)
def test_billing_page_matrix(world: World, route: str, method: str, persona: str) -> None:
    page = PAGE_MATRIX[route, method]
    url = page.url(world)
    before = fingerprint(*TABLES), _requisites()
    client = world.client(persona)
    response = client.post(url, page.body) if method == "POST" else client.get(url)
    expected = page.expected[persona]
    assert response.status_code == expected, (persona, method, url)
    if persona == ANON:
        assert response["Location"].startswith("/accounts/login/"), response["Location"]
    elif method == "POST" and expected == DONE:
        assert response["Location"] == f"/billing/orders/{world.order().number}", response["Location"]
    if (method == "POST" and expected != DONE) or persona == ANON:
        assert (fingerprint(*TABLES), _requisites()) == before, (
            f"a refused {method} {url} by {persona} changed the database"
        )
    elif method == "POST":
        assert (fingerprint(*TABLES), _requisites()) != before, (
            f"an allowed {method} {url} by {persona} changed nothing"
        )


def test_the_page_is_russian_and_shows_the_margin_to_sales_only(world: World) -> None:
    _invoice(world)
    url = f"/billing/orders/{world.order().number}"
    seen = {persona: world.client(persona).get(url, HTTP_ACCEPT_LANGUAGE="ru").content.decode() for persona in
            (CUST, SALES, CAT, SUPER)}  # fmt: skip
    assert "Счёт на оплату" in seen[CUST] and "не оплачен" in seen[CUST]
    for persona, has_margin in ((CUST, False), (CAT, False), (SALES, True), (SUPER, True)):
        assert ("data-margin" in seen[persona]) == has_margin, persona
        assert ("Маржа" in seen[persona]) == has_margin, persona
    for secret in ("Закупка", "data-purchases", "Поставщик"):
        assert secret not in seen[CUST]
