"""Quote arithmetic: per-line rounding half-up to kopecks, VAT 22 % on the net, discounts, optional lines."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest

from accounts.models import User
from catalog.specs import catalog_snapshot
from quotes.models import Quote
from quotes.pricing import line_total, totals, unit_price

D = Decimal


def test_unit_price_rounds_half_up_to_kopecks() -> None:
    assert unit_price(D("0.05"), D("50")) == D("0.03")  # 0.025 → 0.03 (banker's rounding would give 0.02)
    assert unit_price(D("0.15"), D("50")) == D("0.08")  # 0.075 → 0.08
    assert unit_price(D("990000.00"), D("0")) == D("990000.00")
    assert unit_price(D("990000.00"), D("12.5")) == D("866250.00")
    assert unit_price(D("100.00"), D("100")) == D("0.00")


def test_line_total_is_the_rounded_unit_price_times_qty() -> None:
    # 10.01 less 12.5 % = 8.75875 → 8.76 per unit; 7 units = 61.32 (rounding the product would give 61.31)
    assert unit_price(D("10.01"), D("12.5")) == D("8.76")
    assert line_total(D("10.01"), 7, D("12.5")) == D("61.32")
    assert line_total(D("45000.00"), 8, D("0")) == D("360000.00")


def test_vat_is_22_percent_of_the_net_rounded_once() -> None:
    result = totals([(D("100.05"), False)], D("22"))
    assert (result.net, result.vat, result.gross) == (D("100.05"), D("22.01"), D("122.06"))
    # three lines of 0.07: VAT on the net 0.21 is 0.0462 → 0.05 (per-line VAT would give 3 × 0.02 = 0.06)
    result = totals([(D("0.07"), False)] * 3, D("22"))
    assert (result.net, result.vat, result.gross) == (D("0.21"), D("0.05"), D("0.26"))
    result = totals([(D("0.25"), False)], D("22"))  # 0.055 → 0.06, half-up
    assert result.vat == D("0.06")


def test_optional_lines_are_left_out_of_the_totals() -> None:
    result = totals([(D("1000.00"), False), (D("500.00"), True), (D("250.50"), False)], D("22"))
    assert (result.net, result.vat, result.gross) == (D("1250.50"), D("275.11"), D("1525.61"))


def test_no_lines_make_zero_totals() -> None:
    result = totals([], D("22"))
    assert (result.net, result.vat, result.gross) == (D("0.00"), D("0.00"), D("0.00"))


@pytest.mark.django_db
def test_quote_totals_from_the_catalog_prices(make_quote: Callable[..., Quote]) -> None:
    quote = make_quote()
    prices = {
        sku: spec.price
        for kind in ("chassis", "cpus", "gpus", "psus", "memory", "storage")
        for sku, spec in catalog_snapshot().kind(kind).items()
    }
    lines = list(quote.lines.order_by("position"))
    assert [(line.kind, line.sku, line.qty) for line in lines] == [
        ("chassis", "ws-tr-pro-2gpu-4u5", 1),
        ("cpus", "tr-pro-7975wx", 1),
        ("gpus", "rtx-pro-6000-blackwell-maxq", 2),
        ("psus", "psu-crps-2000w", 2),
        ("memory", "ddr5-rdimm-64gb", 8),
        ("storage", "nvme-4tb", 1),
    ]
    for line in lines:
        assert line.list_price == prices[line.sku]
        assert line.unit_price == prices[line.sku]
        assert line.line_total == prices[line.sku] * line.qty
        assert line.name and line.spec_summary
    expected_net = sum((prices[line.sku] * line.qty for line in lines), D(0))
    assert quote.net_total == expected_net
    assert quote.vat_percent == D("22")
    assert quote.vat_total == (expected_net * D("0.22")).quantize(D("0.01"))
    assert quote.gross_total == quote.net_total + quote.vat_total
    assert quote.currency == "RUB"


@pytest.mark.django_db
def test_quote_discount_applies_to_every_line_before_vat(
    make_quote: Callable[..., Quote], sales_user: User, customer_user: User
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user, discount_percent=D("7.5"))
    assert quote.discount_percent == D("7.50")
    net = D(0)
    for line in quote.lines.all():
        expected_unit = (line.list_price * D("0.925")).quantize(D("0.01"))
        assert line.discount_percent == D("7.50")
        assert line.unit_price == expected_unit
        assert line.line_total == expected_unit * line.qty
        net += line.line_total
    assert quote.net_total == net
    assert quote.vat_total == (net * D("0.22")).quantize(D("0.01"))
    assert quote.gross_total == net + quote.vat_total


@pytest.mark.django_db
def test_optional_lines_are_priced_but_kept_out_of_quote_totals(make_quote: Callable[..., Quote]) -> None:
    plain = make_quote()
    quote = make_quote(optional_lines=[{"sku": "nvme-8tb", "qty": 2}, {"sku": "nic-100g", "qty": 1}])
    optional = list(quote.lines.filter(optional=True).order_by("position"))
    assert [(line.sku, line.kind, line.qty, line.line_total) for line in optional] == [
        ("nvme-8tb", "storage", 2, D("170000.00")),
        ("nic-100g", "nics", 1, D("110000.00")),
    ]
    assert optional[0].position > quote.lines.filter(optional=False).count() - 1
    assert (quote.net_total, quote.vat_total, quote.gross_total) == (
        plain.net_total,
        plain.vat_total,
        plain.gross_total,
    )


@pytest.mark.django_db
def test_unknown_optional_sku_is_refused_with_the_field(make_quote: Callable[..., Quote]) -> None:
    from configurator.engine.errors import DomainError

    with pytest.raises(DomainError) as caught:
        make_quote(optional_lines=[{"sku": "no-such-part", "qty": 1}])
    assert caught.value.fields == {"optional_lines[0].sku": ["unknown or inactive SKU 'no-such-part'"]}
    assert Quote.objects.count() == 0


def test_spec_lines_spell_grades_and_interfaces_as_their_standards_do() -> None:
    """The catalog stores "titanium", "ddr5", "nvme", "u.2"; a quote line reads "80 PLUS Titanium", "DDR5", "NVMe, U.2"
    in both languages (the names are the standards' own, Russian catalogues write them the same way)."""
    from catalog.fixture import fixture_snapshot
    from quotes.pricing import spec_summaries

    snapshot = fixture_snapshot()
    psu = next(p for p in snapshot.psus.values() if p.efficiency == "titanium")
    memory = next(m for m in snapshot.memory.values() if m.memory_type == "ddr5")
    storage = next(s for s in snapshot.storage.values() if s.interface == "nvme" and s.form_factor == "u.2")
    for text in spec_summaries(psu):
        assert "80 PLUS Titanium" in text and "titanium" not in text
    for text in spec_summaries(memory):
        assert "DDR5" in text and "ddr5" not in text
    english, russian = spec_summaries(storage)
    assert "NVMe, U.2" in english and "NVMe, U.2" in russian
    assert "ТБ" in russian or "TB" in russian  # the unit is still there in either language
