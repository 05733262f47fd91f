"""The quote document drawn with ReportLab: the texts of `quotes.pdf.quote_pdf_context` in, PDF bytes out.

Placed by code, not laid out from HTML: the column widths are measured from the texts they hold (no cell
is measured twice, no table is sized by trial), so a two-page quote takes a few tens of milliseconds where
WeasyPrint's automatic layout of the same document took 120-400 ms (issue 17, bench/bench_quotes.py).

Fonts: DejaVu Sans and DejaVu Sans Bold (Debian `fonts-dejavu-core`; Cyrillic, ₽, №, ×), embedded as
subsets. The files are looked up in QUOTE_PDF_FONT_DIR, then in the usual font folders of Debian, Fedora,
Arch and macOS, then through fontconfig's `fc-match`; a machine without them gets `FontsMissing`, naming
what to install.
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Frame,
    KeepTogether,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

REGULAR, BOLD = "DejaVuSans", "DejaVuSans-Bold"
FONT_FILES = {REGULAR: "DejaVuSans.ttf", BOLD: "DejaVuSans-Bold.ttf"}
#: Where the DejaVu files are on the systems we know of (after QUOTE_PDF_FONT_DIR).
FONT_DIRS = (
    "/usr/share/fonts/truetype/dejavu",  # Debian, Ubuntu (fonts-dejavu-core)
    "/usr/share/fonts/dejavu-sans-fonts",  # Fedora, RHEL (dejavu-sans-fonts)
    "/usr/share/fonts/TTF",  # Arch (ttf-dejavu)
    "/usr/share/fonts/dejavu",  # Alpine (font-dejavu)
    "/opt/homebrew/share/fonts",  # Homebrew on Apple silicon
    "/usr/local/share/fonts",
    "~/Library/Fonts",  # macOS (brew install --cask font-dejavu)
    "/Library/Fonts",
)

# The page: A4, margins as the quote has always had them (16 mm top, 14 mm sides, 18 mm bottom).
PAGE_W, PAGE_H = A4
MARGIN_TOP, MARGIN_SIDE, MARGIN_BOTTOM = 16 * mm, 14 * mm, 18 * mm
TEXT_W = PAGE_W - 2 * MARGIN_SIDE  # 182 mm
FOOTER_Y = 9 * mm  # the baseline of "Q-… R1 · page 1 of 2", in the bottom margin
TEXT_PT, TEXT_LEADING = 8.5, 10.6  # the body text; notes are 7.5 pt, SKUs 7 pt
CELL_PAD_X, CELL_PAD_Y = 1.4 * mm, 1.2 * mm
#: The name column of the configuration table keeps at least this much; a longer SKU wraps instead.
NAME_COLUMN_MIN = 62 * mm
KEY_COLUMN = 32 * mm  # the labels of the number/date/customer block
HEADING_ROOM = 30 * mm  # a heading and the first lines of its section

INK, GREY_TEXT, SPEC_TEXT, RULE_GREY, HEAD_FILL, FOOTER_GREY = (
    colors.HexColor("#111111"),
    colors.HexColor("#555555"),
    colors.HexColor("#444444"),
    colors.HexColor("#999999"),
    colors.HexColor("#eeeeee"),
    colors.HexColor("#666666"),
)


class FontsMissing(RuntimeError):
    """The DejaVu Sans files are not on this machine."""


def _fc_match(pattern: str) -> Path | None:
    if shutil.which("fc-match") is None:
        return None
    try:
        found = subprocess.run(  # noqa: S603 - a fixed program and pattern
            ["fc-match", "-f", "%{file}", pattern],  # noqa: S607 - found on PATH above
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(found) if found else None


def font_files(font_dir: str = "") -> dict[str, Path]:
    """The regular and bold DejaVu Sans files: in `font_dir` (QUOTE_PDF_FONT_DIR) when given, else in the
    first of FONT_DIRS that has both, else where fontconfig says they are."""
    folders = [Path(font_dir).expanduser()] if font_dir else [Path(folder).expanduser() for folder in FONT_DIRS]
    for folder in folders:
        files = {name: folder / file for name, file in FONT_FILES.items()}
        if all(path.is_file() for path in files.values()):
            return files
    if not font_dir:
        matched = {REGULAR: _fc_match("DejaVu Sans:style=Book"), BOLD: _fc_match("DejaVu Sans:style=Bold")}
        if all(path is not None and path.name == FONT_FILES[name] for name, path in matched.items()):
            return {name: path for name, path in matched.items() if path is not None}
    where = font_dir or ", ".join(FONT_DIRS)
    raise FontsMissing(
        f"DejaVu Sans ({', '.join(FONT_FILES.values())}) was not found in {where}: install the fonts "
        "(Debian: apt-get install fonts-dejavu-core) or set QUOTE_PDF_FONT_DIR to their folder."
    )


@functools.cache
def register_fonts(font_dir: str = "") -> None:
    """Register DejaVu Sans (regular, bold) with ReportLab once per process: reading the files takes ~25 ms."""
    files = font_files(font_dir)
    for name, path in files.items():
        pdfmetrics.registerFont(TTFont(name, str(path)))
    pdfmetrics.registerFontFamily(REGULAR, normal=REGULAR, bold=BOLD, italic=REGULAR, boldItalic=BOLD)


@dataclass(frozen=True)
class Styles:
    body: ParagraphStyle
    key: ParagraphStyle
    small: ParagraphStyle
    bullet: ParagraphStyle
    spec: ParagraphStyle
    sku: ParagraphStyle
    head: ParagraphStyle
    head_right: ParagraphStyle
    seller: ParagraphStyle
    seller_name: ParagraphStyle
    h1: ParagraphStyle
    h2: ParagraphStyle
    h3: ParagraphStyle  # a cluster quote's section


@functools.cache
def styles() -> Styles:
    """The document's text styles (sizes as the quote has had them: 8.5 pt text, 7.5 pt notes, 7 pt SKUs)."""
    body = ParagraphStyle(
        "body", fontName=REGULAR, bulletFontName=REGULAR, fontSize=TEXT_PT, leading=TEXT_LEADING, textColor=INK
    )
    small = ParagraphStyle("small", parent=body, fontSize=7.5, leading=9.4, textColor=SPEC_TEXT)
    return Styles(
        body=body,
        key=ParagraphStyle("key", parent=body, textColor=GREY_TEXT),
        small=small,
        bullet=ParagraphStyle("bullet", parent=small, leftIndent=5 * mm, bulletIndent=1.5 * mm, spaceAfter=0.6),
        spec=ParagraphStyle("spec", parent=small, spaceBefore=0.8),
        sku=ParagraphStyle("sku", parent=body, fontSize=7, leading=9),
        head=ParagraphStyle("head", parent=body, fontName=BOLD),
        head_right=ParagraphStyle("head_right", parent=body, fontName=BOLD, alignment=TA_RIGHT),
        seller=ParagraphStyle("seller", parent=small, textColor=colors.HexColor("#333333")),
        seller_name=ParagraphStyle("seller_name", parent=body, fontName=BOLD, fontSize=9, leading=11.5),
        h1=ParagraphStyle("h1", parent=body, fontName=BOLD, fontSize=16, leading=19, spaceBefore=4 * mm),
        h2=ParagraphStyle(
            "h2", parent=body, fontName=BOLD, fontSize=10.5, leading=13, spaceBefore=6 * mm, spaceAfter=2 * mm
        ),
        h3=ParagraphStyle("h3", parent=body, fontName=BOLD, fontSize=9.5, spaceBefore=3 * mm, spaceAfter=1.5 * mm),
    )


def _p(text: object, style: ParagraphStyle) -> Paragraph:
    """A paragraph of plain text (escaped: customer names, terms and findings may hold < & >)."""
    return Paragraph(escape(str(text)), style)


def _width(text: str, font: str, size: float) -> float:
    return float(pdfmetrics.stringWidth(text, font, size))


def _column(texts: Sequence[str], font: str, size: float, head: str) -> float:
    """A column wide enough for its widest text and its (bold) heading on one line, with the cell padding."""
    widest = max([_width(text, font, size) for text in texts] + [_width(head, BOLD, TEXT_PT)])
    return widest + 2 * CELL_PAD_X + 1  # 1 pt over: a text exactly as wide as its cell would still wrap


def _table_style(*commands: tuple[Any, ...]) -> TableStyle:
    """A table style whose cells draw text in the document's font (ReportLab's default is Helvetica, which has
    no Cyrillic and would be embedded for every empty cell)."""
    return TableStyle(
        [
            ("FONTNAME", (0, 0), (-1, -1), REGULAR),
            ("FONTSIZE", (0, 0), (-1, -1), TEXT_PT),
            ("LEADING", (0, 0), (-1, -1), TEXT_LEADING),
            ("TEXTCOLOR", (0, 0), (-1, -1), INK),
            *commands,
        ]
    )


def _grid_style(numeric_from: int) -> TableStyle:
    """The configuration and options tables: a thin grid, a grey heading row, numbers right-aligned."""
    return _table_style(
        ("GRID", (0, 0), (-1, -1), 0.3, RULE_GREY),
        ("BACKGROUND", (0, 0), (-1, 0), HEAD_FILL),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("ALIGN", (numeric_from, 1), (-1, -1), "RIGHT"),
        ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD_X),
        ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD_X),
        ("TOPPADDING", (0, 0), (-1, -1), CELL_PAD_Y),
        ("BOTTOMPADDING", (0, 0), (-1, -1), CELL_PAD_Y),
    )


def _name_cell(line: Mapping[str, Any], st: Styles) -> list[Paragraph]:
    kind = f"{line['kind']}: " if line.get("kind") else ""
    cell = [_p(f"{kind}{line['name']}", st.body)]
    if line.get("spec"):
        cell.append(_p(line["spec"], st.spec))
    return cell


def _parts_table(lines: Sequence[Mapping[str, Any]], labels: Mapping[str, str], *, numbered: bool) -> Table:
    """The configuration (numbered) or the options: [No.] | SKU | name and spec | qty | price | amount."""
    st = styles()
    heads = [labels["sku"], labels["name_specs"], labels["qty"], labels["price"], labels["amount"]]
    qty_w = _column([str(line["qty"]) for line in lines], REGULAR, TEXT_PT, labels["qty"])
    price_w = _column([line["unit_price"] for line in lines], REGULAR, TEXT_PT, labels["price"])
    amount_w = _column([line["total"] for line in lines], REGULAR, TEXT_PT, labels["amount"])
    widths = [qty_w, price_w, amount_w]
    if numbered:
        heads.insert(0, labels["no"])
        widths.insert(0, _column([str(line["position"]) for line in lines], REGULAR, TEXT_PT, labels["no"]))
    sku_w = _column([line["sku"] for line in lines], REGULAR, 7, labels["sku"])
    sku_w = min(sku_w, TEXT_W - NAME_COLUMN_MIN - sum(widths))  # past that the SKU wraps, the name keeps room
    name_w = TEXT_W - sum(widths) - sku_w
    column_widths = [*widths[:-3], sku_w, name_w, *widths[-3:]]
    numeric_from = len(column_widths) - 3
    rows: list[list[Any]] = [
        [_p(head, st.head_right if index >= numeric_from else st.head) for index, head in enumerate(heads)]
    ]
    for line in lines:
        row: list[Any] = [str(line["position"])] if numbered else []
        row += [_p(line["sku"], st.sku), _name_cell(line, st), str(line["qty"]), line["unit_price"], line["total"]]
        rows.append(row)
    return Table(rows, colWidths=column_widths, repeatRows=1, style=_grid_style(numeric_from), hAlign="LEFT")


def _key_values(rows: Sequence[tuple[str, Any]]) -> Table:
    """Label / value rows without rules (the number, date and customer block; the workload)."""
    st = styles()
    cells = [[_p(key, st.key), value if isinstance(value, Paragraph) else _p(value, st.body)] for key, value in rows]
    return Table(
        cells,
        colWidths=[KEY_COLUMN, TEXT_W - KEY_COLUMN],
        hAlign="LEFT",
        style=_table_style(
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), 0),
            ("RIGHTPADDING", (0, 0), (-1, -1), 4 * mm),
            ("TOPPADDING", (0, 0), (-1, -1), 0.6 * mm),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 0.6 * mm),
        ),
    )


def _totals(context: Mapping[str, Any], labels: Mapping[str, str]) -> Table:
    currency = context["currency"]
    rows = [
        [labels["net"], f"{context['net']} {currency}"],
        [labels["vat"], f"{context['vat']} {currency}"],
        [labels["gross"], f"{context['gross']} {currency}"],
    ]
    gross_w = _width(rows[2][1], BOLD, 10) + 4 * mm + 1
    value_w = max(32 * mm, gross_w)
    return Table(
        rows,
        colWidths=[95 * mm - value_w, value_w],
        hAlign="RIGHT",
        style=_table_style(
            ("ALIGN", (1, 0), (1, -1), "RIGHT"),
            ("FONTNAME", (0, 2), (-1, 2), BOLD),
            ("FONTSIZE", (0, 2), (-1, 2), 10),
            ("LINEABOVE", (0, 2), (-1, 2), 0.6, INK),
            ("LEFTPADDING", (0, 0), (-1, -1), 2 * mm),
            ("RIGHTPADDING", (0, 0), (-1, -1), 2 * mm),
            ("TOPPADDING", (0, 0), (-1, -1), 1 * mm),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 1 * mm),
            ("TOPPADDING", (0, 2), (-1, 2), 1.6 * mm),
        ),
    )


def _subtotal(label: str, value: str) -> Table:
    """A cluster section's subtotal, right-aligned under its table."""
    return Table(
        [[label, value]],
        colWidths=[TEXT_W - 40 * mm, 40 * mm],
        hAlign="RIGHT",
        style=_table_style(
            ("ALIGN", (0, 0), (-1, -1), "RIGHT"),
            ("FONTNAME", (0, 0), (-1, -1), BOLD),
            ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD_X),
            ("TOPPADDING", (0, 0), (-1, -1), 0.8 * mm),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 1.6 * mm),
        ),
    )


def _heading(text: str) -> list[Any]:
    """A section heading, on a new page when less than HEADING_ROOM is left under it (never alone at a page's
    foot; a section that fits is not pushed over whole, as keep-with-next would)."""
    return [CondPageBreak(HEADING_ROOM), _p(text, styles().h2)]


def _bullets(items: Sequence[str]) -> list[Paragraph]:
    return [Paragraph(escape(item), styles().bullet, bulletText="•") for item in items]


def _signature(seller: Mapping[str, Any], labels: Mapping[str, str]) -> Table:
    """Who signs for the seller, a line to sign on and the signatory's name (the name's column as wide as it)."""
    st = styles()
    title = seller["signatory_title"] or labels["for_seller"]
    line_w = 55 * mm
    name_w = min(_width(seller["signatory"], REGULAR, TEXT_PT) + 7 * mm + 1, 50 * mm)  # its padding: 3 mm + 4 mm
    return Table(
        [
            [[_p(title, st.body), _p(seller["name"], st.body)], "", _p(seller["signatory"], st.body)],
            ["", _p(labels["signature"], st.small), ""],
        ],
        colWidths=[TEXT_W - line_w - name_w, line_w, name_w],
        hAlign="LEFT",
        style=_table_style(
            ("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
            ("LINEBELOW", (1, 0), (1, 0), 0.5, INK),
            ("LEFTPADDING", (0, 0), (-1, -1), 0),
            ("RIGHTPADDING", (0, 0), (-1, -1), 4 * mm),
            ("LEFTPADDING", (2, 0), (2, -1), 3 * mm),
            ("TOPPADDING", (0, 0), (-1, 0), 8 * mm),
        ),
    )


def story(context: Mapping[str, Any]) -> list[Any]:
    """The document's flowables, top to bottom, from the context's texts (all in the quote's language)."""
    st, labels = styles(), context["labels"]
    seller = context["seller"]
    flow: list[Any] = []
    if seller["name"]:
        flow.append(_p(seller["name"], st.seller_name))
        if seller["rows"]:
            flow.append(_p("; ".join(f"{label}: {value}" for label, value in seller["rows"]), st.seller))
    flow.append(_p(context["title"], st.h1))
    flow.append(Spacer(0, 1 * mm))
    quote = context["quote"]
    number = Paragraph(f"<b>{escape(quote.number)}</b>, {escape(labels['revision'])} R{quote.revision}", st.body)
    meta: list[tuple[str, Any]] = [
        (labels["number"], number),
        (labels["date"], context["created_date"]),
        (labels["valid"], context["valid_text"]),
        (labels["customer"], context["customer_text"]),
        (labels["currency"], context["currency"]),
    ]
    if context["ship_text"]:
        meta.append((labels["ships"], context["ship_text"]))
    if context["discount"]:
        meta.append((labels["discount"], f"{context['discount']} %"))
    flow.append(_key_values(meta))

    if context["workload"] or context["estimate"]:
        flow += _heading(labels["sized_for"])
        flow.append(_key_values([*context["workload"], *context["estimate"]]))
        if context["estimate"]:
            flow.append(Spacer(0, 1.5 * mm))
            flow.append(_p(labels["speeds_note"], st.small))

    if context.get("facility"):
        flow += _heading(labels["facility"])
        flow.append(_key_values(context["facility"]))

    flow += _heading(labels["configuration"])
    for section in context.get("sections") or ():  # a cluster: one table per section, each with its subtotal
        flow += [CondPageBreak(HEADING_ROOM), _p(section["title"], st.h3)]
        flow.append(_parts_table(section["lines"], labels, numbered=True))
        flow.append(_subtotal(labels["subtotal"], f"{section['subtotal']} {context['currency']}"))
    if not context.get("sections"):
        flow.append(_parts_table(context["lines"], labels, numbered=True))
    flow.append(Spacer(0, 3 * mm))
    flow.append(_totals(context, labels))

    if context["optional_lines"]:
        flow += _heading(labels["options"])
        flow.append(_parts_table(context["optional_lines"], labels, numbered=False))

    flow += _heading(labels["check"])
    if context["findings"]:
        flow.append(_p(labels["checked_notes"], st.small))
        flow.append(Spacer(0, 1 * mm))
        flow += _bullets([f"[{f['severity']}] {f['title']}: {f['message']}" for f in context["findings"]])
    else:
        flow.append(_p(labels["checked_clean"], st.small))

    # the terms and the signature under them start a page together rather than leave a term behind
    closing: list[Any] = [_p(labels["terms"], st.h2), *_bullets(context["terms"])]
    if seller["name"]:
        closing.append(_signature(seller, labels))
    flow.append(KeepTogether(closing))
    return flow


def _numbered_canvas(footer: str, page_word: str, of_word: str) -> type[Canvas]:
    """A canvas that holds its pages until the document ends, then writes "<footer> · page N of M" on each."""

    class NumberedCanvas(Canvas):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._held: list[dict[str, Any]] = []

        def showPage(self) -> None:
            self._held.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            pages = len(self._held)
            for state in self._held:
                self.__dict__.update(state)
                self.setFont(REGULAR, 7.5)
                self.setFillColor(FOOTER_GREY)
                self.drawRightString(
                    PAGE_W - MARGIN_SIDE, FOOTER_Y, f"{footer} · {page_word} {self._pageNumber} {of_word} {pages}"
                )
                super().showPage()
            super().save()

    return NumberedCanvas


def render(context: Mapping[str, Any], *, font_dir: str = "", lang: str = "ru") -> bytes:
    """The quote document as PDF bytes."""
    register_fonts(font_dir)
    labels, quote = context["labels"], context["quote"]
    out = io.BytesIO()
    # the frame without ReportLab's default 6 pt padding: the text area is the page less its margins
    frame = Frame(
        MARGIN_SIDE,
        MARGIN_BOTTOM,
        TEXT_W,
        PAGE_H - MARGIN_TOP - MARGIN_BOTTOM,
        leftPadding=0,
        rightPadding=0,
        topPadding=0,
        bottomPadding=0,
    )
    document = BaseDocTemplate(
        out,
        pagesize=A4,
        pageTemplates=[PageTemplate(id="page", frames=[frame])],
        title=f"{context['title']} {quote.number}",
        author=context["seller"]["name"],
        subject=f"{context['title']} {quote.number} R{quote.revision}",
        creator="gpu-configurator",
        lang=lang,
        initialFontName=REGULAR,
    )
    footer = f"{quote.number} R{quote.revision}"
    document.build(story(context), canvasmaker=_numbered_canvas(footer, labels["page"], labels["of"]))
    return out.getvalue()


def render_line(text: str, *, font_dir: str = "") -> bytes:
    """A one-line page in the document's font: the warm-up, and the floor the bench compares against."""
    register_fonts(font_dir)
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4, initialFontName=REGULAR)
    canvas.setFont(REGULAR, TEXT_PT)
    canvas.drawString(MARGIN_SIDE, PAGE_H - MARGIN_TOP, text)
    canvas.showPage()
    canvas.save()
    return out.getvalue()
