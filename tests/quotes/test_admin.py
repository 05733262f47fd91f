"""The quotes admin: lines and events inline; status never edited by hand; read-only once sent."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from pypdf import PdfReader

from accounts.models import User
from quotes import policy, services
from quotes.models import Quote, QuoteEventType, QuoteStatus, RenderStatus


@pytest.fixture
def admin_client_for(db: None) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pass-12345"))
    return client


@pytest.mark.django_db
def test_changelist_and_a_draft_show_lines_and_events(
    admin_client_for: Client, make_quote: Callable[..., Quote]
) -> None:
    quote = make_quote()
    assert admin_client_for.get("/admin/quotes/quote/").status_code == 200
    page = admin_client_for.get(f"/admin/quotes/quote/{quote.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "rtx-pro-6000-blackwell-maxq" in html and "created" in html
    assert 'name="terms"' in html  # a draft's terms may still be edited
    assert 'name="status"' not in html  # status changes only through the services
    assert admin_client_for.get("/admin/quotes/quote/add/").status_code == 403


@pytest.mark.django_db
def test_a_sent_quote_is_read_only(
    admin_client_for: Client, make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user)
    services.quote_send(quote=quote, user=sales_user)
    page = admin_client_for.get(f"/admin/quotes/quote/{quote.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="terms"' not in html and 'name="_save"' not in html
    response = admin_client_for.post(f"/admin/quotes/quote/{quote.pk}/change/", {"terms": "changed"})
    assert response.status_code == 403
    quote.refresh_from_db()
    assert quote.terms != "changed"
    assert admin_client_for.post(f"/admin/quotes/quote/{quote.pk}/delete/").status_code == 403


def _change_form(client: Client, quote: Quote, **changes: str) -> dict[str, object]:
    """The admin change form of `quote` as the browser would post it, with `changes`."""
    page = client.get(f"/admin/quotes/quote/{quote.pk}/change/")
    data: dict[str, object] = {"terms": quote.terms, **changes}
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        prefix = formset.prefix
        count = len(formset.forms)
        data |= {f"{prefix}-TOTAL_FORMS": count, f"{prefix}-INITIAL_FORMS": count}
        data |= {f"{prefix}-MIN_NUM_FORMS": 0, f"{prefix}-MAX_NUM_FORMS": 1000}
        for index, form in enumerate(formset.forms):
            data |= {f"{prefix}-{index}-id": form.instance.pk, f"{prefix}-{index}-quote": quote.pk}
    return data


@pytest.mark.django_db
def test_terms_edited_after_approval_take_the_quote_back_to_draft_with_an_event_and_a_new_pdf(
    admin_client_for: Client,
    make_quote: Callable[..., Quote],
    customer_user: User,
    sales_user: User,
    sales_lead: User,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Issue 38: after approval the sales engineer edited the terms in the admin with no event, and the
    customer's PDF kept the old terms."""
    settings.SALES_DISCOUNT_LIMIT_PERCENT = Decimal("10")
    with django_capture_on_commit_callbacks(execute=True):  # the renders queued on commit run (in process)
        quote = make_quote(customer=customer_user, created_by=sales_user, discount_percent=15)
        services.quote_submit(quote=quote, user=sales_user)
        services.quote_approve(quote=quote, user=sales_lead)
    quote.refresh_from_db()
    old_pdf = quote.pdf_sha256
    assert (quote.status, quote.render_status) == (QuoteStatus.APPROVED, RenderStatus.READY) and old_pdf

    new_terms = "Оплата 100 % вперёд; поставка 90 дней."
    form = _change_form(admin_client_for, quote, terms=new_terms)
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client_for.post(f"/admin/quotes/quote/{quote.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    quote.refresh_from_db()
    assert (quote.status, quote.terms, quote.approved_by, quote.submitted_by) == (
        QuoteStatus.DRAFT,
        new_terms,
        None,
        None,
    )
    events = list(quote.events.order_by("id").values_list("type", "data"))
    terms_event = next(data for kind, data in events if kind == QuoteEventType.TERMS_CHANGED)
    assert terms_event["terms"]["new"] == new_terms
    assert (
        "status_changed",
        {"from": "approved", "to": "draft", "reason": "the terms changed after approval"},
    ) in events
    assert quote.render_status == RenderStatus.READY and quote.pdf_sha256 != old_pdf  # made again (in process)
    text = "".join(page.extract_text() for page in PdfReader(quote.pdf.open("rb")).pages)
    assert "90 дней" in text
    # the editor now counts as having set the terms: the four eyes hold again
    superuser = User.objects.get(username="root")
    assert policy.approver_conflict(superuser, quote).endswith("last set its discount or terms.")
