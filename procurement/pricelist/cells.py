"""Cells of price lists as people write them, read by stated rules. No database.

**Numbers** are read by the separators the supplier declared (`NumberFormat`: Supplier.decimal_separator
and .thousands_separator), never guessed. A thousands separator may only group the integer part in threes
("1 215 500", not "12 15 500"); a space separator also stands for the no-break, narrow no-break and thin
spaces spreadsheets write. Three digits after a decimal comma or point ("215,500") are refused as
ambiguous: with the other convention they are a thousands group (215 500), and a price is never given to
a tenth of a kopeck. More than two decimal places is refused too (money is kept to the kopeck). A price
cell may carry its currency before or after the number ("215 500 ₽", "12 000 руб.", "$1,200.00").

**Stock** is read to a conservative whole number (`STOCK_WORDS`): ">10", "10+", "более 10" are 10 (the
bound, never more); "5-10" is 5; "<5", "менее 5" are 1; "много" (many) is `STOCK_MANY` = 10; "есть",
"в наличии", "+", "++", "+++" (some, in stock: the pluses are levels no list defines in units) are
`STOCK_SOME` = 1; "нет", "-", "0", an empty cell, and "в пути", "транзит" (in transit, not in stock) are
0; "уточняйте" (ask) says nothing and is an error.

**Lead times** are working days on the Russian production calendar (configurator/engine/workdays.py), the
upper bound of a range ("2-3 нед." is 3 weeks): a bare number and "5 раб. дней", "5 р.д." are working days;
"10 дней" (calendar days) is the working days from the import day to 10 days later, one more when that day is
a day off (the part is there on the next working day); a week is 5 working days; "1 мес." is the working days
from the import day to the same day a month later (likewise); a date ("15.12.2026", or a spreadsheet's date
cell) is the working days until then (likewise); "в наличии", "склад" are 0; "под заказ", "ожидается",
"уточняйте" (on order, no date given) are `LEAD_TIME_ON_ORDER` = 30 working days, six weeks: the far end of
what Russian distributors quote for a GPU or server part brought in to order (their "2-6 нед." ranges), so a
ship date built on it is late rather than early. An on-order word followed by a term or a day is that term or
day: "под заказ (2-3 нед.)" is 15, "ожидается 15.12" the working days until the next 15 December.

**A price on request** ("по запросу", "звоните", "on request", …) is no price: the offer tells availability
only.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import gettext_noop

from configurator.engine.builds import money as kopecks
from configurator.engine.workdays import is_working_day, working_days_between

SPACES = " \u00a0\u202f\u2009"  # space, no-break space, narrow no-break space, thin space
STOCK_MANY = 10  # "много": as much as ">10" says, never more
STOCK_SOME = 1  # "есть", "в наличии": at least one unit
WORKING_DAYS_PER_WEEK = 5


class CellProblem(ValueError):
    """A cell that cannot be read: `message` is an English msgid, `params` its placeholders."""

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message % params if params else message)
        self.message = message
        self.params = params


@dataclass(frozen=True, slots=True)
class NumberFormat:
    decimal: str = ","
    thousands: str = " "  # "" for none; " " stands for every kind of space


def text_of(value: Any) -> str:
    return "" if value is None else str(value).strip()


_PUNCTUATION = re.compile(r"[^\w%+<>≥≤$€₽¥]+")
_DIGIT = re.compile(r"\d")


def normalized(text: str) -> str:
    """Lower case, "ё" as "е", punctuation as spaces, one space between words: "Цена, руб." → "цена руб"."""
    folded = text.casefold().replace("ё", "е")
    return " ".join(_PUNCTUATION.sub(" ", folded).split())


def _is_number_cell(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


# --------------------------------------------------------------------------- numbers

_SPACE_CLASS = "[" + SPACES + "]"
_MONEY = re.compile(r"^(?P<pre>[^\d+\-−]*?)\s*(?P<num>[+\-−]?\d[\d.,'" + SPACES + r"]*?)\s*(?P<post>[^\d]*)$")


def number(text: str, fmt: NumberFormat, *, places: int = 2) -> Decimal:
    """`text` read by the declared separators (see the module's docstring). Raises CellProblem."""
    raw = text.strip()
    if not _DIGIT.search(raw):
        raise CellProblem(gettext_noop("not a number"))
    sign = 1
    if raw[:1] in "+-−":
        sign, raw = (-1 if raw[0] != "+" else 1), raw[1:].strip()
    parts = raw.split(fmt.decimal)
    if len(parts) > 2:
        raise _wrong_separators(fmt)
    whole, fraction = parts[0], (parts[1] if len(parts) == 2 else None)
    groups = (
        re.split(_SPACE_CLASS, whole)
        if fmt.thousands == " "
        else whole.split(fmt.thousands)
        if fmt.thousands
        else [whole]
    )
    if not all(group.isdigit() for group in groups) or (fraction is not None and not fraction.isdigit()):
        raise _wrong_separators(fmt)
    if len(groups) > 1 and (not 1 <= len(groups[0]) <= 3 or any(len(group) != 3 for group in groups[1:])):
        raise CellProblem(gettext_noop("the thousands are not grouped in threes"))
    if fraction is not None and len(fraction) == 3 and fmt.decimal in ",." and places < 3:
        raise CellProblem(
            gettext_noop(
                "ambiguous: three digits after the decimal separator '%(decimal)s' look like a thousands group"
            ),
            decimal=fmt.decimal,
        )
    if fraction is not None and len(fraction.rstrip("0")) > places:
        if places == 0:
            raise CellProblem(gettext_noop("not a whole number"))
        raise CellProblem(gettext_noop("more than %(places)s decimal places"), places=places)
    try:
        value = Decimal("".join(groups) + ("." + fraction if fraction else ""))
    except InvalidOperation as exc:  # pragma: no cover - digits only by now
        raise CellProblem(gettext_noop("not a number")) from exc
    return sign * value


def _wrong_separators(fmt: NumberFormat) -> CellProblem:
    """The separators said in words of the message itself, so a translation says them too (a space or none is
    no character to quote)."""
    if fmt.thousands == " ":
        message = gettext_noop(
            "not a number as this supplier writes them (decimal '%(decimal)s', thousands separated by spaces)"
        )
        return CellProblem(message, decimal=fmt.decimal)
    if not fmt.thousands:
        message = gettext_noop(
            "not a number as this supplier writes them (decimal '%(decimal)s', no thousands separator)"
        )
        return CellProblem(message, decimal=fmt.decimal)
    return CellProblem(
        gettext_noop("not a number as this supplier writes them (decimal '%(decimal)s', thousands '%(thousands)s')"),
        decimal=fmt.decimal,
        thousands=fmt.thousands,
    )


@dataclass(frozen=True, slots=True)
class Money:
    amount: Decimal | None  # None: on request
    currency_text: str  # the currency written in the cell ("руб.", "$"), or ""


_ON_REQUEST = re.compile(
    r"^(цена )?(по |под )?(запрос|звон|позвон|уточн|договор"
    r"|on request|upon request|price on request|call|poa\b|request)"
)


def on_request(text: str) -> bool:
    return bool(_ON_REQUEST.match(normalized(text)))


def money(value: Any, fmt: NumberFormat) -> Money:
    """A price cell: a number (a spreadsheet's number is rounded to the kopeck; a text is read strictly),
    with the currency written beside it, or None when the price is on request. Raises CellProblem."""
    if _is_number_cell(value):
        return Money(kopecks(Decimal(str(value))), "")
    text = text_of(value)
    if not _DIGIT.search(text):
        if on_request(text):
            return Money(None, "")
        raise CellProblem(gettext_noop("not a number"))
    found = _MONEY.match(text)
    if found is None:
        raise CellProblem(gettext_noop("not a number"))
    before, after = found["pre"].strip(), found["post"].strip()
    if before and after:
        raise CellProblem(gettext_noop("not a number"))
    return Money(number(found["num"], fmt), before or after)


# --------------------------------------------------------------------------- stock

STOCK_WORDS: dict[str, int] = {
    **dict.fromkeys(
        ("", "нет", "-", "—", "–", "0", "нет в наличии", "отсутствует", "под заказ", "ожидается", "no", "none",
         "out of stock", "x", "n a", "в пути", "транзит", "on order"),
        0,
    ),
    **dict.fromkeys(("много", "очень много", "достаточно", "lots", "many", "plenty"), STOCK_MANY),
    **dict.fromkeys(
        ("есть", "в наличии", "наличие", "да", "имеется", "на складе", "+", "++", "+++", "yes", "in stock",
         "available", "мало", "few", "заканчивается"),
        STOCK_SOME,
    ),
}  # fmt: skip
_AT_LEAST = re.compile(r"^(?:>=?|≥|более чем|более|больше|свыше|от|over|more than|\+)\s*(\d+)(?: \D.*)?$")
_PLUS = re.compile(r"^(\d+)\s*\+(?: \D.*)?$")
_BELOW = re.compile(r"^(?:<=?|≤|менее|меньше|до|less than|under)\s*(\d+)(?: \D.*)?$")
_RANGE = re.compile(r"^(\d+)\s*(?:-|–|—)\s*(\d+)(?: \D.*)?$")
_UNITS = re.compile(r"\s*(шт|штук|штуки|ед|pcs|pc|units?)\.?$", re.IGNORECASE)


def stock_qty(value: Any, fmt: NumberFormat) -> int:
    """Units in stock, conservatively (see the module's docstring). Raises CellProblem."""
    if _is_number_cell(value):
        return _whole(Decimal(str(value)))
    text = text_of(value)
    key = text.casefold().replace("ё", "е").strip()
    key = " ".join(key.split())
    if key in STOCK_WORDS:
        return STOCK_WORDS[key]
    words = normalized(text)
    if words in STOCK_WORDS:
        return STOCK_WORDS[words]
    for pattern in (_AT_LEAST, _PLUS):
        found = pattern.match(key)
        if found:
            return int(found[1])
    found = _BELOW.match(key)
    if found:  # "<5" may be 1 unit; "<1" none; "до 1" (up to) may be 1
        strict = not key.startswith(("<=", "≤", "до"))
        return max(min(STOCK_SOME, int(found[1]) - strict), 0)
    found = _RANGE.match(key)
    if found:
        return int(found[1])
    try:
        return _whole(number(_UNITS.sub("", text), fmt, places=0))
    except CellProblem as exc:
        raise CellProblem(gettext_noop("not a stock quantity (a number, >10, 10+, много, есть, нет)")) from exc


def _whole(value: Decimal) -> int:
    if value != value.to_integral_value():
        raise CellProblem(gettext_noop("not a whole number"))
    return int(value)


# --------------------------------------------------------------------------- lead times

LEAD_TIME_NOW = frozenset(
    {"в наличии", "наличие", "склад", "на складе", "со склада", "in stock", "stock", "сегодня", "сразу", "есть"}
)
LEAD_TIME_ON_ORDER = 30
LEAD_TIME_UNKNOWN = frozenset(
    {"под заказ", "заказ", "на заказ", "ожидается", "уточняйте", "уточнять", "по запросу", "звоните", "транзит",
     "в пути", "on order", "to order", "on request", "backorder", "back order", "tba", "tbd"}
)  # fmt: skip
_LEAD = re.compile(r"^(?:от |до |up to |from )?(\d+)(?:\s*(?:-|–|—|до|to)\s*(\d+))?\s*(.*)$")
_WORKING = ("раб дн", "раб дней", "раб дня", "рабочих дней", "рабочих дня", "рабочий день", "р д", "рд",
            "working days", "working day", "business days", "business day", "wd", "bd")  # fmt: skip
_CALENDAR = ("дн", "дня", "дней", "день", "д", "days", "day", "календарных дней", "календарных дня", "кал дн",
             "к д", "кд", "cd")  # fmt: skip
_WEEKS = ("нед", "недели", "недель", "неделя", "неделю", "weeks", "week", "wk", "w")
_MONTHS = ("мес", "месяц", "месяца", "месяцев", "months", "month", "mo")


def lead_time_days(value: Any, fmt: NumberFormat, *, today: dt.date) -> int:
    """Working days until the part can be had (see the module's docstring). Raises CellProblem."""
    if _is_number_cell(value):
        return _whole(Decimal(str(value)))
    if isinstance(value, dt.date):  # a spreadsheet's date: the expected day ("Дата поступления", "ETA")
        day = value.date() if isinstance(value, dt.datetime) else value
        if day < today:
            raise CellProblem(gettext_noop("not a lead time (5, 5 р.д., 10 дней, 2-3 нед., 1 мес., в наличии)"))
        return working_days_until(today, day)
    text = text_of(value)
    if not text:
        raise CellProblem(gettext_noop("the lead time is missing"))
    words = normalized(text)
    if words in LEAD_TIME_NOW or words == "0":
        return 0
    if words in LEAD_TIME_UNKNOWN:
        return LEAD_TIME_ON_ORDER
    folded = " ".join(text.casefold().replace("ё", "е").split())
    said = _ON_ORDER_THEN.match(folded)
    rest = folded[said.end() :].strip(" ()") if said else folded
    expected = _expected_day(rest, today, year_needed=said is None)
    if expected is not None:
        return working_days_until(today, expected)
    if said and rest:
        return lead_time_days(rest, fmt, today=today)  # "под заказ (2-3 нед.)" is 2-3 weeks
    found = _LEAD.match(" ".join(re.sub(r"[.,/()]", " ", text.casefold().replace("ё", "е")).split()))
    if found is None:
        raise CellProblem(gettext_noop("not a lead time (5, 5 р.д., 10 дней, 2-3 нед., 1 мес., в наличии)"))
    count = int(found[2] or found[1])
    unit = found[3].strip()
    if unit == "" or unit in _WORKING:
        return count
    if unit in _CALENDAR:
        return working_days_until(today, today + dt.timedelta(days=count))
    if unit in _WEEKS:
        return count * WORKING_DAYS_PER_WEEK
    if unit in _MONTHS:
        return working_days_until(today, add_months(today, count))
    raise CellProblem(gettext_noop("not a lead time (5, 5 р.д., 10 дней, 2-3 нед., 1 мес., в наличии)"))


_ON_ORDER_THEN = re.compile(
    r"^(?:под заказ|на заказ|заказ|ожидается|ожидаем|поступление|в пути|транзит|on order|to order|eta)"
    r"(?=[\s:,(-])[\s:,-]*"
)
DATE_PAST_DAYS = 183  # a day-and-month more than half a year past is next year's ("15.01" in December)
_DAY = re.compile(r"^(?:до |с |from |by )?(\d{1,2})[./](\d{1,2})(?:[./](\d{4}|\d{2}))?\.?$")


def _expected_day(text: str, today: dt.date, *, year_needed: bool) -> dt.date | None:
    """The day an expected delivery is written as ("15.12.2026"; after an on-order word also "15.12": of this
    year, or of the next when it is more than DATE_PAST_DAYS past), or None when `text` is no date. A day
    already past is no lead time but a supplier's stale promise (raises CellProblem)."""
    found = _DAY.match(text)
    if found is None or (year_needed and not found[3]):
        return None
    year = int(found[3]) + (2000 if found[3] and len(found[3]) == 2 else 0) if found[3] else today.year
    try:
        day = dt.date(year, int(found[2]), int(found[1]))
        if not found[3] and day < today - dt.timedelta(days=DATE_PAST_DAYS):
            day = day.replace(year=year + 1)  # "15.01" in a December list
    except ValueError:
        return None
    if day < today:
        raise CellProblem(gettext_noop("not a lead time (5, 5 р.д., 10 дней, 2-3 нед., 1 мес., в наличии)"))
    return day


def working_days_until(today: dt.date, end: dt.date) -> int:
    """Working days from `today` until the part is here when it comes on calendar day `end`: the working days
    after `today` up to `end`, one more when `end` is a day off (what comes on Sunday is there on Monday; 10
    calendar days from Thursday 03.12.2026 end on Sunday 13.12: 6 working days to Friday 11.12 would promise
    the part two days early, so 7, Monday 14.12)."""
    days = working_days_between(today, end)
    return days + 1 if end > today and not is_working_day(end) else days


def add_months(day: dt.date, months: int) -> dt.date:
    """The same day `months` later (the month's last day when it is shorter: 31.01 + 1 → 28.02)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return day.replace(year=year, month=month, day=min(day.day, calendar.monthrange(year, month)[1]))


# --------------------------------------------------------------------------- dates

DATE_FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%d.%m.%y", "%d/%m/%Y")


def date_of(value: Any) -> dt.date:
    """A date cell (a spreadsheet date, or YYYY-MM-DD, DD.MM.YYYY, DD.MM.YY, DD/MM/YYYY). Raises CellProblem."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = text_of(value)
    for fmt in DATE_FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).date()  # noqa: DTZ007 - a calendar date, no time
        except ValueError:
            continue
    raise CellProblem(gettext_noop("not a date (YYYY-MM-DD or DD.MM.YYYY)"))
