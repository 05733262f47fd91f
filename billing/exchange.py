"""The 1C export of invoices, their customers and items: the database's rows into billing/commerceml.py's
dataclasses (thin). Sales and superusers only."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.utils import timezone

from billing.commerceml import InvoiceDoc, Item, Line, Party, catalog_xml, documents_xml
from billing.models import Invoice

CATALOG_ID = "gpu-configurator-catalog"


def seller_party() -> Party:
    seller = getattr(settings, "SELLER", {})
    name = str(seller.get("name", "")) or "Продавец"
    return Party(id="seller", name=name, official_name=name, inn=str(seller.get("inn", "")),
                 kpp=str(seller.get("kpp", "")), address=str(seller.get("address", "")))  # fmt: skip


def customer_party(invoice: Invoice) -> Party:
    owner = invoice.order.owner
    person = owner.get_full_name() or owner.username
    if owner.company:
        return Party(id=f"customer-{owner.pk}", name=owner.company, official_name=owner.company)
    return Party(id=f"customer-{owner.pk}", name=person)


def _invoice_doc(invoice: Invoice) -> InvoiceDoc:
    lines = tuple(
        Line(line.sku, line.name, line.qty, line.unit_price, line.line_total, line.vat)
        for line in invoice.lines.order_by("position")
    )
    return InvoiceDoc(
        id=invoice.number, number=invoice.number, date=invoice.issued_on, total=invoice.gross_total,
        vat=invoice.vat_total, vat_percent=invoice.vat_percent, buyer=customer_party(invoice), lines=lines,
        comment=f"Заказ {invoice.order.number}",
    )  # fmt: skip


def export_documents(invoices: Iterable[Invoice]) -> bytes:
    return documents_xml(seller=seller_party(), invoices=[_invoice_doc(i) for i in invoices],
                         generated_at=timezone.localtime())  # fmt: skip


def export_catalog(invoices: Iterable[Invoice]) -> bytes:
    """The items sold on `invoices` (one each, by SKU, in SKU order)."""
    items: dict[str, str] = {}
    for invoice in invoices:
        for line in invoice.lines.all():
            items.setdefault(line.sku, line.name)
    return catalog_xml(owner=seller_party(), items=[Item(sku, items[sku]) for sku in sorted(items)],
                       generated_at=timezone.localtime(), catalog_id=CATALOG_ID)  # fmt: skip
