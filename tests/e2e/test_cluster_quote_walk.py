"""A customer sizes a cluster on the cluster card and asks for its quote (issue 39 items 5 and 6): the quote page
lists it by section with subtotals and the facility figures, in Russian and in English."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests import factories

CARD = "/clusters/?model=llama-3.1-405b&task=inference&precision=bf16&concurrent_users=200&rack_kw_limit=40"


def test_customer_quotes_a_cluster_from_its_card(
    page: Page, live_server: Any, shoot: Callable[[Any, str], None]
) -> None:
    from catalog.services import cluster_catalog_load_fixture

    cluster_catalog_load_fixture()
    factories.customer(username="vera", first_name="Вера", last_name="Нестерова", company="ООО Кластер")
    base = live_server.url
    page.goto(f"{base}{CARD}")
    page.get_by_role("link", name="Войдите, чтобы получить предложение на этот кластер").click()
    page.locator("input[name='username']").fill("vera")
    page.locator("input[name='password']").fill("pass-12345")
    page.locator("form.panel button[type='submit']").click()
    expect(page).to_have_url(re.compile(r"/clusters/\?model="), timeout=30_000)
    shoot(page, "issue39-cluster-card-ru")
    page.get_by_role("button", name="Получить коммерческое предложение на этот кластер").click()

    expect(page).to_have_url(re.compile(r"/quotes/Q-\d{4}-\d{6}$"), timeout=60_000)
    sections = page.locator("tr.section-row th").all_inner_texts()
    assert sections[:2] == ["GPU-узлы", "Вычислительная сеть"]
    assert "Стойки и электропитание" in sections
    expect(page.locator("[data-facility]")).to_contain_text("А на фазу")
    shoot(page, "issue39-cluster-quote-ru")

    from quotes.models import Quote

    quote = Quote.objects.get(owner__username="vera")
    subtotals = page.locator("tr.section-subtotal td.num").all_inner_texts()
    assert len(subtotals) == len(sections) == quote.lines.values("section").distinct().count()

    page.context.add_cookies([{"name": "django_language", "value": "en", "url": base}])
    page.reload()
    expect(page.locator("tr.section-row th").first).to_have_text("GPU nodes")
    shoot(page, "issue39-cluster-quote-en")
