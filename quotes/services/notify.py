"""E-mail to the customer: a sent quote with its PDF, once. The texts are templates in the quote's
language (templates/quotes/email/), Russian as the quotes themselves."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.utils import timezone, translation

from configurator.wording import CURRENCY_SIGNS, num
from quotes.models import Quote, QuoteEvent, QuoteEventType, QuoteStatus, RenderStatus

logger = logging.getLogger(__name__)

S = QuoteStatus
E = QuoteEventType


def quote_email_texts(quote: Quote) -> tuple[str, str]:
    """The subject and body of the e-mail that carries `quote` to its customer, in QUOTE_LANGUAGE."""
    with translation.override(settings.QUOTE_LANGUAGE):
        context = {  # numbers formatted as on the quote page and in the PDF (configurator.wording.num)
            "quote": quote,
            "revision": str(quote.revision),
            "gross_total": num(quote.gross_total, 2),
            "currency": CURRENCY_SIGNS.get(quote.currency, quote.currency),
            "customer_name": quote.owner.get_full_name() or quote.owner.username,
            "valid_until": timezone.localtime(quote.valid_until).strftime("%d.%m.%Y") if quote.valid_until else "—",
        }
        subject = render_to_string("quotes/email/quote_sent_subject.txt", context)
        body = render_to_string("quotes/email/quote_sent_body.txt", context)
    return " ".join(subject.split()), body.rstrip("\n") + "\n"


def quote_email_if_due(*, quote_id: int) -> bool:
    """E-mail a sent quote to its customer once, with the PDF attached; claimed with a conditional UPDATE
    on `emailed_at` so the send action, the render task and the sweep never e-mail twice."""
    now = timezone.now()
    if not Quote.objects.filter(
        pk=quote_id, status=S.SENT, render_status=RenderStatus.READY, emailed_at__isnull=True
    ).update(emailed_at=now):
        return False
    quote = Quote.objects.select_related("owner").get(pk=quote_id)
    try:
        subject, body = quote_email_texts(quote)
        message = EmailMessage(
            subject=subject, body=body, from_email=settings.DEFAULT_FROM_EMAIL, to=[quote.owner.email]
        )
        with quote.pdf.open("rb") as handle:
            message.attach(f"{quote.number}-R{quote.revision}.pdf", handle.read(), "application/pdf")
        message.send()
    except Exception as exc:
        logger.exception("quote %s: e-mail to the customer failed", quote.label)
        Quote.objects.filter(pk=quote_id, emailed_at=now).update(emailed_at=None)
        QuoteEvent.objects.create(quote_id=quote_id, type=E.EMAIL_FAILED, data={"error": repr(exc)[:500]})
        return False
    QuoteEvent.objects.create(
        quote_id=quote_id, type=E.EMAILED, data={"to": quote.owner.email, "sha256": quote.pdf_sha256}
    )
    return True
