"""The 1C export (CommerceML 2.10) validates against the schema subset, and the schema check bites."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
from lxml import etree

from billing.commerceml import InvoiceDoc, Item, Line, Party, ReceiptDoc, ReceiptLineDoc, catalog_xml, documents_xml

SCHEMA = Path(__file__).resolve().parents[2] / "billing" / "schema" / "commerceml-2.10-subset.xsd"
NOW = dt.datetime(2026, 12, 3, 10, 0, tzinfo=dt.UTC)
SELLER = Party("seller", "ООО «Образец»", "ООО «Образец»", "7700000000", "770001001", "г. Москва")
D = Decimal


def schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMA)))


def _invoice(buyer: Party) -> InvoiceDoc:
    line = Line(
        "rtx-pro-6000-blackwell-maxq", "Видеокарта RTX PRO 6000", 2, D("700000.00"), D("1400000.00"), D("308000.00")
    )
    return InvoiceDoc("INV-2026-000001", "INV-2026-000001", dt.date(2026, 12, 3), D("1708000.00"), D("308000.00"),
                      D(22), buyer, (line,), comment="Заказ O-2026-000001")  # fmt: skip


def _validate(xml: bytes) -> None:
    checker = schema()
    assert checker.validate(etree.fromstring(xml)), checker.error_log


def test_documents_with_a_company_and_a_person_validate() -> None:
    company = Party("customer-1", "ООО «Заказчик»", "ООО «Заказчик»")
    person = Party("customer-2", "Иван Петров")
    xml = documents_xml(seller=SELLER, invoices=[_invoice(company), _invoice(person)], generated_at=NOW)
    _validate(xml)
    root = etree.fromstring(xml)
    ns = {"c": "urn:1C.ru:commerceml_2"}
    assert root.get("ВерсияСхемы") == "2.10"
    assert root.xpath("count(c:Документ)", namespaces=ns) == 2
    assert root.xpath("string(c:Документ[1]/c:Сумма)", namespaces=ns) == "1708000.00"
    assert root.xpath("string(c:Документ[1]/c:ХозОперация)", namespaces=ns) == "Счет на оплату"
    assert root.xpath("string(c:Документ[2]//c:Контрагент/c:ПолноеНаименование)", namespaces=ns) == "Иван Петров"


def test_the_catalog_validates() -> None:
    _validate(catalog_xml(owner=SELLER, items=[Item("nvme-4tb", "SSD NVMe 4 ТБ")], generated_at=NOW, catalog_id="c"))


def test_the_schema_refuses_what_1c_would_refuse() -> None:
    good = documents_xml(seller=SELLER, invoices=[_invoice(Party("c", "Иван"))], generated_at=NOW)
    for bad in (
        good.replace("Счет на оплату".encode(), b"Invoice"),  # not a business operation of the list
        good.replace("<Валюта>RUB".encode(), "<Валюта>RUBL".encode()),  # a currency code is 3 letters
        good.replace(b"1708000.00", b"1708000.001"),  # more than two decimals in a sum
    ):
        assert bad != good
        assert not schema().validate(etree.fromstring(bad))


@pytest.mark.parametrize("inn", ["12345", "1234567890123"])
def test_an_inn_of_the_wrong_length_is_refused(inn: str) -> None:
    seller = Party("seller", "ООО", "ООО", inn=inn)
    xml = catalog_xml(owner=seller, items=[Item("x", "X")], generated_at=NOW, catalog_id="c")
    assert not schema().validate(etree.fromstring(xml))


def _receipt() -> ReceiptDoc:
    # 2 GPUs at 8,950.00 USD on a purchase order made at the CBR's 78.2235 (finance/fixtures/cbr_daily_sample.xml)
    gpu = ReceiptLineDoc("rtx-pro-6000-blackwell-maxq", "Видеокарта RTX PRO 6000", "900-5G153-2200-000", 2,
                         D("8950.00"), D("17900.00"), ("SN-1", "SN-2"))  # fmt: skip
    return ReceiptDoc("PO-2026-000001/1", "PO-2026-000001/1", dt.date(2026, 12, 3), "USD", D("78.2235"),
                      D("17900.00"), Party("supplier-b", "B Ltd", "B Ltd"), (gpu,),
                      comment="Поступление по заказу поставщику PO-2026-000001")  # fmt: skip


def test_a_goods_receipt_with_serial_numbers_validates_next_to_an_invoice() -> None:
    xml = documents_xml(seller=SELLER, invoices=[_invoice(Party("c", "Иван"))], receipts=[_receipt()],
                        generated_at=NOW)  # fmt: skip
    _validate(xml)
    ns = {"c": "urn:1C.ru:commerceml_2"}
    receipt = etree.fromstring(xml).xpath("c:Документ[2]", namespaces=ns)[0]
    assert receipt.xpath("string(c:ХозОперация)", namespaces=ns) == "Отпуск товара"
    assert receipt.xpath("string(c:Роль)", namespaces=ns) == "Покупатель"
    assert receipt.xpath("string(.//c:Контрагент/c:Роль)", namespaces=ns) == "Продавец"
    assert (receipt.xpath("string(c:Валюта)", namespaces=ns), receipt.xpath("string(c:Курс)", namespaces=ns)) == (
        "USD", "78.2235",
    )  # fmt: skip
    assert receipt.xpath("c:Товары/c:Товар/c:ЗначенияРеквизитов/c:ЗначениеРеквизита/c:Значение/text()",
                         namespaces=ns) == ["SN-1", "SN-2"]  # fmt: skip
    assert receipt.xpath("string(c:Товары/c:Товар/c:ИдТовараУКонтрагента)", namespaces=ns) == "900-5G153-2200-000"


def test_the_schema_refuses_serial_numbers_out_of_the_products_order() -> None:
    good = documents_xml(seller=SELLER, invoices=[], receipts=[_receipt()], generated_at=NOW)
    root = etree.fromstring(good)
    ns = {"c": "urn:1C.ru:commerceml_2"}
    product = root.xpath("//c:Товар", namespaces=ns)[0]
    values = product.xpath("c:ЗначенияРеквизитов", namespaces=ns)[0]
    product.remove(values)
    product.insert(0, values)  # before Ид: not where commerceml.xsd's Товар sequence has it
    assert schema().validate(etree.fromstring(good))
    assert not schema().validate(root)
