"""A supplier's packing list pasted as serial numbers (issue 36 trial): spaces, tabs, commas, lower case and
Cyrillic look-alike letters inside Latin serials are one serial number each, kept in capitals with Latin
letters; a duplicate within the paste and a serial already received are refused; a serial is found however
it is typed. Then a partial receipt and the rest: the purchase order goes partly received → received."""

from __future__ import annotations

import pytest

from accounts.models import User
from configurator.engine.purchasing import receipt_problems, serial_normal, serials_split
from orders import purchasing
from orders.models import Order, PurchaseOrder, ReceivedSerial
from tests.orders.test_order_pages import browser
from tests.orders.test_orders_api import GPU, client_for
from tests.orders.test_purchase_orders import order  # noqa: F401  (the fixture)

CYR_A, CYR_C = "\u0410", "\u0421"  # Cyrillic А and С
LOOKALIKES = "\u0410\u0412\u0421\u0415\u041d\u041a\u041c\u041e\u0420\u0422\u0425"  # А В С Е Н К М О Р Т Х


def test_a_pasted_packing_list_is_split_on_spaces_tabs_commas_and_lines() -> None:
    text = " sn-001  SN-002\tsn-003,SN-004;\r\n\n SN-005 , "
    assert serials_split(text) == ["SN-001", "SN-002", "SN-003", "SN-004", "SN-005"]


def test_cyrillic_lookalikes_inside_latin_serials_are_made_latin() -> None:
    typed = f"1{LOOKALIKES}9"
    assert typed == "1АВСЕНКМОРТХ9"  # the letters are Cyrillic (not the Latin ones they look like)
    assert not typed.isascii()
    assert serial_normal(typed) == "1ABCEHKMOPTX9"
    assert serial_normal(f"pn{CYR_A.lower()}-{CYR_C.lower()}1") == "PNA-C1"  # small Cyrillic а, с too
    assert serial_normal(typed).isascii()


def test_a_duplicate_within_the_paste_counts_after_normalising() -> None:
    problems = receipt_problems(kind="gpus", ordered=2, received=0, qty=2, serials=["sn-1", "SN-1"])
    assert problems == {"serials": ["given twice: SN-1"]}


def test_letters_that_are_not_latin_are_refused() -> None:
    problems = receipt_problems(kind="gpus", ordered=1, received=0, qty=1, serials=["ЖЖ-12"])
    assert problems == {"serials": ["not Latin letters and digits: ЖЖ-12"]}


@pytest.mark.django_db
def test_a_messy_paste_partial_then_full_receipt(order: Order, sales_user: User) -> None:  # noqa: F811
    purchasing.purchase_orders_create(order=order, user=sales_user)
    usd = PurchaseOrder.objects.get(order=order, supplier__slug="u")
    purchasing.po_transition(po=usd, to="sent", user=sales_user)
    line = usd.lines.get()
    assert line.qty == 2
    staff = browser(sales_user, "ru")
    url = f"/orders/purchase-orders/{usd.number}/receive"
    # a duplicate inside the paste (once in lower case, once with a Cyrillic С): refused, nothing kept
    twice = staff.post(url, {f"qty_{line.pk}": "2", f"serials_{line.pk}": f"gpu-c01\tGPU-{CYR_C}01"}, follow=True)
    assert "given twice: GPU-C01" in twice.content.decode()
    assert not ReceivedSerial.objects.exists()
    # the first unit, pasted in lower case with a Cyrillic А: kept as printed on the label
    first = staff.post(url, {f"qty_{line.pk}": "1", f"serials_{line.pk}": f"  gpu-{CYR_A.lower()}01 ,"}, follow=True)
    assert "Поступление записано." in first.content.decode()
    usd.refresh_from_db()
    assert usd.status == "partly_received"
    assert list(ReceivedSerial.objects.values_list("sku", "serial")) == [(GPU, "GPU-A01")]
    # the same unit again, typed in Latin capitals: already received
    again = staff.post(url, {f"qty_{line.pk}": "1", f"serials_{line.pk}": "GPU-A01"}, follow=True)
    assert "already received: GPU-A01" in again.content.decode()
    usd.refresh_from_db()
    assert (usd.status, usd.lines.get().received_qty) == ("partly_received", 1)
    # the rest arrives: received
    rest = staff.post(url, {f"qty_{line.pk}": "1", f"serials_{line.pk}": "gpu-a02"}, follow=True)
    assert "Поступление записано." in rest.content.decode()
    usd.refresh_from_db()
    assert usd.status == "received"
    # a warranty claim finds the part however the serial is typed
    api = client_for(sales_user)
    found = api.get("/api/v1/receipts/", {"serial": f"gpu-{CYR_A}01"}).json()
    assert found["count"] == 1
    assert [order.number] == [o.number for o in purchasing.serial_orders(f" gpu-{CYR_A.lower()}01")]
