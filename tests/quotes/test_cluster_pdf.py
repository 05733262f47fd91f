"""The cluster quote PDF lists it by section (issue 39 item 6): every section heading, section subtotals that add
up to the net total to the kopeck, and the facility figures, read back from the PDF text (pypdfium2), in Russian
and in English."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pypdfium2
import pytest
from django.utils import translation

from accounts.models import User
from quotes.cluster_doc import SECTION_TITLES
from quotes.models import Quote
from quotes.pdf import format_money, render_quote_pdf
from servicelines.services import services_load_fixture
from tests import factories

from .test_cluster_quote import LLAMA_405B, make

SUBTOTAL = {"ru": "Итого по разделу:", "en": "Section subtotal:"}


def _text(pdf: bytes) -> str:
    document = pypdfium2.PdfDocument(pdf)
    text = " ".join(page.get_textpage().get_text_range() for page in document)
    return re.sub(r"\s+", " ", text.replace("\xa0", " "))


def _money(text: str, language: str) -> Decimal:
    digits = text.replace(" ", "").replace(",", "") if language == "en" else text.replace(" ", "").replace(",", ".")
    return Decimal(digits)


@pytest.fixture
def cluster_quote(catalog: None, sales_user: User) -> Quote:
    services_load_fixture()
    customer = factories.customer(username="bob")
    body: dict[str, Any] = {
        "cluster": {"workload": LLAMA_405B, "gpu": "h200-sxm"},
        "customer": customer.pk,
        "discount_percent": "3.5",
        "services": ["warranty-3y", "delivery-moscow"],
    }
    response = make(sales_user, body)
    assert response.status_code == 201, response.content
    return Quote.objects.get(number=response.json()["number"])


@pytest.mark.parametrize("language", ["ru", "en"])
def test_pdf_lists_the_cluster_by_section(cluster_quote: Quote, settings: Any, language: str) -> None:
    settings.QUOTE_LANGUAGE = language
    text = _text(render_quote_pdf(cluster_quote))
    with translation.override(language):
        titles = [str(title) for title in SECTION_TITLES.values()]
        net = format_money(cluster_quote.net_total).replace("\xa0", " ")
    positions = [text.find(title) for title in titles]
    assert all(p >= 0 for p in positions), [t for t, p in zip(titles, positions, strict=True) if p < 0]
    assert positions == sorted(positions)  # in the order of the sections
    number = r"[0-9][0-9 ,.]*[0-9]{2}"
    subtotals = [_money(m, language) for m in re.findall(re.escape(SUBTOTAL[language]) + rf" ({number})", text)]
    assert len(subtotals) == len(titles)
    assert sum(subtotals) == cluster_quote.net_total  # to the kopeck
    assert net in text
    for sku in cluster_quote.lines.values_list("sku", flat=True):
        assert sku in text
    facility = cluster_quote.verdict["cluster"]["facility"]
    amps = f"{facility['max_amps_per_feed']:.1f}"
    assert (amps.replace(".", ",") if language == "ru" else amps) in text
    assert ("Стойки" if language == "ru" else "Racks") in text


def test_pdf_names_the_parts_in_russian_and_the_gpu_by_name(cluster_quote: Quote, settings: Any) -> None:
    """t39 trial: the Russian PDF named cluster parts in English (their `name_ru` never reached the lines) and
    its facility block said "6 × 8 GPU h200-sxm" (a SKU)."""
    settings.QUOTE_LANGUAGE = "ru"
    text = _text(render_quote_pdf(cluster_quote))
    switch = cluster_quote.lines.get(sku="ib-qm9700")
    assert switch.name_ru.startswith("Коммутатор InfiniBand")
    assert switch.name_ru[:40] in text and switch.name[:40] not in text
    facility = text[text.index("Узлы") : text.index("Стойки")]
    assert "NVIDIA H200" in facility and "h200-sxm" not in facility
