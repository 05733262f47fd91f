"""The quote PDF (ReportLab + DejaVu Sans): the text pypdf extracts carries the number, every SKU, the
gross total and Russian words intact; the render task stores it once, with its SHA-256."""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.utils import translation
from pypdf import PdfReader

from accounts.models import User
from configurator.labels import FINDING_TITLES
from quotes import services
from quotes.models import Quote, QuoteEvent
from quotes.pdf import format_money, render_quote_pdf
from quotes.tasks import quote_render


def _text(pdf: bytes) -> str:
    reader = PdfReader(io.BytesIO(pdf))
    return re.sub(r"\s+", " ", " ".join(page.extract_text() or "" for page in reader.pages))


def test_money_is_formatted_as_on_the_page_in_each_language() -> None:
    from decimal import Decimal

    from configurator.wording import num

    with translation.override("ru"):
        assert format_money(Decimal("1234567.8")) == "1\xa0234\xa0567,80"
        assert format_money(Decimal("990000")) == "990\xa0000,00"
        assert format_money(Decimal("0.05")) == "0,05"
        assert format_money(Decimal("1234567.8")) == num(Decimal("1234567.8"), 2)
    with translation.override("en"):
        assert format_money(Decimal("1234567.8")) == "1,234,567.80"


@pytest.mark.django_db
def test_pdf_text_has_number_skus_total_and_russian(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    quote = make_quote(
        customer=customer_user,
        created_by=sales_user,
        discount_percent=3,
        optional_lines=[{"sku": "nvme-8tb", "qty": 1}],
    )
    pdf = render_quote_pdf(quote)
    assert pdf.startswith(b"%PDF-")
    text = _text(pdf)
    assert quote.number in text
    for sku in quote.lines.values_list("sku", flat=True):
        assert sku in text, sku
    with translation.override("ru"):  # the document's language: numbers as the Russian page shows them
        assert format_money(quote.gross_total).replace("\xa0", " ") in text
        assert format_money(quote.net_total).replace("\xa0", " ") in text
    for russian in (
        "Коммерческое предложение",
        "Всего с НДС",
        "НДС 22 %",
        "Итого без НДС",
        "Заказчик",
        "ООО Нейросеть, Алиса Иванова",
        "Дополнительные опции (не входят в итог)",
        "дней с даты отправки",
        "Предложение не является публичной офертой",
    ):
        assert russian in text, russian
    fonts = {
        str(font["/BaseFont"])
        for page in PdfReader(io.BytesIO(pdf)).pages
        for font in page["/Resources"]["/Font"].values()  # type: ignore[index]
    }
    assert {name.split("+")[-1] for name in fonts} == {"DejaVuSans", "DejaVuSans-Bold"}, fonts  # subsets, nothing else


@pytest.mark.django_db
def test_pdf_lists_acknowledged_warnings(catalog: None, customer_user: User) -> None:
    from tests.builds import WARNING_BUILD

    quote = services.quote_create(
        customer=customer_user, created_by=customer_user, payload=WARNING_BUILD, acknowledge_warnings=True
    )
    warnings = [f for f in quote.verdict["findings"] if f["severity"] == "warning"]
    assert warnings
    text = _text(render_quote_pdf(quote))
    assert "предупреждения приняты заказчиком" in text
    for finding in warnings:  # each by its Russian title, not its rule code
        with translation.override("ru"):
            title = str(FINDING_TITLES[finding["code"]])
        assert title in text
        assert finding["code"] not in text


@pytest.mark.django_db
def test_render_task_stores_the_pdf_once_with_its_sha256(make_quote: Callable[..., Quote], settings: Any) -> None:
    quote = make_quote()
    assert quote.render_status == "pending"
    quote_render.apply(args=(quote.pk,))
    quote.refresh_from_db()
    assert quote.render_status == "ready"
    assert quote.render_attempts == 1
    data = quote.pdf.read()
    quote.pdf.close()
    assert hashlib.sha256(data).hexdigest() == quote.pdf_sha256
    assert quote.number in _text(data)

    # a repeated delivery finds the quote claimed/ready and does nothing
    quote_render.apply(args=(quote.pk,))
    quote.refresh_from_db()
    assert quote.render_attempts == 1
    assert QuoteEvent.objects.filter(quote=quote, type="pdf_ready").count() == 1
    stored = list((settings.MEDIA_ROOT and __import__("pathlib").Path(settings.MEDIA_ROOT)).rglob("*.pdf"))
    assert [path.name for path in stored] == [f"{quote.number}-R1-1.pdf"]


@pytest.mark.django_db
def test_render_is_queued_on_commit_and_runs_in_process_without_a_broker(
    catalog: None, customer_user: User, django_capture_on_commit_callbacks: Any
) -> None:
    from tests.builds import GOOD_BUILD

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        quote = services.quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD)
    assert len(callbacks) == 1
    quote.refresh_from_db()
    assert quote.render_status == "ready" and quote.render_queued_at is not None


@pytest.mark.django_db
def test_a_failing_render_is_marked_failed_and_retried_by_the_sweep(
    make_quote: Callable[..., Quote], monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import timedelta

    quote = make_quote()

    def broken(_: Quote) -> bytes:
        raise ValueError("template bug")

    monkeypatch.setattr("quotes.pdf.render_quote_pdf", broken)
    result = quote_render.apply(args=(quote.pk,))
    assert isinstance(result.result, ValueError)
    quote.refresh_from_db()
    assert (quote.render_status, quote.render_attempts) == ("failed", 1)
    assert "template bug" in quote.render_error
    assert QuoteEvent.objects.filter(quote=quote, type="pdf_failed").count() == 1

    monkeypatch.undo()
    report = services.quotes_sweep_stuck(older_than=timedelta(0))  # eager: re-queue renders in process
    assert report.requeued == (quote.pk,)
    quote.refresh_from_db()
    assert (quote.render_status, quote.render_attempts) == ("ready", 2)


@pytest.mark.django_db
def test_sending_emails_the_customer_with_the_pdf(
    make_quote: Callable[..., Quote],
    customer_user: User,
    sales_user: User,
    django_capture_on_commit_callbacks: Any,
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user)
    quote_render.apply(args=(quote.pk,))
    with django_capture_on_commit_callbacks(execute=True):
        services.quote_send(quote=quote, user=sales_user)
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [customer_user.email]
    assert quote.number in message.subject
    (name, content, mimetype) = message.attachments[0]
    quote.refresh_from_db()
    assert (name, mimetype) == (f"{quote.number}-R1.pdf", "application/pdf")
    assert hashlib.sha256(content).hexdigest() == quote.pdf_sha256
    assert QuoteEvent.objects.filter(quote=quote, type="emailed").count() == 1
    # the sweep does not e-mail twice
    services.quotes_sweep_stuck()
    assert len(mail.outbox) == 1


@pytest.mark.django_db
def test_a_quote_sent_before_its_pdf_is_ready_is_emailed_when_it_is(
    make_quote: Callable[..., Quote],
    customer_user: User,
    sales_user: User,
    django_capture_on_commit_callbacks: Any,
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.quote_send(quote=quote, user=sales_user)
    quote.refresh_from_db()
    assert quote.render_status == "pending"  # sent: the PDF is made again, with its validity as a date
    for callback in callbacks[1:]:  # the e-mail first: it waits for the render …
        callback()
    assert mail.outbox == []
    callbacks[0]()  # … which (eager here) e-mails the new PDF once it is stored
    assert len(mail.outbox) == 1
    [(_, content, _)] = mail.outbox[0].attachments
    quote.refresh_from_db()
    valid_until = quote.valid_until.astimezone().strftime("%d.%m.%Y") if quote.valid_until else "missing"
    assert f"до {valid_until}" in _text(content) and "с даты отправки" not in _text(content)
