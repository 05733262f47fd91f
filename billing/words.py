"""A rouble amount in Russian words, as an invoice states it ("сумма прописью"). Pure: no Django.

`amount_in_words(Decimal("1234.56"))` → "Одна тысяча двести тридцать четыре рубля 56 копеек": the roubles in
words, the kopecks in two digits, each with the plural form its number asks for (one form for 1, 21, 31 …;
another for 2–4, 22–24 …; the third for 0, 5–20, 25–30 …: 11–14 always take the third). Thousands are
feminine (одна тысяча, две тысячи), roubles, millions and billions masculine (один рубль, два миллиона).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

_UNITS_M = ("", "один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять")
_UNITS_F = ("", "одна", "две", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять")
_TEENS = (
    "десять", "одиннадцать", "двенадцать", "тринадцать", "четырнадцать",
    "пятнадцать", "шестнадцать", "семнадцать", "восемнадцать", "девятнадцать",
)  # fmt: skip
_TENS = ("", "", "двадцать", "тридцать", "сорок", "пятьдесят", "шестьдесят", "семьдесят", "восемьдесят", "девяносто")
_HUNDREDS = ("", "сто", "двести", "триста", "четыреста", "пятьсот", "шестьсот", "семьсот", "восемьсот", "девятьсот")

#: (forms for 1 / 2–4 / 5–20, feminine?) of each group of three digits, lowest first.
_SCALES: tuple[tuple[tuple[str, str, str], bool], ...] = (
    (("", "", ""), False),
    (("тысяча", "тысячи", "тысяч"), True),
    (("миллион", "миллиона", "миллионов"), False),
    (("миллиард", "миллиарда", "миллиардов"), False),
    (("триллион", "триллиона", "триллионов"), False),
)
RUBLES = ("рубль", "рубля", "рублей")
KOPECKS = ("копейка", "копейки", "копеек")


def plural(n: int, forms: tuple[str, str, str]) -> str:
    """The form of a noun after the number `n`: forms = (1, 2–4, 5–20), e.g. (рубль, рубля, рублей)."""
    n = abs(n)
    if 11 <= n % 100 <= 14:
        return forms[2]
    last = n % 10
    if last == 1:
        return forms[0]
    if 2 <= last <= 4:
        return forms[1]
    return forms[2]


def _triad(n: int, feminine: bool) -> list[str]:
    words = [_HUNDREDS[n // 100]]
    rest = n % 100
    if 10 <= rest <= 19:
        words.append(_TEENS[rest - 10])
    else:
        words.append(_TENS[rest // 10])
        words.append((_UNITS_F if feminine else _UNITS_M)[rest % 10])
    return [word for word in words if word]


def integer_in_words(n: int, *, feminine: bool = False) -> str:
    """A whole number 0 ≤ n < 10¹⁵ in Russian words ("ноль" for 0); `feminine`: the units' gender."""
    if n < 0 or n >= 10**15:
        raise ValueError(f"{n} is out of range 0 … 10^15 - 1")
    if n == 0:
        return "ноль"
    parts: list[str] = []
    for index, (forms, scale_feminine) in enumerate(_SCALES):
        group = (n // 1000**index) % 1000
        if not group:
            continue
        words = _triad(group, scale_feminine if index else feminine)
        if index:
            words.append(plural(group, forms))
        parts = words + parts
    return " ".join(parts)


def amount_in_words(amount: Decimal) -> str:
    """The amount in roubles and kopecks as an invoice writes it: "Сто двадцать один рубль 05 копеек".
    Rounded half-up to the kopeck first; a negative amount is refused."""
    value = Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if value < 0:
        raise ValueError("A negative amount has no words on an invoice.")
    rubles = int(value)
    kopecks = int((value - rubles) * 100)
    text = f"{integer_in_words(rubles)} {plural(rubles, RUBLES)} {kopecks:02d} {plural(kopecks, KOPECKS)}"
    return text[0].upper() + text[1:]
