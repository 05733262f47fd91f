"""Which orders a user may see: customers their own, sales and catalog staff all (404 otherwise); purchase
lists are for sales and catalog staff."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from openpyxl import Workbook

from accounts.models import User
from configurator.engine.errors import Forbidden
from orders.models import Order, OrderStatus, PurchaseLine


def _staff(user: User) -> bool:
    return user.is_sales or user.is_catalog_staff or user.is_superuser


def order_visible(*, user: User) -> QuerySet[Order]:
    queryset = Order.objects.select_related("owner", "quote")
    return queryset if _staff(user) else queryset.filter(owner=user)


def order_get(*, user: User, number: str) -> Order:
    order = order_visible(user=user).filter(number=number).first()
    if order is None:
        raise Http404(f"No order {number}.")
    return order


def may_see_purchases(user: User) -> bool:
    return _staff(user)


def purchase_lists(*, user: User, order: Order) -> dict[str, list[PurchaseLine]]:
    """The order's purchase lines per supplier slug (sales and catalog staff)."""
    if not _staff(user):
        raise Forbidden("Only sales and catalog staff see purchase lists.")
    grouped: dict[str, list[PurchaseLine]] = defaultdict(list)
    rows = order.purchases.select_related("supplier", "offer", "order", "order_line").order_by(
        "supplier__slug", "sku", "id"
    )
    for purchase in rows:
        grouped[purchase.supplier.slug].append(purchase)
    return dict(grouped)


def purchase_lists_to_buy(*, user: User) -> dict[str, list[PurchaseLine]]:
    """What is still to buy, per supplier slug: the purchase lines of the orders whose parts are not
    ordered yet (status `placed`), oldest order first (sales and catalog staff)."""
    if not _staff(user):
        raise Forbidden("Only sales and catalog staff see purchase lists.")
    grouped: dict[str, list[PurchaseLine]] = defaultdict(list)
    rows = (
        PurchaseLine.objects.filter(order__status=OrderStatus.PLACED, released=False)
        .select_related("supplier", "offer", "order", "order_line")
        .order_by("supplier__slug", "order__created_at", "order__id", "sku", "id")
    )
    for purchase in rows:
        grouped[purchase.supplier.slug].append(purchase)
    return dict(grouped)


CSV_HEADER = ("order", "supplier", "sku", "supplier_sku", "qty", "unit_price", "currency", "line_total", "from_stock")
XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _purchase_rows(supplier: str, lines: list[PurchaseLine]) -> list[tuple[Any, ...]]:
    return [
        (
            line.order.number,
            supplier,
            line.sku,
            line.offer.supplier_sku if line.offer else "",
            line.qty,
            line.unit_price,
            line.currency,
            line.unit_price * line.qty,
            "yes" if line.from_stock else "no",
        )
        for line in lines
    ]


def purchase_list_csv(*, supplier: str, lines: list[PurchaseLine]) -> str:
    """One supplier's purchase lines (of one order or several: each row names its order) as CSV."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_HEADER)
    writer.writerows(_purchase_rows(supplier, lines))
    return buffer.getvalue()


def purchase_list_xlsx(*, supplier: str, lines: list[PurchaseLine]) -> bytes:
    """The same rows as the CSV in one sheet; quantities and money are numbers (money with 2 places)."""
    book = Workbook(write_only=False)
    sheet = book.worksheets[0]
    sheet.title = supplier[:31]  # Excel's limit on a sheet name
    sheet.append(CSV_HEADER)
    for row in _purchase_rows(supplier, lines):
        sheet.append(row)
    for column in ("F", "H"):
        for cell in sheet[column][1:]:
            cell.number_format = "#,##0.00"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()
