"""The invoice for payment and the УПД as PDF, in Russian (statutory documents: Russian whatever the reader's
language). ReportLab with the quote's fonts and styles (quotes/pdf_layout.py); every figure comes from the
stored document (its lines and totals, made by billing/documents.py), so rendering again gives the same text.

The invoice follows the usual Russian layout: the payee's bank block (bank, БИК, correspondent account, ИНН,
КПП, the payee and its account), the title with number and date, supplier and buyer, the lines, the totals
with VAT, "Всего наименований N, на сумму …" and the amount in words (billing/words.py). The УПД is a
simplified rendering of the form recommended by the Federal Tax Service's letter ММВ-20-3/96@ of 21.10.2013
(status 1: invoice-factura and transfer document), landscape, with its columns of goods, VAT and totals;
it is not the full statutory layout (no codes of goods' kinds, customs declarations or country columns).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from decimal import Decimal
from typing import Any
from xml.sax.saxutils import escape

from django.conf import settings
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from billing.models import Invoice, InvoiceLine, TransferDocument, TransferLine
from billing.words import amount_in_words
from quotes.pdf_layout import BOLD, REGULAR, register_fonts, styles

UNIT = ("796", "шт")  # ОКЕИ (the all-Russian classifier of units) code and short name of "piece"
CURRENCY = ("643", "Российский рубль")  # ОКВ code of the rouble


def rub(value: Decimal) -> str:
    """`1234567.8` → `1 234 567,80` (thin no-break spaces between thousands, a comma before kopecks)."""
    whole, _, cents = f"{Decimal(value):,.2f}".partition(".")
    return whole.replace(",", "\u00a0") + "," + cents


def percent(value: Decimal) -> str:
    return f"{Decimal(value).normalize():f}".replace(".", ",") + "%"


def _p(text: object, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(str(text)), style)


def _seller() -> dict[str, str]:
    return {key: str(value) for key, value in getattr(settings, "SELLER", {}).items()}


def _buyer(document: Invoice | TransferDocument) -> str:
    owner = document.order.owner
    person = owner.get_full_name() or owner.username
    return f"{owner.company}, {person}" if owner.company else person


def _grid(data: list[list[Any]], widths: Sequence[float], *, numeric_from: int, head_rows: int = 1) -> Table:
    table = Table(data, colWidths=list(widths), repeatRows=head_rows)
    commands: list[Any] = [
        ("FONTNAME", (0, 0), (-1, -1), REGULAR),
        ("FONTSIZE", (0, 0), (-1, -1), 7.5),
        ("GRID", (0, 0), (-1, -1), 0.4, colors.black),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("ALIGN", (numeric_from, head_rows), (-1, -1), "RIGHT"),
    ]
    if head_rows:
        commands += [
            ("FONTNAME", (0, 0), (-1, head_rows - 1), BOLD),
            ("BACKGROUND", (0, 0), (-1, head_rows - 1), colors.HexColor("#eeeeee")),
        ]
    table.setStyle(TableStyle(commands))
    return table


def invoice_pdf(invoice: Invoice) -> bytes:
    """The invoice for payment as PDF bytes."""
    register_fonts(getattr(settings, "QUOTE_PDF_FONT_DIR", ""))
    st = styles()
    seller = _seller()
    lines: list[InvoiceLine] = list(invoice.lines.order_by("position"))
    out = io.BytesIO()
    document = SimpleDocTemplate(
        out, pagesize=A4, leftMargin=14 * mm, rightMargin=14 * mm, topMargin=14 * mm, bottomMargin=14 * mm,
        title=f"Счёт на оплату № {invoice.number}", author=seller.get("name", ""), lang="ru",
    )  # fmt: skip
    width = A4[0] - 28 * mm
    bank = _grid(
        [
            [_p(seller.get("bank", ""), st.body), "БИК", seller.get("bik", "")],
            ["Банк получателя", "Сч. №", seller.get("correspondent_account", "")],
            [f"ИНН {seller.get('inn', '')}    КПП {seller.get('kpp', '')}", "Сч. №", seller.get("account", "")],
            [seller.get("name", ""), "", ""],
            ["Получатель", "", ""],
        ],
        [width * 0.58, width * 0.1, width * 0.32],
        numeric_from=2,
        head_rows=0,
    )
    title = f"Счёт на оплату № {invoice.number} от {invoice.issued_on:%d.%m.%Y}"
    rows: list[list[Any]] = [["№", "Товары (работы, услуги)", "Кол-во", "Ед.", "Цена", "Сумма"]]
    rows += [
        [str(index), _p(f"{line.name} ({line.sku})", st.body), str(line.qty), UNIT[1], rub(line.unit_price),
         rub(line.line_total)]
        for index, line in enumerate(lines, start=1)
    ]  # fmt: skip
    totals = Table(
        [
            ["Итого:", rub(invoice.net_total)],
            [f"В том числе НДС ({percent(invoice.vat_percent)}):", rub(invoice.vat_total)],
            ["Всего к оплате:", rub(invoice.gross_total)],
        ],
        colWidths=[width * 0.8, width * 0.2],
    )
    totals.setStyle(
        TableStyle([("FONTNAME", (0, 0), (-1, -1), BOLD), ("FONTSIZE", (0, 0), (-1, -1), 8.5),
                    ("ALIGN", (0, 0), (-1, -1), "RIGHT")])
    )  # fmt: skip
    address = seller.get("address", "")
    story: list[Any] = [
        bank,
        Spacer(1, 5 * mm),
        _p(title, st.h1),
        Spacer(1, 3 * mm),
        _p(
            f"Поставщик: {seller.get('name', '')}, ИНН {seller.get('inn', '')}, КПП {seller.get('kpp', '')}"
            + (f", {address}" if address else ""),
            st.body,
        ),
        _p(f"Покупатель: {_buyer(invoice)}", st.body),
        _p(f"Основание: заказ № {invoice.order.number}", st.body),
        Spacer(1, 3 * mm),
        _grid(rows, [width * w for w in (0.05, 0.5, 0.08, 0.07, 0.15, 0.15)], numeric_from=2),
        totals,
        Spacer(1, 2 * mm),
        _p(f"Всего наименований {len(lines)}, на сумму {rub(invoice.gross_total)} руб.", st.body),
        _p(amount_in_words(invoice.gross_total), st.head),
        Spacer(1, 10 * mm),
        _p(f"{seller.get('signatory_title', 'Руководитель')} ____________ {seller.get('signatory', '')}", st.body),
    ]
    document.build(story)
    return out.getvalue()


def upd_pdf(upd: TransferDocument) -> bytes:
    """The УПД (status 1) as PDF bytes, landscape."""
    register_fonts(getattr(settings, "QUOTE_PDF_FONT_DIR", ""))
    st = styles()
    seller = _seller()
    lines: list[TransferLine] = list(upd.lines.order_by("position"))
    head_style = ParagraphStyle("upd_head", parent=st.head, fontSize=7, leading=8.5)
    page = landscape(A4)
    out = io.BytesIO()
    document = SimpleDocTemplate(
        out, pagesize=page, leftMargin=10 * mm, rightMargin=10 * mm, topMargin=10 * mm, bottomMargin=10 * mm,
        title=f"УПД № {upd.number}", author=seller.get("name", ""), lang="ru",
    )  # fmt: skip
    width = page[0] - 20 * mm
    head = [
        "Универсальный передаточный документ. Статус: 1 (счёт-фактура и передаточный документ (акт))",
        f"Счёт-фактура № {upd.number} от {upd.issued_on:%d.%m.%Y}",
        f"Продавец: {seller.get('name', '')}",
        f"Адрес: {seller.get('address', '')}",
        f"ИНН/КПП продавца: {seller.get('inn', '')}/{seller.get('kpp', '')}",
        f"Покупатель: {_buyer(upd)}",
        f"Документ об отгрузке: заказ № {upd.order.number} от {upd.order.created_at:%d.%m.%Y}",
        f"Валюта: наименование, код: {CURRENCY[1]}, {CURRENCY[0]}",
    ]
    rows: list[list[Any]] = [
        [_p(text, head_style) for text in (
            "№ п/п", "Код товара", "Наименование товара", "Ед. изм. код / усл.", "Кол-во", "Цена за ед.",
            "Стоимость без налога", "Акциз", "Налоговая ставка", "Сумма налога", "Стоимость с налогом")]
    ]  # fmt: skip
    rows += [
        [str(index), _p(line.sku, st.sku), _p(line.name, st.body), f"{UNIT[0]} / {UNIT[1]}", str(line.qty),
         rub(line.unit_price), rub(line.line_total), "без акциза", percent(upd.vat_percent), rub(line.vat),
         rub(line.gross)]
        for index, line in enumerate(lines, start=1)
    ]  # fmt: skip
    rows.append(["", "", "Всего к оплате", "", "", "", rub(upd.net_total), "", "", rub(upd.vat_total),
                 rub(upd.gross_total)])  # fmt: skip
    fractions = (0.04, 0.11, 0.21, 0.07, 0.06, 0.08, 0.09, 0.07, 0.08, 0.09, 0.10)
    story: list[Any] = [_p(text, st.head if i < 2 else st.body) for i, text in enumerate(head)]
    story += [
        Spacer(1, 3 * mm),
        _grid(rows, [width * f for f in fractions], numeric_from=4),
        Spacer(1, 2 * mm),
        _p(f"Всего к оплате: {amount_in_words(upd.gross_total)}, в т. ч. НДС {rub(upd.vat_total)} руб.", st.body),
        Spacer(1, 8 * mm),
        _p(
            f"Товар (груз) передал: {seller.get('signatory_title', '')} ____________ {seller.get('signatory', '')}",
            st.body,
        ),
        Spacer(1, 4 * mm),
        _p("Товар (груз) получил: ____________", st.body),
    ]
    document.build(story)
    return out.getvalue()
