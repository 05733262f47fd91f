"""One order's walk in a real browser, in Russian (issue 15): the customer orders an accepted quote from
its page, a sales engineer moves the order along its path, the customer sees the new status, the promised
ship date and the history; catalog staff see the purchase lists. No English text of the site's own on
these pages, and no Content-Security-Policy violation."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests import factories
from tests.e2e.test_flows import VISIBLE_TEXTS, _english_msgids


def _accepted_quote(customer: Any) -> Any:
    from procurement.services import offers_load_fixture
    from quotes import services as quote_services
    from tests.builds import GOOD_BUILD

    offers_load_fixture()  # the sample suppliers: the order gets a ship date and purchase lists
    seller = factories.sales(username="quoting-sales")
    quote = quote_services.quote_create(customer=customer, created_by=customer, payload=GOOD_BUILD)
    quote = quote_services.quote_send(quote=quote, user=seller)
    return quote_services.quote_accept(quote=quote, user=customer)


def _untranslated(page: Page, patterns: list[re.Pattern[str]]) -> list[str]:
    return sorted({text for text in page.evaluate(VISIBLE_TEXTS) if any(p.match(text) for p in patterns)})


def test_sales_move_an_order_and_the_customer_sees_its_new_status(
    page: Page, browser: Browser, live_server: Any, login: Callable[..., None], browser_context_args: dict[str, Any]
) -> None:
    patterns = _english_msgids()
    violations: list[str] = []
    customer = factories.customer(username="olga")
    quote = _accepted_quote(customer)

    # the customer orders the accepted quote from its page
    login(page.context, customer)
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )
    page.goto(f"{live_server.url}/quotes/{quote.number}")
    page.get_by_role("button", name="Оформить заказ").click()
    expect(page).to_have_url(re.compile(r"/orders/O-\d{4}-\d{6}$"))
    number = page.url.rsplit("/", 1)[1]
    expect(page.locator("[data-order-status]")).to_have_attribute("data-order-status", "placed")
    expect(page.locator("[data-ship-date]")).not_to_contain_text("неизвестна")
    expect(page.get_by_role("button", name="Отметить заказ комплектующих")).to_have_count(0)
    assert _untranslated(page, patterns) == []

    # a sales engineer, in a browser of their own, moves it twice
    sales_context = browser.new_context(**browser_context_args)
    login(sales_context, factories.sales(username="pavel"))
    sales = sales_context.new_page()
    sales.goto(f"{live_server.url}/orders/")
    sales.get_by_role("link", name=number).click()
    sales.get_by_role("button", name="Отметить заказ комплектующих").click()
    expect(sales.locator(".message--success")).to_have_text("Статус заказа изменён.")
    sales.get_by_role("button", name="Начать сборку").click()
    expect(sales.locator("[data-order-status]")).to_have_attribute("data-order-status", "assembling")
    expect(sales.locator(".order-path [aria-current='step']")).to_have_text("Сборка")
    assert _untranslated(sales, patterns) == []
    sales_context.close()

    # the customer sees the new status and the history, in the list and on the order's page
    page.goto(f"{live_server.url}/orders/")
    row = page.locator("table[data-orders] tbody tr", has_text=number)
    expect(row.locator(".status")).to_have_text("Сборка")
    row.get_by_role("link", name=number).click()
    expect(page.locator("h1 .status")).to_have_text("Сборка")
    events = page.locator("[data-order-events] li")
    expect(events).to_have_count(4)  # placed, planned, two status changes
    expect(events.nth(3)).to_contain_text("Комплектующие заказаны → Сборка")
    expect(page.locator("#purchases-title")).to_have_count(0)
    assert _untranslated(page, patterns) == []

    # catalog staff see what to buy
    staff_context = browser.new_context(**browser_context_args)
    login(staff_context, factories.catalog_staff(username="katya"))
    staff = staff_context.new_page()
    staff.goto(f"{live_server.url}/orders/{number}")
    expect(staff.locator("#purchases-title")).to_have_text("Закупочные списки")
    expect(staff.get_by_role("link", name="XLSX").first).to_be_visible()
    staff.goto(f"{live_server.url}/orders/purchasing")
    expect(staff.get_by_text("Покупать нечего", exact=False)).to_be_visible()  # its parts are ordered
    assert _untranslated(staff, patterns) == []
    staff_context.close()
    assert violations == []
