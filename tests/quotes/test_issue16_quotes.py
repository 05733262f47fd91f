"""Issue 16, quotes: the next step per state, a customer submitting their draft, a draft's discount within the
role's limit, the customer chosen explicitly by sales, and a PDF with the seller, the workload and its estimate,
part names in the document's language and numbers formatted as on the page."""

from __future__ import annotations

import copy
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from configurator.engine.errors import ApplicationError
from configurator.labels import FINDING_TITLES
from quotes import services
from quotes.forms import QuoteRequestForm
from quotes.models import Quote, QuoteEvent
from quotes.pdf import render_quote_pdf
from quotes.policy import quote_actions, quote_next_step
from tests.builds import GOOD_BUILD, WARNING_BUILD
from tests.quotes.test_pdf import _text

WORKLOAD = {"model": "llama-3.1-8b", "concurrent_users": 4, "context_tokens": 8192}


def _page(client: Client, user: User, quote: Quote, language: str = "ru") -> str:
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client.get(reverse("quotes:detail", args=[quote.number])).content.decode()


@pytest.mark.django_db
def test_each_state_names_the_users_next_step(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, sales_lead: User, client: Client
) -> None:
    draft = make_quote(created_by=sales_user)
    assert quote_next_step(customer_user, draft) == "customer_submit"
    assert quote_next_step(sales_user, draft) == "sales_send"
    big = make_quote(created_by=sales_user, discount_percent=15)
    assert quote_next_step(sales_user, big) == "sales_submit"
    pending = services.quote_submit(quote=big, user=sales_user)
    assert quote_next_step(sales_user, pending) == "sales_wait_approval"
    assert quote_next_step(sales_lead, pending) == "sales_approve"
    sent = services.quote_send(quote=draft, user=sales_user)
    assert quote_next_step(customer_user, sent) == "customer_accept"
    accepted = services.quote_accept(quote=sent, user=customer_user)
    assert quote_next_step(sales_user, accepted) == "sales_order"
    page = _page(client, customer_user, accepted)
    assert "Следующий шаг — заказ." in page
    english = _page(Client(), customer_user, accepted, "en")
    assert "Next step: the order." in english


@pytest.mark.django_db
def test_a_customer_submits_their_own_draft_and_another_customer_cannot(
    make_quote: Callable[..., Quote], customer_user: User, other_customer: User, client: Client
) -> None:
    quote = make_quote()  # made by the customer
    assert "submit" in quote_actions(customer_user, quote)
    assert "submit" not in quote_actions(other_customer, quote)
    with pytest.raises(ApplicationError):
        services.quote_submit(quote=quote, user=other_customer)
    assert Quote.objects.get(pk=quote.pk).status == "draft"
    client.force_login(customer_user)
    response = client.post(reverse("quotes:action", args=[quote.number, "submit"]), {"revision": 1})
    assert response.status_code == 302
    quote.refresh_from_db()
    assert quote.status == "pending_approval" and quote.submitted_by == customer_user


@pytest.mark.django_db
def test_sales_change_a_drafts_discount_in_place_and_customers_cannot(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client: Client
) -> None:
    quote = make_quote(created_by=sales_user)
    gross_before = quote.gross_total
    client.force_login(customer_user)
    refused = client.post(reverse("quotes:discount", args=[quote.number]), {"revision": 1, "discount_percent": "5"})
    assert refused.status_code == 302
    assert Quote.objects.get(pk=quote.pk).discount_percent == 0
    assert 'data-action="discount"' not in _page(Client(), customer_user, quote)

    assert 'data-action="discount"' in _page(Client(), sales_user, quote)
    client.force_login(sales_user)
    client.post(reverse("quotes:discount", args=[quote.number]), {"revision": 1, "discount_percent": "5"})
    quote.refresh_from_db()
    assert quote.revision == 1 and quote.status == "draft"
    assert quote.discount_percent == Decimal(5)
    hardware = quote.lines.exclude(kind="services")
    assert all(line.discount_percent == Decimal(5) for line in hardware)
    assert quote.net_total == sum(line.line_total for line in hardware if not line.optional)
    assert quote.gross_total < gross_before
    assert QuoteEvent.objects.filter(quote=quote, type="discount_changed").count() == 1
    assert "send" in quote_actions(sales_user, quote)  # within the sales limit: it can be sent as it is
    services.quote_discount_set(quote=quote, user=sales_user, discount_percent=15)
    quote.refresh_from_db()
    assert quote_actions(sales_user, quote) == ["submit", "refresh_prices"]  # above it: approval first
    sent = services.quote_send(quote=make_quote(created_by=sales_user), user=sales_user)
    with pytest.raises(ApplicationError) as refused_sent:
        services.quote_discount_set(quote=sent, user=sales_user, discount_percent=3)
    assert refused_sent.value.code == "invalid_transition"


@pytest.mark.django_db
def test_sales_must_choose_the_customer_explicitly(catalog: None, customer_user: User, sales_user: User) -> None:
    unchosen = QuoteRequestForm({"acknowledge_warnings": "on"}, user=sales_user)
    assert not unchosen.is_valid()
    assert "customer" in unchosen.errors
    chosen = QuoteRequestForm({"customer": customer_user.pk}, user=sales_user)
    assert chosen.is_valid(), chosen.errors
    assert chosen.cleaned_data["customer"] == customer_user
    own = QuoteRequestForm({}, user=customer_user)
    assert own.is_valid() and "customer" not in own.fields


@pytest.mark.django_db
def test_the_russian_pdf_has_the_seller_the_workload_russian_names_and_no_english_finding_sentence(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, settings: object
) -> None:
    payload = {**copy.deepcopy(WARNING_BUILD), "workload": WORKLOAD}
    quote = make_quote(created_by=sales_user, payload=payload, acknowledge_warnings=True)
    assert quote.verdict["findings"], "the build has warnings to show"
    text = _text(render_quote_pdf(quote))
    assert settings.SELLER["name"] in text  # type: ignore[attr-defined]
    for detail in ("ИНН: 7700000000", "КПП", "БИК", "Расчётный счёт", "подпись"):
        assert detail in text, detail
    assert "Под какую нагрузку подобрана сборка" in text and "Llama 3.1 8B" in text and "llama-3.1-8b" not in text
    assert "Одновременных пользователей 4" in text and "Контекст, токенов 8 192" in text
    assert "Генерация на пользователя, токенов/с" in text
    assert "Блок питания ATX 2200 Вт" in text  # the catalog's Russian name of psu-atx-2200w
    assert "ATX 2200 W PSU" not in text
    assert "₽" in text and "RUB" not in text and "руб." not in text
    with translation.override("en"):
        english_titles = {str(title) for title in FINDING_TITLES.values()}
    assert [title for title in english_titles if title in text] == []


@pytest.mark.django_db
def test_the_english_pdf_and_page_name_parts_in_english(
    make_quote: Callable[..., Quote], customer_user: User, client: Client, settings: object
) -> None:
    quote = make_quote(payload=copy.deepcopy(GOOD_BUILD))
    settings.QUOTE_LANGUAGE = "en"  # type: ignore[attr-defined]
    text = _text(render_quote_pdf(quote))
    assert "CRPS 2000 W hot-swap PSU" in text and "Блок питания" not in text
    assert "7700000000" in text  # the seller's INN whatever the language
    russian = _page(client, customer_user, quote, "ru")
    english = _page(Client(), customer_user, quote, "en")
    assert "Блок питания CRPS 2000 Вт с горячей заменой" in russian
    assert "CRPS 2000 W hot-swap PSU" in english and "Блок питания" not in english
    assert "RUB" not in russian and "₽" in russian


@pytest.mark.django_db
def test_the_quote_page_says_what_the_pdf_says_about_the_workload_estimate_and_ship_date(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client: Client
) -> None:
    """Issue 37 item 5, one truth per fact: the page shows the workload the build was sized for, its estimate
    and the ship date as a calendar date, the same rows (one function, quotes.pdf.quote_facts) as the PDF."""
    import datetime as dt
    import re

    from django.utils import timezone

    from procurement.models import Supplier, SupplierOffer
    from quotes.pdf import quote_pdf_context
    from tests.web.test_ship_dates import PARTS

    supplier = Supplier.objects.create(slug="s", name="S")
    for sku, kind in PARTS.items():  # GOOD_BUILD's parts, on order in 12 working days
        SupplierOffer.objects.create(
            supplier=supplier, sku=sku, kind=kind, purchase_price=Decimal(100), stock_qty=0, lead_time_days=12,
            valid_until=timezone.localdate() + dt.timedelta(days=30),
        )  # fmt: skip
    payload = {**copy.deepcopy(GOOD_BUILD), "workload": WORKLOAD}
    quote = make_quote(created_by=sales_user, payload=payload, acknowledge_warnings=True)
    document = quote_pdf_context(quote)  # Russian, the documents' language
    page = _page(client, customer_user, quote, "ru")
    facts = page.split("data-quote-facts", 1)[1].split("</section>", 1)[0]
    shown = re.findall(r"<dt>([^<]*)</dt><dd>([^<]*)</dd>", facts)
    assert len(document["workload"]) == 3 and len(document["estimate"]) >= 3
    assert shown[: len(document["workload"]) + len(document["estimate"])] == [
        (name, value.replace("\xa0", "&nbsp;") if "&nbsp;" in facts else value)
        for name, value in [*document["workload"], *document["estimate"]]
    ]
    ship = re.search(r"\d\d\.\d\d\.\d{4}", document["ship_text"])
    assert ship and f"с {ship.group(0)} (по предложениям поставщиков на дату КП)" in facts
