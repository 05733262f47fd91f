"""From order to money against real PostgreSQL, Redis and a `celery worker` started by the test (issue 36
acceptance).

One walk: an accepted quote → an order planned by the worker → two purchase orders (supplier "it-r" in roubles,
"it-u" in US dollars at the CBR's rate of 03.12.2026, USD 78.2235, finance/fixtures/cbr_daily_sample.xml) → both
sent and e-mailed by the worker → a partial receipt with a serial number → the full receipts → assembly and
burn-in → the invoice → a prepayment → shipment with the УПД, the rest paid → delivered. Every document's
totals agree to the kopeck; the margin equals a hand calculation at each purchase order's rate (the day's USD
rate is changed after the purchase orders are made, so the plan's figure would differ); the 1C export of the
invoice and the three receipts validates against the CommerceML subset schema.

Prices (tests/integration/test_purchasing_postgres.py `_offers`, made up for the test): it-r sells every part
but the GPU at 1,000.00 RUB; it-u sells the GPU at 9,000.00 USD. By hand: it-u's purchase order 2 × 9,000.00 =
18,000.00 USD × 78.2235 = 1,408,023.00 RUB; it-r's 13 parts × 1,000.00 = 13,000.00 RUB; purchase cost
1,421,023.00 RUB; a courier at 3,500.00 RUB (made up) is the service cost.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from decimal import Decimal

import pytest

from tests.integration.services import require_real_services

require_real_services()

from django.contrib.auth.models import Group  # noqa: E402
from django.utils import timezone  # noqa: E402
from lxml import etree  # noqa: E402
from pypdf import PdfReader  # noqa: E402

from accounts.models import User  # noqa: E402
from billing import services as billing  # noqa: E402
from billing.exchange import export_documents, receipts_for_export  # noqa: E402
from billing.models import Invoice, InvoiceStatus  # noqa: E402
from billing.pdf import rub, upd_pdf  # noqa: E402
from billing.selectors import margin_of  # noqa: E402
from config.celery import app  # noqa: E402
from finance.cbr import cbr_store  # noqa: E402
from finance.models import ExchangeRate  # noqa: E402
from orders import purchasing  # noqa: E402
from orders import services as order_services  # noqa: E402
from orders.models import Order, OrderEvent, OrderStatus, PurchaseOrder, PurchaseOrderLine, ReceivedSerial  # noqa: E402
from orders.po_documents import delivery_note_pdf  # noqa: E402
from orders.purchasing import ReceiptLineInput  # noqa: E402
from orders.services import order_place  # noqa: E402
from quotes import services as quote_services  # noqa: E402
from tests import factories  # noqa: E402
from tests.billing.test_commerceml import schema  # noqa: E402
from tests.builds import GOOD_BUILD  # noqa: E402
from tests.integration.test_purchasing_postgres import GPU, SAMPLE_RATES, _offers, _serials  # noqa: E402
from tests.integration.test_quotes_worker import Worker, queue_worker, wait_idle  # noqa: E402
from tests.security.live import wait_for  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

RUN_ID = uuid.uuid4().hex[:8]
QUEUE = f"money-it-{RUN_ID}"
SINK_QUEUE = f"money-it-{RUN_ID}-sink"  # quote renders: no worker reads it (as test_orders_worker.py)
D = Decimal
NS = {"c": "urn:1C.ru:commerceml_2"}
USD_PO_RUB, RUB_PO_RUB, COURIER = D("1408023.00"), D("13000.00"), D("3500.00")


@pytest.fixture(scope="module")
def worker(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    yield from queue_worker(QUEUE, SINK_QUEUE, tmp_path_factory.mktemp("money-worker"))


@pytest.fixture
def idle_worker(transactional_db: None, worker: Worker) -> Iterator[Worker]:
    yield worker
    wait_idle([worker])


@pytest.fixture
def people(catalog: None) -> dict[str, User]:
    for name in ("customers", "sales", "catalog"):
        Group.objects.get_or_create(name=name)
    return {"customer": factories.customer(), "sales": factories.sales()}


def _text(pdf: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages).replace("\xa0", " ")


def _placed_order(people: dict[str, User]) -> Order:
    sales = people["sales"]
    app.conf.task_default_queue = SINK_QUEUE
    try:
        quote = quote_services.quote_create(customer=people["customer"], created_by=people["customer"],
                                            payload=GOOD_BUILD)  # fmt: skip
        quote = quote_services.quote_accept(quote=quote_services.quote_send(quote=quote, user=sales),
                                            user=people["customer"])  # fmt: skip
    finally:
        app.conf.task_default_queue = QUEUE
    order, _ = order_place(quote=quote, user=people["customer"])
    wait_for(lambda: Order.objects.filter(pk=order.pk, plan_status="ready").exists(), 60, "the plan by the worker")
    return order


def _purchase_and_receive(order: Order, sales: User) -> tuple[PurchaseOrder, PurchaseOrder]:
    _, created = purchasing.purchase_orders_create(order=order, user=sales)
    assert created and PurchaseOrder.objects.filter(order=order).count() == 2
    usd, rub_po = PurchaseOrder.objects.get(supplier__slug="it-u"), PurchaseOrder.objects.get(supplier__slug="it-r")
    assert (usd.currency, usd.rate, usd.total, usd.total_rub) == ("USD", D("78.2235"), D("18000.00"), USD_PO_RUB)
    assert (rub_po.currency, rub_po.total, rub_po.total_rub) == ("RUB", D("13000.00"), RUB_PO_RUB)
    for po in (usd, rub_po):
        lines = PurchaseOrderLine.objects.filter(purchase_order=po)
        assert sum(line.line_total_rub for line in lines) == po.total_rub
        assert sum(line.line_total for line in lines) == po.total
        purchasing.po_transition(po=po, to="sent", user=sales)  # commits: the worker e-mails it
    wait_for(
        lambda: OrderEvent.objects.filter(order=order, type="purchase_order_emailed").count() == 2,
        60,
        "both purchase orders e-mailed by the worker",
    )
    assert Order.objects.get(pk=order.pk).status == OrderStatus.PARTS_ORDERED

    gpu = PurchaseOrderLine.objects.get(purchase_order=usd)
    purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["GPU-SN-1"])], user=sales)  # partial
    usd.refresh_from_db()
    assert usd.status == "partly_received"
    assert [item for item in purchasing.shortfalls(order) if item["sku"] == GPU] == [{"sku": GPU, "qty": 1}]
    purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["GPU-SN-2"])], user=sales)
    purchasing.receipt_record(
        po=rub_po,
        lines=[
            ReceiptLineInput(line.pk, line.qty, _serials(line, {"cpus", "storage", "psus"}))
            for line in PurchaseOrderLine.objects.filter(purchase_order=rub_po)
        ],
        user=sales,
    )
    assert set(PurchaseOrder.objects.filter(order=order).values_list("status", flat=True)) == {"received"}
    assert purchasing.ready_to_assemble(order)
    return usd, rub_po


def test_accepted_quote_to_money_with_every_total_agreeing_to_the_kopeck(
    idle_worker: Worker, people: dict[str, User]
) -> None:
    cbr_store(SAMPLE_RATES.read_bytes())
    _offers()
    sales = people["sales"]
    order = _placed_order(people)
    usd, rub_po = _purchase_and_receive(order, sales)

    purchasing.build_step_record(order=order, kind="assembly", result="passed", user=sales)
    purchasing.build_step_record(order=order, kind="burn_in", result="passed", user=sales)
    order.refresh_from_db()
    assert order.status == OrderStatus.BURN_IN

    # the invoice copies the order to the kopeck
    invoice, created = billing.invoice_create(order=order, user=sales)
    assert created
    assert (invoice.net_total, invoice.vat_total, invoice.gross_total) == (
        order.net_total, order.vat_total, order.gross_total,
    )  # fmt: skip
    assert invoice.net_total == sum(line.line_total for line in order.lines.all())
    assert sum(line.line_total for line in invoice.lines.all()) == invoice.net_total
    assert sum(line.vat for line in invoice.lines.all()) == invoice.vat_total
    assert invoice.net_total + invoice.vat_total == invoice.gross_total

    # a 30 % prepayment before shipment, the rest after
    prepaid = (invoice.gross_total * D("0.30")).quantize(D("0.01"))
    first = billing.payment_record(invoice=invoice, amount=prepaid, user=sales, reference="п/п 101")
    invoice.refresh_from_db()
    assert (first.prepayment, invoice.status, invoice.paid_total) == (True, InvoiceStatus.PARTLY_PAID, prepaid)

    order_services.order_advance(order=order, to="shipped", user=sales)
    upd, created = billing.upd_create(order=order, user=sales)
    assert created
    assert (upd.net_total, upd.vat_total, upd.gross_total) == (
        invoice.net_total, invoice.vat_total, invoice.gross_total,
    )  # fmt: skip
    assert [(line.sku, line.qty, line.line_total, line.vat) for line in upd.lines.order_by("position")] == [
        (line.sku, line.qty, line.line_total, line.vat) for line in invoice.lines.order_by("position")
    ]
    assert rub(upd.gross_total).replace("\xa0", " ") in _text(upd_pdf(upd))
    rest = billing.payment_record(invoice=invoice, amount=invoice.gross_total - prepaid, user=sales)
    invoice.refresh_from_db()
    assert (rest.prepayment, invoice.status) == (False, InvoiceStatus.PAID)
    assert sum(payment.amount for payment in invoice.payments.all()) == invoice.gross_total
    order = order_services.order_advance(order=order, to="delivered", user=sales)
    note = _text(delivery_note_pdf(order))
    assert all(serial in note for serial in ("GPU-SN-1", "GPU-SN-2"))

    # the margin at each purchase order's rate, not today's: the day's USD rate changes after the POs were made
    ExchangeRate.objects.filter(currency="USD", date=timezone.localdate()).update(rub_per_unit=D("100"))
    billing.service_cost_add(order=order, description="Доставка курьером", amount_rub=COURIER, user=sales)
    margin = margin_of(user=sales, order=order)
    assert margin.purchase_cost == D("1421023.00") == USD_PO_RUB + RUB_PO_RUB
    assert margin.service_cost == COURIER
    assert margin.margin == order.net_total - D("1421023.00") - D("3500.00")
    assert margin.complete

    # the 1C export: the invoice and the three receipts, valid against the schema, their sums the documents'
    xml = export_documents(Invoice.objects.filter(pk=invoice.pk), receipts_for_export())
    root = etree.fromstring(xml)
    assert schema().validate(root), schema().error_log
    invoiced = root.xpath("string(c:Документ[c:ХозОперация='Счет на оплату']/c:Сумма)", namespaces=NS)
    assert D(invoiced) == invoice.gross_total
    receipts = root.xpath("c:Документ[c:ХозОперация='Отпуск товара']", namespaces=NS)
    assert [r.xpath("string(c:Номер)", namespaces=NS) for r in receipts] == [
        f"{usd.number}/1", f"{usd.number}/2", f"{rub_po.number}/1",
    ]  # fmt: skip
    by_po: dict[str, Decimal] = {}
    for receipt in receipts:
        number = receipt.xpath("string(c:Номер)", namespaces=NS).split("/")[0]
        total = D(receipt.xpath("string(c:Сумма)", namespaces=NS))
        assert total == sum(D(value) for value in receipt.xpath("c:Товары/c:Товар/c:Сумма/text()", namespaces=NS))
        by_po[number] = by_po.get(number, D(0)) + total
    assert by_po == {usd.number: usd.total, rub_po.number: rub_po.total}
    exported = sorted(root.xpath("//c:ЗначениеРеквизита/c:Значение/text()", namespaces=NS))
    assert exported == sorted(ReceivedSerial.objects.filter(order=order).values_list("serial", flat=True))
    assert len(exported) == 2 + 1 + 2 + 1  # GPUs, CPU, PSUs, drive
