"""Currency codes as people write them, read into ISO 4217 codes. Pure: no Django.

Russian documents and 1C still write the pre-1998 code `RUR` for the rouble, price lists write `руб`,
`руб.`, `р.` or `₽`; all of them mean RUB (ISO 4217: RUR was replaced by RUB on 01.01.1998 and no
longer names another currency, so reading it as RUB loses nothing). An unknown text is an
`UnknownCurrency`, never a new three-letter currency.
"""

from __future__ import annotations

BASE = "RUB"  # the company's books are kept in roubles: every comparison and total is in RUB

#: The currencies the service converts (the Central Bank of Russia publishes a daily rate for each
#: but RUB). A three-letter code outside this set is refused: nobody can convert it.
KNOWN = frozenset({"RUB", "USD", "EUR", "CNY", "GBP", "JPY", "CHF", "KZT", "BYN", "AED", "HKD", "TWD", "KRW"})

_ALIASES: dict[str, str] = {
    "rur": "RUB",
    "rub": "RUB",
    "руб": "RUB",
    "рубль": "RUB",
    "рубли": "RUB",
    "рублей": "RUB",
    "р": "RUB",
    "₽": "RUB",
    "$": "USD",
    "us$": "USD",
    "usd": "USD",
    "долл": "USD",
    "доллар": "USD",
    "долларов": "USD",
    "у.е": "USD",  # "conventional units": in Russian price lists, US dollars
    "€": "EUR",
    "eur": "EUR",
    "евро": "EUR",
    "¥": "CNY",
    "rmb": "CNY",
    "юань": "CNY",
    "юаней": "CNY",
    "cny": "CNY",
}


class UnknownCurrency(ValueError):
    """A currency text that names no currency the service converts."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def currency_code(text: str | None, *, default: str | None = None) -> str:
    """The ISO code of `text` ("RUR", "руб.", "₽", "usd", "$" …). An empty text is `default` (when given).
    Raises UnknownCurrency for anything else."""
    raw = (text or "").strip()
    if not raw:
        if default is None:
            raise UnknownCurrency(raw)
        return currency_code(default)
    key = raw.lower().rstrip(".").strip()
    if key in _ALIASES:
        return _ALIASES[key]
    upper = key.upper()
    if upper in KNOWN:
        return upper
    raise UnknownCurrency(raw)
