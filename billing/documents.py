"""Customer documents' arithmetic (invoice for payment, УПД): Decimals in, Decimals out. Pure: no Django.

Rules (the same as a quote's, quotes/pricing.py, so an invoice at the quote's VAT rate repeats the order's
totals to the kopeck):

* a line's amount is its net line total (unit price × qty, net of VAT), copied from the order;
* net = Σ line amounts; VAT = net × rate / 100, rounded half-up to kopecks — charged once, on the net;
* gross = net + VAT;
* the VAT of each line (the УПД prints it per line) is the document's VAT shared out over the lines in
  proportion to their amounts by the largest-remainder method, so the lines' VAT sums to the document's VAT
  exactly (rounding every line on its own could miss it by a kopeck per line).

The rate is the one in force on the document's date (finance.vat.vat_percent_on): Tax Code art. 164 and
art. 167 (the tax falls due on the day of shipment or of the prepayment).

Payments: an invoice is unpaid while nothing is paid, partly paid while the payments are less than its gross,
paid when they equal it; a payment may not exceed what is still due (`payment_problem`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
HUNDRED = Decimal(100)


def money(value: Decimal) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True, slots=True)
class LineIn:
    """An order line as a document copies it (amounts net of VAT, in roubles)."""

    position: int
    sku: str
    name: str
    qty: int
    unit_price: Decimal
    line_total: Decimal


@dataclass(frozen=True, slots=True)
class LineOut:
    position: int
    sku: str
    name: str
    qty: int
    unit_price: Decimal
    line_total: Decimal  # net of VAT
    vat: Decimal  # this line's share of the document's VAT
    gross: Decimal  # line_total + vat


@dataclass(frozen=True, slots=True)
class DocumentTotals:
    vat_percent: Decimal
    net: Decimal
    vat: Decimal
    gross: Decimal
    lines: tuple[LineOut, ...]


def allocate(total: Decimal, weights: Sequence[Decimal]) -> list[Decimal]:
    """`total` (kopecks) shared out over `weights` in proportion, by the largest remainder: each share is
    floored to the kopeck and the kopecks left go one each to the largest remainders (the earlier line on
    a tie). The shares sum to `total` exactly; all zero when the weights sum to zero."""
    whole = sum(weights, Decimal(0))
    if whole == 0 or total == 0:
        return [Decimal("0.00") for _ in weights]
    exact = [total * weight / whole for weight in weights]
    floors = [share.quantize(CENT, rounding=ROUND_FLOOR) for share in exact]
    left = int((total - sum(floors, Decimal(0))) / CENT)
    order = sorted(range(len(weights)), key=lambda index: (-(exact[index] - floors[index]), index))
    for index in order[:left]:
        floors[index] += CENT
    return floors


def document_totals(lines: Sequence[LineIn], vat_percent: Decimal) -> DocumentTotals:
    """The document's net, VAT and gross at `vat_percent`, and each line's share of the VAT."""
    if vat_percent < 0 or vat_percent > HUNDRED:
        raise ValueError(f"VAT rate {vat_percent} is outside 0 … 100 %")
    net = sum((line.line_total for line in lines), Decimal(0))
    vat = money(net * vat_percent / HUNDRED)
    shares = allocate(vat, [line.line_total for line in lines])
    out = tuple(
        LineOut(line.position, line.sku, line.name, line.qty, line.unit_price, line.line_total, share,
                line.line_total + share)
        for line, share in zip(lines, shares, strict=True)
    )  # fmt: skip
    return DocumentTotals(vat_percent=vat_percent, net=money(net), vat=vat, gross=money(net + vat), lines=out)


UNPAID, PARTLY_PAID, PAID = "unpaid", "partly_paid", "paid"


def invoice_state(*, gross: Decimal, paid: Decimal) -> str:
    """unpaid (nothing paid), partly_paid (0 < paid < gross) or paid (paid = gross)."""
    if paid <= 0:
        return UNPAID
    return PAID if paid >= gross else PARTLY_PAID


def payment_problem(*, gross: Decimal, paid: Decimal, amount: Decimal) -> str:
    """Why a payment of `amount` cannot be recorded against an invoice of `gross` with `paid` already paid
    ("" when it can): not positive, more than two decimal places, or more than is still due."""
    if amount <= 0:
        return "must be greater than zero"
    if amount != amount.quantize(CENT):
        return "has more than two decimal places (kopecks)"
    due = gross - paid
    if amount > due:
        return f"exceeds the amount still due, {due}"
    return ""
