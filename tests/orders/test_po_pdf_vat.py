"""The purchase order PDF of issue 36's trial: its table inside the page (the "Ожидается" heading was cut off
at the right edge) and whether its prices include VAT — a rouble supplier's net prices with the VAT of the
purchase order's date (22 % from 01.01.2026, finance/migrations/0002_vat_rates.py) on top, a USD supplier's
"в USD без НДС" and no Russian VAT."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from pathlib import Path

import pypdfium2
from openpyxl import load_workbook

from accounts.models import User
from orders import purchasing
from orders.models import Order
from orders.po_documents import po_pdf, po_xlsx
from quotes import pdf_layout as layout
from tests.orders.test_purchase_orders import order  # noqa: F401  (the fixture)


def _text(pdf: bytes) -> str:
    document = pypdfium2.PdfDocument(pdf)
    return re.sub(r"\s+", " ", " ".join(page.get_textpage().get_text_range() for page in document))


def _rightmost_ink(pdf: bytes, path: Path) -> tuple[float, float]:
    """The rightmost inked column of the first page and the page width, in points (its PNG kept at `path`)."""
    page = pypdfium2.PdfDocument(pdf)[0]
    scale = 2
    image = page.render(scale=scale).to_pil().convert("L")
    image.save(path)
    box = image.point(lambda value: 255 if value < 200 else 0).getbbox()
    assert box is not None
    return box[2] / scale, page.get_width()


def test_the_purchase_order_table_fits_the_page_and_says_the_vat(
    order: Order,  # noqa: F811
    sales_user: User,
    tmp_path: Path,
) -> None:
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    rub = next(po for po in made if po.currency == "RUB")
    usd = next(po for po in made if po.currency == "USD")
    for po in (rub, usd):
        pdf = po_pdf(po)
        right, width = _rightmost_ink(pdf, tmp_path / f"po-{po.currency}.png")
        assert right <= width - layout.MARGIN_SIDE + 1, (po.currency, right, width)  # nothing past the margin
        text = _text(pdf).replace("\u00a0", " ")
        assert "Ожидается" in text.split("Наименование", 1)[1], text  # the column heading, whole
    rub_text = _text(po_pdf(rub)).replace("\u00a0", " ")
    vat = (rub.total_rub * Decimal(22) / 100).quantize(Decimal("0.01"))
    assert rub.total_rub == Decimal("13000.00") and vat == Decimal("2860.00")
    for said in ("Цены без НДС", "Без НДС, руб. 13 000,00", "НДС 22 %, руб. 2 860,00",
                 "Всего с НДС, руб. 15 860,00"):  # fmt: skip
        assert said in rub_text, (said, rub_text)
    usd_text = _text(po_pdf(usd)).replace("\u00a0", " ")
    assert "Цены в USD без НДС" in usd_text and "НДС 2" not in usd_text and "с НДС" not in usd_text, usd_text
    rows = [[cell.value for cell in row] for row in load_workbook(io.BytesIO(po_xlsx(rub))).worksheets[0].iter_rows()]
    assert ["Цены", "без НДС"] in [row[:2] for row in rows], rows
    assert rows[-2][0] == "НДС 22 %, руб." and Decimal(str(rows[-2][7])) == vat
    assert rows[-1][0] == "Всего с НДС, руб." and Decimal(str(rows[-1][7])) == Decimal("15860.00")
