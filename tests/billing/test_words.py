"""The amount in words on an invoice: Russian numerals, genders and the three plural forms."""

from __future__ import annotations

from decimal import Decimal

import pytest

from billing.words import KOPECKS, RUBLES, amount_in_words, integer_in_words, plural


@pytest.mark.parametrize(
    ("n", "form"),
    [(0, "рублей"), (1, "рубль"), (2, "рубля"), (4, "рубля"), (5, "рублей"), (11, "рублей"), (12, "рублей"),
     (14, "рублей"), (21, "рубль"), (22, "рубля"), (25, "рублей"), (101, "рубль"), (111, "рублей"),
     (112, "рублей"), (1001, "рубль"), (1_000_000, "рублей")],
)  # fmt: skip
def test_plural_forms_follow_the_last_two_digits(n: int, form: str) -> None:
    assert plural(n, RUBLES) == form


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (0, "ноль"),
        (1, "один"),
        (19, "девятнадцать"),
        (40, "сорок"),
        (101, "сто один"),
        (1000, "одна тысяча"),
        (2000, "две тысячи"),
        (5000, "пять тысяч"),
        (11_000, "одиннадцать тысяч"),
        (21_000, "двадцать одна тысяча"),
        (22_000, "двадцать две тысячи"),
        (1_000_000, "один миллион"),
        (2_000_000, "два миллиона"),
        (2_001_002, "два миллиона одна тысяча два"),
        (1_000_000_000, "один миллиард"),
        (999_999, "девятьсот девяносто девять тысяч девятьсот девяносто девять"),
    ],
)
def test_integers_in_words_with_feminine_thousands(n: int, words: str) -> None:
    assert integer_in_words(n) == words


@pytest.mark.parametrize(
    ("amount", "words"),
    [
        ("0", "Ноль рублей 00 копеек"),
        ("1.01", "Один рубль 01 копейка"),
        ("2.02", "Два рубля 02 копейки"),
        ("5.11", "Пять рублей 11 копеек"),
        ("21.21", "Двадцать один рубль 21 копейка"),
        ("1234.56", "Одна тысяча двести тридцать четыре рубля 56 копеек"),
        ("3086493.60", "Три миллиона восемьдесят шесть тысяч четыреста девяносто три рубля 60 копеек"),
        ("10.005", "Десять рублей 01 копейка"),  # half-up to the kopeck first
        ("112.14", "Сто двенадцать рублей 14 копеек"),
    ],
)
def test_amounts_in_words(amount: str, words: str) -> None:
    assert amount_in_words(Decimal(amount)) == words


def test_kopeck_forms_and_refusals() -> None:
    assert [plural(n, KOPECKS) for n in (1, 3, 7, 13, 91)] == ["копейка", "копейки", "копеек", "копеек", "копейка"]
    with pytest.raises(ValueError, match="negative"):
        amount_in_words(Decimal("-1"))
    with pytest.raises(ValueError, match="out of range"):
        integer_in_words(10**15)
