"""The PDF's "Заказчик" names the company and person of the quote request (or the account's company and
ИНН), not the login (issue 37 trial: it printed "alice")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accounts.models import User
from quotes.models import Quote
from quotes.pdf import quote_pdf_context
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_customer_is_the_company_and_name_typed_in_the_request(make_quote: Callable[..., Quote]) -> None:
    login_only = factories.customer(username="bob", email="bob@example.com")
    quote = make_quote(
        customer=login_only,
        request_note={"name": "Борис Петров", "company": "АО Вектор", "contact": "+7 900", "comment": ""},
    )
    assert quote_pdf_context(quote)["customer_text"] == "АО Вектор, Борис Петров (bob@example.com)"


def test_without_a_request_the_accounts_company_name_and_inn(
    make_quote: Callable[..., Quote], customer_user: User
) -> None:
    User.objects.filter(pk=customer_user.pk).update(inn="7707083893", email="")
    customer_user.refresh_from_db()
    quote = make_quote(customer=customer_user)
    assert quote_pdf_context(quote)["customer_text"] == "ООО Нейросеть, Алиса Иванова, ИНН 7707083893"


def test_the_quote_page_names_the_customer_as_the_pdf_does(make_quote: Callable[..., Quote]) -> None:
    from django.test import Client

    login_only = factories.customer(username="carol", email="carol@example.com")
    quote = make_quote(customer=login_only, request_note={"name": "Карина Орлова", "company": "ООО Луч"})
    client = Client()
    client.force_login(login_only)
    page = client.get(f"/quotes/{quote.number}").content.decode()
    assert "<dd>ООО Луч, Карина Орлова</dd>" in page
    assert quote_pdf_context(quote)["customer_text"] == "ООО Луч, Карина Орлова (carol@example.com)"
