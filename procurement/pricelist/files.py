"""A price-list file as a table of cells: CSV in whatever encoding and delimiter it came in, or the first
visible sheet of an XLSX workbook; refused early when it is larger than the limits. Pure: no Django.

**Encoding** (CSV): UTF-8 whenever the bytes decode as UTF-8 (with or without its BOM); UTF-16 with its
BOM, or without it when its NUL bytes say so (other bytes with NULs are no text table); otherwise the
Cyrillic single-byte code page charset-normalizer finds most plausible among Windows-1251, KOI8-R and CP866
(1C and Excel on Russian Windows write Windows-1251), or Mac Cyrillic (Excel and TextEdit on a Mac) when
that makes more Russian words of the bytes (`russian_letters`). charset-normalizer cannot tell Mac Cyrillic
from Windows-1251 (their lower case is the same bytes; it took a third of Mac files for Windows-1251, and
"Артикул" came out as "Ђртикул"); their capitals, "я" and "ё" are at different bytes, and only the right
code page makes words of them: the wrong one gives symbols for capitals ("–ена"), or a capital inside a
word ("наличиЯ"). A tie is Windows-1251 (the far more common one, and then the letters read the same).

**Delimiter** (CSV): `;`, `,`, tab or `|`, whichever splits the file's rows into the same number of
fields most consistently (csv's quoting honoured), more fields winning a tie. Rows are counted, not the
header alone: a header `Цена, руб.` has a comma, and a `;` list with decimal commas has one per row too.

**Limits** (`Limits`, settings PROCUREMENT_PRICE_LIST_MAX_*): bytes, rows and columns; a file over one is
refused whole (`PriceListTooLarge`, saying its size), never cut silently. An XLSX sheet's declared
dimension is ignored (a sheet may claim A1:XFD1048576 and hold ten rows): rows are read as stored, each
cut at one column past the limit, and only rows with a value count.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

import charset_normalizer
from django.utils.translation import gettext_noop
from openpyxl import load_workbook
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.worksheet._reader import FORMULA_TAG, WorkSheetParser

DELIMITERS = (";", ",", "\t", "|")
SNIFF_ROWS = 200
CYRILLIC_CODE_PAGES = ["cp1251", "koi8_r", "cp866"]
MAC_CYRILLIC = "mac_cyrillic"
ENCODING_NAMES = {"utf_8": "UTF-8", "utf_16": "UTF-16", "cp1251": "Windows-1251", "koi8_r": "KOI8-R", "cp866": "CP866",
                  MAC_CYRILLIC: "Mac Cyrillic"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Limits:
    max_bytes: int = 10 * 1024 * 1024
    max_rows: int = 100_000
    max_columns: int = 200
    max_cell_chars: int = 1_000

    @property
    def max_unpacked_bytes(self) -> int:
        """An XLSX's parts unpacked (a zip's deflate reaches ~1000:1: a 300 MB cell packs into ~300 KB)."""
        return 10 * self.max_bytes


class PriceListTooLarge(ValueError):
    """The file is over a limit: `message` is an English msgid with `params` (its size and the limit)."""

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message % params)
        self.message = message
        self.params = params


class UnreadableFile(ValueError):
    """Not a CSV or XLSX file this reader can open: `message` is an English msgid saying so in the reader's
    words (never a library's exception text, which goes into the exception's cause for the log)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


NOT_A_WORKBOOK = gettext_noop("cannot read the file: it is not an Excel workbook (.xlsx); save it as .xlsx or CSV")
SHEET_DAMAGED = gettext_noop("cannot read the file: its first sheet is damaged; save it again as .xlsx or CSV")
NOT_A_TABLE = gettext_noop("cannot read the file: it is not a CSV table; save it as .xlsx or CSV")
NOT_UTF16 = gettext_noop("cannot read the file: it is marked as UTF-16 but is not; save it as UTF-8 or Windows-1251")
NO_ENCODING = gettext_noop("cannot read the file: the text is neither UTF-8 nor Windows-1251 (nor KOI8-R, CP866)")


Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Table:
    rows: tuple[Row, ...]  # the file's rows from its first, trailing empty cells dropped
    encoding: str | None  # CSV only
    delimiter: str | None  # CSV only


def _megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f}"


def size_check(size: int, limits: Limits) -> None:
    if size > limits.max_bytes:
        raise PriceListTooLarge(
            gettext_noop(
                "the file is %(size)s bytes (%(megabytes)s MB); the limit is %(limit)s bytes (%(limit_megabytes)s MB)"
            ),
            size=size,
            megabytes=_megabytes(size),
            limit=limits.max_bytes,
            limit_megabytes=_megabytes(limits.max_bytes),
        )


def table_read(content: bytes, filename: str, limits: Limits) -> Table:
    """The file's rows. Raises PriceListTooLarge or UnreadableFile."""
    size_check(len(content), limits)
    if filename.lower().endswith(".xlsx"):
        return Table(_capped(_xlsx_rows(content, limits), len(content), limits), None, None)
    text, encoding = decoded(content)
    delimiter = delimiter_sniffed(text)
    try:
        rows = _capped(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), len(content), limits)
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):  # csv's own bound on one cell (131,072 characters)
            raise PriceListTooLarge(
                gettext_noop("a cell is longer than %(limit)s characters; the file is %(size)s bytes"),
                limit=csv.field_size_limit(),
                size=len(content),
            ) from exc
        raise UnreadableFile(NOT_A_TABLE) from exc
    return Table(rows, encoding, delimiter)


def decoded(content: bytes) -> tuple[str, str]:
    """The text and the name of its encoding (see the module's docstring). Raises UnreadableFile."""
    if content.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return content.decode("utf-16"), ENCODING_NAMES["utf_16"]
        except UnicodeDecodeError as exc:
            raise UnreadableFile(NOT_UTF16) from exc
    if b"\x00" in content:  # no text but UTF-16 holds NUL bytes: UTF-16 without its BOM, or no text at all
        return _utf16_without_bom(content)
    try:
        return content.decode("utf-8-sig"), ENCODING_NAMES["utf_8"]
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(content, cp_isolation=CYRILLIC_CODE_PAGES).best()
    mac = content.decode(MAC_CYRILLIC)  # every byte is a character of it
    if russian_letters(mac) > (russian_letters(str(best)) if best is not None else 0):
        return mac, ENCODING_NAMES[MAC_CYRILLIC]
    if best is None:
        raise UnreadableFile(NO_ENCODING)
    return str(best), ENCODING_NAMES.get(best.encoding, best.encoding)


_WORD = re.compile(r"[^\W\d_]+")  # a run of letters
_RUSSIAN_WORD = re.compile(r"(?:[А-ЯЁ][а-яё]*)+|[а-яё]+")  # lower case, or from a capital (also "ИдТовара", "НДС")
_ONE_LETTER_WORDS = frozenset("вксоуиаяВКСОУИАЯ")


def russian_letters(text: str) -> int:
    """The letters of `text` that make Russian words: all in lower case, or starting with a capital; a one-letter
    word only when Russian has it ("в", "с", "и", …: a stray "Ч" is a dash read in the wrong code page)."""
    count = 0
    for word in _WORD.findall(text):
        if len(word) == 1:
            count += word in _ONE_LETTER_WORDS
        elif _RUSSIAN_WORD.fullmatch(word):
            count += len(word)
    return count


def _utf16_without_bom(content: bytes) -> tuple[str, str]:
    """UTF-16 written without its BOM: the byte order is the one whose high bytes are the NULs (every ASCII
    character, the delimiters and digits among them, has one); anything else with NUL bytes is no text table
    (an old .xls, a zip or a PDF renamed .csv). Raises UnreadableFile."""
    little = content[1::2].count(0)
    big = content[0::2].count(0)
    if len(content) % 2 == 0 and max(little, big) * 4 >= len(content) // 2:  # a quarter of the characters
        try:
            return content.decode("utf-16-le" if little > big else "utf-16-be"), ENCODING_NAMES["utf_16"]
        except UnicodeDecodeError:
            pass
    raise UnreadableFile(NOT_A_TABLE)


def delimiter_sniffed(text: str) -> str:
    """The delimiter that splits the first rows most consistently (see the module's docstring)."""
    lines = [line for line in text.splitlines()[: SNIFF_ROWS * 2] if line.strip()][:SNIFF_ROWS]
    sample = "\n".join(lines)
    best, best_score = ";", (-1.0, 0)
    for delimiter in DELIMITERS:
        try:
            counts = [len(row) for row in csv.reader(io.StringIO(sample), delimiter=delimiter) if any(row)]
        except csv.Error:
            continue
        split = [count for count in counts if count > 1]
        if not split:
            continue
        fields, rows = Counter(split).most_common(1)[0]
        score = (rows / len(counts), fields)
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _unpacked_check(content: bytes, limits: Limits) -> None:
    """Refuse a workbook whose parts unpack to more than `limits.max_unpacked_bytes` before any is read (the
    sizes a zip declares bound what zipfile unpacks of each part)."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise UnreadableFile(NOT_A_WORKBOOK) from exc
    if unpacked > limits.max_unpacked_bytes:
        raise PriceListTooLarge(
            gettext_noop(
                "the workbook unpacks to %(unpacked)s bytes; the limit is %(limit)s bytes (the file is %(size)s)"
            ),
            unpacked=unpacked,
            limit=limits.max_unpacked_bytes,
            size=len(content),
        )


def _xlsx_rows(content: bytes, limits: Limits) -> Iterable[Row]:
    _unpacked_check(content, limits)
    try:
        book = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, InvalidFileException) as exc:
        raise UnreadableFile(NOT_A_WORKBOOK) from exc
    try:
        yield from _sheet_rows(book, limits, len(content))
    except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile, ElementTree.ParseError) as exc:
        if isinstance(exc, PriceListTooLarge):
            raise
        raise UnreadableFile(SHEET_DAMAGED) from exc  # a sheet's XML is parsed as it is read
    finally:
        book.close()


class _SheetParser(WorkSheetParser):
    """openpyxl's sheet parser, giving a formula whose value was never saved as the formula itself
    ("=9000+100"): a workbook written by a program rather than Excel keeps no value, and the empty cell it
    read as hid why a price was "not a number"."""

    def parse_cell(self, element: Any) -> dict[str, Any]:
        cell: dict[str, Any] = super().parse_cell(element)
        if cell["value"] is None and element.find(FORMULA_TAG) is not None:
            cell["value"] = self.parse_formula(element)
        return cell


def _sheet_rows(book: Any, limits: Limits, size: int) -> Iterable[Row]:
    """The first visible sheet's rows as stored (1C and distributors' macros keep hidden service sheets,
    often first; a person opening the file sees the first visible one), the declared `<dimension>` ignored
    (issue 38: a 100 KB sheet declaring A1:XFD20001 took 2.7 GB when its rows were padded to the declared
    width). The rows come from openpyxl's own sheet parser (read-only sheets read it so too), each as its
    cells with their column numbers: a cell with a value beyond the column limit, or a row with one beyond
    the row limit, refuses the file at once; rows missing between stored ones are empty rows."""
    sheet = next((sheet for sheet in book.worksheets if sheet.sheet_state == "visible"), book.worksheets[0])
    with sheet._get_source() as source:  # openpyxl's ReadOnlyWorksheet reads its rows from here, as we do
        parser = _SheetParser(
            source,
            sheet._shared_strings,
            data_only=True,
            epoch=book.epoch,
            date_formats=book._date_formats,
            timedelta_formats=book._timedelta_formats,
        )
        expected = 1
        for number, cells in parser.parse():
            valued = [cell for cell in cells if cell["value"] is not None and cell["value"] != ""]
            if not valued:
                continue
            if number > limits.max_rows:
                raise _too_many_rows(limits, size)
            last = max(cell["column"] for cell in valued)
            if last > limits.max_columns:
                raise _too_many_columns(number, limits, size)
            while expected < number:
                expected += 1
                yield ()
            row: list[Any] = [None] * last
            for cell in valued:
                row[cell["column"] - 1] = cell["value"]
            expected = number + 1
            yield tuple(row)


def _too_many_rows(limits: Limits, size: int) -> PriceListTooLarge:
    return PriceListTooLarge(
        gettext_noop("the file has more than %(limit)s rows (the limit); it is %(size)s bytes"),
        limit=limits.max_rows,
        size=size,
    )


def _too_many_columns(row: int, limits: Limits, size: int) -> PriceListTooLarge:
    return PriceListTooLarge(
        gettext_noop("row %(row)s has more than %(limit)s columns (the limit); the file is %(size)s bytes"),
        row=row,
        limit=limits.max_columns,
        size=size,
    )


def _capped(rows: Iterable[Sequence[Any]], size: int, limits: Limits) -> tuple[Row, ...]:
    kept: list[Row] = []
    last = 0  # rows up to the last one with a value
    for number, row in enumerate(rows, start=1):
        cells = list(row)
        while cells and (cells[-1] is None or cells[-1] == ""):
            cells.pop()
        if not cells:
            kept.append(())
            continue
        if len(cells) > limits.max_columns:
            raise PriceListTooLarge(
                gettext_noop("row %(row)s has more than %(limit)s columns (the limit); the file is %(size)s bytes"),
                row=number,
                limit=limits.max_columns,
                size=size,
            )
        if number > limits.max_rows:
            raise PriceListTooLarge(
                gettext_noop("the file has more than %(limit)s rows (the limit); it is %(size)s bytes"),
                limit=limits.max_rows,
                size=size,
            )
        # a longer text is an error of its cell (read.py says "longer than"); what is kept of it is bounded
        most = limits.max_cell_chars + 1
        kept.append(tuple(cell[:most] if isinstance(cell, str) and len(cell) > most else cell for cell in cells))
        last = number
    return tuple(kept[:last])
