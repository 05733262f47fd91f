"""The order pages: the list and an order for each role, sales moving an order along its path, the
"Order" button of an accepted quote (idempotent), purchase lists with CSV and XLSX for staff; Russian."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from openpyxl import load_workbook

from accounts.models import User
from orders.models import Order, OrderEvent
from procurement.models import Supplier
from quotes.models import Quote
from tests import factories
from tests.orders.test_orders_api import GPU

pytestmark = pytest.mark.django_db


def browser(user: User | None, language: str = "en") -> Client:
    """A signed-in browser reading the site in `language` (the language switch's cookie)."""
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def ordered(
    accepted: Callable[[], Quote],
    customer_user: User,
    suppliers: tuple[Supplier, Supplier],
    django_capture_on_commit_callbacks: Any,
) -> Order:
    """The customer pressed "Order" on the accepted quote's page (the plan job ran, in process)."""
    quote = accepted()
    client = browser(customer_user)
    page = client.get(f"/quotes/{quote.number}").content.decode()
    assert f'action="/orders/from-quote/{quote.number}"' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/orders/from-quote/{quote.number}")
    order = Order.objects.get(quote=quote)
    assert response.status_code == 302 and response["Location"] == f"/orders/{order.number}"
    return order


def test_the_order_button_is_idempotent_and_the_quote_page_then_links_the_order(
    ordered: Order, customer_user: User, sales_user: User
) -> None:
    for user in (customer_user, sales_user):
        response = browser(user).post(f"/orders/from-quote/{ordered.quote.number}")
        assert response["Location"] == f"/orders/{ordered.number}"
    assert Order.objects.count() == 1
    page = browser(customer_user).get(f"/quotes/{ordered.quote.number}").content.decode()
    assert "/orders/from-quote/" not in page
    assert f'href="/orders/{ordered.number}" data-order-link' in page


def test_no_order_button_on_a_quote_not_accepted_and_refused_when_forced(
    catalog: None, customer_user: User, sales_user: User
) -> None:
    from quotes import services as quote_services
    from tests.builds import GOOD_BUILD

    quote = quote_services.quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD)
    client = browser(customer_user)
    assert "/orders/from-quote/" not in client.get(f"/quotes/{quote.number}").content.decode()
    response = browser(customer_user, "ru").post(f"/orders/from-quote/{quote.number}", follow=True)
    assert "Заказать можно только принятое КП." in response.content.decode()
    other = browser(factories.customer(username="mallory")).post(f"/orders/from-quote/{quote.number}")
    assert other.status_code == 404
    assert not Order.objects.exists()


def test_sales_move_an_order_along_its_path_and_the_customer_sees_it(
    ordered: Order, customer_user: User, sales_user: User
) -> None:
    sales = browser(sales_user)
    page = sales.get(f"/orders/{ordered.number}").content.decode()
    assert 'data-advance="parts_ordered"' in page and 'data-advance="cancelled"' in page
    assert 'data-advance="assembling"' not in page
    for to in ("parts_ordered", "assembling", "burn_in", "shipped"):
        response = sales.post(f"/orders/{ordered.number}/advance", {"to": to})
        assert response.status_code == 302
    ordered.refresh_from_db()
    assert ordered.status == "shipped"
    refused = sales.post(f"/orders/{ordered.number}/advance", {"to": "cancelled"}, follow=True)
    assert "The order cannot go to this status from its current one." in refused.content.decode()
    assert Order.objects.get(pk=ordered.pk).status == "shipped"

    mine = browser(customer_user, "ru").get(f"/orders/{ordered.number}").content.decode()
    assert 'data-order-status="shipped"' in mine and "Отгружен" in mine
    assert "data-advance" not in mine  # customers do not move orders
    assert 'id="purchases-title"' not in mine  # nor purchase lists
    assert mine.count("Статус изменён") == 4
    customer_move = browser(customer_user).post(f"/orders/{ordered.number}/advance", {"to": "delivered"})
    assert customer_move.status_code == 403
    assert Order.objects.get(pk=ordered.pk).status == "shipped"
    assert OrderEvent.objects.filter(order=ordered, type="status_changed").count() == 4


def test_each_role_sees_the_orders_it_may(ordered: Order, customer_user: User, sales_user: User) -> None:
    other = factories.customer(username="bob")
    assert ordered.number in browser(customer_user).get("/orders/").content.decode()
    assert ordered.number not in browser(other).get("/orders/").content.decode()
    assert browser(other).get(f"/orders/{ordered.number}").status_code == 404
    assert ordered.number in browser(sales_user).get("/orders/").content.decode()
    assert browser(None).get("/orders/").status_code == 302


def test_staff_see_purchase_lists_with_csv_and_xlsx_customers_do_not(
    ordered: Order, customer_user: User, sales_user: User
) -> None:
    staff = browser(factories.catalog_staff(username="cat"))
    page = staff.get("/orders/purchasing").content.decode()
    assert 'data-supplier="a"' in page and 'data-supplier="b"' in page
    assert f"/orders/{ordered.number}" in page
    rows = list(
        csv.reader(io.StringIO(staff.get("/orders/purchasing/b.csv").content.decode("utf-8-sig")), delimiter=";")
    )
    assert [row[:3] + row[5:6] for row in rows[1:]] == [[ordered.number, "b", GPU, "1"], ["Total, RUB", "", "", "1"]]
    book = load_workbook(io.BytesIO(staff.get("/orders/purchasing/b.xlsx").content))
    assert [row[:3] + row[5:6] for row in book.worksheets[0].iter_rows(min_row=2, values_only=True)] == [
        (ordered.number, "b", GPU, 1),
        ("Total, RUB", None, None, 1),
    ]
    detail = staff.get(f"/orders/{ordered.number}").content.decode()
    assert f"/orders/{ordered.number}/purchases/a.xlsx" in detail
    assert staff.get(f"/orders/{ordered.number}/purchases/a.csv").status_code == 200
    assert "data-advance" not in detail  # catalog staff do not move orders
    for url in ("/orders/purchasing", "/orders/purchasing/b.csv", f"/orders/{ordered.number}/purchases/a.csv"):
        assert browser(customer_user).get(url).status_code == 403, url
    # once the parts are ordered, the order leaves the list still to buy
    browser(sales_user).post(f"/orders/{ordered.number}/advance", {"to": "parts_ordered"})
    assert 'data-supplier="a"' not in staff.get("/orders/purchasing").content.decode()
    assert staff.get("/orders/purchasing/b.csv").status_code == 404


def test_navigation_links_per_role(catalog: None, customer_user: User, sales_user: User) -> None:
    customer_page = browser(customer_user, "ru").get("/orders/").content.decode()
    sales_page = browser(sales_user).get("/orders/").content.decode()
    assert ">Заказы</a>" in customer_page and ">Закупки</a>" not in customer_page
    assert 'href="/orders/" aria-current="page"' in customer_page
    assert 'href="/orders/purchasing"' not in customer_page
    assert 'href="/orders/purchasing"' in sales_page
    assert 'href="/orders/purchasing"' in browser(factories.catalog_staff(username="c")).get("/").content.decode()
    assert 'href="/orders/"' not in browser(None).get("/").content.decode()
