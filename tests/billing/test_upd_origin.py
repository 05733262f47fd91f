"""Country of origin and customs declaration per receipt line (issue 36, an accountant's trial): entered
through the receipts API and the purchase order's page, checked (ОКСМ code of 3 digits, its short name from
the classifier, a ДТ number's 8/6/7 digits), printed in the УПД's columns 10, 10а and 11 instead of "—".
158 Тайвань (Китай) and 156 Китай are ОКСМ's (ОК 025-2001); the ДТ numbers are made up in the ДТ's form."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from billing import services
from billing.pdf import upd_pdf
from configurator.engine.origin import origin_clean
from orders import purchasing
from orders import services as order_services
from orders.models import Order, ReceiptLine
from procurement.models import Supplier
from tests.billing.test_billing_api import client_for
from tests.billing.test_buyer_requisites import _text

pytestmark = pytest.mark.django_db

GPU, TAIWAN_DT, CHINA_DT = "rtx-pro-6000-blackwell-maxq", "10702070/011226/3012345", "10005020/021226/0001234/2"


@pytest.mark.parametrize(
    ("typed", "clean", "refused"),
    [
        (("158", "", TAIWAN_DT), ("158", "Тайвань (Китай)", TAIWAN_DT), []),
        ((" 156 ", "", " 10005020/021226/0001234/2 "), ("156", "Китай", CHINA_DT), []),
        (("999", "", ""), ("999", "", ""), ["country_name"]),  # not in the short list: its name is typed
        (("999", "Атлантида", ""), ("999", "Атлантида", ""), []),
        (("15", "", ""), ("15", "", ""), ["country_code"]),
        (("", "Китай", ""), ("", "Китай", ""), ["country_code"]),
        (("156", "", "10702070/1226/3012345"), ("156", "Китай", "10702070/1226/3012345"), ["declaration"]),
        (("", "", ""), ("", "", ""), []),
    ],
)
def test_origin_is_checked_and_named(
    typed: tuple[str, str, str], clean: tuple[str, str, str], refused: list[str]
) -> None:
    values, problems = origin_clean(country_code=typed[0], country_name=typed[1], declaration=typed[2])
    assert (values["country_code"], values["country_name"], values["declaration"]) == clean
    assert sorted(problems) == refused


def test_origin_entered_on_receipt_is_printed_in_the_upd(order: Order, sales_user: User) -> None:
    Supplier.objects.update(contact="sales@supplier.example")  # a purchase order is sent by e-mail
    made, _ = purchasing.purchase_orders_create(order=order, user=sales_user)
    for po in made:
        purchasing.po_transition(po=po, to="sent", user=sales_user)
    usd = next(po for po in made if po.currency == "USD")
    rub = next(po for po in made if po.currency == "RUB")
    gpu = usd.lines.get()
    api = client_for(sales_user)
    received = {"line": gpu.pk, "qty": gpu.qty, "serials": ["G1", "G2"][: gpu.qty], "country_code": "158",
                "declaration": "10702070/1226/1"}  # fmt: skip
    body = {"purchase_order": usd.number, "lines": [received]}
    bad = api.post("/api/v1/receipts/", body, format="json")
    assert bad.status_code == 400 and "lines.0.declaration" in bad.json()["error"]["fields"], bad.content
    received["declaration"] = TAIWAN_DT
    made_receipt = api.post("/api/v1/receipts/", body, format="json")
    assert made_receipt.status_code == 201, made_receipt.content
    line = made_receipt.json()["lines"][0]
    assert (line["country_code"], line["country_name"], line["declaration"]) == ("158", "Тайвань (Китай)", TAIWAN_DT)

    page = Client()
    page.force_login(sales_user)
    first, *others = list(rub.lines.order_by("id"))
    form: dict[str, str] = {}
    for po_line in rub.lines.order_by("id"):
        form[f"qty_{po_line.pk}"] = str(po_line.qty)
        if po_line.kind in ("gpus", "cpus", "storage", "psus"):
            form[f"serials_{po_line.pk}"] = "\n".join(f"S-{po_line.sku}-{n}" for n in range(po_line.qty))
    form[f"country_code_{first.pk}"], form[f"declaration_{first.pk}"] = "156", CHINA_DT
    page.post(reverse("orders:purchase-order-receive", args=[rub.number]), form)
    china = ReceiptLine.objects.get(po_line=first)
    assert (china.country_code, china.country_name, china.declaration) == ("156", "Китай", CHINA_DT)
    assert all(ReceiptLine.objects.get(po_line=other).country_code == "" for other in others)
    shown = page.get(reverse("orders:purchase-order", args=[rub.number])).content.decode()
    assert f"страна происхождения 156 Китай; ДТ <code>{CHINA_DT}</code>" in shown

    services.invoice_create(order=order, user=sales_user)
    steps = ("parts_ordered", "assembling", "burn_in", "shipped")
    order.refresh_from_db()  # the purchase orders sent moved it to parts_ordered
    for status in steps[steps.index(order.status) + 1 if order.status in steps else 0 :]:
        order_services.order_advance(order=order, to=status, user=sales_user)
    upd, _ = services.upd_create(order=order, user=sales_user)
    text = " ".join(_text(upd_pdf(upd)).split()).replace("/ ", "/")  # a ДТ number goes on lines after its "/"
    for said in ("158", "Тайвань (Китай)", TAIWAN_DT, "156", "Китай", CHINA_DT):
        assert said in text, (said, text)
    lines = upd.lines.count()
    assert text.count("—") >= 4 * lines - 2 * 3  # the kind code always, origin "—" on the other lines only
