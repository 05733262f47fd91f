"""Purchasing, receipt and billing in a real browser, in Russian (issue 36): a sales engineer makes an order's
purchase orders from its page, sends one to the supplier, receives all its lines with serial numbers typed one
per line, then on the order's billing page issues the invoice, records a prepayment and reads the margin. No
English text of the site's own on these pages, and no Content-Security-Policy violation."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from playwright.sync_api import Page, expect

from tests import factories
from tests.e2e.test_flows import VISIBLE_TEXTS, _english_msgids
from tests.e2e.test_order_walk import _accepted_quote

PREPAYMENT = Decimal("100000.00")  # any amount under the invoice's total


def _untranslated(page: Page, patterns: list[re.Pattern[str]]) -> list[str]:
    return sorted({text for text in page.evaluate(VISIBLE_TEXTS) if any(p.match(text) for p in patterns)})


def test_sales_buy_receive_invoice_and_take_a_prepayment(
    page: Page, live_server: Any, login: Callable[..., None]
) -> None:
    from billing.models import Invoice
    from orders.services import order_place

    patterns = _english_msgids()
    violations: list[str] = []
    customer = factories.customer(username="olga")
    order, _ = order_place(quote=_accepted_quote(customer), user=customer)  # planned in process (eager Celery)
    login(page.context, factories.sales(username="pavel"))
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )

    page.goto(f"{live_server.url}/orders/{order.number}")
    page.get_by_role("button", name="Создать заказы поставщикам по плану").click()
    expect(page.locator(".message--success")).to_contain_text("Созданы заказы поставщикам: PO-")
    page.locator("[data-order-purchase-orders] a").first.click()
    expect(page).to_have_url(re.compile(r"/orders/purchase-orders/PO-\d{4}-\d{6}$"))
    page.get_by_role("button", name="Отправить поставщику по почте").click()
    expect(page.locator("[data-po-status]")).to_have_attribute("data-po-status", "sent")

    rows = page.locator("[data-po-lines] tbody tr")
    typed: list[str] = []
    for index in range(rows.count()):
        row = rows.nth(index)
        quantity = row.locator("input[type=number]")
        ordered = int(quantity.get_attribute("max") or "0")
        quantity.fill(str(ordered))
        serials = row.locator("textarea")
        if serials.count():
            numbers = [f"SN-MONEY-{index}-{n}" for n in range(ordered)]
            serials.fill("\n".join(numbers))
            typed += numbers
    page.get_by_role("button", name="Оприходовать").click()
    expect(page.locator(".message--success")).to_have_text("Поступление записано.")
    expect(page.locator("[data-po-status]")).to_have_attribute("data-po-status", "received")
    expect(page.locator("[data-receipts]")).to_contain_text("×")
    for serial in typed:  # the first purchase order may hold no part that is received by serial number
        expect(page.locator("[data-receipts]")).to_contain_text(serial)
    assert _untranslated(page, patterns) == []

    page.goto(f"{live_server.url}/orders/{order.number}")
    page.locator("[data-billing-link]").click()
    expect(page.get_by_role("heading", name="Счёт на оплату")).to_be_visible()
    page.get_by_role("button", name="Выставить счёт").click()
    invoice = Invoice.objects.get(order=order)
    expect(page.locator("[data-invoice]")).to_have_attribute("data-invoice", invoice.number)
    expect(page.locator("[data-invoice-status]")).to_have_text("не оплачен")
    form = page.locator("[data-payment-form]")
    form.get_by_label("Сумма, руб.").fill(f"{PREPAYMENT}")
    form.get_by_label("№ платёжного поручения").fill("п/п 42")
    page.get_by_role("button", name="Отметить оплату").click()
    expect(page.locator("[data-invoice-status]")).to_have_text("оплачен частично")
    expect(page.locator("[data-payments] tbody tr")).to_have_count(1)
    expect(page.locator("[data-payments] tbody tr").first).to_contain_text("предоплата")
    expect(page.locator("[data-margin]")).to_contain_text("Закупки (по курсам заказов поставщикам")
    invoice.refresh_from_db()
    assert invoice.paid_total == PREPAYMENT
    assert _untranslated(page, patterns) == []
    assert violations == []
