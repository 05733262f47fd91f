"""A Russian buyer's requisites as a счёт and an УПД name them: ИНН and КПП. Pure: strings in, reasons out.

* ИНН — 10 digits for an organisation, 12 for an individual entrepreneur or a person; the last digit (the
  last two for 12) is a check digit: Σ(digit × weight) mod 11, then mod 10. The weights are those of the
  Federal Tax Service's order of 29.06.2012 № ММВ-7-6/435@ (the ИНН's structure), as published with the
  check algorithm: 10 digits — 2 4 10 3 5 9 4 6 8; 12 digits — 7 2 4 10 3 5 9 4 6 8 for the 11th and
  3 7 2 4 10 3 5 9 4 6 8 for the 12th.
* КПП — 9 characters: the tax office's code (4 digits), the reason (2 characters, digits or capital Latin
  letters A–Z, the same order), the ordinal (3 digits). Only organisations have one: an entrepreneur's
  12-digit ИНН goes without.
"""

from __future__ import annotations

import re

INN_10_WEIGHTS = (2, 4, 10, 3, 5, 9, 4, 6, 8)
INN_11_WEIGHTS = (7, 2, 4, 10, 3, 5, 9, 4, 6, 8)
INN_12_WEIGHTS = (3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8)
KPP_PATTERN = re.compile(r"[0-9]{4}[0-9A-Z]{2}[0-9]{3}")


def _check_digit(digits: str, weights: tuple[int, ...]) -> int:
    return sum(int(digit) * weight for digit, weight in zip(digits, weights, strict=True)) % 11 % 10


def inn_problem(inn: str) -> str:
    """Why `inn` is not a valid ИНН ("" when it is)."""
    if not inn.isascii() or not inn.isdigit() or len(inn) not in (10, 12):
        return "must be 10 digits (an organisation) or 12 digits (an entrepreneur)"
    if len(inn) == 10:
        ok = _check_digit(inn[:9], INN_10_WEIGHTS) == int(inn[9])
    else:
        ok = _check_digit(inn[:10], INN_11_WEIGHTS) == int(inn[10]) and _check_digit(inn[:11], INN_12_WEIGHTS) == int(
            inn[11]
        )
    return "" if ok else "the check digit does not match (a typo?)"


def kpp_problem(kpp: str, *, inn: str = "") -> str:
    """Why `kpp` is not a valid КПП for the ИНН `inn` ("" when it is; an empty КПП is valid only without an
    organisation's 10-digit ИНН)."""
    if not kpp:
        return "an organisation (10-digit ИНН) has a КПП" if len(inn) == 10 else ""
    if len(inn) == 12:
        return "an entrepreneur (12-digit ИНН) has no КПП"
    if not KPP_PATTERN.fullmatch(kpp):
        return "must be 9 characters: 4 digits, 2 digits or capital Latin letters, 3 digits"
    return ""


def upd_buyer_problems(*, company: str, inn: str, kpp: str) -> dict[str, list[str]]:
    """Why a УПД may not be issued to this buyer yet ({} when it may): an organisation — a 10-digit ИНН, or
    no ИНН while the customer names a company — is named on the счёт-фактура by its ИНН and КПП (line 6б of
    the form of decree № 1137), never "—/—"; a person or an entrepreneur (a 12-digit ИНН, or no company) may
    go without a КПП (and a person without an ИНН)."""
    if not (len(inn) == 10 or (not inn and company.strip())):
        return {}
    errors: dict[str, list[str]] = {}
    if not inn:
        errors["inn"] = ["the buyer is an organisation: its 10-digit ИНН is required for a УПД"]
    elif problem := inn_problem(inn):
        errors["inn"] = [problem]
    if not kpp:
        errors["kpp"] = ["the buyer is an organisation: its КПП is required for a УПД"]
    return errors
