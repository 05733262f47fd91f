"""Quotes keep the prices of the moment they were made: a catalog price change leaves an issued quote as it
was; `refresh_prices` re-prices a draft on purpose and records old and new prices."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest

from accounts.models import User
from catalog.models import Gpu, Psu
from configurator.engine.errors import ConflictError
from quotes import services
from quotes.models import Quote, QuoteEvent

GPU = "rtx-pro-6000-blackwell-maxq"


def _raise_gpu_price(new_price: str) -> Decimal:
    gpu = Gpu.objects.get(sku=GPU)
    old = gpu.list_price
    gpu.list_price = Decimal(new_price)
    gpu.name = "NVIDIA RTX PRO 6000 Blackwell Max-Q (new name)"
    gpu.save()
    return old


def _retire(sku: str) -> None:
    psu = Psu.objects.get(sku=sku)
    psu.is_active = False
    psu.save()  # save(), not update(): the catalog snapshot notices changes through updated_at


def _frozen(quote: Quote) -> tuple[object, ...]:
    quote.refresh_from_db()
    lines = tuple(quote.lines.values_list("sku", "name", "qty", "list_price", "unit_price", "line_total"))
    return (quote.net_total, quote.vat_total, quote.gross_total, quote.status, quote.pdf_sha256, lines)


@pytest.mark.django_db
def test_an_issued_quote_does_not_change_when_the_catalog_does(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user)
    services.quote_send(quote=quote, user=sales_user)
    before = _frozen(quote)
    old_price = _raise_gpu_price("1234567.89")
    _retire("psu-crps-2000w")

    assert _frozen(quote) == before
    gpu_line = quote.lines.get(sku=GPU)
    assert gpu_line.list_price == old_price and gpu_line.name != "NVIDIA RTX PRO 6000 Blackwell Max-Q (new name)"
    with pytest.raises(ConflictError) as caught:
        services.quote_refresh_prices(quote=quote, user=sales_user)
    assert caught.value.code == "invalid_transition"
    assert _frozen(quote) == before
    assert not QuoteEvent.objects.filter(quote=quote, type="prices_refreshed").exists()


@pytest.mark.django_db
def test_a_new_quote_takes_the_new_price(make_quote: Callable[..., Quote]) -> None:
    first = make_quote()
    _raise_gpu_price("1000000.00")
    second = make_quote()
    assert first.lines.get(sku=GPU).list_price == Decimal("990000.00")
    assert second.lines.get(sku=GPU).list_price == Decimal("1000000.00")
    assert second.net_total - first.net_total == Decimal("20000.00")  # two GPUs, 10 000 more each
    assert second.number != first.number


@pytest.mark.django_db
def test_refresh_prices_reprices_a_draft_and_logs_old_and_new(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user, discount_percent=5)
    old_net = quote.net_total
    _raise_gpu_price("1100000.00")

    services.quote_refresh_prices(quote=quote, user=sales_user)
    quote.refresh_from_db()
    line = quote.lines.get(sku=GPU)
    assert (line.list_price, line.unit_price, line.line_total) == (
        Decimal("1100000.00"),
        Decimal("1045000.00"),
        Decimal("2090000.00"),
    )
    assert line.name == "NVIDIA RTX PRO 6000 Blackwell Max-Q (new name)"
    assert quote.net_total - old_net == Decimal("209000.00")  # 2 × 110 000 less 5 %
    assert quote.vat_total == (quote.net_total * Decimal("0.22")).quantize(Decimal("0.01"))
    event = QuoteEvent.objects.get(quote=quote, type="prices_refreshed")
    assert event.user == sales_user
    assert event.data["lines"] == [{"sku": GPU, "old": "990000.00", "new": "1100000.00", "qty": 2}]
    assert event.data["totals"]["old"]["net"] == str(old_net)
    assert event.data["totals"]["new"]["net"] == str(quote.net_total)
    assert quote.render_status == "pending"  # the PDF is made again with the new prices


@pytest.mark.django_db
def test_refresh_prices_refuses_parts_no_longer_sold(make_quote: Callable[..., Quote], customer_user: User) -> None:
    quote = make_quote()
    before = _frozen(quote)
    _retire("psu-crps-2000w")
    with pytest.raises(ConflictError) as caught:
        services.quote_refresh_prices(quote=quote, user=customer_user)
    assert caught.value.code == "sku_unavailable"
    assert caught.value.fields == {"lines[4].sku": ["psu-crps-2000w is no longer sold"]}
    assert _frozen(quote) == before


@pytest.mark.django_db
def test_refresh_prices_with_nothing_changed_keeps_the_pdf(
    make_quote: Callable[..., Quote], customer_user: User
) -> None:
    quote = make_quote()
    Quote.objects.filter(pk=quote.pk).update(render_status="ready")
    services.quote_refresh_prices(quote=quote, user=customer_user)
    quote.refresh_from_db()
    assert quote.render_status == "ready"
    assert QuoteEvent.objects.get(quote=quote, type="prices_refreshed").data["lines"] == []
