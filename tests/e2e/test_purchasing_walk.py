"""Purchasing in a real browser, in Russian (issue 36): a sales engineer makes an order's purchase orders from
its page, opens one, sends it to the supplier, records a partial receipt with serial numbers typed one per
line, and sees what is still to arrive on the order's page. No English text of the site's own on these pages,
and no Content-Security-Policy violation."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests import factories
from tests.e2e.test_flows import VISIBLE_TEXTS, _english_msgids
from tests.e2e.test_order_walk import _accepted_quote


def _untranslated(page: Page, patterns: list[re.Pattern[str]]) -> list[str]:
    return sorted({text for text in page.evaluate(VISIBLE_TEXTS) if any(p.match(text) for p in patterns)})


def test_sales_buy_and_receive_an_orders_parts(page: Page, live_server: Any, login: Callable[..., None]) -> None:
    from orders.services import order_place

    patterns = _english_msgids()
    violations: list[str] = []
    customer = factories.customer(username="irina")
    order, _ = order_place(quote=_accepted_quote(customer), user=customer)  # planned in process (eager Celery)
    login(page.context, factories.sales(username="boris"))
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )

    page.goto(f"{live_server.url}/orders/{order.number}")
    page.get_by_role("button", name="Создать заказы поставщикам по плану").click()
    expect(page.locator(".message--success")).to_contain_text("Созданы заказы поставщикам: PO-")
    assert _untranslated(page, patterns) == []
    page.locator("[data-order-purchase-orders] a").first.click()
    expect(page).to_have_url(re.compile(r"/orders/purchase-orders/PO-\d{4}-\d{6}$"))
    assert _untranslated(page, patterns) == []

    page.get_by_role("button", name="Отправить поставщику по почте").click()
    expect(page.locator("[data-po-status]")).to_have_attribute("data-po-status", "sent")
    first = page.locator("[data-po-lines] tbody tr").first
    first.locator("input[type=number]").fill("1")
    serials = first.locator("textarea")
    if serials.count():
        serials.fill("SN-WALK-1")
    page.get_by_role("button", name="Оприходовать").click()
    expect(page.locator(".message--success")).to_have_text("Поступление записано.")
    expect(page.locator("[data-po-status]")).to_have_attribute("data-po-status", re.compile("partly_received|received"))
    expect(page.locator("[data-receipts] li").first).to_contain_text("× 1")
    assert _untranslated(page, patterns) == []

    page.goto(f"{live_server.url}/orders/{order.number}")
    expect(page.locator("[data-shortfalls]")).to_contain_text("Ещё не поступило:")
    assert _untranslated(page, patterns) == []
    assert violations == []
