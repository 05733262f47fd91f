"""The quote PDF as a reader sees it: every page rasterized (pypdfium2) and looked at where a layout fault
shows. Nothing may be drawn in the side or top margins (a column too narrow for its text, a table wider
than the page); every page carries its footer "<number> R<revision> · page N of M"; the longest SKU of the
catalog stays on one line. With SCREENSHOTS=1 (`make screenshots`) the pages are written as PNGs to
artifacts/screenshots/, in Russian and English, to look at."""

from __future__ import annotations

import io
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pypdfium2
import pytest
from django.conf import settings
from PIL import Image
from pypdf import PdfReader

from accounts.models import User
from catalog.specs import catalog_snapshot
from quotes.models import Quote
from quotes.pdf import render_quote_pdf
from quotes.pdf_layout import MARGIN_BOTTOM, MARGIN_SIDE, MARGIN_TOP, PAGE_H, PAGE_W, font_files

DPI = 72  # one pixel a point: the margins in points are the margins in pixels
SCREENSHOTS = Path(settings.BASE_DIR) / "artifacts" / "screenshots"


def _pages(pdf: bytes, dpi: int = DPI) -> list[Image.Image]:
    document = pypdfium2.PdfDocument(pdf)
    try:
        return [page.render(scale=dpi / 72).to_pil().convert("L") for page in document]
    finally:
        document.close()


def _ink(image: Image.Image, box: tuple[float, float, float, float]) -> int:
    """Pixels darker than near-white in `box` (left, top, right, bottom, in points from the top left)."""
    left, top, right, bottom = (round(value) for value in box)
    region = image.crop((left, top, right, bottom))
    return sum(count for level, count in enumerate(region.histogram()) if level < 235)


def _page_texts(pdf: bytes) -> list[str]:
    return [re.sub(r"\s+", " ", page.extract_text() or "") for page in PdfReader(io.BytesIO(pdf)).pages]


def _long_quote(make_quote: Callable[..., Quote], sales_user: User) -> Quote:
    """A quote over two pages: the workstation, a discount, and as options the 13 longest active SKUs of the
    catalog's drives, NICs and bridges (the catalog's longest SKU, a bridge, among them)."""
    snapshot = catalog_snapshot()
    skus = sorted(
        (sku for kind in ("storage", "nics", "bridges") for sku, spec in snapshot.kind(kind).items() if spec.is_active),
        key=len,
        reverse=True,
    )
    longest = max(
        (sku for kind in snapshot.__dataclass_fields__ if kind != "version" for sku in snapshot.kind(kind)), key=len
    )
    assert skus[0] == longest  # the longest SKU of every kind is among the options
    options = [{"sku": sku, "qty": 1} for sku in skus[:13]]
    return make_quote(created_by=sales_user, discount_percent=3, optional_lines=options)


@pytest.mark.django_db
def test_every_page_keeps_its_margins_and_carries_its_footer(
    make_quote: Callable[..., Quote], sales_user: User
) -> None:
    quote = _long_quote(make_quote, sales_user)
    pdf = render_quote_pdf(quote)
    pages, texts = _pages(pdf), _page_texts(pdf)
    assert len(pages) >= 2, "the test quote is meant to run over a page"
    assert len(texts) == len(pages)
    edge = 1.0  # a point of slack for anti-aliasing at the frame's edge
    for number, (image, text) in enumerate(zip(pages, texts, strict=True), start=1):
        assert abs(image.width - PAGE_W) <= 1 and abs(image.height - PAGE_H) <= 1, image.size  # A4 at 72 dpi
        assert _ink(image, (0, 0, MARGIN_SIDE - edge, PAGE_H)) == 0, f"page {number}: ink in the left margin"
        assert _ink(image, (PAGE_W - MARGIN_SIDE + edge, 0, PAGE_W, PAGE_H)) == 0, f"page {number}: right margin"
        assert _ink(image, (0, 0, PAGE_W, MARGIN_TOP - edge)) == 0, f"page {number}: ink in the top margin"
        footer = (PAGE_W / 2, PAGE_H - MARGIN_BOTTOM + edge, PAGE_W - MARGIN_SIDE, PAGE_H)
        assert _ink(image, footer) > 0, f"page {number}: no footer"
        assert f"{quote.number} R1 · стр. {number} из {len(pages)}" in text
    whole = " ".join(texts)
    for sku in quote.lines.values_list("sku", flat=True):  # each SKU on one line: extracted unbroken
        assert sku in whole, sku


@pytest.mark.django_db
def test_the_pages_to_look_at(make_quote: Callable[..., Quote], sales_user: User, settings: Any) -> None:
    """The long quote in both document languages; its pictures are written only with SCREENSHOTS=1."""
    quote = _long_quote(make_quote, sales_user)
    for language, heading in (("ru", "Состав конфигурации"), ("en", "Configuration")):
        settings.QUOTE_LANGUAGE = language
        pdf = render_quote_pdf(quote)
        assert heading in _page_texts(pdf)[0]
        if os.environ.get("SCREENSHOTS") == "1":
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            for number, image in enumerate(_pages(pdf, dpi=110), start=1):
                image.save(SCREENSHOTS / f"quote-pdf-{language}-page{number}.png")


@pytest.mark.django_db
def test_without_the_fonts_the_render_fails_saying_what_to_install(
    make_quote: Callable[..., Quote], settings: Any, tmp_path: Path
) -> None:
    from quotes.tasks import quote_render

    quote = make_quote()
    settings.QUOTE_PDF_FONT_DIR = str(tmp_path)  # a folder without DejaVu Sans
    quote_render.apply(args=(quote.pk,))
    quote.refresh_from_db()
    assert (quote.render_status, quote.render_attempts, quote.pdf.name or "") == ("failed", 1, "")
    assert "DejaVuSans.ttf" in quote.render_error and "fonts-dejavu-core" in quote.render_error
    assert str(tmp_path) in quote.render_error

    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):  # the same files in the folder named: it renders
        shutil.copy(font_files()[name.removesuffix(".ttf")], tmp_path / name)
    assert quote.number in _page_texts(render_quote_pdf(quote))[0]


@pytest.mark.django_db
def test_markup_in_what_people_typed_is_printed_as_text(make_quote: Callable[..., Quote], settings: Any) -> None:
    """A customer's name or company and the terms go into the document as text: `<`, `&` and `>` are printed,
    never read as ReportLab's paragraph markup (which would fail the render or change the text)."""
    from tests import factories

    customer = factories.customer(username="markup", company="ООО <b>«Альфа & Омега»</b>")
    quote = make_quote(customer=customer)
    quote.terms = "Цена < 5 % & > 0 <br/> без <font size=40>изменений</font>"
    quote.save(update_fields=["terms"])
    text = " ".join(_page_texts(render_quote_pdf(quote)))
    assert "ООО <b>«Альфа & Омега»</b>" in text
    assert "Цена < 5 % & > 0 <br/> без <font size=40>изменений</font>" in text


@pytest.mark.django_db
def test_without_seller_details_there_is_no_seller_block_and_no_signature(
    make_quote: Callable[..., Quote], settings: Any
) -> None:
    settings.SELLER = dict.fromkeys(settings.SELLER, "")
    quote = make_quote()
    texts = _page_texts(render_quote_pdf(quote))
    whole = " ".join(texts)
    assert texts[0].lstrip().startswith("Коммерческое предложение Номер")  # the title opens the page
    assert "подпись" not in whole and "ИНН" not in whole
    assert f"{quote.number} R1 · стр. 1 из {len(texts)}" in texts[0]
