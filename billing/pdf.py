"""The invoice for payment and the УПД as PDF, in Russian (statutory documents: Russian whatever the reader's
language). ReportLab with the quote's fonts and styles (quotes/pdf_layout.py); every figure comes from the
stored document (its lines and totals, made by billing/documents.py), so rendering again gives the same text.

The invoice follows the usual Russian layout: the payee's bank block (bank, БИК, correspondent account, ИНН,
КПП, the payee and its account), the title with number and date, supplier and buyer (with the buyer's ИНН,
КПП and address as the document copied them when issued), the lines, the totals with VAT, "Всего
наименований N, на сумму …" and the amount in words (billing/words.py).

The УПД (status 1: счёт-фактура and transfer document, the form recommended by the Federal Tax Service's
letter ММВ-20-3/96@ of 21.10.2013) is landscape, with the columns of the счёт-фактура form of Government
decree № 1137 of 26.12.2011 as amended by decree № 534 of 02.04.2021 (the 2021 form; its electronic format
is the FNS order of 19.12.2023 № ЕД-7-26/970@): "А" code of the goods, 1 name, 1а code of the goods' kind
(ТН ВЭД ЕАЭС, for goods exported to the EAEU; "—" otherwise), 2/2а unit code and name (ОКЕИ 796 "шт"),
3 quantity, 4 price, 5 cost without tax, 6 excise, 7 rate, 8 tax, 9 cost with tax, 10/10а country of
origin code and short name and 11 the customs declaration's registration number — for imported goods
as recorded on the order's receipts from the supplier's documents (billing.selectors.upd_origins), "—"
when none (domestic goods, or not recorded). The traceability
columns 12–13 are not printed. Its head names the payment documents of prepayments (line 5 of the form,
"К платёжно-расчётному документу").
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

from billing.models import Invoice, InvoiceLine, Payment, TransferDocument, TransferLine
from billing.selectors import document_buyer, upd_origins
from billing.words import amount_in_words
from quotes.pdf_layout import BOLD, REGULAR, register_fonts, styles

UNIT = ("796", "шт")  # ОКЕИ (the all-Russian classifier of units) code and short name of "piece"
CURRENCY = ("643", "Российский рубль")  # ОКВ code of the rouble
NONE = "—"  # what the form writes in a column that does not apply
#: The УПД's columns and their numbers on the 2021 счёт-фактура form (decree № 1137 as amended by № 534).
UPD_COLUMNS = (
    "№",
    "Код товара/ работ, услуг",
    "Наименование товара",
    "Код вида товара",
    "Ед. изм. код",
    "Ед. изм. обозн.",
    "Кол-во",
    "Цена за ед.",
    "Стоимость без налога — всего",
    "В т. ч. акциз",
    "Ставка налога",
    "Сумма налога",
    "Стоимость с налогом — всего",
    "Страна: код",
    "Страна: кратко",
    "Рег. номер декларации на товары",
)
UPD_COLUMN_NUMBERS = ("", "А", "1", "1а", "2", "2а", "3", "4", "5", "6", "7", "8", "9", "10", "10а", "11")


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


def _buyer(document: Invoice | TransferDocument) -> dict[str, str]:
    return document_buyer(document)


def _buyer_line(document: Invoice | TransferDocument) -> str:
    """ "ООО Ромашка, ИНН 7707083893, КПП 773601001, 101000, Москва, …" (what is known of it)."""
    buyer = _buyer(document)
    parts = [buyer["buyer_name"]]
    parts += [f"ИНН {buyer['buyer_inn']}"] if buyer["buyer_inn"] else []
    parts += [f"КПП {buyer['buyer_kpp']}"] if buyer["buyer_kpp"] else []
    parts += [buyer["buyer_address"]] if buyer["buyer_address"] else []
    return ", ".join(parts)


def _grid(
    data: list[list[Any]], widths: Sequence[float], *, numeric_from: int, head_rows: int = 1, padding: float = 6
) -> Table:
    table = Table(data, colWidths=list(widths), repeatRows=head_rows)
    commands: list[Any] = [
        ("LEFTPADDING", (0, 0), (-1, -1), padding),
        ("RIGHTPADDING", (0, 0), (-1, -1), padding),
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
    rows: list[list[Any]] = [["№", "Товары (работы, услуги)", "Кол-во", "Ед.", "Цена без НДС", "Сумма без НДС"]]
    rows += [
        [str(index), _p(f"{line.name} ({line.sku})", st.body), str(line.qty), UNIT[1], rub(line.unit_price),
         rub(line.line_total)]
        for index, line in enumerate(lines, start=1)
    ]  # fmt: skip
    totals = Table(
        [
            ["Итого без НДС:", rub(invoice.net_total)],
            # the prices are net of VAT, so the VAT is added, not "included" (В том числе НДС would say it is in
            # the line above it)
            [f"НДС ({percent(invoice.vat_percent)}):", rub(invoice.vat_total)],
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
        _p(f"Покупатель: {_buyer_line(invoice)}", st.body),
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


def _origin_cells(values: tuple[str, str, str], style: ParagraphStyle) -> list[Paragraph]:
    """Columns 10, 10а, 11 of a line ("—" where none): a declaration number goes on lines after its "/" (its
    23 characters are wider than the column; wrapped anywhere it would break inside a part)."""
    code, name, declaration = (escape(value) if value else NONE for value in values)
    return [Paragraph(code, style), Paragraph(name, style), Paragraph(declaration.replace("/", "/<br/>"), style)]


def upd_pdf(upd: TransferDocument) -> bytes:
    """The УПД (status 1) as PDF bytes, landscape."""
    register_fonts(getattr(settings, "QUOTE_PDF_FONT_DIR", ""))
    st = styles()
    seller = _seller()
    lines: list[TransferLine] = list(upd.lines.order_by("position"))
    head_style = ParagraphStyle("upd_head", parent=st.head, fontSize=6, leading=7)
    cell_style = ParagraphStyle("upd_cell", parent=st.body, fontSize=7, leading=8.5)  # the origin columns
    page = landscape(A4)
    out = io.BytesIO()
    document = SimpleDocTemplate(
        out, pagesize=page, leftMargin=10 * mm, rightMargin=10 * mm, topMargin=10 * mm, bottomMargin=10 * mm,
        title=f"УПД № {upd.number}", author=seller.get("name", ""), lang="ru",
    )  # fmt: skip
    width = page[0] - 20 * mm
    buyer = _buyer(upd)
    payments = ", ".join(
        f"№ {payment.reference or '—'} от {payment.paid_on:%d.%m.%Y}"
        for payment in Payment.objects.filter(invoice__order=upd.order, prepayment=True).order_by("paid_on", "id")
    )
    head = [
        "Универсальный передаточный документ. Статус: 1 (счёт-фактура и передаточный документ (акт))",
        f"Счёт-фактура № {upd.number} от {upd.issued_on:%d.%m.%Y}",
        f"Продавец: {seller.get('name', '')}",
        f"Адрес: {seller.get('address', '')}",
        f"ИНН/КПП продавца: {seller.get('inn', '')}/{seller.get('kpp', '')}",
        "Грузоотправитель и его адрес: он же",
        f"Грузополучатель и его адрес: {buyer['buyer_name']}, {buyer['buyer_address'] or '—'}",
        f"К платёжно-расчётному документу: {payments or '—'}",
        f"Документ об отгрузке: заказ № {upd.order.number} от {upd.order.created_at:%d.%m.%Y}",
        f"Покупатель: {buyer['buyer_name']}",
        f"Адрес: {buyer['buyer_address'] or '—'}",
        f"ИНН/КПП покупателя: {buyer['buyer_inn'] or '—'}/{buyer['buyer_kpp'] or '—'}",
        f"Валюта: наименование, код: {CURRENCY[1]}, {CURRENCY[0]}",
    ]
    origins = upd_origins(upd.order)  # columns 10, 10а, 11: as recorded on the receipts
    rows: list[list[Any]] = [
        [_p(text, head_style) for text in UPD_COLUMNS],
        [_p(text, head_style) for text in UPD_COLUMN_NUMBERS],
    ]
    rows += [
        [str(index), _p(line.sku, st.sku), _p(line.name, st.body), NONE, UNIT[0], UNIT[1], str(line.qty),
         rub(line.unit_price), rub(line.line_total), _p("без акциза", head_style), percent(upd.vat_percent),
         rub(line.vat),
         rub(line.gross), *_origin_cells(origins.get(line.sku, ("", "", "")), cell_style)]
        for index, line in enumerate(lines, start=1)
    ]  # fmt: skip
    rows.append(["", "", "Всего к оплате", "", "", "", "", "", rub(upd.net_total), "", "", rub(upd.vat_total),
                 rub(upd.gross_total), "", "", ""])  # fmt: skip
    fractions = (0.025, 0.08, 0.145, 0.05, 0.04, 0.04, 0.04, 0.07, 0.08, 0.05, 0.05, 0.07, 0.08, 0.045, 0.05, 0.085)
    story: list[Any] = [_p(text, st.head if i < 2 else st.body) for i, text in enumerate(head)]
    story += [
        Spacer(1, 3 * mm),
        _grid(rows, [width * f for f in fractions], numeric_from=6, head_rows=2, padding=2),
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
