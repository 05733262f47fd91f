"""Services that write procurement data: price-list imports (preview, apply with the confirmations held
moves and retirements need, apply again, discard), list prices that follow the offers, the sample
suppliers and offers."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from collections import Counter
from dataclasses import asdict
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from catalog.models import CATALOG_MODELS
from configurator.engine.builds import money
from finance.currency import BASE
from finance.rates import rate_book
from finance.vat import vat_percent_on
from procurement.conf import setting
from procurement.models import (
    ListPriceChange,
    PriceFreeze,
    PriceListImport,
    PriceListScope,
    Supplier,
    SupplierOffer,
)
from procurement.pricelist.cells import NumberFormat
from procurement.pricelist.files import Limits, PriceListTooLarge, size_check
from procurement.pricelist.plan import Diff, price_list_diff
from procurement.pricelist.read import Reading, ReadOptions, RowError, price_list_read
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


def price_list_limits() -> Limits:
    """The size limits of a price list (settings PROCUREMENT_PRICE_LIST_MAX_*)."""
    return Limits(
        max_bytes=setting("PRICE_LIST_MAX_BYTES"),
        max_rows=setting("PRICE_LIST_MAX_ROWS"),
        max_columns=setting("PRICE_LIST_MAX_COLUMNS"),
        max_cell_chars=setting("PRICE_LIST_MAX_CELL_CHARS"),
    )


def _options(supplier: Supplier, today: dt.date) -> ReadOptions:
    return ReadOptions(
        mapping=supplier.mapping(),
        kinds=catalog_kinds(),
        part_numbers=dict(supplier.part_numbers.values_list("key", "sku")),
        number_format=NumberFormat(decimal=supplier.decimal_separator, thousands=supplier.thousands_separator),
        default_currency=supplier.currency,
        prices_include_vat=supplier.prices_include_vat,
        vat_percent=vat_percent_on(today),
        today=today,
        valid_days=supplier.offer_valid_days,
        rates=rate_book(today),
        limits=price_list_limits(),
    )


def error_said(error: RowError) -> dict[str, Any]:
    """A bad cell as reports keep it: its fields, and its reason and sentence in the active language."""
    return {**asdict(error), "reason": error.reason, "text": error.text}


def too_large_report(exc: PriceListTooLarge, filename: str) -> dict[str, Any]:
    """The report of a file refused for its size: one error of the whole file (line 0) saying the size."""
    return {"errors": [error_said(RowError(0, "", "", filename, exc.message, exc.params))], "errors_total": 1}


def _said(message: str, params: dict[str, Any]) -> str:
    return gettext(message) % params if params else gettext(message)


def _examine(
    supplier: Supplier, content: bytes, filename: str, scope: str, current: dict[str, SupplierOffer]
) -> tuple[Reading, Diff | None, dict[str, Any]]:
    """Read the file and compare it with `current`; the report says it all (module docstrings of
    procurement/pricelist/read.py and plan.py). Raises PriceListTooLarge."""
    today = timezone.localdate()
    options = _options(supplier, today)
    reading = price_list_read(content=content, filename=filename, options=options)
    most: int = setting("PRICE_LIST_REPORT_MOST")
    report: dict[str, Any] = {
        "scope": scope,
        "file": {
            "encoding": reading.encoding, "delimiter": reading.delimiter, "header_line": reading.header_line,
            "columns": reading.columns,
        },
        "rows": len(reading.rows),
        "skipped": reading.skipped,
        "unmatched": [asdict(row) for row in reading.unmatched[:most]],
        "unmatched_total": len(reading.unmatched),
        "errors": [error_said(error) for error in reading.errors[:most]],
        "errors_total": len(reading.errors),
        "notes": [_said(message, params) for message, params in reading.notes],
    }  # fmt: skip
    if reading.errors:
        return reading, None, report
    diff = price_list_diff(
        reading.rows, current, full=scope == PriceListScope.FULL,
        threshold_percent=setting("PRICE_MOVE_THRESHOLD_PERCENT"), hold_percent=setting("PRICE_HOLD_PERCENT"),
        rates=options.rates, today=today,
    )  # fmt: skip
    report |= diff.as_dict() | _money_notes(reading, options, report["notes"], most)
    report["needs_confirmation"] = {"held": len(diff.held), "gone": len(diff.gone)}
    return reading, diff, report


def _money_notes(reading: Reading, options: ReadOptions, notes: list[str], most: int) -> dict[str, Any]:
    """The report's currencies (each with its rate and the rate's date), prices converted to roubles, VAT."""
    counts = Counter(row.currency for row in reading.rows)
    currencies: list[dict[str, Any]] = []
    for code, count in sorted(counts.items()):
        rate = options.rates.rate(code)
        if rate is None:
            currencies.append({"currency": code, "rows": count, "rate": None, "rate_date": None, "source": None})
            continue
        currencies.append(
            {"currency": code, "rows": count, "rate": str(rate.rub_per_unit), "rate_date": rate.date.isoformat(),
             "source": rate.source}
        )  # fmt: skip
        notes.append(
            gettext("%(currency)s prices: 1 %(currency)s = %(rate)s RUB, the rate of %(day)s; offers keep %(currency)s")
            % {"currency": code, "rate": rate.rub_per_unit.normalize(), "day": f"{rate.date:%d.%m.%Y}"}
        )
    converted = [
        {"line": row.line, "sku": row.sku, "price": str(row.purchase_price), "currency": row.currency,
         "rub": str(options.rates.rub(row.purchase_price, row.currency))}
        for row in reading.rows
        if row.currency != BASE and row.purchase_price is not None
    ]  # fmt: skip
    vat = None
    if reading.vat_included:
        said_by = gettext("the supplier's setting") if reading.vat_said_by == "supplier" else reading.vat_said_by
        vat = {
            "included": True,
            "percent": str(options.vat_percent),
            "day": options.today.isoformat(),
            "said_by": said_by,
        }
        notes.append(
            gettext("prices include VAT (%(said_by)s): stored net of %(percent)s %% VAT, the rate in force on %(day)s")
            % {"said_by": said_by, "percent": options.vat_percent.normalize(), "day": f"{options.today:%d.%m.%Y}"}
        )
    defaulted = sum(not row.valid_until_given for row in reading.rows)
    if defaulted:
        notes.append(
            ngettext(
                "%(count)s offer without a valid-until date is valid until %(day)s (%(days)s days)",
                "%(count)s offers without a valid-until date are valid until %(day)s (%(days)s days)",
                defaulted,
            )
            % {"count": defaulted, "day": f"{options.today + dt.timedelta(days=options.valid_days):%d.%m.%Y}",
               "days": options.valid_days}
        )  # fmt: skip
    return {"currencies": currencies, "converted": converted[:most], "converted_total": len(converted), "vat": vat}


def _status(report: dict[str, Any]) -> str:
    if report["errors"]:
        return PriceListImport.Status.FAILED
    if report["needs_confirmation"]["held"] or report["needs_confirmation"]["gone"]:
        return PriceListImport.Status.HELD
    return PriceListImport.Status.PREVIEWED


def price_list_preview(
    *,
    supplier: Supplier,
    filename: str,
    content: bytes,
    user: Any = None,
    source: str = PriceListImport.Source.ADMIN,
    scope: str | None = None,
    forced: bool = False,
) -> PriceListImport:
    """Read and check the file; store it with its report: `previewed`, `held` (price moves beyond the hold
    share or offers to retire wait for a person's confirmation) or `failed` (with every bad cell). `scope`:
    partial or full, the supplier's `default_scope` when None. Raises PriceListTooLarge (nothing stored)."""
    size_check(len(content), price_list_limits())
    chosen = scope or supplier.default_scope
    current = {offer.sku: offer for offer in supplier.offers.all()}
    _, _, report = _examine(supplier, content, filename, chosen, current)
    return PriceListImport.objects.create(
        supplier=supplier,
        filename=filename,
        content=content,
        sha256=hashlib.sha256(content).hexdigest(),
        source=source,
        scope=chosen,
        forced=forced,
        status=_status(report),
        report=report,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )


def _moves(report: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(move["sku"], move["new"], move["currency"]) for move in report.get("held", [])}


def price_list_apply(
    *, price_import: PriceListImport, confirm_held: bool = False, confirm_retire: bool = False
) -> PriceListImport:
    """Apply a previewed or held import in one transaction: read the stored file again against the offers
    as they are now; upsert offers (each change in the offer's history; the supplier's part number kept
    in `supplier_sku`; stock never below what orders reserved); for a full list, expire the offers it
    retires (stock down to what orders reserved). A file with any error changes nothing and the import
    is marked failed. Held price moves need `confirm_held` and retirements `confirm_retire`, and both
    only cover what the stored report showed: otherwise nothing changes, the import is `held` with its
    report made again (`unconfirmed` names what waits) and returned so."""
    with transaction.atomic():
        locked = PriceListImport.objects.select_for_update().get(pk=price_import.pk)
        if locked.status not in (PriceListImport.Status.PREVIEWED, PriceListImport.Status.HELD):
            raise ValueError(f"import {locked.pk} is {locked.status}, not previewed")
        supplier = locked.supplier
        current = {offer.sku: offer for offer in SupplierOffer.objects.select_for_update().filter(supplier=supplier)}
        try:
            reading, diff, report = _examine(supplier, bytes(locked.content), locked.filename, locked.scope, current)
        except PriceListTooLarge as exc:  # the limits were lowered since the preview
            reading, diff, report = Reading(), None, too_large_report(exc, locked.filename)
        if diff is None:
            locked.status, locked.report = PriceListImport.Status.FAILED, report
            locked.save(update_fields=["status", "report"])
            return locked
        shown_moves, shown_gone = _moves(locked.report), set(locked.report.get("gone", []))
        unconfirmed = {
            "held": sorted(move[0] for move in _moves(report) if not (confirm_held and move in shown_moves)),
            "gone": sorted(sku for sku in diff.gone if not (confirm_retire and sku in shown_gone)),
        }
        if unconfirmed["held"] or unconfirmed["gone"]:
            locked.status, locked.report = PriceListImport.Status.HELD, report | {"unconfirmed": unconfirmed}
            locked.save(update_fields=["status", "report"])
            return locked
        now = timezone.now()
        for row in reading.rows:
            offer = current.get(row.sku) or SupplierOffer(supplier=supplier, sku=row.sku)
            offer.kind, offer.purchase_price, offer.currency = row.kind, row.purchase_price, row.currency
            offer.supplier_sku, offer.stock_qty = row.supplier_sku, max(row.stock_qty, offer.reserved_qty)
            offer.listed_stock_qty, offer.listed_at = row.stock_qty, now
            offer.lead_time_days, offer.valid_until, offer.updated_at = row.lead_time_days, row.valid_until, now
            offer.save()
        yesterday = timezone.localdate() - dt.timedelta(days=1)
        for sku in diff.gone:
            offer = current[sku]
            offer.valid_until = min(offer.valid_until, yesterday)
            offer.stock_qty, offer.updated_at = offer.reserved_qty, now
            offer.listed_stock_qty, offer.listed_at = 0, now
            offer.save()
        locked.status, locked.report, locked.applied_at = PriceListImport.Status.APPLIED, report, now
        locked.save(update_fields=["status", "report", "applied_at"])
        transaction.on_commit(_orders_at_risk_refresh_queue, robust=True)
    return locked


def _orders_at_risk_refresh_queue() -> None:
    """After a list is applied, the orders that rely on its offers are checked again (`orders.at_risk_refresh`,
    by name: orders sit above procurement; the beat job runs it every 15 minutes should the broker be down)."""
    from celery import current_app

    from config.celery import publish

    task = current_app.tasks.get("orders.at_risk_refresh")
    if task is None:  # orders' tasks not loaded in this process: the beat job will do it
        logger.info("orders.at_risk_refresh is not registered here; left to the beat job")
        return
    publish(task, what="orders at risk after a price list")


def price_list_reapply(*, price_import: PriceListImport, user: Any = None) -> PriceListImport:
    """Import an earlier file again on purpose: a new preview of the same bytes, scope and file name
    (`forced`), to be applied as any other."""
    return price_list_preview(
        supplier=price_import.supplier,
        filename=price_import.filename,
        content=bytes(price_import.content),
        user=user,
        scope=price_import.scope,
        forced=True,
    )


def price_list_discard(*, price_import: PriceListImport, user: Any = None) -> bool:
    """Refuse a previewed or held import: it is marked failed (nothing changed) with who discarded it; the
    drop folder's scan moves its file from review/ to failed/. False when it was neither."""
    with transaction.atomic():
        locked = PriceListImport.objects.select_for_update().get(pk=price_import.pk)
        if locked.status not in (PriceListImport.Status.PREVIEWED, PriceListImport.Status.HELD):
            return False
        by = getattr(user, "username", "") or ""
        locked.status = PriceListImport.Status.FAILED
        locked.report = {**locked.report, "discarded": {"by": by, "at": timezone.now().isoformat()}}
        locked.save(update_fields=["status", "report"])
    return True


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
                price = rates.from_rub(money(rub * (100 + markup) / 100), currency)
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
