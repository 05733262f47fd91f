"""Screenshots of the pages the other browser tests do not shoot (issue 16: every page at 1280 and 390 px, in
Russian and English), each checked for the page's heading first so a broken page is not photographed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests import factories
from tests.e2e.test_order_walk import _accepted_quote
from tests.e2e.test_pages import _english


def test_screenshots_of_the_lists_the_order_pages_and_the_sign_in_pages(
    page: Page, live_server: Any, login: Callable[..., None], shoot: Callable[..., None]
) -> None:
    from orders.services import order_place

    customer = factories.customer(username="olga")
    quote = _accepted_quote(customer)
    order, _created = order_place(quote=quote, user=customer)
    sales = factories.sales(username="pavel")

    page.goto(f"{live_server.url}/accounts/login/")
    expect(page.locator("h1")).to_be_visible()
    shoot(page, "login-ru")
    page.goto(f"{live_server.url}/accounts/signup/")
    expect(page.locator("h1")).to_be_visible()
    shoot(page, "signup-ru")

    login(page.context, sales)
    pages = {
        "builds": "/builds/",
        "quotes": "/quotes/",
        "orders": "/orders/",
        "order-detail": f"/orders/{order.number}",
        "purchasing": "/orders/purchasing",
    }
    for language in ("ru", "en"):
        if language == "en":
            _english(page)
        for name, path in pages.items():
            page.goto(f"{live_server.url}{path}")
            expect(page.locator("html")).to_have_attribute("lang", language)
            expect(page.locator("h1")).to_be_visible()
            shoot(page, f"{name}-{language}")
    expect(page.locator("body")).to_contain_text(order.number)
