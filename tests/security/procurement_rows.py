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
