"""Where a price list's header is and which column holds which field. No database.

Distributors put a title, their address and the date above the header, so the header is looked for in
the first `HEADER_SCAN_ROWS` rows: the row that names the most of our fields wins (the part number and
the price at least), the earliest among equals. A header cell names a field when it is the supplier's
mapped header (Supplier.column_mapping), or one of the field's `SYNONYMS`, or starts with one ("Цена,
руб." is a price): case, "ё" and punctuation are ignored. The words after a price synonym may say its
currency ("Цена, $", "Цена USD") and whether it includes VAT ("Цена с НДС", "Price excl. VAT").

**Two-level headers**: when the row under the header holds only words (no numbers) and nothing under
the part-number column, it is read with the header, each group cell spanning the empty cells to its
right ("Цена" over "RUB" and "USD" gives "Цена RUB" and "Цена USD"); data starts below both.

**VAT said above the header**: a price header that says nothing of VAT leaves it to the title rows above
the header ("Цены указаны с НДС", "Все цены без учета НДС"): `title_vat` is what they say, None when none
of them says it or they disagree.

**Several columns for one field**: the mapped header wins, then an exact synonym, then a synonym the
header starts with (the longer first), then the first column. Several price columns that only a
currency tells apart are read in the supplier's currency; when none or several are, it is an error that
asks for the column in the supplier's mapping.

**A stock column per warehouse** ("Склад Москва", "Склад СПб"; "Остаток МСК", "Stock EU"): several stock
columns each starting with a stock word and saying more (a place) are summed (`stock_columns`), and a note
names them. A column of stock in transit, reserved, on order or per package ("Склад в пути", "Кол-во в
упаковке") is never one of them. A stock column the supplier's mapping names is read alone, and so is one
named exactly by a stock word: beside columns that start with it it is their total ("Остаток" beside
"Остаток МСК", "Остаток СПб": summing all would count each unit twice), and two such ("Наличие": есть/нет,
"Количество": 5) say the same stock twice; the first is read, and a note says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_noop

from finance.currency import UnknownCurrency, currency_code
from procurement.pricelist.cells import normalized, text_of

HEADER_SCAN_ROWS = 30
REQUIRED_TO_FIND = ("sku", "purchase_price")

#: Our field → header words that name it, the more specific first.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "sku": ("part number", "partnumber", "part no", "p n", "pn", "mpn", "артикул производителя", "парт номер",
            "партномер", "код производителя", "артикул", "арт", "sku", "article", "код товара", "код"),
    "purchase_price": ("цена", "price", "стоимость", "purchase price", "закупочная цена", "цена закупки",
                       "дилерская цена", "оптовая цена", "cost"),
    "currency": ("валюта", "currency", "вал", "curr"),
    "stock_qty": ("остаток", "остатки", "наличие", "в наличии", "склад", "stock", "qty", "quantity", "количество",
                  "кол во", "свободно", "available", "availability"),
    "lead_time_days": ("срок поставки", "срок доставки", "срок", "lead time", "leadtime", "delivery time",
                       "delivery", "поставка", "дата поступления", "ожидаемая дата", "ожидаемое поступление",
                       "поступление", "eta"),
    "valid_until": ("действует до", "действительно до", "актуально до", "срок действия", "valid until",
                    "valid to", "valid till", "expires", "expiry"),
    "name": ("наименование", "название", "описание", "товар", "name", "description", "product"),
}  # fmt: skip
#: Our field → the headers a message names for it when the supplier's mapping names none of its own.
TYPICAL_HEADERS = {
    "sku": "Артикул / Part number", "purchase_price": "Цена / Price", "currency": "Валюта / Currency",
    "stock_qty": "Остаток / Stock", "lead_time_days": "Срок поставки / Lead time",
    "valid_until": "Действует до / Valid until", "name": "Наименование / Name",
}  # fmt: skip


def header_named(field: str, mapping: Mapping[str, str]) -> str:
    """The header a message names for `field`: the supplier's mapped one, else the usual ones (never our
    field's name, "lead_time_days", which no price list writes)."""
    mapped = mapping.get(field, "")
    return mapped if mapped and mapped != field else TYPICAL_HEADERS.get(field, field)


VAT_INCLUDED = ("с ндс", "вкл ндс", "включая ндс", "в т ч ндс", "в том числе ндс", "с учетом ндс", "включают ндс",
                "включена ндс", "incl vat", "including vat", "include vat", "includes vat", "vat included",
                "with vat", "gross")  # fmt: skip
VAT_EXCLUDED = ("без ндс", "без учета ндс", "не включая ндс", "не включают ндс", "excl vat", "excluding vat",
                "exclude vat", "excludes vat", "vat excluded", "without vat", "net")  # fmt: skip

MAPPED, EXACT, PREFIX = 3, 2, 1
#: Words of a stock header that say its units are not in stock to be sold now.
NOT_IN_STOCK = ("в пути", "транзит", "transit", "in transit", "incoming", "ожидается", "поступление", "резерв",
                "в резерве", "reserved", "reserve", "заказ", "под заказ", "on order", "упаковке", "упаковка",
                "pack", "box", "мин", "min", "moq")  # fmt: skip
STOCK_SUMMED = gettext_noop("%(count)s stock columns are summed: %(columns)s")
STOCK_FIRST = gettext_noop("several stock columns (%(columns)s): %(column)s is read")


@dataclass(frozen=True, slots=True)
class Column:
    index: int
    header: str  # as written in the file (both levels of a two-level header)
    currency: str | None = None  # said by the header ("Цена, $")
    vat_included: bool | None = None  # said by the header ("с НДС" / "без НДС")


@dataclass(frozen=True, slots=True)
class Header:
    line: int  # the file's row of the header (its lower row when two-level)
    columns: Mapping[str, Column]  # our field → its column
    data_from: int  # index in the table of the first data row
    notes: tuple[tuple[str, dict[str, Any]], ...] = ()  # (msgid, params)
    problem: tuple[str, dict[str, Any]] | None = None  # several price columns: (msgid, params)
    title_vat: tuple[bool, str] | None = None  # (included, the title row's text) said above the header
    stock_columns: tuple[Column, ...] = ()  # several summed (the first is also columns["stock_qty"]); () for one


def _match(text: str, field: str, mapped: str) -> tuple[int, int] | None:
    """(quality, synonym length) of a header `text` naming `field`, or None."""
    words = normalized(text)
    if not words:
        return None
    if mapped and words == mapped:
        return (MAPPED, len(words))
    best: tuple[int, int] | None = None
    for synonym in (*SYNONYMS.get(field, ()), field.replace("_", " ")):
        if words == synonym:
            return (EXACT, len(synonym))
        if words.startswith(synonym + " ") and (best is None or len(synonym) > best[1]):
            best = (PREFIX, len(synonym))
    return best


def vat_said(text: str) -> bool | None:
    """Whether `text` says prices include VAT (True), exclude it (False), or neither or both (None). The
    exclusions are taken out first: "не включают НДС" holds "включают НДС"."""
    padded = f" {normalized(text)} "
    excluded = False
    for phrase in sorted(VAT_EXCLUDED, key=len, reverse=True):
        if f" {phrase} " in padded:
            excluded, padded = True, padded.replace(f" {phrase} ", "  ")
    included = any(f" {phrase} " in padded for phrase in VAT_INCLUDED)
    return None if included == excluded else included


def _hints(text: str) -> tuple[str | None, bool | None]:
    """The currency and the VAT a price header states ("Цена, руб. с НДС" → RUB, included)."""
    words = normalized(text)
    vat = vat_said(text)
    for word in words.split():
        try:
            return currency_code(word), vat
        except UnknownCurrency:
            continue
    return None, vat


def _columns(cells: Sequence[str], mapping: Mapping[str, str]) -> dict[str, list[tuple[tuple[int, int], int]]]:
    """Our field → [((quality, length), column index)] of the cells naming it; each cell names one field."""
    found: dict[str, list[tuple[tuple[int, int], int]]] = {}
    for index, text in enumerate(cells):
        scores = [
            (score, field)
            for field in SYNONYMS
            if (score := _match(text, field, normalized(mapping.get(field, "")))) is not None
        ]
        if scores:
            score, field = max(scores)
            found.setdefault(field, []).append((score, index))
    return found


def _two_level(top: Sequence[Any], below: Sequence[Any]) -> list[str] | None:
    """The header cells of `top` with `below` under them, or None when `below` is not a sub-header."""
    texts = [text_of(cell) for cell in below]
    if sum(bool(text) for text in texts) < 2 or any(
        isinstance(cell, int | float) for cell in below if cell is not None
    ):
        return None  # a data row, or a category row (one cell)
    combined: list[str] = []
    group = ""
    for index in range(max(len(top), len(below))):
        upper = text_of(top[index]) if index < len(top) else ""
        lower = texts[index] if index < len(texts) else ""
        if upper:
            group = upper
        elif not lower:
            group = ""
        combined.append(" ".join(part for part in ((upper or group), lower) if part))
    return combined


def header_find(rows: Sequence[Sequence[Any]], *, mapping: Mapping[str, str], currency: str) -> Header | None:
    """The header of the table (see the module's docstring); None when no row names a part number and a
    price within the first HEADER_SCAN_ROWS rows."""
    best: tuple[tuple[int, int], Header] | None = None
    for position, row in enumerate(rows[:HEADER_SCAN_ROWS]):
        cells = [text_of(cell) for cell in row]
        found = _columns(cells, mapping)
        if not all(field in found for field in REQUIRED_TO_FIND):
            continue
        data_from = position + 1
        below = rows[position + 1] if position + 1 < len(rows) else ()
        combined = _two_level(row, below)
        sku_column = max(found["sku"])[1]
        if combined is not None and not (sku_column < len(below) and text_of(below[sku_column])):
            found_below = _columns(combined, mapping)
            if all(field in found_below for field in REQUIRED_TO_FIND):
                cells, found, data_from = combined, found_below, position + 2
        score = (len(found), -position)
        if best is None or score > best[0]:
            header = _header(cells, found, data_from, currency)
            best = (score, dataclasses.replace(header, title_vat=_title_vat(rows[:position])))
    return best[1] if best else None


def _title_vat(titles: Sequence[Sequence[Any]]) -> tuple[bool, str] | None:
    """What the title rows above the header say of VAT: (included, the row's text), or None when none of them
    says it or they disagree."""
    said: list[tuple[bool, str]] = []
    for row in titles:
        text = " ".join(text_of(cell) for cell in row if text_of(cell))
        vat = vat_said(text)
        if vat is not None:
            said.append((vat, text))
    return said[0] if said and len({vat for vat, _ in said}) == 1 else None


def _header(
    cells: Sequence[str], found: dict[str, list[tuple[tuple[int, int], int]]], data_from: int, currency: str
) -> Header:
    columns: dict[str, Column] = {}
    notes: list[tuple[str, dict[str, Any]]] = []
    problem = None
    stock_columns: tuple[Column, ...] = ()
    for field, candidates in found.items():
        top = max(score for score, _ in candidates)
        best = sorted(index for score, index in candidates if score == top)
        chosen = best[0]
        if field == "stock_qty":
            stocks, summed = _stock_columns(cells, candidates)
            chosen = stocks[0] if stocks else chosen
            named = ", ".join(cells[index] for index in stocks)
            if summed:
                stock_columns = tuple(Column(index, cells[index]) for index in stocks)
                notes.append((STOCK_SUMMED, {"count": len(stocks), "columns": named}))
            elif len(stocks) > 1:
                notes.append((STOCK_FIRST, {"columns": named, "column": cells[chosen]}))
        if field == "purchase_price" and len(best) > 1:
            in_ours = [index for index in best if _hints(cells[index])[0] == currency]
            headers = ", ".join(cells[index] for index in best)
            if len(in_ours) == 1:
                chosen = in_ours[0]
                notes.append(
                    (
                        gettext_noop(
                            "several price columns (%(columns)s): %(column)s is read, in the supplier's currency"
                        ),
                        {"columns": headers, "column": cells[chosen]},
                    )
                )
            else:
                problem = (
                    gettext_noop(
                        "several price columns (%(columns)s): name the one to read in the supplier's column mapping"
                    ),
                    {"columns": headers},
                )
        currency_said, vat = _hints(cells[chosen]) if field == "purchase_price" else (None, None)
        columns[field] = Column(chosen, cells[chosen], currency_said, vat)
    return Header(
        line=data_from,
        columns=columns,
        data_from=data_from,
        notes=tuple(notes),
        problem=problem,
        stock_columns=stock_columns,
    )


def _stock_columns(cells: Sequence[str], candidates: list[tuple[tuple[int, int], int]]) -> tuple[list[int], bool]:
    """The stock columns of the best match's kind (mapped, exact, or starting with a stock word), in the file's
    order, less those not in stock; and whether they are summed (see the module's docstring)."""
    top = max(quality for (quality, _), _ in candidates)
    kept = sorted(
        index
        for (quality, _), index in candidates
        if quality == top and not any(f" {word} " in f" {normalized(cells[index])} " for word in NOT_IN_STOCK)
    )
    return kept, top == PREFIX and len(kept) > 1
