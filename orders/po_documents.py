"""Documents of purchasing (issue 36 items 1 and 3), in Russian (settings.QUOTE_LANGUAGE, as quotes):

* the purchase order to a supplier — PDF (ReportLab, drawn with the quote's fonts and table styles,
  quotes/pdf_layout.py) and XLSX (openpyxl through orders.exports.xlsx_write_rows: texts never formulas);
  its lines show the supplier's part number, the price in the purchase order's currency and in roubles at
  the rate of the day it was made, and the expected date; the rows' roubles add up to its rouble total;
  the offers' prices are net of VAT: it says so, and a rouble one adds the VAT of its date (po_vat);
* the delivery note of an order's server — its lines and the serial numbers of the parts received for it
  (no purchase prices, no suppliers: the customer receives it).

Every figure is read from the rows the services stored (orders.purchasing); nothing is computed again here.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import pgettext
from openpyxl import Workbook
from openpyxl.styles import Font
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Spacer, Table

from configurator.engine.builds import money
from configurator.wording import num, part_name
from finance.vat import vat_percent_on
from orders.exports import DATE, MONEY, QTY, RATE_FORMAT, TEXT, xlsx_write_rows
from orders.models import Order, PurchaseOrder, ReceivedSerial
from quotes import pdf_layout as layout


def _ctx(text: str) -> str:
    return pgettext("purchase order", text)


def _date(day: Any) -> str:
    return day.strftime("%d.%m.%Y") if day else "—"


def po_header() -> list[str]:
    """The columns of a purchase order's lines, in the active language."""
    return [
        _ctx("No."), _ctx("SKU"), _ctx("Supplier's part number"), _ctx("Name"), _ctx("Qty"), _ctx("Unit price"),
        _ctx("Amount"), _ctx("Amount, RUB"), _ctx("Expected"),
    ]  # fmt: skip


def po_rows(po: PurchaseOrder) -> list[list[Any]]:
    """The purchase order's lines as the documents show them (numbers as stored)."""
    return [
        [index, line.sku, line.supplier_sku, part_name(line.purchase.order_line), line.qty, line.unit_price,
         line.line_total, line.line_total_rub, line.expected_date]
        for index, line in enumerate(
            po.lines.select_related("purchase__order_line").order_by("id"), start=1
        )
    ]  # fmt: skip


def _facts(po: PurchaseOrder) -> list[tuple[str, str]]:
    seller = settings.SELLER
    facts = [
        (_ctx("Buyer"), seller.get("name", "") or "—"),
        (_ctx("Supplier"), po.supplier.name),
        (_ctx("Date"), _date(timezone.localdate(po.created_at))),
        (_ctx("For order"), po.order.number),
        (_ctx("Currency"), po.currency),
        (_ctx("Expected"), _date(po.expected_date)),
    ]
    facts.append((_ctx("Prices"), _prices_note(po)))
    if po.rate is not None:
        facts.append(
            (_ctx("Rate"), _ctx("%(rate)s RUB per %(currency)s of %(date)s")
             % {"rate": num(po.rate, 4), "currency": po.currency, "date": _date(po.rate_date)})
        )  # fmt: skip
    return facts


def _prices_note(po: PurchaseOrder) -> str:
    """The offers' prices are stored net of VAT (the distributors' price lists): a rouble purchase order says
    so and adds the VAT (po_vat); a foreign supplier's says its currency and "without VAT" only — the import
    VAT is the customs', not this document's."""
    if po.currency == "RUB":
        return _ctx("without VAT")
    return _ctx("in %(currency)s, without VAT") % {"currency": po.currency}


def po_vat(po: PurchaseOrder) -> tuple[Decimal, Decimal, Decimal] | None:
    """(VAT percent, VAT, total with VAT) in roubles of a rouble purchase order: the rate of the dated table
    (finance.vat) on the purchase order's date, on its net total, to the kopeck; None in another currency."""
    if po.currency != "RUB":
        return None
    percent = vat_percent_on(timezone.localdate(po.created_at))
    vat = money(po.total_rub * percent / 100)
    return percent, vat, po.total_rub + vat


def _vat_rows(po: PurchaseOrder) -> list[tuple[str, Decimal]]:
    """The VAT lines under a purchase order's totals (none in a foreign currency)."""
    found = po_vat(po)
    if found is None:
        return []
    percent, vat, gross = found
    return [(_ctx("VAT %(percent)s %%, RUB") % {"percent": num(percent, 0)}, vat), (_ctx("Total with VAT, RUB"), gross)]


def _widths(head: list[str], rows: list[list[str]], name_column: int) -> list[float]:
    """Column widths that add up to the text width: each column as wide as its widest text (never a number or
    a date wrapped) and the widest word of its heading (a heading wraps between words, never inside one: a cut
    "Ожидается" was issue 36's trial), codes at most 34 mm and other texts 60 mm (they wrap past that); the name
    column takes what is left, at least NAME_MIN; when that is not left our SKU, then the supplier's part number
    (the one the supplier looks up: kept whole when it can) give it up, down to CODE_MIN."""
    widths = []
    for index, title in enumerate(head):
        texts = [row[index] for row in rows]
        small = index in (1, 2)  # SKU, supplier's part number: the quote's 7 pt code style
        words = max(title.split() or [""], key=lambda word: layout._width(word, layout.BOLD, layout.TEXT_PT))
        width = layout._column(texts, layout.REGULAR, 7 if small else layout.TEXT_PT, words)
        widths.append(min(width, 34 * mm if small else 60 * mm))  # a long list of serials wraps in its cell
    widths[name_column] = 0
    short = NAME_MIN - (layout.TEXT_W - sum(widths))
    codes = [index for index in (1, 2) if index != name_column and index < len(head)]
    for index in codes:
        if short > 0:
            given = min(short, max(widths[index] - CODE_MIN, 0))
            widths[index] -= given
            short -= given
    widths[name_column] = max(layout.TEXT_W - sum(widths), NAME_FLOOR)  # past that the numbers crowd it out
    return widths


#: A name of three words a line; a code of eight characters a line (7 pt); a name column narrower than the floor
#: is never drawn (the table would rather run past the margin: amounts of hundreds of millions).
NAME_MIN, CODE_MIN, NAME_FLOOR = 30 * mm, 16 * mm, 18 * mm


def _render(title: str, facts: Sequence[tuple[str, str]], head: list[str], rows: list[list[str]], footer: str, *,
            numeric_from: int, name_column: int, totals: Sequence[tuple[str, str]] = ()) -> bytes:  # fmt: skip
    layout.register_fonts(settings.QUOTE_PDF_FONT_DIR)
    st = layout.styles()
    out = io.BytesIO()
    frame = Frame(
        layout.MARGIN_SIDE, layout.MARGIN_BOTTOM, layout.TEXT_W,
        layout.PAGE_H - layout.MARGIN_TOP - layout.MARGIN_BOTTOM,
        leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0,
    )  # fmt: skip
    document = BaseDocTemplate(
        out, pagesize=A4, pageTemplates=[PageTemplate(id="page", frames=[frame])], title=title,
        author=settings.SELLER.get("name", ""), creator="gpu-configurator", lang="ru", initialFontName=layout.REGULAR,
    )  # fmt: skip
    cells = [[layout._p(text, st.head) for text in head]]
    cells += [[layout._p(value, st.sku if index in (1, 2) else st.body) for index, value in enumerate(row)]
              for row in rows]  # fmt: skip
    table = Table(
        cells, colWidths=_widths(head, rows, name_column), repeatRows=1, style=layout._grid_style(numeric_from),
        hAlign="LEFT",
    )  # fmt: skip
    story: list[Any] = [layout._p(title, st.h1), Spacer(0, 3 * mm), layout._key_values(facts),
                        Spacer(0, 4 * mm), table]  # fmt: skip
    if totals:
        story += [Spacer(0, 3 * mm), layout._key_values(totals)]
    canvas = layout._numbered_canvas(footer, _ctx("page"), _ctx("of"))
    document.build(story, canvasmaker=canvas)
    return out.getvalue()


def po_pdf(po: PurchaseOrder) -> bytes:
    """The purchase order to the supplier as PDF, in Russian."""
    with translation.override(settings.QUOTE_LANGUAGE):
        rows = [
            [str(no), sku, supplier_sku or "—", name, str(qty), num(price, 2), num(total, 2), num(rub, 2), _date(day)]
            for no, sku, supplier_sku, name, qty, price, total, rub, day in po_rows(po)
        ]
        totals = [(_ctx("Total, %(currency)s") % {"currency": po.currency}, num(po.total, 2)),
                  (_ctx("Total, RUB"), num(po.total_rub, 2))]  # fmt: skip
        if po.currency == "RUB":  # one rouble total, said net of VAT, then the VAT and the total with it
            totals = [(_ctx("Total without VAT, RUB"), num(po.total_rub, 2))]
        totals += [(label, num(value, 2)) for label, value in _vat_rows(po)]
        title = _ctx("Purchase order %(number)s") % {"number": po.number}
        return _render(title, _facts(po), po_header(), rows, po.number, numeric_from=4, name_column=3, totals=totals)


PO_KINDS = (QTY, TEXT, TEXT, TEXT, QTY, MONEY, MONEY, MONEY, DATE)


def po_xlsx(po: PurchaseOrder) -> bytes:
    """The purchase order as XLSX, in Russian: its facts, the lines, the totals in the currency and in RUB."""
    with translation.override(settings.QUOTE_LANGUAGE):
        book = Workbook()
        sheet = book.worksheets[0]
        sheet.title = po.number[:31]
        facts = [[label, value, *([None] * (len(PO_KINDS) - 2))] for label, value in _facts(po)]
        xlsx_write_rows(sheet, facts, (TEXT,) * len(PO_KINDS))
        lines = po_rows(po)
        totals: list[Any] = [None] * len(PO_KINDS)
        totals[0], totals[4], totals[6], totals[7] = (
            _ctx("Total"), sum(row[4] for row in lines), po.total, po.total_rub,
        )  # fmt: skip
        body = [po_header(), *lines, totals]
        start = len(facts) + 2
        for label, value in _vat_rows(po):
            body.append([label, *([None] * 6), value, None])
        xlsx_write_rows(sheet, body, PO_KINDS, first_row=start)
        for cell in sheet[start + len(lines) + 1]:
            cell.font = Font(bold=True)
        if po.rate is not None:
            sheet.cell(row=len(facts) + 1, column=1).value = _ctx("Rate, RUB per unit")
            rate_cell = sheet.cell(row=len(facts) + 1, column=2)
            rate_cell.value, rate_cell.number_format = Decimal(po.rate), RATE_FORMAT
        buffer = io.BytesIO()
        book.save(buffer)
        return buffer.getvalue()


def delivery_serials(order: Order) -> dict[str, list[str]]:
    """SKU → the serial numbers received for the order's server, sorted."""
    found: dict[str, list[str]] = {}
    for sku, serial in ReceivedSerial.objects.filter(order=order).order_by("sku", "serial").values_list(
        "sku", "serial"
    ):  # fmt: skip
        found.setdefault(sku, []).append(serial)
    return found


def delivery_note_pdf(order: Order) -> bytes:
    """The delivery note of the order's server as PDF, in Russian: its lines with the serial numbers of the
    parts in it (no purchase prices, no suppliers)."""
    serials = delivery_serials(order)
    with translation.override(settings.QUOTE_LANGUAGE):
        head = [_ctx("No."), _ctx("SKU"), _ctx("Name"), _ctx("Qty"), _ctx("Serial numbers")]
        rows = [
            [str(line.position), line.sku, part_name(line), str(line.qty), ", ".join(serials.get(line.sku, [])) or "—"]
            for line in order.lines.order_by("position")
        ]
        facts = [
            (_ctx("Supplier"), settings.SELLER.get("name", "") or "—"),
            (_ctx("Customer"), order.owner.company or order.owner.get_full_name() or order.owner.username),
            (_ctx("For order"), order.number),
            (_ctx("Date"), _date(timezone.localdate())),
        ]
        title = _ctx("Delivery note for order %(number)s") % {"number": order.number}
        return _render(title, facts, head, rows, order.number, numeric_from=len(head), name_column=2)
