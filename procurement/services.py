"""Services that write procurement data: price-list imports, list prices that follow the offers, the
sample suppliers and offers."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from dataclasses import asdict
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from catalog.models import CATALOG_MODELS
from finance.currency import BASE, currency_code
from finance.rates import RateBook
from procurement.conf import setting
from procurement.models import ListPriceChange, PriceFreeze, PriceListImport, Supplier, SupplierOffer
from procurement.pricelist import OfferRow, price_list_diff, price_list_read
from procurement.selectors import offer_rates, price_in_rub, price_not_comparable

logger = logging.getLogger(__name__)

OFFERS_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "offers.json"


def catalog_kinds() -> dict[str, str]:
    """Every catalog SKU → its kind (`gpus`, `cpus`, …)."""
    kinds: dict[str, str] = {}
    for kind, model in CATALOG_MODELS.items():
        for sku in model.objects.values_list("sku", flat=True):
            kinds[sku] = kind
    return kinds


def _read(supplier: Supplier, content: bytes, filename: str) -> tuple[list[OfferRow], dict[str, Any]]:
    rows, errors = price_list_read(
        content=content,
        filename=filename,
        mapping=supplier.mapping(),
        kinds=catalog_kinds(),
        default_currency=supplier.currency,
    )
    if errors:
        said = [{**asdict(error), "reason": error.reason, "text": error.text} for error in errors]
        return rows, {"errors": said, "rows": len(rows) + len(errors)}
    current = {offer.sku: offer for offer in supplier.offers.all()}
    diff = price_list_diff(rows, current, threshold_percent=setting("PRICE_MOVE_THRESHOLD_PERCENT"))
    return rows, {"errors": [], "rows": len(rows), **diff.as_dict()}


def price_list_preview(
    *,
    supplier: Supplier,
    filename: str,
    content: bytes,
    user: Any = None,
    source: str = PriceListImport.Source.ADMIN,
) -> PriceListImport:
    """Read and check the file; store it with its report (`previewed`, or `failed` with every bad cell)."""
    _, report = _read(supplier, content, filename)
    status = PriceListImport.Status.FAILED if report["errors"] else PriceListImport.Status.PREVIEWED
    return PriceListImport.objects.create(
        supplier=supplier,
        filename=filename,
        content=content,
        sha256=hashlib.sha256(content).hexdigest(),
        source=source,
        status=status,
        report=report,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )


def price_list_apply(*, price_import: PriceListImport) -> PriceListImport:
    """Apply a previewed import in one transaction: upsert offers (each change in the offer's history),
    expire the offers gone from the list (stock down to what orders reserved). A file with any error
    changes nothing and the import is marked failed with the errors."""
    with transaction.atomic():
        locked = PriceListImport.objects.select_for_update().get(pk=price_import.pk)
        if locked.status != PriceListImport.Status.PREVIEWED:
            raise ValueError(f"import {locked.pk} is {locked.status}, not previewed")
        supplier = locked.supplier
        rows, report = _read(supplier, bytes(locked.content), locked.filename)
        if report["errors"]:
            locked.status, locked.report = PriceListImport.Status.FAILED, report
            locked.save(update_fields=["status", "report"])
            return locked
        now = timezone.now()
        current = {offer.sku: offer for offer in SupplierOffer.objects.select_for_update().filter(supplier=supplier)}
        for row in rows:
            offer = current.get(row.sku) or SupplierOffer(supplier=supplier, sku=row.sku)
            offer.kind, offer.purchase_price, offer.currency = row.kind, row.purchase_price, row.currency
            offer.stock_qty = max(row.stock_qty, offer.reserved_qty)
            offer.lead_time_days, offer.valid_until, offer.updated_at = row.lead_time_days, row.valid_until, now
            offer.save()
        yesterday = timezone.localdate() - dt.timedelta(days=1)
        for sku in report["gone"]:
            offer = current[sku]
            offer.valid_until = min(offer.valid_until, yesterday)
            offer.stock_qty, offer.updated_at = offer.reserved_qty, now
            offer.save()
        locked.status, locked.report, locked.applied_at = PriceListImport.Status.APPLIED, report, now
        locked.save(update_fields=["status", "report", "applied_at"])
    return locked


def _money(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def list_prices_follow_offers(*, currency: str = BASE) -> list[ListPriceChange]:
    """Set each catalog part's list price to its cheapest live offer plus the markup of its kind, except frozen
    SKUs; every change is logged and saved through the catalog's history.

    Offers are compared in roubles at today's rate (procurement.selectors.price_in_rub, one rate book for the
    run), whatever their currency: 12,000 USD at 78.2235 (938,682.00 RUB) loses to 799,999.50 RUB. The list
    price of a part priced in `currency` (the catalog's RUB) is that rouble price plus the markup, converted to
    `currency` at the same rate when it is not RUB. An offer priced on request or in a currency without a rate
    is skipped with a logged reason, never read 1:1."""
    markups: dict[str, Decimal] = setting("MARKUP_PERCENT")
    frozen = set(PriceFreeze.objects.values_list("sku", flat=True))
    today = timezone.localdate()
    live = list(SupplierOffer.objects.filter(valid_until__gte=today).select_related("supplier").order_by("sku", "pk"))
    rates = offer_rates(day=today, currencies={offer.currency for offer in live} | {currency})
    best: dict[str, tuple[Decimal, SupplierOffer]] = {}
    for offer in live:
        rub = price_in_rub(offer.purchase_price, offer.currency, rates)
        if rub is None:
            logger.warning(
                "list prices: offer %s of %s (%s %s) not compared: %s",
                offer.supplier.slug, offer.sku, offer.purchase_price, offer.currency,
                price_not_comparable(offer.purchase_price, offer.currency, rates),
            )  # fmt: skip
            continue
        if offer.sku not in best or rub < best[offer.sku][0]:
            best[offer.sku] = (rub, offer)
    changes: list[ListPriceChange] = []
    with transaction.atomic():
        for kind, model in CATALOG_MODELS.items():
            markup = Decimal(markups.get(kind, 0))
            for item in model.objects.select_for_update().filter(sku__in=best.keys(), currency=currency):
                if item.sku in frozen:
                    continue
                rub, offer = best[item.sku]
                price = _in_currency(_money(rub * (100 + markup) / 100), currency, rates)
                if price is None or price == item.list_price:
                    continue
                changes.append(
                    ListPriceChange.objects.create(
                        sku=item.sku, kind=kind, old_price=item.list_price, new_price=price, offer=offer,
                        markup_percent=markup,
                    )
                )  # fmt: skip
                item.list_price = price
                item.save(update_fields=["list_price", "updated_at"])
    return changes


def _in_currency(rub: Decimal, currency: str, rates: RateBook) -> Decimal | None:
    """Roubles in `currency` at `rates` (None when it has no rate)."""
    if currency_code(currency) == BASE:
        return rub
    rate = rates.rates.get(currency_code(currency))
    return _money(rub / rate.rub_per_unit) if rate is not None else None


def offers_load_fixture(*, path: Path = OFFERS_FIXTURE) -> tuple[int, int]:
    """Add the sample suppliers and their offers that are missing (idempotent). Returns (suppliers, offers)
    created. Offers' validity is counted from today (`valid_days`), so the sample never goes stale."""
    data = json.loads(path.read_text(encoding="utf-8"))
    today = timezone.localdate()
    made_suppliers = made_offers = 0
    with transaction.atomic():
        for raw in data["suppliers"]:
            supplier, created = Supplier.objects.get_or_create(
                slug=raw["slug"],
                defaults={key: raw[key] for key in ("name", "currency", "contact", "terms") if key in raw}
                | {"is_sample": True},
            )
            made_suppliers += created
            have = set(supplier.offers.values_list("sku", flat=True))
            for row in raw["offers"]:
                if row["sku"] in have:
                    continue
                SupplierOffer.objects.create(
                    supplier=supplier, sku=row["sku"], kind=row["kind"], purchase_price=Decimal(row["purchase_price"]),
                    currency=supplier.currency, stock_qty=row["stock_qty"], lead_time_days=row["lead_time_days"],
                    valid_until=today + dt.timedelta(days=row.get("valid_days", 30)),
                )  # fmt: skip
                made_offers += 1
    return made_suppliers, made_offers
