"""A УПД to an organisation names the buyer's ИНН and КПП, never "—/—" (issue 36, an accountant's trial): it is
refused — a 400 through the API, a message on the page, both naming ИНН — until they are filled in; a person or
an entrepreneur (12-digit ИНН) may have no КПП. ИНН 7707083893 / КПП 773601001 are ПАО Сбербанк's (ЕГРЮЛ);
500100732259 the ФНС check-digit example (as tests/billing/test_buyer_requisites.py)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.services import requisites_update
from billing import services
from billing.models import TransferDocument
from billing.pdf import upd_pdf
from configurator.engine.errors import InvalidInput
from configurator.engine.requisites import upd_buyer_problems
from orders import services as order_services
from orders.models import Order
from tests.billing.test_billing_api import client_for
from tests.billing.test_buyer_requisites import _text

pytestmark = pytest.mark.django_db

INN, KPP, PERSON_INN = "7707083893", "773601001", "500100732259"


@pytest.mark.parametrize(
    ("company", "inn", "kpp", "fields"),
    [
        ("ООО Ромашка", "", "", ["inn", "kpp"]),  # a company without requisites
        ("", INN, "", ["kpp"]),  # an organisation's ИНН, no КПП
        ("ООО Ромашка", "7707083894", KPP, ["inn"]),  # a typo in the check digit
        ("ООО Ромашка", INN, KPP, []),
        ("ИП Петров-Водкин", PERSON_INN, "", []),  # an entrepreneur has no КПП
        ("", "", "", []),  # a private person
    ],
)
def test_which_buyers_need_inn_and_kpp(company: str, inn: str, kpp: str, fields: list[str]) -> None:
    assert list(upd_buyer_problems(company=company, inn=inn, kpp=kpp)) == fields


def _shipped(order: Order, sales_user: User) -> None:
    services.invoice_create(order=order, user=sales_user)
    for status in ("parts_ordered", "assembling", "burn_in", "shipped"):
        order_services.order_advance(order=order, to=status, user=sales_user)


def test_a_upd_to_a_company_without_inn_is_refused_until_it_is_filled(
    order: Order, sales_user: User, customer_user: User
) -> None:
    User.objects.filter(pk=customer_user.pk).update(company="ООО Ромашка", inn="", kpp="")
    _shipped(order, sales_user)
    with pytest.raises(InvalidInput) as refused:
        services.upd_create(order=order, user=sales_user)
    assert sorted(refused.value.fields) == ["inn", "kpp"] and "ИНН" in refused.value.message
    answer = client_for(sales_user).post("/api/v1/transfer-documents/", {"order": order.number}, format="json")
    assert answer.status_code == 400 and "inn" in answer.json()["error"]["fields"], answer.content
    page = Client()
    page.force_login(sales_user)
    shown = page.post(reverse("billing:upd", args=[order.number]), follow=True).content.decode()
    assert "сначала заполните его ИНН (10 цифр) и КПП" in shown
    assert not TransferDocument.objects.filter(order=order).exists()

    customer_user.refresh_from_db()
    requisites_update(actor=sales_user, customer=customer_user, company="ООО Ромашка", inn=INN, kpp=KPP,
                      legal_address="")  # fmt: skip
    upd, created = services.upd_create(order=order, user=sales_user)
    text = " ".join(_text(upd_pdf(upd)).split())
    assert created and f"ИНН/КПП покупателя: {INN}/{KPP}" in text and "—/—" not in text


def test_an_entrepreneur_gets_a_upd_without_kpp(order: Order, sales_user: User, customer_user: User) -> None:
    requisites_update(actor=sales_user, customer=customer_user, company="ИП Петров-Водкин", inn=PERSON_INN, kpp="",
                      legal_address="")  # fmt: skip
    _shipped(order, sales_user)
    upd, created = services.upd_create(order=order, user=sales_user)
    assert created and f"ИНН/КПП покупателя: {PERSON_INN}/—" in " ".join(_text(upd_pdf(upd)).split())
