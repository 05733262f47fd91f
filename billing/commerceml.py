"""Export to 1C:Enterprise as CommerceML 2 (schema version 2.10, namespace urn:1C.ru:commerceml_2). Pure:
dataclasses in, XML bytes out (the standard library's ElementTree; no Django).

Chosen over EnterpriseData because CommerceML 2 is what 1C's trade configurations (УТ, КА, ERP, Бухгалтерия
through "Обмен с сайтом") import without a conversion rule set, and its schema is one published file. The
schema is 1C's `commerceml.xsd` of CommerceML 2.10 (1C and the Russian e-commerce association's
"CommerceML 2" standard, v2.10); billing/schema/commerceml-2.10-subset.xsd repeats the part of it this
module writes, with the same element names, order, types and cardinalities, and a test validates the
output against it.

The schema's root `КоммерческаяИнформация` holds a classifier and then either a catalog or documents, never
both, so the export is two files, as 1C exchanges them:

* `catalog_xml` — `Классификатор` + `Каталог` with the items (`Товар`: Ид = SKU, Артикул, Наименование,
  БазоваяЕдиница 796 "шт", the ОКЕИ code of "piece");
* `documents_xml` — one `Документ` per invoice (ХозОперация "Счет на оплату", Роль "Продавец", Сумма incl.
  VAT, its customer as `Контрагент` with Роль "Покупатель", the VAT as `Налог` "НДС" counted in the sum,
  the lines net of VAT with their own VAT). Customers travel inside the documents: CommerceML 2 has no
  separate file for counterparties.
* receipts (`ReceiptDoc`) travel in the same documents file: one `Документ` per goods receipt from a
  supplier, written from our side as the schema's roles have it: ХозОперация "Отпуск товара" (the supplier
  shipped goods), Роль "Покупатель" (we are the buyer), the supplier as `Контрагент` with Роль "Продавец",
  Валюта and Курс of the purchase order (its currency and the rate it was made at), Сумма in that currency;
  each line with the supplier's part number (`ИдТовараУКонтрагента`) and the serial numbers received as one
  `ЗначениеРеквизита` "Серийные номера" with one `Значение` per unit (the schema's name/value list of a
  product, `ЗначенияРеквизитов`). Purchase prices carry no VAT breakdown here (the suppliers' offers are
  stored without one), so a receipt has no `Налоги`.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

NAMESPACE = "urn:1C.ru:commerceml_2"
SCHEMA_VERSION = "2.10"
UNIT_CODE, UNIT_NAME, UNIT_FULL, UNIT_INTL = "796", "шт", "Штука", "PCE"  # ОКЕИ 796 "piece"


@dataclass(frozen=True, slots=True)
class Party:
    """A counterparty: a company (`official_name` set) or a person."""

    id: str
    name: str
    official_name: str = ""  # a company's full name; empty: a person, written with РеквизитыФизЛица
    inn: str = ""
    kpp: str = ""
    address: str = ""


@dataclass(frozen=True, slots=True)
class Item:
    sku: str
    name: str


@dataclass(frozen=True, slots=True)
class Line:
    sku: str
    name: str
    qty: int
    unit_price: Decimal  # net of VAT
    amount: Decimal  # net of VAT
    vat: Decimal


@dataclass(frozen=True, slots=True)
class InvoiceDoc:
    id: str
    number: str
    date: dt.date
    total: Decimal  # incl. VAT
    vat: Decimal
    vat_percent: Decimal
    buyer: Party
    lines: tuple[Line, ...]
    currency: str = "RUB"
    comment: str = ""


@dataclass(frozen=True, slots=True)
class ReceiptLineDoc:
    sku: str
    name: str
    supplier_sku: str
    qty: int
    unit_price: Decimal  # in the receipt's currency
    amount: Decimal  # unit price × qty, to the cent
    serials: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ReceiptDoc:
    id: str
    number: str
    date: dt.date
    currency: str
    rate: Decimal  # roubles per unit of `currency` (1 for roubles)
    total: Decimal  # the lines' amounts summed, in `currency`
    supplier: Party
    lines: tuple[ReceiptLineDoc, ...]
    comment: str = ""


SERIALS_NAME = "Серийные номера"


def _el(parent: ET.Element, tag: str, text: object | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{NAMESPACE}}}{tag}", attrs)
    if text is not None:
        element.text = str(text)
    return element


def _amount(value: Decimal) -> str:
    return f"{Decimal(value):.2f}"


def _rate(value: Decimal) -> str:
    return f"{Decimal(value).normalize():f}"


def _root(generated_at: dt.datetime) -> ET.Element:
    return ET.Element(
        f"{{{NAMESPACE}}}КоммерческаяИнформация",
        {"ВерсияСхемы": SCHEMA_VERSION, "ДатаФормирования": generated_at.replace(microsecond=0).isoformat()},
    )


def _party(parent: ET.Element, tag: str, party: Party, role: str = "") -> ET.Element:
    element = _el(parent, tag)
    _el(element, "Ид", party.id[:40])
    _el(element, "Наименование", party.name[:255])
    if party.official_name:
        _el(element, "ОфициальноеНаименование", party.official_name[:255])
        if party.address:
            _el(_el(element, "ЮридическийАдрес"), "Представление", party.address[:255])
    else:
        _el(element, "ПолноеНаименование", party.name[:255])
    if party.inn:
        _el(element, "ИНН", party.inn)
    if party.kpp:
        _el(element, "КПП", party.kpp)
    if role:
        _el(element, "Роль", role)
    return element


def _unit(parent: ET.Element) -> None:
    _el(parent, "БазоваяЕдиница", UNIT_NAME, Код=UNIT_CODE, НаименованиеПолное=UNIT_FULL,
        МеждународноеСокращение=UNIT_INTL)  # fmt: skip


def _bytes(root: ET.Element) -> bytes:
    ET.register_namespace("", NAMESPACE)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


def catalog_xml(*, owner: Party, items: Sequence[Item], generated_at: dt.datetime, catalog_id: str) -> bytes:
    """The items as a CommerceML classifier and catalog (1C's import.xml)."""
    root = _root(generated_at)
    classifier = _el(root, "Классификатор")
    _el(classifier, "Ид", catalog_id[:40])
    _el(classifier, "Наименование", "Классификатор (GPU-серверы)")
    _party(classifier, "Владелец", owner)
    catalog = _el(root, "Каталог")
    _el(catalog, "Ид", catalog_id[:40])
    _el(catalog, "ИдКлассификатора", catalog_id[:40])
    _el(catalog, "Наименование", "Каталог товаров (GPU-серверы)")
    _party(catalog, "Владелец", owner)
    goods = _el(catalog, "Товары")
    for item in items:
        good = _el(goods, "Товар")
        _el(good, "Ид", item.sku[:80])
        _el(good, "Артикул", item.sku[:255])
        _el(good, "Наименование", item.name[:255])
        _unit(good)
    return _bytes(root)


def documents_xml(
    *, seller: Party, invoices: Sequence[InvoiceDoc], generated_at: dt.datetime, receipts: Sequence[ReceiptDoc] = ()
) -> bytes:
    """The invoices, each with its customer, and the goods receipts, each with its supplier, as CommerceML
    documents (1C's documents exchange file)."""
    root = _root(generated_at)
    for invoice in invoices:
        document = _el(root, "Документ")
        _el(document, "Ид", invoice.id[:40])
        _el(document, "Номер", invoice.number)
        _el(document, "Дата", invoice.date.isoformat())
        _el(document, "ХозОперация", "Счет на оплату")
        _el(document, "Роль", "Продавец")
        _el(document, "Валюта", invoice.currency)
        _el(document, "Курс", "1")
        _el(document, "Сумма", _amount(invoice.total))
        parties = _el(document, "Контрагенты")
        _party(parties, "Контрагент", invoice.buyer, role="Покупатель")
        if invoice.comment:
            _el(document, "Комментарий", invoice.comment[:3000])
        taxes = _el(_el(document, "Налоги"), "Налог")
        _el(taxes, "Наименование", "НДС")
        _el(taxes, "УчтеноВСумме", "true")
        _el(taxes, "Сумма", _amount(invoice.vat))
        _el(taxes, "Ставка", _rate(invoice.vat_percent))
        goods = _el(document, "Товары")
        for line in invoice.lines:
            good = _el(goods, "Товар")
            _el(good, "Ид", line.sku[:80])
            _el(good, "Артикул", line.sku[:255])
            _el(good, "Наименование", line.name[:255])
            _unit(good)
            _el(good, "ЦенаЗаЕдиницу", _amount(line.unit_price))
            _el(good, "Количество", line.qty)
            _el(good, "Сумма", _amount(line.amount))
            tax = _el(_el(good, "Налоги"), "Налог")
            _el(tax, "Наименование", "НДС")
            _el(tax, "УчтеноВСумме", "false")
            _el(tax, "Сумма", _amount(line.vat))
            _el(tax, "Ставка", _rate(invoice.vat_percent))
    for receipt in receipts:
        _receipt(root, receipt)
    return _bytes(root)


def _receipt(root: ET.Element, receipt: ReceiptDoc) -> None:
    document = _el(root, "Документ")
    _el(document, "Ид", receipt.id[:40])
    _el(document, "Номер", receipt.number)
    _el(document, "Дата", receipt.date.isoformat())
    _el(document, "ХозОперация", "Отпуск товара")
    _el(document, "Роль", "Покупатель")
    _el(document, "Валюта", receipt.currency)
    _el(document, "Курс", _rate(receipt.rate))
    _el(document, "Сумма", _amount(receipt.total))
    _party(_el(document, "Контрагенты"), "Контрагент", receipt.supplier, role="Продавец")
    if receipt.comment:
        _el(document, "Комментарий", receipt.comment[:3000])
    goods = _el(document, "Товары")
    for line in receipt.lines:
        good = _el(goods, "Товар")
        _el(good, "Ид", line.sku[:80])
        _el(good, "Артикул", line.sku[:255])
        _el(good, "Наименование", line.name[:255])
        _unit(good)
        if line.supplier_sku:
            _el(good, "ИдТовараУКонтрагента", line.supplier_sku[:80])
        if line.serials:
            value = _el(_el(good, "ЗначенияРеквизитов"), "ЗначениеРеквизита")
            _el(value, "Наименование", SERIALS_NAME)
            for serial in line.serials:
                _el(value, "Значение", serial[:255])
        _el(good, "ЦенаЗаЕдиницу", _amount(line.unit_price))
        _el(good, "Количество", line.qty)
        _el(good, "Сумма", _amount(line.amount))
