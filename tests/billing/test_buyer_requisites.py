"""The buyer's requisites (ИНН, КПП, legal address) on the invoice, the УПД and the 1C export, and the УПД's
columns of the 2021 счёт-фактура form (issue 36, an accountant's trial).

ИНН 7707083893 / КПП 773601001 are ПАО Сбербанк's, as published on its site and in the ЕГРЮЛ (a real,
valid pair); 500100732259 is the 12-digit example of the ФНС check-digit algorithm's descriptions."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.test import Client
from lxml import etree
from pypdf import PdfReader

from accounts.models import User
from accounts.services import requisites_update
from billing import services
from billing.exchange import export_documents
from billing.models import Invoice
from billing.pdf import invoice_pdf, upd_pdf
from configurator.engine.errors import Forbidden, InvalidInput
from configurator.engine.requisites import inn_problem, kpp_problem
from orders import services as order_services
from orders.models import Order
from tests import factories
from tests.billing.test_commerceml import schema

pytestmark = pytest.mark.django_db
INN, KPP, ADDRESS = "7707083893", "773601001", "117312, г. Москва, ул. Вавилова, д. 19"


def _text(pdf: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages).replace("\xa0", " ")


@pytest.mark.parametrize("inn", ["7707083893", "7736207543", "500100732259"])
def test_valid_inns_pass_the_check_digits(inn: str) -> None:
    assert inn_problem(inn) == ""


@pytest.mark.parametrize(
    ("inn", "reason"),
    [
        ("7707083894", "check digit"),  # last digit changed
        ("500100732258", "check digit"),
        ("500100732269", "check digit"),  # the 11th digit wrong, the 12th computed over it
        ("770708389", "10 digits"),
        ("77070838930", "10 digits"),
        ("77070838 93", "10 digits"),
        ("７７０７０８３８９３", "10 digits"),  # full-width digits: isdigit() but not ASCII
    ],
)
def test_invalid_inns_are_refused_with_the_reason(inn: str, reason: str) -> None:
    assert reason in inn_problem(inn)


def test_kpp_rules() -> None:
    assert kpp_problem(KPP, inn=INN) == ""
    assert kpp_problem("7736AB001", inn=INN) == ""  # reason code of capital Latin letters
    assert "9 characters" in kpp_problem("77360100", inn=INN)
    assert "9 characters" in kpp_problem("7736аб001", inn=INN)  # Cyrillic letters
    assert "has a КПП" in kpp_problem("", inn=INN)
    assert "no КПП" in kpp_problem(KPP, inn="500100732259")
    assert kpp_problem("", inn="500100732259") == ""


def test_the_customer_sets_requisites_on_the_account_page(customer_user: User) -> None:
    web = Client()
    web.force_login(customer_user)
    bad = web.post("/accounts/", {"action": "requisites", "company": "ООО Ромашка", "inn": "7707083894", "kpp": KPP,
                                  "legal_address": ADDRESS})  # fmt: skip
    assert bad.status_code == 200 and "check digit" in bad.content.decode()
    customer_user.refresh_from_db()
    assert customer_user.inn == ""
    good = web.post("/accounts/", {"action": "requisites", "company": "ООО Ромашка", "inn": f" {INN} ",
                                   "kpp": KPP, "legal_address": ADDRESS})  # fmt: skip
    assert good.status_code == 302
    customer_user.refresh_from_db()
    assert (customer_user.company, customer_user.inn, customer_user.kpp) == ("ООО Ромашка", INN, KPP)


def test_sales_set_a_customers_requisites_others_may_not(order: Order, sales_user: User, customer_user: User) -> None:
    web = Client()
    web.force_login(sales_user)
    body = {"company": "ООО Ромашка", "inn": INN, "kpp": KPP, "legal_address": ADDRESS}
    assert web.post(f"/billing/orders/{order.number}/buyer", body).status_code == 302
    customer_user.refresh_from_db()
    assert customer_user.legal_address == ADDRESS
    clerk = factories.catalog_staff(username="clerk")
    web.force_login(clerk)
    assert web.post(f"/billing/orders/{order.number}/buyer", {**body, "company": "X"}).status_code == 403
    customer_user.refresh_from_db()
    assert customer_user.company == "ООО Ромашка"
    with pytest.raises(Forbidden):
        requisites_update(actor=clerk, customer=customer_user, **body)
    with pytest.raises(InvalidInput) as bad:
        requisites_update(actor=sales_user, customer=customer_user, **{**body, "kpp": "77360100"})
    assert list(bad.value.fields) == ["kpp"]


def test_invoice_upd_and_1c_name_the_buyer_as_on_the_day_of_issue(
    order: Order, sales_user: User, customer_user: User
) -> None:
    requisites_update(actor=customer_user, customer=customer_user, company="ООО Ромашка", inn=INN, kpp=KPP,
                      legal_address=ADDRESS)  # fmt: skip
    invoice, _ = services.invoice_create(order=order, user=sales_user)
    services.payment_record(invoice=invoice, amount=Decimal("1000.00"), user=sales_user, reference="17")
    for status in ("parts_ordered", "assembling", "burn_in", "shipped"):
        order_services.order_advance(order=order, to=status, user=sales_user)
    upd, _ = services.upd_create(order=order, user=sales_user)
    # the customer changes company afterwards: the issued documents keep the buyer they were issued to
    requisites_update(actor=customer_user, customer=customer_user, company="ИП Петров-Водкин",
                      inn="500100732259", kpp="", legal_address="")  # fmt: skip
    invoice_text, upd_text = _text(invoice_pdf(invoice)), _text(upd_pdf(upd))
    assert f"Покупатель: ООО Ромашка, ИНН {INN}, КПП {KPP}, {ADDRESS}" in invoice_text
    assert f"ИНН/КПП покупателя: {INN}/{KPP}" in upd_text and ADDRESS in upd_text
    # the lines are net of VAT: the VAT is added to them, not "included" in their total
    assert "Итого без НДС:" in invoice_text and "В том числе НДС" not in invoice_text
    assert "Петров-Водкин" not in invoice_text + upd_text and "500100732259" not in invoice_text + upd_text
    assert f"К платёжно-расчётному документу: № 17 от {invoice.payments.get().paid_on:%d.%m.%Y}" in upd_text
    xml = export_documents(list(Invoice.objects.select_related("order__owner")))
    assert schema().validate(etree.fromstring(xml)), schema().error_log
    ns = {"c": "urn:1C.ru:commerceml_2"}
    party = etree.fromstring(xml).xpath("//c:Контрагент[c:Роль='Покупатель']", namespaces=ns)[0]
    assert party.xpath("string(c:ИНН)", namespaces=ns) == INN
    assert party.xpath("string(c:КПП)", namespaces=ns) == KPP
    assert party.xpath("string(c:ЮридическийАдрес/c:Представление)", namespaces=ns) == ADDRESS


def test_the_upd_has_the_2021_forms_columns(order: Order, sales_user: User) -> None:
    services.invoice_create(order=order, user=sales_user)
    for status in ("parts_ordered", "assembling", "burn_in", "shipped"):
        order_services.order_advance(order=order, to=status, user=sales_user)
    upd, _ = services.upd_create(order=order, user=sales_user)
    pdf = upd_pdf(upd)
    text = " ".join(_text(pdf).split())  # headings wrap in their narrow columns
    for heading in ("Код вида товара", "Страна: код", "Рег. номер декларации на товары", "10а", "1а"):
        assert heading in text
    lines = upd.lines.count()
    assert text.count("796") >= lines and text.count("шт") >= lines  # ОКЕИ code and name on every line
    assert text.count("—") >= 4 * lines  # kind code, country code and name, declaration: none recorded
    assert "ИНН/КПП покупателя: —/—" in text  # a customer without requisites: said, not left blank
