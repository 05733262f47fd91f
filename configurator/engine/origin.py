"""Country of origin and customs declaration of received goods, as a УПД prints them in columns 10, 10а and 11
(the счёт-фактура form of decree № 1137 as amended by decree № 534 of 02.04.2021). Pure: strings in, reasons
and normalised values out.

* Country: its ОКСМ code (the Общероссийский классификатор стран мира ОК (МК (ИСО 3166) 004-97) 025-2001:
  3 digits, the ISO 3166-1 numeric code) and its short name as in the classifier. OKSM_SHORT below holds the
  short names of the countries hardware is usually made in (from the classifier's table); another code is
  accepted with its name typed in.
* The registration number of the declaration for goods (ДТ): the customs office's code (8 digits), the date
  of registration (DDMMYY) and the ordinal number (7 digits), parted by "/" (the ФТС's order on the ДТ's
  filling-in, column A), optionally followed by "/<the goods' number in the ДТ>" as suppliers print it.
"""

from __future__ import annotations

import re

#: ОКСМ code → short name (ОК 025-2001, the "краткое наименование" column, written in sentence case).
OKSM_SHORT = {
    "156": "Китай",
    "158": "Тайвань (Китай)",
    "203": "Чехия",
    "276": "Германия",
    "344": "Гонконг",
    "356": "Индия",
    "372": "Ирландия",
    "376": "Израиль",
    "392": "Япония",
    "410": "Корея, Республика",
    "458": "Малайзия",
    "484": "Мексика",
    "528": "Нидерланды",
    "608": "Филиппины",
    "643": "Россия",
    "702": "Сингапур",
    "704": "Вьетнам",
    "764": "Таиланд",
    "840": "Соединенные Штаты",
}
OKSM_CODE = re.compile(r"[0-9]{3}")
DECLARATION = re.compile(r"[0-9]{8}/[0-9]{6}/[0-9]{7}(/[0-9]{1,3})?")
NAME_MAX, DECLARATION_MAX = 60, 40


def origin_clean(*, country_code: str, country_name: str, declaration: str) -> tuple[dict[str, str], dict[str, str]]:
    """({"country_code", "country_name", "declaration"} normalised, {field: reason}) of what a person typed:
    a known code fills its short name in; a name without its code, a code of other than 3 digits, an unknown
    code without a name or a declaration number not of the ДТ's form are refused. All empty is fine (goods
    made in Russia, or not recorded: the УПД prints "—")."""
    code, name, number = country_code.strip(), " ".join(country_name.split()), "".join(declaration.split())
    problems: dict[str, str] = {}
    if code and not OKSM_CODE.fullmatch(code):
        problems["country_code"] = "the ОКСМ code is 3 digits (156 Китай, 158 Тайвань)"
    elif code and not name:
        name = OKSM_SHORT.get(code, "")
        if not name:
            problems["country_name"] = f"code {code} is not in the short list: type the country's ОКСМ short name"
    elif name and not code:
        problems["country_code"] = "the country's ОКСМ code is required with its name"
    if len(name) > NAME_MAX:
        problems["country_name"] = f"at most {NAME_MAX} characters"
    if number and not DECLARATION.fullmatch(number):
        problems["declaration"] = "the ДТ number is 8 digits/DDMMYY/7 digits, e.g. 10702070/011226/3012345"
    return {"country_code": code, "country_name": name, "declaration": number}, problems
