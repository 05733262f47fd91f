"""The admin's main form as a browser would submit it, for the authorization matrix's admin writes."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from django.test import Client


class _FormFields(HTMLParser):
    """The fields a browser would submit from the admin's main form (inputs, selects, textareas)."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, list[str]] = {}
        self._in_form = False
        self._select: tuple[str, bool] | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {key: value or "" for key, value in attrs}
        if tag == "form" and attr.get("id", "").endswith("_form"):
            self._in_form = True
        if not self._in_form or "disabled" in attr:
            return
        name = attr.get("name", "")
        if tag == "input" and name:
            kind = attr.get("type", "text")
            if kind in ("submit", "button", "file", "image"):
                return
            if kind in ("checkbox", "radio") and "checked" not in attr:
                return
            self.data.setdefault(name, []).append(attr.get("value", "on" if kind == "checkbox" else ""))
        elif tag == "select" and name:
            self._select = (name, "multiple" in attr)
            self.data.setdefault(name, [])
        elif tag == "option" and self._select is not None and "selected" in attr:
            self.data[self._select[0]].append(attr.get("value", ""))
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = [""]

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self.data[self._textarea][0] += data.removeprefix("\n") if not self.data[self._textarea][0] else data


def form_data(client: Client, url: str) -> dict[str, Any]:
    page = client.get(url)
    assert page.status_code == 200, url
    parser = _FormFields()
    parser.feed(page.content.decode())
    return {name: values if len(values) != 1 else values[0] for name, values in parser.data.items()}
