"""The quotes admin: lines and events inline; status never edited by hand; read-only once sent."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import User
from quotes import services
from quotes.models import Quote


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
