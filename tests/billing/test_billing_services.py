"""Invoice, payments, УПД and margin of a real order (billing/services.py, billing/selectors.py)."""

from __future__ import annotations

import datetime as dt
import io
import re
from decimal import Decimal

import pytest
from pypdf import PdfReader

from accounts.models import User
from billing import services
from billing.models import InvoiceStatus
from billing.pdf import invoice_pdf, rub, upd_pdf
from billing.selectors import margin_of
from configurator.engine.errors import Conflict, Forbidden, InvalidInput
from finance.models import ExchangeRate, VatRate
from orders import services as order_services
from orders.models import Order
from tests import factories
from tests.billing.conftest import USD_GPU_PRICE

pytestmark = pytest.mark.django_db
D = Decimal


def _text(pdf: bytes) -> str:
    """The PDF's text with no-break spaces read as spaces (the thousands separator of `rub`)."""
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages).replace("\xa0", " ")


def _money(value: Decimal) -> str:
    return rub(value).replace("\xa0", " ")


def _ship(order: Order, user: User) -> None:
    for status in ("parts_ordered", "assembling", "burn_in", "shipped"):
        order_services.order_advance(order=order, to=status, user=user)


def test_the_invoice_copies_the_order_and_agrees_with_it_to_the_kopeck(order: Order, sales_user: User) -> None:
    invoice, created = services.invoice_create(order=order, user=sales_user)
    assert created
    assert re.fullmatch(r"INV-2026-\d{6}", invoice.number)
    assert invoice.vat_percent == D(22)  # in force on 03.12.2026 (finance migration 0001: 22 % from 01.01.2026)
    assert (invoice.net_total, invoice.vat_total, invoice.gross_total) == (
        order.net_total, order.vat_total, order.gross_total,
    )  # fmt: skip
    lines = list(invoice.lines.order_by("position"))
    assert [(line.sku, line.qty, line.line_total) for line in lines] == [
        (line.sku, line.qty, line.line_total) for line in order.lines.order_by("position")
    ]
    assert sum(line.vat for line in lines) == invoice.vat_total
    assert sum(line.gross for line in lines) == invoice.gross_total
    again, created_again = services.invoice_create(order=order, user=sales_user)
    assert (again.pk, created_again) == (invoice.pk, False)
    text = _text(invoice_pdf(invoice))
    assert f"Счёт на оплату № {invoice.number}" in text
    assert _money(invoice.gross_total) in text
    for detail in ("044500000", "40702810000000000001", "30101810000000000000", "7700000000"):  # SAMPLE_SELLER
        assert detail in text
    assert re.search(r"(рубль|рубля|рублей) \d\d (копейка|копейки|копеек)", text)


def test_the_vat_rate_is_the_one_in_force_on_the_invoice_date(order: Order, sales_user: User) -> None:
    VatRate.objects.create(valid_from=dt.date(2027, 1, 1), percent=D(25), note="a made-up change, for the test")
    invoice, _ = services.invoice_create(order=order, user=sales_user, day=dt.date(2027, 1, 11))
    assert invoice.vat_percent == D(25)
    assert invoice.net_total == order.net_total
    assert invoice.vat_total == (order.net_total * D("0.25")).quantize(D("0.01"))
    assert invoice.gross_total == invoice.net_total + invoice.vat_total


def test_only_sales_issue_invoices(order: Order, customer_user: User) -> None:
    with pytest.raises(Forbidden):
        services.invoice_create(order=order, user=customer_user)


def test_prepayment_partial_payment_and_the_rest(order: Order, sales_user: User) -> None:
    invoice, _ = services.invoice_create(order=order, user=sales_user)
    prepaid = (invoice.gross_total * D("0.3")).quantize(D("0.01"))
    first = services.payment_record(invoice=invoice, amount=prepaid, user=sales_user, reference="п/п 17")
    invoice.refresh_from_db()
    assert (first.prepayment, invoice.status, invoice.paid_total) == (True, InvoiceStatus.PARTLY_PAID, prepaid)
    with pytest.raises(InvalidInput) as too_much:
        services.payment_record(invoice=invoice, amount=invoice.gross_total - prepaid + D("0.01"), user=sales_user)
    assert "amount" in too_much.value.fields
    with pytest.raises(InvalidInput):
        services.payment_record(invoice=invoice, amount=D("-5"), user=sales_user)
    _ship(order, sales_user)
    rest = services.payment_record(invoice=invoice, amount=invoice.gross_total - prepaid, user=sales_user)
    invoice.refresh_from_db()
    assert (rest.prepayment, invoice.status, invoice.paid_total) == (False, InvoiceStatus.PAID, invoice.gross_total)
    assert sum(p.amount for p in invoice.payments.all()) == invoice.gross_total


def test_the_upd_is_made_on_shipment_with_the_invoice_totals(order: Order, sales_user: User) -> None:
    invoice, _ = services.invoice_create(order=order, user=sales_user)
    with pytest.raises(Conflict) as early:
        services.upd_create(order=order, user=sales_user)
    assert "order" in early.value.fields
    _ship(order, sales_user)
    upd, created = services.upd_create(order=order, user=sales_user)
    assert created and re.fullmatch(r"UPD-2026-\d{6}", upd.number)
    totals = (invoice.net_total, invoice.vat_total, invoice.gross_total)
    assert (upd.net_total, upd.vat_total, upd.gross_total) == totals
    assert sum(line.vat for line in upd.lines.all()) == upd.vat_total
    text = _text(upd_pdf(upd))
    assert "Статус: 1" in text and upd.number in text and _money(upd.vat_total) in text


def test_margin_equals_a_hand_calculation(order: Order, sales_user: User) -> None:
    services.service_cost_add(order=order, description="Доставка курьером", amount_rub=D("3500.00"), user=sales_user)
    usd = ExchangeRate.objects.get(currency="USD", date=dt.date(2026, 12, 3)).rub_per_unit  # the CBR sample
    purchases = list(order.purchases.all())
    gpu_lines = [p for p in purchases if p.currency == "USD"]
    rub_lines = [p for p in purchases if p.currency == "RUB"]
    assert gpu_lines and rub_lines, "the plan should buy from both suppliers"
    gpus = sum(p.qty for p in gpu_lines)
    expected_purchase = sum((p.unit_price * p.qty for p in rub_lines), D(0)) + (USD_GPU_PRICE * gpus * usd).quantize(
        D("0.01")
    )
    result = margin_of(user=sales_user, order=order)
    assert result.purchase_cost == expected_purchase
    assert result.margin == order.net_total - expected_purchase - D("3500.00")
    assert result.complete
    with pytest.raises(Forbidden):
        margin_of(user=factories.catalog_staff(username="cat"), order=order)


def test_the_1c_export_of_real_invoices_validates(order: Order, sales_user: User) -> None:
    from lxml import etree

    from billing.exchange import export_catalog, export_documents
    from billing.models import Invoice
    from tests.billing.test_commerceml import schema

    invoice, _ = services.invoice_create(order=order, user=sales_user)
    invoices = list(Invoice.objects.select_related("order__owner"))
    documents, catalog = export_documents(invoices), export_catalog(invoices)
    for xml in (documents, catalog):
        assert schema().validate(etree.fromstring(xml)), schema().error_log
    root = etree.fromstring(documents)
    ns = {"c": "urn:1C.ru:commerceml_2"}
    assert root.xpath("string(c:Документ/c:Номер)", namespaces=ns) == invoice.number
    assert D(root.xpath("string(c:Документ/c:Сумма)", namespaces=ns)) == invoice.gross_total
    line_sums = root.xpath("c:Документ/c:Товары/c:Товар/c:Сумма/text()", namespaces=ns)
    assert sum(D(value) for value in line_sums) == invoice.net_total
    skus = etree.fromstring(catalog).xpath("//c:Товар/c:Артикул/text()", namespaces=ns)
    assert sorted(skus) == sorted({line.sku for line in order.lines.all()})


def test_margin_takes_each_purchase_orders_rate_and_the_plan_only_for_lines_on_none(
    order: Order, sales_user: User
) -> None:
    """The purchase orders are made on 03.12.2026 at the CBR's USD 78.2235 (finance/fixtures/
    cbr_daily_sample.xml); then the day's USD rate is changed to 90.0000 (a made-up later rate). By hand:
    supplier B's PO: 2 GPUs × 8,950.00 USD = 17,900.00 USD × 78.2235 = 1,400,200.65 RUB; supplier A's PO: 13
    parts × 1,000.00 RUB = 13,000.00 RUB (tests/billing/conftest.py). Cancelling B's PO sends its GPUs back
    to the plan at today's 90.0000: 17,900.00 × 90 = 1,611,000.00 RUB."""
    from orders import purchasing

    pos, created = purchasing.purchase_orders_create(order=order, user=sales_user)
    assert created and len(pos) == 2
    ExchangeRate.objects.filter(currency="USD", date=dt.date(2026, 12, 3)).update(rub_per_unit=D("90.0000"))

    result = margin_of(user=sales_user, order=order)
    assert result.purchase_cost == D("1400200.65") + D("13000.00")
    assert result.margin == order.net_total - D("1413200.65")
    assert result.complete

    usd_po = next(po for po in pos if po.currency == "USD")
    purchasing.po_transition(po=usd_po, to="cancelled", user=sales_user)
    assert margin_of(user=sales_user, order=order).purchase_cost == D("1611000.00") + D("13000.00")


def test_cancelling_the_order_cancels_its_unpaid_invoice(order: Order, sales_user: User) -> None:
    invoice, _ = services.invoice_create(order=order, user=sales_user)
    order_services.order_advance(order=order, to="cancelled", user=sales_user)
    invoice.refresh_from_db()
    assert (invoice.status, invoice.note) == (InvoiceStatus.CANCELLED, services.NOTE_CANCELLED)
    assert order.events.filter(type="invoice_cancelled", data__invoice=invoice.number).exists()
    with pytest.raises(Conflict) as refused:
        services.payment_record(invoice=invoice, amount=D("1.00"), user=sales_user)
    assert "invoice" in refused.value.fields


@pytest.mark.parametrize("share", [D("0.3"), D("1")], ids=["prepaid", "paid"])
def test_cancelling_the_order_keeps_an_invoice_with_money_on_it_and_notes_the_refund(
    order: Order, sales_user: User, share: Decimal
) -> None:
    invoice, _ = services.invoice_create(order=order, user=sales_user)
    paid = (invoice.gross_total * share).quantize(D("0.01"))
    services.payment_record(invoice=invoice, amount=paid, user=sales_user)
    invoice.refresh_from_db()
    status_before = invoice.status
    order_services.order_advance(order=order, to="cancelled", user=sales_user)
    invoice.refresh_from_db()
    assert invoice.status == status_before != InvoiceStatus.CANCELLED
    assert invoice.paid_total == paid
    assert (
        invoice.note
        == f"Заказ отменён после оплаты {paid:.2f} руб.: счёт сохранён, сумма подлежит возврату или зачёту."
    )
    assert order.events.filter(type="invoice_kept", data__invoice=invoice.number).exists()
