"""Purchase orders, receipts and the built server (issue 36 items 1-3), on the database the suite runs on.

The setup: every part of GOOD_BUILD at supplier "r" (roubles, 1,000.00 a unit) and its GPU at "u" for
9,000.00 USD, which at the CBR's rate of 03.12.2026 (USD 78.2235, finance/fixtures/cbr_daily_sample.xml) is
704,011.50 RUB, cheaper than r's 799,999.50 RUB: the plan buys the two GPUs from u, the rest from r.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.core import mail
from openpyxl import load_workbook

from accounts.models import User
from configurator.engine.errors import ApplicationError, Conflict, Forbidden, InvalidInput
from configurator.engine.workdays import add_working_days
from orders import purchasing
from orders import services as order_services
from orders.models import BuildStep, Order, OrderStatus, PurchaseOrder, PurchaseOrderLine, ReceivedSerial
from orders.po_documents import delivery_note_pdf, po_pdf, po_xlsx
from orders.purchasing import ReceiptLineInput
from orders.risks import orders_at_risk_refresh
from procurement.models import Supplier
from quotes.models import Quote
from tests import factories
from tests.orders.conftest import GOOD_SKUS, offer
from tests.orders.test_orders_api import GPU, client_for

pytestmark = pytest.mark.django_db

USD_RATE = Decimal("78.2235")  # CBR, 03.12.2026 (finance/fixtures/cbr_daily_sample.xml)


def two_suppliers() -> dict[str, Supplier]:
    made = {
        "r": Supplier.objects.create(slug="r", name="Поставщик Р", contact="Иван, ivan@r.example, +7 495 000-00-00"),
        "u": Supplier.objects.create(slug="u", name="Supplier U", currency="USD", contact="sales@u.example"),
    }
    for sku, (_, qty) in GOOD_SKUS.items():
        if sku != GPU:
            offer(made["r"], sku, "1000.00", qty * 10, 10)
    offer(made["r"], GPU, "799999.50", 5, 10)
    usd = offer(made["u"], GPU, "9000.00", 5, 10)
    usd.currency, usd.supplier_sku = "USD", "900-5G153-2200-000"
    usd.save()
    return made


def placed_order(accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User) -> Order:
    two_suppliers()
    response = place(client_for(customer_user), accepted().number)
    assert response.status_code == 201, response.content
    return Order.objects.get(number=response.json()["number"])


@pytest.fixture
def order(rates_day: dt.date, accepted: Callable[[], Quote], place: Callable[..., Any], customer_user: User) -> Order:
    return placed_order(accepted, place, customer_user)


def receive_all(po: PurchaseOrder, user: User, prefix: str) -> None:
    lines = [
        ReceiptLineInput(
            line.pk,
            line.qty - line.received_qty,
            [f"{prefix}-{line.sku}-{n}" for n in range(line.qty - line.received_qty)]
            if line.kind in ("gpus", "cpus", "storage", "psus")
            else [],
        )
        for line in po.lines.all()
        if line.qty > line.received_qty
    ]
    purchasing.receipt_record(po=po, lines=lines, user=user)


def test_one_purchase_order_per_supplier_priced_in_the_currency_and_in_roubles(order: Order, sales_user: User) -> None:
    made, created = purchasing.purchase_orders_create(order=order, user=sales_user)
    assert created
    by_supplier = {po.supplier.slug: po for po in made}
    assert sorted(by_supplier) == ["r", "u"]
    for po in made:
        assert po.number.startswith("PO-2026-") and len(po.number) == len("PO-2026-000001")
        assert po.status == "draft"
    usd = by_supplier["u"]
    (gpu,) = usd.lines.all()
    assert (gpu.sku, gpu.supplier_sku, gpu.qty, gpu.unit_price) == (GPU, "900-5G153-2200-000", 2, Decimal("9000.00"))
    assert (usd.currency, usd.rate, usd.rate_date) == ("USD", USD_RATE, dt.date(2026, 12, 3))
    # 9,000.00 × 78.2235 = 704,011.50; the line 18,000.00 × 78.2235 = 1,408,023.00
    assert (gpu.unit_price_rub, gpu.line_total, gpu.line_total_rub) == (
        Decimal("704011.50"), Decimal("18000.00"), Decimal("1408023.00"),
    )  # fmt: skip
    assert (usd.total, usd.total_rub) == (Decimal("18000.00"), Decimal("1408023.00"))
    rub = by_supplier["r"]
    # chassis 1, CPU 1, PSUs 2, memory 8, drive 1 at 1,000.00 RUB: 13,000.00
    assert (rub.currency, rub.rate, rub.total, rub.total_rub) == ("RUB", None, Decimal("13000.00"), Decimal("13000.00"))
    assert sum(line.line_total_rub for line in rub.lines.all()) == rub.total_rub
    # the plan's 10 working days, counted from Thursday 03.12.2026 on the production calendar
    assert gpu.expected_date == add_working_days(dt.date(2026, 12, 3), gpu.purchase.expected_days)
    again, created_again = purchasing.purchase_orders_create(order=order, user=sales_user)
    assert not created_again and {po.pk for po in again} == {po.pk for po in made}


def test_customers_may_not_make_purchase_orders(order: Order, customer_user: User) -> None:
    with pytest.raises(Forbidden):
        purchasing.purchase_orders_create(order=order, user=customer_user)
    assert not PurchaseOrder.objects.exists()


def test_transitions_are_the_tables_and_sending_e_mails_the_supplier(
    order: Order, sales_user: User, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    po = next(po for po in made if po.supplier.slug == "u")
    with pytest.raises(Conflict):
        purchasing.po_transition(po=po, to="confirmed", user=sales_user)  # draft → confirmed: not in the table
    with pytest.raises(InvalidInput):
        purchasing.po_transition(po=po, to="received", user=sales_user)  # follows from receipts only
    with django_capture_on_commit_callbacks(execute=True):
        purchasing.po_transition(po=po, to="sent", user=sales_user)
    po.refresh_from_db()
    order.refresh_from_db()
    assert (po.status, po.email_to, order.status) == ("sent", "sales@u.example", OrderStatus.PARTS_ORDERED)
    assert po.emailed_at is not None
    (message,) = mail.outbox
    assert message.to == ["sales@u.example"] and po.number in message.subject
    assert [name for name, _, _ in message.attachments] == [f"{po.number}.pdf", f"{po.number}.xlsx"]
    assert purchasing.po_email_send(po_id=po.pk) is False  # once
    purchasing.po_transition(po=po, to="confirmed", user=sales_user)
    with pytest.raises(Conflict):
        purchasing.po_transition(po=po, to="sent", user=sales_user)


def test_a_supplier_without_an_e_mail_cannot_be_sent_to(order: Order, sales_user: User) -> None:
    Supplier.objects.filter(slug="r").update(contact="phone only")
    po = next(
        po for po in purchasing.purchase_orders_create(order=order, user=sales_user)[0] if po.supplier.slug == "r"
    )
    with pytest.raises(Conflict) as refused:
        purchasing.po_transition(po=po, to="sent", user=sales_user)
    assert "supplier" in refused.value.fields
    po.refresh_from_db()
    assert po.status == "draft"


def test_cancelling_the_order_cancels_its_open_purchase_orders(order: Order, sales_user: User) -> None:
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    purchasing.po_transition(po=made[0], to="sent", user=sales_user)
    order_services.order_advance(order=order, to=OrderStatus.CANCELLED, user=sales_user)
    assert set(PurchaseOrder.objects.filter(order=order).values_list("status", flat=True)) == {"cancelled"}


def test_receipts_partial_then_full_with_serials_make_the_order_ready(order: Order, sales_user: User) -> None:
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    for po in made:
        purchasing.po_transition(po=po, to="sent", user=sales_user)
    usd = next(po for po in made if po.supplier.slug == "u")
    gpu = usd.lines.get()
    purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["GPU-SN-1"])], user=sales_user)
    usd.refresh_from_db()
    gpu.refresh_from_db()
    assert (usd.status, gpu.received_qty) == ("partly_received", 1)
    assert {"sku": GPU, "qty": 1} in purchasing.shortfalls(order)
    assert not purchasing.ready_to_assemble(order)
    with pytest.raises(ApplicationError):
        purchasing.build_step_record(order=order, kind="assembly", result="passed", user=sales_user)
    purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["GPU-SN-2"])], user=sales_user)
    receive_all(next(po for po in made if po.supplier.slug == "r"), sales_user, "R")
    assert purchasing.ready_to_assemble(order)
    assert set(PurchaseOrder.objects.filter(order=order).values_list("status", flat=True)) == {"received"}
    assert ReceivedSerial.objects.filter(order=order).count() == 2 + 1 + 2 + 1  # GPUs, CPU, PSUs, drive
    purchasing.build_step_record(order=order, kind="assembly", result="passed", user=sales_user, note="ок")
    order.refresh_from_db()
    assert order.status == OrderStatus.BURN_IN
    purchasing.build_step_record(order=order, kind="burn_in", result="passed", user=sales_user)
    assert list(BuildStep.objects.filter(order=order).values_list("kind", "result", "done_by__username")) == [
        ("assembly", "passed", sales_user.username), ("burn_in", "passed", sales_user.username),
    ]  # fmt: skip
    assert list(purchasing.serial_orders("GPU-SN-2")) == [order]


def test_a_receipt_refuses_over_receiving_missing_repeated_and_known_serials(order: Order, sales_user: User) -> None:
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    usd = next(po for po in made if po.supplier.slug == "u")
    gpu = usd.lines.get()
    with pytest.raises(Conflict):  # a draft is not sent yet: nothing can arrive against it
        purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["A"])], user=sales_user)
    purchasing.po_transition(po=usd, to="sent", user=sales_user)
    cases = [
        (ReceiptLineInput(gpu.pk, 3, ["A", "B", "C"]), "lines.0.qty"),
        (ReceiptLineInput(gpu.pk, 2, ["A"]), "lines.0.serials"),
        (ReceiptLineInput(gpu.pk, 2, ["A", "A"]), "lines.0.serials"),
        (ReceiptLineInput(gpu.pk, 1, [" "]), "lines.0.serials"),
    ]
    for line, field in cases:
        with pytest.raises(InvalidInput) as refused:
            purchasing.receipt_record(po=usd, lines=[line], user=sales_user)
        assert field in refused.value.fields, (line, refused.value.fields)
    purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["A"])], user=sales_user)
    with pytest.raises(InvalidInput) as refused:
        purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["A"])], user=sales_user)
    assert "already received: A" in refused.value.fields["lines.0.serials"][0]
    assert PurchaseOrderLine.objects.get(pk=gpu.pk).received_qty == 1


def test_a_line_expected_and_not_received_puts_the_order_at_risk(
    order: Order, sales_user: User, time_machine: Any
) -> None:
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    for po in made:
        purchasing.po_transition(po=po, to="sent", user=sales_user)
    usd = next(po for po in made if po.supplier.slug == "u")
    gpu = usd.lines.get()
    purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["S1"])], user=sales_user)
    time_machine.move_to(dt.datetime.combine(gpu.expected_date + dt.timedelta(days=1), dt.time(12)))
    orders_at_risk_refresh(order_ids=[order.pk])
    order.refresh_from_db()
    assert order.at_risk
    gpu_risks = [r for r in order.risk_reasons if r["code"] == "not_received" and r["sku"] == GPU]
    assert gpu_risks == [
        {"code": "not_received", "sku": GPU, "supplier": "u", "qty": 1, "date": gpu.expected_date.isoformat()}
    ]


def _pdf_text(content: bytes) -> str:
    import re

    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(content))
    return re.sub(r"\s+", " ", " ".join(page.extract_text() or "" for page in reader.pages))


def test_the_documents_say_the_stored_figures_in_russian(order: Order, sales_user: User) -> None:
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    usd = next(po for po in made if po.supplier.slug == "u")
    text = _pdf_text(po_pdf(usd))
    for said in (f"Заказ поставщику {usd.number}", "Supplier U", "900-5G153-2200-000", "Итого, USD 18 000,00",
                 "Итого, руб. 1 408 023,00", "78,2235 руб. за 1 USD на 03.12.2026"):  # fmt: skip
        assert said in text.replace("\u00a0", " "), (said, text)
    sheet = load_workbook(io.BytesIO(po_xlsx(usd))).worksheets[0]
    values = [[cell.value for cell in row] for row in sheet.iter_rows()]
    flat = [value for row in values for value in row if value is not None]
    assert "Поставщик" in flat and "Supplier U" in flat and "Курс, руб. за единицу" in flat
    line = next(row for row in values if row[1] == GPU)
    assert line[2] == "900-5G153-2200-000" and line[4] == 2
    assert (Decimal(str(line[5])), Decimal(str(line[6])), Decimal(str(line[7]))) == (
        Decimal("9000"), Decimal("18000"), Decimal("1408023"),
    )  # fmt: skip
    total = values[-1]
    assert total[0] == "Итого" and Decimal(str(total[7])) == usd.total_rub
    purchasing.po_transition(po=usd, to="sent", user=sales_user)
    gpu = usd.lines.get()
    purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 2, ["GPU-A", "GPU-B"])], user=sales_user)
    note = _pdf_text(delivery_note_pdf(order))
    assert f"Товарная накладная к заказу {order.number}" in note and "GPU-A, GPU-B" in note
    assert "9 000,00" not in note.replace("\u00a0", " ") and "Supplier U" not in note  # no purchase price, no supplier


def test_only_staff_record_receipts_and_steps(order: Order, sales_user: User) -> None:
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    purchasing.po_transition(po=made[0], to="sent", user=sales_user)
    line = made[0].lines.first()
    assert line is not None
    customer = factories.customer(username="bob")
    with pytest.raises(Forbidden):
        purchasing.receipt_record(po=made[0], lines=[ReceiptLineInput(line.pk, 1, [])], user=customer)
    with pytest.raises(Forbidden):
        purchasing.build_step_record(order=order, kind="assembly", result="passed", user=customer)


def test_a_sent_purchase_order_whose_e_mail_was_lost_is_e_mailed_by_the_sweep(
    order: Order, sales_user: User, settings: Any, time_machine: Any
) -> None:
    """The broker was down when it was sent (nothing queued, no on-commit run here): the sweep sends it once."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    po = purchasing.po_transition(po=made[0], to="sent", user=sales_user)  # its on-commit e-mail never runs
    assert purchasing.purchase_orders_email_sweep() == ()  # too early: its message may still be on the way
    assert po.sent_at is not None
    time_machine.move_to(po.sent_at + purchasing.EMAIL_LOST_AFTER + dt.timedelta(seconds=1))
    assert purchasing.purchase_orders_email_sweep() == (po.pk,)
    assert [message.to for message in mail.outbox] == [[po.email_to]]
    assert purchasing.purchase_orders_email_sweep() == ()


def test_the_database_refuses_a_serial_number_of_a_sku_twice(order: Order, sales_user: User) -> None:
    """The backstop under the service's check (serial_once_per_sku)."""
    from django.db import IntegrityError, transaction

    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    usd = next(po for po in made if po.supplier.slug == "u")
    purchasing.po_transition(po=usd, to="sent", user=sales_user)
    gpu = usd.lines.get()
    receipt = purchasing.receipt_record(po=usd, lines=[ReceiptLineInput(gpu.pk, 1, ["SAME"])], user=sales_user)
    line = receipt.lines.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        ReceivedSerial.objects.create(receipt_line=line, order=order, sku=GPU, serial="SAME")
    ReceivedSerial.objects.create(receipt_line=line, order=order, sku="another-sku", serial="SAME")  # per SKU


def test_a_cancelled_purchase_order_of_a_going_order_puts_it_at_risk_and_mapped_part_numbers_fill_in(
    order: Order, sales_user: User
) -> None:
    from procurement.models import SupplierPartNumber

    SupplierPartNumber.objects.create(supplier=Supplier.objects.get(slug="r"), part_number="R-NVME-4T", sku="nvme-4tb")
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    rub = next(po for po in made if po.supplier.slug == "r")
    assert rub.lines.get(sku="nvme-4tb").supplier_sku == "R-NVME-4T"  # the offer names none: the mapping does
    for po in made:
        purchasing.po_transition(po=po, to="sent", user=sales_user)
    purchasing.po_transition(po=rub, to="cancelled", user=sales_user)
    order.refresh_from_db()
    cancelled = sorted((r["sku"], r["qty"]) for r in order.risk_reasons if r["code"] == "po_cancelled")
    assert cancelled == sorted((line.sku, line.qty) for line in rub.lines.all())
    assert order.status == OrderStatus.PARTS_ORDERED and order.at_risk
