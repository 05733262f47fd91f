"""Quote PDFs through FILE_STORE=database (filestore.storage.DatabaseStorage): the render stores the PDF as
a row of the shared database, nothing lands in the process's MEDIA_ROOT, and both doors (API and page)
serve the stored bytes. tests/integration/test_two_hosts.py shows it across processes."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import User
from filestore.models import StoredFile
from quotes.models import Quote
from quotes.services import quote_pdf_render

pytestmark = pytest.mark.django_db


@pytest.fixture
def database_store(settings: Any) -> None:
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "filestore.storage.DatabaseStorage"}}


def _ready(quote: Quote) -> Quote:
    quote.refresh_from_db()
    if quote.render_status != "ready":
        Quote.objects.filter(pk=quote.pk).update(render_status="pending")
        assert quote_pdf_render(quote_id=quote.pk)
        quote.refresh_from_db()
    return quote


def test_a_rendered_pdf_is_a_stored_row_and_not_a_local_file(
    database_store: None, settings: Any, make_quote: Callable[..., Quote], customer_user: User
) -> None:
    quote = _ready(make_quote())
    row = StoredFile.objects.get(name=quote.pdf.name)
    assert bytes(row.content).startswith(b"%PDF-") and row.sha256 == quote.pdf_sha256
    assert not any(path.is_file() for path in Path(settings.MEDIA_ROOT).rglob("*"))

    api = APIClient()
    api.force_authenticate(customer_user)
    answer = api.get(f"/api/v1/quotes/{quote.number}/pdf/")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf"
    assert int(answer["Content-Length"]) == row.size
    assert hashlib.sha256(b"".join(answer.streaming_content)).hexdigest() == quote.pdf_sha256  # type: ignore[attr-defined]

    page = Client()
    page.force_login(customer_user)
    download = page.get(reverse("quotes:pdf", args=[quote.number]))
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == bytes(row.content)  # type: ignore[attr-defined]


def test_a_new_render_replaces_the_stored_pdf(
    database_store: None, make_quote: Callable[..., Quote], django_capture_on_commit_callbacks: Any
) -> None:
    quote = _ready(make_quote())
    first = quote.pdf.name
    Quote.objects.filter(pk=quote.pk).update(render_status="pending")
    with django_capture_on_commit_callbacks(execute=True):  # the old file goes once the new one is committed
        assert quote_pdf_render(quote_id=quote.pk)
    quote.refresh_from_db()
    assert quote.pdf.name != first
    assert list(StoredFile.objects.values_list("name", flat=True)) == [quote.pdf.name]  # the old one deleted


def test_a_pdf_missing_from_the_store_is_rendered_again_not_a_500(
    database_store: None,
    make_quote: Callable[..., Quote],
    customer_user: User,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """A quote whose file the store does not have (rendered before FILE_STORE was switched, or lost) answers
    409 `pdf_not_ready` and is queued again; the next download is the new PDF."""
    quote = _ready(make_quote())
    StoredFile.objects.filter(name=quote.pdf.name).delete()
    api = APIClient()
    api.force_authenticate(customer_user)
    url = f"/api/v1/quotes/{quote.number}/pdf/"

    lost = quote.pdf.name
    with django_capture_on_commit_callbacks(execute=True):  # the queued render runs in process (eager)
        missing = api.get(url)
    assert missing.status_code == 409
    assert missing.json()["error"]["code"] == "pdf_not_ready"
    assert missing.json()["error"]["fields"] == {"render_status": ["pending"]}
    quote.refresh_from_db()
    assert quote.render_status == "ready" and quote.pdf.name != lost

    again = api.get(url)
    assert again.status_code == 200
    assert b"".join(again.streaming_content) == bytes(StoredFile.objects.get(name=quote.pdf.name).content)  # type: ignore[attr-defined]

    page = Client()
    page.force_login(customer_user)
    StoredFile.objects.all().delete()
    assert page.get(reverse("quotes:pdf", args=[quote.number])).status_code == 404  # the page: "not ready yet"
    assert Quote.objects.get(pk=quote.pk).render_status in ("pending", "ready")
