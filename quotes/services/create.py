"""Making a quote (R1) from a build body or a saved build, in one transaction, with its lines and event."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from catalog.specs import catalog_snapshot
from configurator.engine.builds import build_lines, build_to_payload
from configurator.engine.errors import ApplicationError, ErrorCode, InvalidInput, Mismatch, NotFound
from configurator.engine.types import CatalogSnapshot, Finding
from configurator.models import SavedBuild
from configurator.outputs import stored_verdict_data
from configurator.services import build_validate
from finance.vat import vat_percent_on
from procurement.selectors import availability_reader
from quotes.models import Quote, QuoteCounter, QuoteEventType, QuoteLine, QuoteStatus
from quotes.pricing import LineDraft, line_draft
from quotes.services._shared import creation_checked, event_add, lines_build, lines_price, spec_find, totals_dict
from quotes.services.extras import service_line
from quotes.services.numbering import QUOTE_COUNTER_NAME, quote_number_next
from quotes.services.render import render_queue_on_commit
from quotes.services.terms import quote_terms, service_terms
from servicelines.models import ServiceItem
from servicelines.services import services_by_sku

S = QuoteStatus
E = QuoteEventType

#: Optional lines one quote may offer (issue 38: 20,000 lines made 9-23 s requests, 5-41 MB answers and a PDF
#: that never rendered). A build has at most 64 lines per part kind (configurator.services.MAX_LINES); the
#: options beside it are a short list a person reads: upgrades, spares, accessories.
MAX_OPTIONAL_LINES = 50


def _finding_text(finding: Finding) -> str:
    return f"{finding.code}: {finding.message}"


def _optional_drafts(
    optional_lines: Iterable[Mapping[str, Any]], snapshot: CatalogSnapshot, discount: Decimal
) -> list[LineDraft]:
    drafts: list[LineDraft] = []
    errors: dict[str, list[str]] = {}
    lines = list(optional_lines)
    if len(lines) > MAX_OPTIONAL_LINES:
        raise InvalidInput(
            f"A quote takes at most {MAX_OPTIONAL_LINES} optional lines (the limit); {len(lines)} were given.",
            fields={"optional_lines": [f"at most {MAX_OPTIONAL_LINES} lines (MAX_OPTIONAL_LINES)"]},
        )
    for index, raw in enumerate(lines):
        sku, qty = raw.get("sku"), raw.get("qty", 1)
        found = spec_find(snapshot, sku) if isinstance(sku, str) else None
        if found is None or not found[1].is_active:
            errors[f"optional_lines[{index}].sku"] = [f"unknown or inactive SKU {sku!r}"]
            continue
        if isinstance(qty, bool) or not isinstance(qty, int) or not 1 <= qty <= 64:
            errors[f"optional_lines[{index}].qty"] = ["must be an integer from 1 to 64"]
            continue
        drafts.append(line_draft(found[0], found[1], qty, discount, optional=True))
    if errors:
        raise InvalidInput("An optional line is not valid.", fields=errors)
    return drafts


# --------------------------------------------------------------------------- create


def quote_request_hash(
    *,
    customer_id: int,
    payload: Mapping[str, Any] | None,
    saved_build_id: int | None,
    acknowledge_warnings: bool,
    discount_percent: Decimal | int | str,
    optional_lines: Sequence[Mapping[str, Any]],
    services: Sequence[str] | None = None,
    request_note: Mapping[str, str] | None = None,
) -> str:
    """SHA-256 of what a create asks for (canonical JSON): stored with the Idempotency-Key, so the same key
    with another build, customer, discount or lines is told apart from a retry of the same request."""
    discount = Decimal(str(discount_percent))
    request: dict[str, Any] = {
        "customer": customer_id,
        "build": payload,
        "saved_build": saved_build_id,
        "acknowledge_warnings": bool(acknowledge_warnings),
        "discount_percent": f"{discount.normalize():f}" if discount else "0",
        "optional_lines": [{"sku": line.get("sku"), "qty": line.get("qty", 1)} for line in optional_lines],
    }
    if services is not None:  # left out when not given, so the hashes stored before services were asked stay
        request["services"] = list(services)
    if request_note:
        request["request"] = dict(request_note)
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _find_idempotent(created_by: User, key: str, request_hash: str) -> Quote | None:
    """The quote made earlier with this creator and key, marked `replayed`; Mismatch when that request
    differed from this one (quotes made before hashes were stored match any request)."""
    quote = Quote.objects.filter(created_by=created_by, idempotency_key=key).first()
    if quote is None:
        return None
    if quote.idempotency_hash and quote.idempotency_hash != request_hash:
        raise Mismatch(
            f"The Idempotency-Key was already used for quote {quote.number} with a different request; "
            "use a new key for a new quote.",
            fields={"Idempotency-Key": ["already used with a different body"]},
        )
    quote.replayed = True
    return quote


def _lock_key(created_by: User, key: str) -> None:
    """Hold the creator's key until the transaction ends, so concurrent creates with one key queue here
    and only the first draws a number (PostgreSQL: an advisory lock on the key; SQLite: its write lock,
    taken by a no-op write on the counter row)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"quote-create:{created_by.pk}:{key}"]
            )
    else:
        QuoteCounter.objects.filter(name=QUOTE_COUNTER_NAME).update(value=F("value"))


def _ship_date_data(build: Any) -> dict[str, Any]:
    """When the build can ship, from the suppliers' offers as they are now (kept with the quote's verdict, so the
    PDF says the date the customer was offered; null when a part has no live offer)."""
    availability = availability_reader()(build)
    ship_date = availability.ship_date
    return {
        "ship_date": ship_date.isoformat() if ship_date else None,
        "lead_time_days": availability.lead_time_days,
        "rack_units": build.chassis.rack_units,  # the facility figures of a rack server (quotes.pdf.quote_facility)
    }


def quote_create(
    *,
    customer: User,
    created_by: User,
    payload: Mapping[str, Any] | None = None,
    saved_build: SavedBuild | None = None,
    idempotency_key: str | None = None,
    acknowledge_warnings: bool = False,
    discount_percent: Decimal | int | str = 0,
    optional_lines: Iterable[Mapping[str, Any]] = (),
    services: Sequence[str] | None = None,
    request_note: Mapping[str, str] | None = None,
) -> Quote:
    """Make a draft quote (R1) from an inline build body or a saved build.

    `services` (SKUs of servicelines) become the quote's service lines, priced by the one rule
    (`_shared.lines_price`); unknown ones are refused as `services[i]` field errors. `request_note` (the
    customer's own request: name, company, contact, comment) is kept with the `created` event for sales.

    Refused with `build_invalid` when the build has error findings and with `warnings_not_acknowledged`
    when it has warnings and `acknowledge_warnings` is false; a quote for someone else needs a sales
    engineer as creator and a member of `customers` as customer. Prices come from the catalog snapshot
    of this moment and are copied into the lines (net of VAT); the VAT rate is the one in force on the
    quote's date, today in the seller's time zone (finance.vat.vat_percent_on), and the terms say so.
    With an `idempotency_key`, the same creator, key and request give back the quote made the first time
    (`quote.replayed` is then true), also under concurrent requests: the key is locked before the number
    is drawn, so one number is drawn per key.
    The same key with a different request is refused with `idempotency_mismatch`. The PDF render is
    queued when the transaction commits; if the broker is down the quote stays `pending` and
    `quotes_sweep_stuck` queues it later.
    """
    key = (idempotency_key or "").strip() or None
    optional = list(optional_lines)
    request_hash = quote_request_hash(
        customer_id=customer.pk,
        payload=payload,
        saved_build_id=saved_build.pk if saved_build is not None else None,
        acknowledge_warnings=acknowledge_warnings,
        discount_percent=discount_percent,
        optional_lines=optional,
        services=services,
        request_note=request_note,
    )
    if key is not None and (existing := _find_idempotent(created_by, key, request_hash)) is not None:
        return existing

    discount = creation_checked(customer=customer, created_by=created_by, discount_percent=discount_percent)
    if (payload is None) == (saved_build is None):
        raise InvalidInput("Give either a build or a saved build.", fields={"build": ["give build or saved_build"]})
    if saved_build is not None:
        if saved_build.owner_id not in (customer.pk, created_by.pk) and not created_by.is_sales:
            raise NotFound("Saved build not found.")
        payload = saved_build.payload
    if not isinstance(payload, Mapping):
        raise InvalidInput("The build must be a JSON object.", fields={"build": ["expected an object"]})

    snapshot = catalog_snapshot()
    try:
        build, verdict, price = build_validate(payload=payload, snapshot=snapshot)
    except ApplicationError as exc:
        if exc.code == ErrorCode.INVALID or exc.fields:
            raise exc.nested("build.") from exc
        raise
    if verdict.errors:
        raise InvalidInput(
            "The build has errors; fix them before making a quote: "
            + "; ".join(_finding_text(f) for f in verdict.errors),
            code=ErrorCode.BUILD_INVALID,
            fields={"build": [_finding_text(f) for f in verdict.errors]},
        )
    if verdict.warnings and not acknowledge_warnings:
        raise InvalidInput(
            "The build has warnings; acknowledge them to make a quote: "
            + "; ".join(_finding_text(f) for f in verdict.warnings),
            code=ErrorCode.WARNINGS_NOT_ACKNOWLEDGED,
            fields={"acknowledge_warnings": [_finding_text(f) for f in verdict.warnings]},
        )

    service_items: list[ServiceItem] = []
    if services is not None:
        service_items, unknown = services_by_sku(services)
        if unknown:
            raise InvalidInput("Unknown or doubled services.", fields=unknown)

    drafts = [line_draft(kind, spec, qty, discount) for kind, spec, qty in build_lines(build)]
    if optional:
        drafts += _optional_drafts(optional, snapshot, discount)
    vat_percent = vat_percent_on(timezone.localdate())  # the rate in force on the quote's date

    try:
        with transaction.atomic():
            if key is not None:
                _lock_key(created_by, key)
                if (existing := _find_idempotent(created_by, key, request_hash)) is not None:
                    return existing
            quote = Quote(
                number=quote_number_next(),
                revision=1,
                owner=customer,
                created_by=created_by,
                status=S.DRAFT,
                currency=price.currency,
                vat_percent=vat_percent,
                discount_percent=discount,
                terms=quote_terms(
                    vat_percent=vat_percent,
                    validity_days=settings.QUOTE_VALIDITY_DAYS,
                    services=service_terms(service_items),
                ),
                build_payload={**build_to_payload(build), "workload": payload.get("workload")},
                verdict={**stored_verdict_data(verdict), **_ship_date_data(build)},
                saved_build=saved_build,
                idempotency_key=key or "",
                idempotency_hash=request_hash if key is not None else "",
            )
            lines = lines_build(quote, drafts)
            first = max((line.position for line in lines), default=0) + 1
            lines += [service_line(quote, first + offset, item) for offset, item in enumerate(service_items)]
            lines_price(quote, lines)
            quote.save()
            QuoteLine.objects.bulk_create(lines)
            event_add(
                quote,
                E.CREATED,
                user=created_by,
                data={
                    "totals": totals_dict(quote),
                    "discount_percent": str(discount),
                    "acknowledged_warnings": [f.code for f in verdict.warnings],
                    "catalog_version": snapshot.version,
                    "saved_build": saved_build.pk if saved_build else None,
                    **({"services": [item.sku for item in service_items]} if services is not None else {}),
                    **({"request": dict(request_note)} if request_note else {}),
                },
            )
            render_queue_on_commit(quote.pk)
    except IntegrityError:
        # Another request with the same key won the race; its row is committed now.
        if key is not None and (existing := _find_idempotent(created_by, key, request_hash)) is not None:
            return existing
        raise
    return quote
