"""Working days on the Russian production calendar, as pure code.

Distributors quote lead times in working days, and our own stock, assembly and burn-in days are working
days too. The calendar is the `holidays` package's Russia (`holidays.country_holidays("RU")`): the public
holidays of the Labour Code art. 112 and the government's yearly decrees that move days off (a
Saturday made a working day, a weekday made a day off: 2027-02-20 works, 2027-02-22 and 2026-12-31 are
off). A year the package does not know yet falls back to art. 112's holidays and plain weekends.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

import holidays

ONE_DAY = dt.timedelta(days=1)


@lru_cache(maxsize=1)
def _calendar() -> holidays.HolidayBase:
    return holidays.country_holidays("RU")


def is_working_day(day: dt.date) -> bool:
    return bool(_calendar().is_working_day(day))


@lru_cache(maxsize=4096)
def add_working_days(start: dt.date, days: int) -> dt.date:
    """The day `days` working days after `start` (the day work starts counting from; it is not counted
    itself). 0 is `start`'s own day when it is a working day, else the next working day. Remembered per
    (start, days): every ship date the engine answers asks it (~4 µs a day counted otherwise)."""
    day = start
    if days <= 0:
        while not is_working_day(day):
            day += ONE_DAY
        return day
    left = days
    while left:
        day += ONE_DAY
        if is_working_day(day):
            left -= 1
    return day


@lru_cache(maxsize=1024)
def working_days_between(start: dt.date, end: dt.date) -> int:
    """How many working days lie after `start` up to and including `end` (0 when end ≤ start)."""
    count, day = 0, start
    while day < end:
        day += ONE_DAY
        count += is_working_day(day)
    return count
