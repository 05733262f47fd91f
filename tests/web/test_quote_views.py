"""Quote pages: the list and its filter, a quote with lines, totals, history and PDF, the polling box, the
download, and the actions — shown only to those allowed, and refused without change for everyone else."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from quotes import services
from quotes.models import Quote, QuoteEvent, RenderStatus
from tests.builds import GOOD_BUILD
from tests.web.conftest import HTMX, build

pytestmark = pytest.mark.django_db

ClientFor = Callable[[User | None], Client]


@pytest.fixture
def make_quote(catalog: None, django_capture_on_commit_callbacks: Any) -> Callable[..., Quote]:
    """A draft quote of GOOD_BUILD; its PDF is rendered (the on-commit task runs, eagerly)."""

    def make(owner: User, **kwargs: Any) -> Quote:
        kwargs.setdefault("created_by", owner)
        with django_capture_on_commit_callbacks(execute=True):
            return services.quote_create(customer=owner, payload=build(GOOD_BUILD), **kwargs)

    return make


def _state(quote: Quote) -> tuple[str, int, int]:
    fresh = Quote.objects.get(pk=quote.pk)
    return fresh.status, QuoteEvent.objects.filter(quote__number=quote.number).count(), Quote.objects.count()


def _buttons(body: str) -> set[str]:
    import re

    return set(re.findall(r'data-action="([a-z_]+)"', body))


def test_anonymous_visitors_are_sent_to_log_in(make_quote: Callable[..., Quote], customer_user: User) -> None:
    quote = make_quote(customer_user)
    for url in ("/quotes/", f"/quotes/{quote.number}", f"/quotes/{quote.number}/pdf"):
        response = Client().get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    before = _state(quote)
    assert Client().post(f"/quotes/{quote.number}/send").status_code == 302
    assert _state(quote) == before


def test_customers_list_their_own_quotes_and_sales_list_all(
    make_quote: Callable[..., Quote],
    customer_user: User,
    other_customer: User,
    sales_user: User,
    client_for: ClientFor,
) -> None:
    mine, theirs = make_quote(customer_user), make_quote(other_customer)
    body = client_for(customer_user).get("/quotes/").content.decode()
    assert mine.number in body and theirs.number not in body
    everything = client_for(sales_user).get("/quotes/").content.decode()
    assert mine.number in everything and theirs.number in everything
    assert "Черновик" in everything


def test_the_status_filter(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    draft, sent = make_quote(customer_user), make_quote(customer_user)
    services.quote_send(quote=sent, user=sales_user)
    client = client_for(customer_user)
    only_sent = client.get("/quotes/", {"status": "sent"}).content.decode()
    assert sent.number in only_sent and draft.number not in only_sent
    bad = client.get("/quotes/", {"status": "nonsense"})
    assert bad.status_code == 200
    assert "Выберите корректный вариант." in bad.content.decode()


def test_a_quote_page_shows_lines_totals_history_and_the_pdf(
    make_quote: Callable[..., Quote], customer_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    quote.refresh_from_db()
    assert quote.render_status == RenderStatus.READY
    body = client_for(customer_user).get(f"/quotes/{quote.number}").content.decode()
    assert f"КП {quote.number}" in body
    assert body.count("<tr") == 1 + 6  # header + chassis, CPU, GPUs, PSUs, memory, storage
    assert "Итого с НДС" in body and "4\u00a0035\u00a0760,00\u00a0₽" in body
    assert "КП создано" in body and "PDF готов" in body
    assert f'href="/quotes/{quote.number}/pdf?revision=1"' in body
    assert "hx-trigger" not in body.split('id="pdf-status"')[1].split(">")[0]


def test_the_pdf_box_polls_while_rendering_and_stops_when_ready(
    make_quote: Callable[..., Quote], customer_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    Quote.objects.filter(pk=quote.pk).update(render_status=RenderStatus.GENERATING)
    client = client_for(customer_user)
    pending = client.get(f"/quotes/{quote.number}/pdf-status", {"revision": 1}, headers=HTMX).content.decode()
    assert 'hx-trigger="every 2s"' in pending
    assert "<progress" in pending and "формируется" in pending
    assert "data-pdf-link" not in pending
    Quote.objects.filter(pk=quote.pk).update(render_status=RenderStatus.READY)
    ready = client.get(f"/quotes/{quote.number}/pdf-status", {"revision": 1}, headers=HTMX).content.decode()
    assert "hx-trigger" not in ready
    assert "data-pdf-link" in ready


def test_the_pdf_download(
    make_quote: Callable[..., Quote], customer_user: User, other_customer: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    response = client_for(customer_user).get(f"/quotes/{quote.number}/pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert f'filename="{quote.number}-R1.pdf"' in response["Content-Disposition"]
    assert b"".join(response.streaming_content).startswith(b"%PDF")  # type: ignore[attr-defined]
    assert client_for(other_customer).get(f"/quotes/{quote.number}/pdf").status_code == 404
    Quote.objects.filter(pk=quote.pk).update(render_status=RenderStatus.PENDING)
    assert client_for(customer_user).get(f"/quotes/{quote.number}/pdf").status_code == 404


def test_another_customers_quote_is_404_and_shows_nothing_of_it(
    make_quote: Callable[..., Quote], customer_user: User, other_customer: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    client = client_for(other_customer)
    for url in (f"/quotes/{quote.number}", f"/quotes/{quote.number}/pdf-status", f"/quotes/{quote.number}?revision=1"):
        response = client.get(url)
        body = response.content.decode()
        assert response.status_code == 404
        assert "alice" not in body and "Итого" not in body and "data-pdf-link" not in body
    assert "Не найдено" in client.get(f"/quotes/{quote.number}").content.decode()


def test_buttons_follow_role_and_status(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    customer, sales = client_for(customer_user), client_for(sales_user)
    # a draft's services are chosen by its customer and by sales (issue 37 item 3)
    assert _buttons(customer.get(f"/quotes/{quote.number}").content.decode()) == {
        "submit",
        "refresh_prices",
        "services",
    }
    assert _buttons(sales.get(f"/quotes/{quote.number}").content.decode()) == {
        "services",
        "submit",
        "send",
        "refresh_prices",
        "discount",  # a draft's discount, within the sales engineer's limit (issue 16)
    }
    services.quote_send(quote=quote, user=sales_user)
    assert _buttons(customer.get(f"/quotes/{quote.number}").content.decode()) == {"accept", "reject"}
    assert _buttons(sales.get(f"/quotes/{quote.number}").content.decode()) == {"revise"}


def test_a_customer_cannot_send_their_own_quote(
    make_quote: Callable[..., Quote], customer_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    before = _state(quote)
    client = client_for(customer_user)
    response = client.post(f"/quotes/{quote.number}/send", {"revision": 1}, follow=True)
    assert response.status_code == 200
    assert "У вас нет прав на это действие." in response.content.decode()
    assert _state(quote) == before


def test_another_customer_cannot_act_on_a_quote(
    make_quote: Callable[..., Quote],
    customer_user: User,
    other_customer: User,
    sales_user: User,
    client_for: ClientFor,
) -> None:
    quote = make_quote(customer_user)
    services.quote_send(quote=quote, user=sales_user)
    before = _state(quote)
    client = client_for(other_customer)
    for action in ("accept", "reject", "send", "revise", "refresh_prices"):
        assert client.post(f"/quotes/{quote.number}/{action}", {"revision": 1}).status_code == 404
    assert _state(quote) == before


def test_sales_cannot_accept_for_the_customer(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    services.quote_send(quote=quote, user=sales_user)
    before = _state(quote)
    body = client_for(sales_user).post(f"/quotes/{quote.number}/accept", follow=True).content.decode()
    assert "У вас нет прав на это действие." in body
    assert _state(quote) == before


def test_an_unknown_action_is_404_and_get_is_refused(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    client = client_for(sales_user)
    assert client.post(f"/quotes/{quote.number}/delete").status_code == 404
    assert client.get(f"/quotes/{quote.number}/send").status_code == 405
    assert Quote.objects.get(pk=quote.pk).status == "draft"


def test_send_accept_and_the_history(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    sent = client_for(sales_user).post(f"/quotes/{quote.number}/send", {"revision": 1}, follow=True)
    assert "КП отправлено заказчику." in sent.content.decode()
    assert Quote.objects.get(pk=quote.pk).status == "sent"
    accepted = client_for(customer_user).post(f"/quotes/{quote.number}/accept", {"revision": 1}, follow=True)
    body = accepted.content.decode()
    assert "Вы приняли предложение." in body
    assert "Отправлено → Принято" in body
    assert Quote.objects.get(pk=quote.pk).status == "accepted"


def test_reject_with_a_reason(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    services.quote_send(quote=quote, user=sales_user)
    client_for(customer_user).post(f"/quotes/{quote.number}/reject", {"revision": 1, "reason": "дорого"})
    event = QuoteEvent.objects.filter(quote=quote, type="status_changed").last()
    assert event is not None and event.data["to"] == "rejected" and event.data["reason"] == "дорого"


def test_revise_with_a_discount_makes_r2_and_leaves_r1_readable(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    services.quote_send(quote=quote, user=sales_user)
    client = client_for(sales_user)
    response = client.post(f"/quotes/{quote.number}/revise", {"revision": 1, "discount_percent": "5"})
    assert response.status_code == 302 and response["Location"] == f"/quotes/{quote.number}"
    latest = Quote.objects.get(number=quote.number, revision=2)
    assert latest.discount_percent == Decimal("5.00") and latest.status == "draft"
    old = client.get(f"/quotes/{quote.number}?revision=1").content.decode()
    assert "Это прежняя редакция." in old
    assert _buttons(old) == set()


def test_a_bad_discount_is_refused_without_change(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    services.quote_send(quote=quote, user=sales_user)
    before = _state(quote)
    body = client_for(sales_user).post(
        f"/quotes/{quote.number}/revise", {"revision": 1, "discount_percent": "150"}, follow=True
    )
    assert "Введены некорректные данные." in body.content.decode()
    assert _state(quote) == before


def test_acting_on_an_old_revision_is_refused(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    quote = make_quote(customer_user)
    services.quote_send(quote=quote, user=sales_user)
    services.quote_revise(quote=quote, user=sales_user)
    before = _state(quote)
    body = client_for(customer_user).post(f"/quotes/{quote.number}/accept", {"revision": 1}, follow=True)
    assert "В текущем статусе КП это действие недоступно." in body.content.decode()
    assert _state(quote) == before


def test_the_quote_page_names_the_model_and_precision_as_the_form_did(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    """A customer trial (issue 37): the quote's "sized for" panel read "llama-3.1-8b" and "q4_k_m" — the slug
    and the stored value — where the workload form had shown "Llama 3.1 8B" and "Q4_K_M"."""
    import re

    from configurator.engine.models_library import model_library

    payload = {**build(GOOD_BUILD), "workload": {"model": "llama-3.1-8b", "task": "inference", "precision": "q4_k_m"}}
    quote = services.quote_create(customer=customer_user, created_by=customer_user, payload=payload)
    body = client_for(customer_user).get(f"/quotes/{quote.number}").content.decode()
    facts = body.split("data-quote-facts", 1)[1].split("</section>", 1)[0]
    text = re.sub(r"<[^>]+>", " ", facts)
    assert model_library()["llama-3.1-8b"].name in text and "Q4_K_M" in text
    assert "llama-3.1-8b" not in text and "q4_k_m" not in text
