"""The authorization matrix's procurement and order pieces: the objects of the procurement admin pages (one
of each, made on first use), the order endpoints' URLs and expected statuses per persona."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Model

from orders.models import PurchaseLine
from procurement import models as procurement_models


def procurement_object(model: type[Model]) -> Model:
    import datetime as dt
    from decimal import Decimal

    supplier, _ = procurement_models.Supplier.objects.get_or_create(slug="matrix-supplier", name="Matrix supplier")
    offer, _ = procurement_models.SupplierOffer.objects.get_or_create(
        supplier=supplier,
        sku="rtx-4090",
        defaults={
            "kind": "gpus",
            "purchase_price": Decimal(1000),
            "lead_time_days": 5,
            "valid_until": dt.date(2099, 1, 1),
        },
    )
    made: dict[type[Model], Callable[[], Model]] = {
        procurement_models.Supplier: lambda: supplier,
        procurement_models.SupplierOffer: lambda: offer,
        procurement_models.PriceFreeze: lambda: procurement_models.PriceFreeze.objects.get_or_create(sku="rtx-4090")[0],
        procurement_models.PriceListImport: lambda: procurement_models.PriceListImport.objects.create(
            supplier=supplier, filename="matrix.csv", content=b"sku", status="failed"
        ),
        procurement_models.ListPriceChange: lambda: procurement_models.ListPriceChange.objects.create(
            sku="rtx-4090", kind="gpus", old_price=1, new_price=2, offer=offer, markup_percent=18
        ),
    }
    return made[model]()


def price_list_upload() -> dict[str, Any]:
    """A price-list preview for a sample supplier (multipart: a new file for each request)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    return {"file": SimpleUploadedFile("matrix.csv", "Артикул;Цена;Остаток;Срок\nrtx-4090;190 000;2;5\n".encode())}


def order_url(action: str = "") -> Callable[[Any], str]:
    return lambda world: f"/api/v1/orders/{world.order().number}/" + action


def purchase_csv_url(world: Any) -> str:
    supplier = PurchaseLine.objects.filter(order=world.order()).order_by("pk").first()
    assert supplier is not None, "the sample offers gave the order no purchase lines"
    return f"/api/v1/orders/{world.order().number}/purchase-lists/{supplier.supplier.slug}.csv"


def purchase_xlsx_url(world: Any) -> str:
    return purchase_csv_url(world).removesuffix(".csv") + ".xlsx"


#: Orders: the customer and sales see the order; sales move it; sales and catalog staff see purchase lists.
ORDER_READ = {"anonymous": 401, "customer": 200, "other_customer": 404, "sales": 200, "catalog": 200, "superuser": 200}
ORDER_ADVANCE = {
    "anonymous": 401,
    "customer": 403,
    "other_customer": 404,
    "sales": 200,
    "catalog": 403,
    "superuser": 200,
}
ORDER_PURCHASES = {
    "anonymous": 401,
    "customer": 403,
    "other_customer": 404,
    "sales": 200,
    "catalog": 200,
    "superuser": 200,
}


_sample_offers: list[tuple[Any, list[Any]]] = []  # (supplier, its offers) as the first load in this process made them


def sample_offers_load() -> None:
    """What `offers_load_fixture()` loads into an empty database: the sample suppliers and their offers, each
    with its history row. The first call in a process runs it; later calls (each test's transaction rolled the
    rows back) insert the same rows in bulk, which is much faster than its row-by-row get-or-create."""
    from django.forms.models import model_to_dict
    from simple_history.utils import bulk_create_with_history

    from procurement.services import offers_load_fixture

    Supplier, SupplierOffer = procurement_models.Supplier, procurement_models.SupplierOffer
    if not _sample_offers or Supplier.objects.exists():
        offers_load_fixture()
        if not _sample_offers:
            suppliers = Supplier.objects.order_by("pk").prefetch_related("offers")
            _sample_offers.extend((supplier, list(supplier.offers.order_by("pk"))) for supplier in suppliers)
        return
    for supplier, offers in _sample_offers:
        made = Supplier(**{**model_to_dict(supplier, exclude=["id"])})
        bulk_create_with_history([made], Supplier)
        copies = [
            SupplierOffer(**{**model_to_dict(offer, exclude=["id", "supplier"]), "supplier": made}) for offer in offers
        ]
        bulk_create_with_history(copies, SupplierOffer)


# --------------------------------------------------------------------------- purchase orders and receipts (issue 36)

#: Purchase orders and receipts are sales' and catalog staff's; a customer is refused before any lookup (403).
STAFF_ONLY = {"anonymous": 401, "customer": 403, "other_customer": 403, "sales": 200, "catalog": 200, "superuser": 200}
#: A build step on the world's order (parts not received): the customer is refused (403), another customer does
#: not see the order (404), staff pass the check and are told the parts are missing (409, nothing written).
BUILD_STEP = {"anonymous": 401, "customer": 403, "other_customer": 404, "sales": 409, "catalog": 409, "superuser": 409}


def world_po(world: Any, *, sent: bool = False) -> Any:
    """The first purchase order of the world's order (made from its plan on first use in a test)."""
    from orders.models import PurchaseOrder
    from orders.purchasing import purchase_orders_create

    made, _ = purchase_orders_create(order=world.order(), user=world.users["sales"])
    po = min(made, key=lambda po: po.number)
    if sent:
        PurchaseOrder.objects.filter(pk=po.pk).update(status="sent")
        po.refresh_from_db()
    return po


def po_url(action: str = "") -> Callable[[Any], str]:
    return lambda world: f"/api/v1/purchase-orders/{world_po(world).number}/" + action


def receipt_input(po: Any) -> dict[str, Any]:
    """A receipt of one unit of the purchase order's first line (with a serial number when its kind needs one)."""
    from configurator.engine.purchasing import SERIAL_KINDS

    line = po.lines.order_by("pk").first()
    serials = ["MATRIX-SN-1"] if line.kind in SERIAL_KINDS else []
    return {"purchase_order": po.number, "lines": [{"line": line.pk, "qty": 1, "serials": serials}]}


_receipt_body: dict[str, Any] = {}


def receipts_post_url(world: Any) -> str:
    """POST /api/v1/receipts/ of a sent purchase order; its body is `receipt_body()`."""
    _receipt_body.clear()
    _receipt_body.update(receipt_input(world_po(world, sent=True)))
    return "/api/v1/receipts/"


def receipt_body() -> dict[str, Any]:
    return dict(_receipt_body)


def receipt_url(world: Any) -> str:
    return f"/api/v1/receipts/{world_receipt(world).pk}/"


def world_receipt(world: Any) -> Any:
    from orders.purchasing import ReceiptLineInput, receipt_record

    data = receipt_input(world_po(world, sent=True))["lines"][0]
    po = world_po(world)
    return receipt_record(
        po=po, lines=[ReceiptLineInput(data["line"], data["qty"], data["serials"])], user=world.users["sales"]
    )


def world_serial(world: Any) -> Any:
    """A serial number received for the world's order (a GPU line's, which always carries one)."""
    from orders.models import ReceivedSerial
    from orders.purchasing import ReceiptLineInput, receipt_record

    po = next(po for po in _all_pos(world) if po.lines.filter(kind="gpus").exists())
    from orders.models import PurchaseOrder

    PurchaseOrder.objects.filter(pk=po.pk).update(status="sent")
    line = po.lines.get(kind="gpus")
    receipt_record(po=po, lines=[ReceiptLineInput(line.pk, 1, ["MATRIX-GPU-1"])], user=world.users["sales"])
    return ReceivedSerial.objects.get(serial="MATRIX-GPU-1")


def _all_pos(world: Any) -> list[Any]:
    from orders.purchasing import purchase_orders_create

    return purchase_orders_create(order=world.order(), user=world.users["sales"])[0]
