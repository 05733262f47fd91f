"""The 1C export of invoices, their customers and items, and of goods receipts from suppliers: the database's
rows into billing/commerceml.py's dataclasses (thin). Sales and superusers only."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from billing.commerceml import (
    InvoiceDoc,
    Item,
    Line,
    Party,
    ReceiptDoc,
    ReceiptLineDoc,
    catalog_xml,
    documents_xml,
)
from billing.models import Invoice
from billing.selectors import document_buyer
from configurator.engine.builds import money
from orders.models import Receipt

CATALOG_ID = "gpu-configurator-catalog"


def seller_party() -> Party:
    seller = getattr(settings, "SELLER", {})
    name = str(seller.get("name", "")) or "Продавец"
    return Party(id="seller", name=name, official_name=name, inn=str(seller.get("inn", "")),
                 kpp=str(seller.get("kpp", "")), address=str(seller.get("address", "")))  # fmt: skip


def customer_party(invoice: Invoice) -> Party:
    """The buyer as the invoice names it (copied when issued; an invoice issued before the copy was kept
    reads the customer's profile), with ИНН, КПП and legal address (CommerceML 2.10 `Контрагент`)."""
    owner = invoice.order.owner
    buyer = document_buyer(invoice)
    official = buyer["buyer_name"] if owner.company or buyer["buyer_inn"] else ""
    return Party(id=f"customer-{owner.pk}", name=buyer["buyer_name"], official_name=official,
                 inn=buyer["buyer_inn"], kpp=buyer["buyer_kpp"], address=buyer["buyer_address"])  # fmt: skip


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


def receipts_for_export() -> QuerySet[Receipt]:
    """Every goods receipt, oldest first, with what `_receipt_doc` reads."""
    return (
        Receipt.objects.select_related("purchase_order__supplier", "purchase_order__order")
        .prefetch_related("lines__po_line__purchase__order_line", "lines__serials")
        .order_by("received_at", "id")
    )


def receipt_number(receipt: Receipt) -> str:
    """`<purchase order number>/<n>`: the n-th receipt against that purchase order."""
    n = Receipt.objects.filter(purchase_order_id=receipt.purchase_order_id, pk__lte=receipt.pk).count()
    return f"{receipt.purchase_order.number}/{n}"


def _receipt_doc(receipt: Receipt) -> ReceiptDoc:
    po = receipt.purchase_order
    lines = []
    for line in sorted(receipt.lines.all(), key=lambda item: item.pk):
        po_line = line.po_line
        order_line = po_line.purchase.order_line
        lines.append(
            ReceiptLineDoc(
                sku=po_line.sku, name=order_line.name_ru or order_line.name, supplier_sku=po_line.supplier_sku,
                qty=line.qty, unit_price=po_line.unit_price, amount=money(po_line.unit_price * line.qty),
                serials=tuple(serial.serial for serial in sorted(line.serials.all(), key=lambda item: item.pk)),
            )
        )  # fmt: skip
    number = receipt_number(receipt)
    supplier = Party(id=f"supplier-{po.supplier.slug}"[:40], name=po.supplier.name, official_name=po.supplier.name)
    return ReceiptDoc(
        id=number, number=number, date=timezone.localdate(receipt.received_at), currency=po.currency,
        rate=po.rate if po.rate is not None else Decimal(1), total=sum((line.amount for line in lines), Decimal(0)),
        supplier=supplier, lines=tuple(lines),
        comment=f"Поступление по заказу поставщику {po.number}, заказ {po.order.number}",
    )  # fmt: skip


def export_documents(invoices: Iterable[Invoice], receipts: Iterable[Receipt] = ()) -> bytes:
    return documents_xml(seller=seller_party(), invoices=[_invoice_doc(i) for i in invoices],
                         receipts=[_receipt_doc(r) for r in receipts],
                         generated_at=timezone.localtime())  # fmt: skip


def export_catalog(invoices: Iterable[Invoice]) -> bytes:
    """The items sold on `invoices` (one each, by SKU, in SKU order)."""
    items: dict[str, str] = {}
    for invoice in invoices:
        for line in invoice.lines.all():
            items.setdefault(line.sku, line.name)
    return catalog_xml(owner=seller_party(), items=[Item(sku, items[sku]) for sku in sorted(items)],
                       generated_at=timezone.localtime(), catalog_id=CATALOG_ID)  # fmt: skip
