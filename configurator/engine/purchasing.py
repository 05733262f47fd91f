"""Purchase orders and receipts as pure code (issue 36 items 1-2): no ORM, no HTTP.

* `PO_TRANSITIONS` — the one table of a purchase order's states: draft → sent → confirmed → partly received
  → received, and cancelled from any state before the goods are all here. `po_status_after_receipt` is the
  only way the two "received" states are reached (a receipt, never a person's button).
* `po_drafts` — an order's plan (its purchase lines) grouped into one purchase order per supplier; each
  line priced in the offer's currency and in roubles at the day's rate: roubles of a line = its total in
  the currency × the rate, rounded half up to kopecks (`builds.money`); a purchase order's rouble total is
  the sum of its lines' roubles, so the document's rows add up to its total to the kopeck.
* `serial_normal`, `serials_split` — serial numbers as kept and searched (capitals, Cyrillic look-alikes
  made Latin) and as a pasted packing list gives them.
* `receipt_problems` — what is wrong with a receipt of one purchase-order line: more than is still due,
  serial numbers missing, repeated (after normalising), not Latin letters and digits, or of the wrong count
  for the kinds that carry one (GPUs, CPUs, drives, power supplies: the parts a warranty claim names by serial).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from configurator.engine.builds import money
from configurator.engine.frozen import direct_init
from configurator.engine.workdays import add_working_days

DRAFT, SENT, CONFIRMED, PARTLY_RECEIVED, RECEIVED, CANCELLED = (
    "draft", "sent", "confirmed", "partly_received", "received", "cancelled",
)  # fmt: skip

#: The one transition table of purchase orders: `from → {to, …}`.
PO_TRANSITIONS: dict[str, frozenset[str]] = {
    DRAFT: frozenset({SENT, CANCELLED}),
    SENT: frozenset({CONFIRMED, PARTLY_RECEIVED, RECEIVED, CANCELLED}),
    CONFIRMED: frozenset({PARTLY_RECEIVED, RECEIVED, CANCELLED}),
    PARTLY_RECEIVED: frozenset({PARTLY_RECEIVED, RECEIVED, CANCELLED}),
    RECEIVED: frozenset(),
    CANCELLED: frozenset(),
}
#: States a person moves a purchase order to; the received ones follow from receipts.
MANUAL_TARGETS: frozenset[str] = frozenset({SENT, CONFIRMED, CANCELLED})
#: States in which goods may be received against the purchase order.
RECEIVABLE: frozenset[str] = frozenset({SENT, CONFIRMED, PARTLY_RECEIVED})
#: Not finished: cancelling the order cancels these.
OPEN: frozenset[str] = frozenset(state for state, moves in PO_TRANSITIONS.items() if moves)

#: Catalog kinds (catalog.models.CATALOG_MODELS keys) whose every unit is received with its serial number.
SERIAL_KINDS: frozenset[str] = frozenset({"gpus", "cpus", "storage", "psus"})


def po_can_transition(from_status: str, to_status: str) -> bool:
    return to_status in PO_TRANSITIONS.get(from_status, frozenset())


def po_status_after_receipt(lines: Iterable[tuple[int, int]]) -> str:
    """The state a receipt leaves a purchase order in, from its lines' (ordered, received) quantities."""
    pairs = list(lines)
    return RECEIVED if all(received >= ordered for ordered, received in pairs) else PARTLY_RECEIVED


@direct_init
@dataclass(frozen=True, slots=True)
class PlanLine:
    """One purchase line of an order's plan, as purchase orders read it."""

    purchase_id: int
    supplier: str  # slug
    sku: str
    supplier_sku: str
    kind: str
    qty: int
    unit_price: Decimal  # in `currency`
    currency: str
    expected_days: int  # working days from the day the purchase order is made


@direct_init
@dataclass(frozen=True, slots=True)
class PoLineDraft:
    purchase_id: int
    sku: str
    supplier_sku: str
    kind: str
    qty: int
    unit_price: Decimal
    line_total: Decimal  # unit price × qty, in the currency, to the cent
    unit_price_rub: Decimal
    line_total_rub: Decimal  # line_total × rate, half up to kopecks
    expected_date: dt.date


@direct_init
@dataclass(frozen=True, slots=True)
class PoDraft:
    supplier: str
    currency: str
    rate: Decimal | None  # roubles per unit of `currency` (None for roubles)
    rate_date: dt.date | None  # the day the rate was set for
    lines: tuple[PoLineDraft, ...]
    expected_date: dt.date  # the last line's

    @property
    def total(self) -> Decimal:
        return sum((line.line_total for line in self.lines), Decimal("0.00"))

    @property
    def total_rub(self) -> Decimal:
        return sum((line.line_total_rub for line in self.lines), Decimal("0.00"))


class MixedCurrencies(ValueError):
    """One supplier's plan lines in more than one currency: a purchase order is in one currency."""


def po_drafts(
    lines: Sequence[PlanLine], *, rates: Mapping[str, tuple[Decimal, dt.date]], day: dt.date
) -> tuple[PoDraft, ...]:
    """One purchase order per supplier (sorted by the supplier's code), its lines in the order given.
    `rates`: currency → (roubles per unit, the rate's day), roubles need none; a currency without a rate is
    a KeyError (never 1:1). Expected dates count working days after `day`."""
    by_supplier: dict[str, list[PlanLine]] = {}
    for line in lines:
        by_supplier.setdefault(line.supplier, []).append(line)
    drafts: list[PoDraft] = []
    for supplier in sorted(by_supplier):
        group = by_supplier[supplier]
        currencies = {line.currency for line in group}
        if len(currencies) != 1:
            raise MixedCurrencies(f"{supplier}: plan lines in {sorted(currencies)}")
        currency = currencies.pop()
        rate, rate_date = (None, None) if currency == "RUB" else rates[currency]
        made = []
        for line in group:
            total = money(line.unit_price * line.qty)
            made.append(
                PoLineDraft(
                    purchase_id=line.purchase_id, sku=line.sku, supplier_sku=line.supplier_sku, kind=line.kind,
                    qty=line.qty, unit_price=line.unit_price, line_total=total,
                    unit_price_rub=money(line.unit_price * rate) if rate else money(line.unit_price),
                    line_total_rub=money(total * rate) if rate else total,
                    expected_date=add_working_days(day, line.expected_days),
                )
            )  # fmt: skip
        drafts.append(
            PoDraft(
                supplier=supplier, currency=currency, rate=rate, rate_date=rate_date, lines=tuple(made),
                expected_date=max(line.expected_date for line in made),
            )
        )  # fmt: skip
    return tuple(drafts)


#: Cyrillic capitals drawn like Latin ones (А В С Е Н К М О Р Т Х): typed on a Russian keyboard layout or
#: pasted from a Russian packing list they sit inside Latin serial numbers, and a serial with one of them is a
#: different string from the same serial on the part's label.
CYRILLIC_LOOKALIKES = str.maketrans("АВСЕНКМОРТХ", "ABCEHKMOPTX")
#: What a serial number is made of once normalised: Latin capitals and digits, and the separators
#: manufacturers print inside them.
SERIAL_PATTERN = re.compile(r"[A-Z0-9][A-Z0-9./_:#-]*")
SERIAL_SEPARATORS = re.compile(r"[\s,;]+")


def serial_normal(raw: str) -> str:
    """A serial number as it is kept and searched: without surrounding space, in capitals, Cyrillic
    look-alike letters made Latin (`sn-а1` with a Cyrillic а is `SN-A1`). Labels print serials in capitals;
    two spellings that differ only in case or in look-alikes are the same part."""
    return raw.strip().upper().translate(CYRILLIC_LOOKALIKES)


def serials_split(text: str) -> list[str]:
    """The serial numbers of a pasted or scanned packing list: parted by line breaks, spaces, tabs, commas or
    semicolons (a serial number has none of them), each normalised (`serial_normal`), empty parts dropped."""
    return [serial_normal(part) for part in SERIAL_SEPARATORS.split(text) if part.strip()]


def receipt_problems(
    *, kind: str, ordered: int, received: int, qty: int, serials: Sequence[str], known: Iterable[str] = ()
) -> dict[str, list[str]]:
    """What is wrong with receiving `qty` units of a purchase-order line of `kind` that has `received` of its
    `ordered` units already, with `serials`; `known`: those of `serials` already received for this SKU.
    Field → reasons (empty: it may be received)."""
    problems: dict[str, list[str]] = {}
    due = ordered - received
    if qty < 1:
        problems.setdefault("qty", []).append("must be at least 1")
    elif qty > due:
        problems.setdefault("qty", []).append(f"only {due} of {ordered} still due")
    cleaned = [serial_normal(serial) for serial in serials]
    if kind in SERIAL_KINDS:
        if len(cleaned) != qty:
            problems.setdefault("serials", []).append(f"{kind}: one serial number per unit, {qty} needed")
    elif cleaned:
        problems.setdefault("serials", []).append(f"{kind} are received without serial numbers")
    if any(not serial for serial in cleaned):
        problems.setdefault("serials", []).append("a serial number is empty")
    odd = [serial for serial in cleaned if serial and not SERIAL_PATTERN.fullmatch(serial)]
    if odd:
        problems.setdefault("serials", []).append(f"not Latin letters and digits: {', '.join(odd)}")
    repeated = sorted({serial for serial in cleaned if serial and cleaned.count(serial) > 1})
    if repeated:
        problems.setdefault("serials", []).append(f"given twice: {', '.join(repeated)}")
    seen = sorted(set(known))
    if seen:
        problems.setdefault("serials", []).append(f"already received: {', '.join(seen)}")
    return problems
