"""A quote keeps its build's findings as phrases (msgid + params), so the Russian quote page and the Russian
PDF say each warning in Russian, not in the English of the API."""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import translation
from pypdf import PdfReader

from accounts.models import User
from configurator.outputs import stored_findings
from configurator.wording import part_name, say
from quotes.models import Quote
from quotes.pdf import render_quote_pdf
from tests.builds import WARNING_BUILD

pytestmark = pytest.mark.django_db


def _text(pdf: bytes) -> str:
    reader = PdfReader(io.BytesIO(pdf))
    return re.sub(r"\s+", " ", " ".join(page.extract_text() or "" for page in reader.pages))


@pytest.fixture
def warned_quote(make_quote: Callable[..., Quote]) -> Quote:
    return make_quote(payload=copy.deepcopy(WARNING_BUILD), acknowledge_warnings=True)


def _warnings(quote: Quote, language: str | None = None) -> list[dict[str, Any]]:
    """The quote's warnings; with `language`, the parts named as the page and PDF say them (by the quote
    lines' names in that language, not by SKU)."""
    names: dict[str, str] = {}
    if language is not None:
        with translation.override(language):
            names = {line.sku: part_name(line) for line in quote.lines.all()}
    warnings = [f for f in stored_findings(quote.verdict, names) if f["severity"] == "warning"]
    assert warnings, "WARNING_BUILD has warnings"
    return warnings


def test_the_stored_verdict_keeps_each_sentence_as_a_phrase(warned_quote: Quote) -> None:
    raw = warned_quote.verdict["findings"]
    assert all({"msgid", "params"} <= set(finding["phrase"]) for finding in raw)
    for finding, shown in zip(raw, stored_findings(warned_quote.verdict), strict=True):
        assert shown["message"] == finding["message"]  # the same English text …
        assert shown["message"].template == finding["phrase"]["msgid"]  # … that knows its msgid again


def test_the_russian_quote_page_says_the_warnings_in_russian(
    warned_quote: Quote, customer_user: User, client: Client
) -> None:
    client.force_login(customer_user)
    body = client.get(f"/quotes/{warned_quote.number}", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    for warning in _warnings(warned_quote, "ru"):
        with translation.override("ru"):
            russian = str(say(warning["message"]))
        assert russian != str(warning["message"])  # there is a Russian sentence to show
        assert russian.replace("\xa0", " ") in body.replace("\xa0", " ").replace("&nbsp;", " ")
        assert str(warning["message"]) not in body


def test_the_russian_pdf_says_the_warnings_in_russian(warned_quote: Quote) -> None:
    text = _text(render_quote_pdf(warned_quote)).replace("\xa0", " ")
    for warning in _warnings(warned_quote, "ru"):
        with translation.override("ru"):
            russian = re.sub(r"\s+", " ", str(say(warning["message"]))).replace("\xa0", " ")
        assert russian[:40] in text
        assert str(warning["message"])[:40] not in text


def test_a_row_stored_before_phrases_were_kept_shows_its_english_text() -> None:
    old = {"findings": [{"code": "pcie.x8", "severity": "warning", "message": "Two cards run at x8.", "fixes": []}]}
    assert stored_findings(old)[0]["message"] == "Two cards run at x8."


def test_the_pdf_follows_the_quote_language(warned_quote: Quote, settings: Any) -> None:
    """Every text of the document is a msgid: with QUOTE_LANGUAGE = "en" nothing Russian is left but the
    quote's own copied terms."""
    settings.QUOTE_LANGUAGE = "en"
    text = _text(render_quote_pdf(warned_quote))
    assert "Total incl. VAT:" in text and "Всего с НДС" not in text
    for warning in _warnings(warned_quote, "en"):
        assert str(warning["message"])[:40] in text
