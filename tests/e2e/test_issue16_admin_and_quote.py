"""Issue 16 in a real browser: the admin in Russian (title without "Django", Russian model names, the bulk
price preview, a bad import row named as in the file) and the quote page with its next step, in Russian and
English, with screenshots at 1280 and 390 px in artifacts/screenshots/."""

from __future__ import annotations

import copy
import csv
import io
from collections.abc import Callable
from typing import Any

from django.conf import settings
from playwright.sync_api import FilePayload, Page, expect

from tests import factories
from tests.builds import GOOD_BUILD


def _staff() -> Any:
    user = factories.catalog_staff(username="katya")
    user.is_superuser = True
    user.save()
    return user


def _language(page: Page, live_server: Any, language: str) -> None:
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}])


def test_the_admin_in_russian(
    page: Page, live_server: Any, login: Callable[..., None], shoot: Callable[..., None]
) -> None:
    from catalog.models import Gpu
    from catalog.resources import RESOURCES

    login(page.context, _staff())
    page.goto(f"{live_server.url}/admin/")
    assert "Django" not in page.title()
    expect(page.locator("#site-name")).to_have_text("Конфигуратор GPU: администрирование")
    expect(page.locator("#content-main")).to_contain_text("Видеокарты")
    expect(page.locator("#content-main")).to_contain_text("Коммерческие предложения")
    for english in ("GPUs", "Quotes", "Suppliers", "Orders", "Saved builds", "Memory modules"):
        expect(page.locator("#content-main")).not_to_contain_text(english)
    shoot(page, "admin-index-ru")

    page.goto(f"{live_server.url}/admin/catalog/psu/")
    expect(page.locator("#result_list")).to_contain_text("Блок питания CRPS 2000 Вт")
    shoot(page, "admin-psu-list-ru")

    page.locator("input[name='_selected_action']").first.check()
    page.select_option("select[name='action']", "change_prices")
    page.locator("button[name='index']").click()
    page.fill("input[name='percent']", "10")
    page.locator("input[name='preview']").click()
    expect(page.locator("#price-preview")).to_be_visible()
    shoot(page, "admin-price-preview-ru")

    dataset = RESOURCES[Gpu]().export(queryset=Gpu.objects.filter(sku__in=["l4", "l40s"]).order_by("sku"))
    rows = list(csv.DictReader(io.StringIO(dataset.csv)))
    rows[1]["list_price"] = "abc"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    page.goto(f"{live_server.url}/admin/catalog/gpu/import/")
    upload: FilePayload = {"name": "gpus.csv", "mimeType": "text/csv", "buffer": buffer.getvalue().encode()}
    page.set_input_files("input[name='import_file']", files=[upload])
    page.select_option("select[name='format']", index=1)
    page.locator("input[type='submit']").first.click()
    expect(page.locator(".import-validation-errors")).to_contain_text(
        "Строка 3, столбец list_price, значение 'abc': не число"
    )
    shoot(page, "admin-import-error-ru")


def test_the_quote_page_says_the_next_step_in_russian_and_english(
    page: Page, live_server: Any, login: Callable[..., None], shoot: Callable[..., None]
) -> None:
    from quotes.services import quote_create

    customer = factories.customer(username="carol", company="ООО «Нейросеть»")
    # four users are served over the network: the build carries its 25 GbE card (rules/platform.network)
    payload = {
        **copy.deepcopy(GOOD_BUILD),
        "nics": [{"sku": "nic-25g", "qty": 1}],
        "workload": {"model": "llama-3.1-8b", "concurrent_users": 4},
    }
    quote = quote_create(customer=customer, created_by=customer, payload=payload)
    login(page.context, customer)
    page.goto(f"{live_server.url}/quotes/{quote.number}")
    expect(page.locator("[data-next-step='customer_submit']")).to_contain_text("Следующий шаг")
    expect(page.locator("main")).to_contain_text("Блок питания CRPS 2000 Вт")
    expect(page.locator("[data-pdf-link]")).to_be_visible()
    shoot(page, "quote-next-step-ru")

    _language(page, live_server, "en")
    page.goto(f"{live_server.url}/quotes/{quote.number}")
    expect(page.locator("[data-next-step='customer_submit']")).to_contain_text("Next step")
    expect(page.locator("main")).to_contain_text("CRPS 2000 W hot-swap PSU")
    shoot(page, "quote-next-step-en")

    sales = factories.sales(username="sam")
    login(page.context, sales)
    _language(page, live_server, "ru")
    page.goto(f"{live_server.url}/quotes/{quote.number}")
    expect(page.locator("[data-action='discount']")).to_be_visible()
    shoot(page, "quote-sales-draft-ru")
