"""The build editor: who may open it, the verdict panel on each change, adding/removing lines, applying a
fix, saving, and asking for a quote — and that refused requests change nothing."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client

from accounts.models import User
from configurator.models import SavedBuild
from configurator.services import saved_build_create
from quotes.models import Quote
from tests.builds import GOOD_BUILD, TOO_FEW_PSUS, WARNING_BUILD
from tests.web.conftest import HTMX, build, editor_data

pytestmark = pytest.mark.django_db

ClientFor = Callable[[User | None], Client]


def _power_fix_index(body: str) -> str:
    """The `fix:<json>` value of the "add PSUs" button in a rendered verdict."""
    label = r'aria-label="Применить: Добавить 2× Блок питания CRPS 3000 Вт[^"]*"'
    match = re.search(r'name="op" value="(fix:[^"]*)"\s+' + label, body)
    assert match, "no apply button for the power fix"
    return html.unescape(match.group(1))


def test_anonymous_visitors_are_sent_to_log_in(catalog: None) -> None:
    for url in ("/builds/new", "/builds/", "/builds/1"):
        response = Client().get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")
    response = Client().post("/builds/check", editor_data(build(GOOD_BUILD)))
    assert response.status_code == 302


def test_a_new_build_starts_empty_and_asks_for_a_chassis(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    body = client_for(customer_user).get("/builds/new").content.decode()
    assert "Новая сборка" in body
    assert "Выберите платформу, чтобы проверить сборку." in body
    assert 'name="gpus-TOTAL_FORMS" value="0"' in body
    assert 'hx-post="/builds/check"' in body


def test_a_recommended_build_opens_with_its_verdict(catalog: None, customer_user: User, client_for: ClientFor) -> None:
    url = f"/builds/new?build={quote(json.dumps(TOO_FEW_PSUS))}"
    body = client_for(customer_user).get(url).content.decode()
    assert 'data-verdict="invalid"' in body
    assert "Не хватает мощности блоков питания" in body
    assert "Сейчас 6\u00a0736\u00a0Вт, предел 3\u00a0000\u00a0Вт" in body
    assert 'value="h200-nvl" selected' in body
    assert 'name="gpus-0-qty" value="8"' in body
    assert "power.psu_capacity" in body
    assert "КП можно запросить, когда в сборке не останется ошибок." in body
    assert 'value="quote"' not in body


def test_a_malformed_build_link_opens_an_empty_editor(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    response = client_for(customer_user).get("/builds/new?build=%7Bnot-json")
    assert response.status_code == 200
    assert "Выберите платформу, чтобы проверить сборку." in response.content.decode()


def test_the_verdict_panel_is_checked_again_on_each_change(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    client = client_for(customer_user)
    bad = client.post("/builds/check", editor_data(build(TOO_FEW_PSUS)), headers=HTMX).content.decode()
    assert "<html" not in bad and "<form" not in bad
    assert 'data-verdict="invalid"' in bad
    good = client.post("/builds/check", editor_data(build(GOOD_BUILD)), headers=HTMX).content.decode()
    assert 'data-verdict="valid"' in good
    assert "Сборка проходит все проверки." in good
    assert 'value="quote"' in good
    wrong_qty = editor_data(build(GOOD_BUILD))
    wrong_qty["gpus-0-qty"] = "0"
    invalid = client.post("/builds/check", wrong_qty, headers=HTMX).content.decode()
    assert "Исправьте отмеченные поля, чтобы проверить сборку." in invalid


def test_adding_and_removing_lines_redraws_the_editor(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    client = client_for(customer_user)
    added = client.post("/builds/new", editor_data(build(GOOD_BUILD), op="add:gpus"), headers=HTMX).content.decode()
    assert added.startswith('\n<div id="editor"') or '<div id="editor"' in added[:200]
    assert 'name="gpus-TOTAL_FORMS" value="2"' in added
    assert 'data-focus-id="id_gpus-1-sku"' in added
    removed = client.post("/builds/new", editor_data(build(GOOD_BUILD), op="remove:storage:0"), headers=HTMX)
    assert 'name="storage-TOTAL_FORMS" value="0"' in removed.content.decode()
    assert SavedBuild.objects.count() == 0


def test_applying_the_power_fix_adds_the_psus_and_the_build_passes(
    catalog: None, sales_user: User, client_for: ClientFor
) -> None:
    client = client_for(sales_user)
    data = editor_data(build(TOO_FEW_PSUS))
    op = _power_fix_index(client.post("/builds/check", data, headers=HTMX).content.decode())
    fixed = client.post("/builds/new", {**data, "op": op}, headers=HTMX).content.decode()
    assert 'name="psus-0-qty" value="4"' in fixed
    assert 'data-verdict="valid"' in fixed


@pytest.mark.parametrize(
    "op",
    [
        "fix:99:0",
        "fix:[]",
        'fix:{"ops":[{"op":"change_workload"}]}',
        'fix:{"ops":[{"op":"add"}]}',
        'fix:{"ops":[{"op":"remove","kind":"gpus","sku":"rtx-4090","qty":1}]}',
        'fix:{"action":"add","target":"psus","sku":"psu-crps-3000w","qty":2}',
    ],
)
def test_a_fix_that_cannot_be_applied_changes_nothing(
    catalog: None, customer_user: User, client_for: ClientFor, op: str
) -> None:
    data = editor_data(build(TOO_FEW_PSUS), op=op)
    body = client_for(customer_user).post("/builds/new", data, headers=HTMX).content.decode()
    assert "Это исправление применить не удалось; сборка не изменилась." in body
    assert 'name="psus-0-qty" value="2"' in body


def test_a_fix_from_a_verdict_older_than_the_form_still_applies(
    catalog: None, sales_user: User, client_for: ClientFor
) -> None:
    """The button carries the fix, not its position, so a click racing a re-check does what it says."""
    client = client_for(sales_user)
    op = _power_fix_index(client.post("/builds/check", editor_data(build(TOO_FEW_PSUS)), headers=HTMX).content.decode())
    newer = {**build(TOO_FEW_PSUS), "storage": [], "nics": [{"sku": "nic-100g", "qty": 1}]}
    fixed = client.post("/builds/new", editor_data(newer, op=op), headers=HTMX).content.decode()
    assert 'name="psus-0-qty" value="4"' in fixed
    assert 'name="nics-0-qty" value="1"' in fixed


def test_saving_needs_a_name(catalog: None, customer_user: User, client_for: ClientFor) -> None:
    body = client_for(customer_user).post("/builds/new", editor_data(build(GOOD_BUILD), op="save")).content.decode()
    assert "Чтобы сохранить сборку, дайте ей название." in body
    assert SavedBuild.objects.count() == 0


def test_saving_stores_the_build_and_opens_it(catalog: None, customer_user: User, client_for: ClientFor) -> None:
    client = client_for(customer_user)
    data = editor_data(build(GOOD_BUILD), name="Рабочая станция", notes="для отдела", op="save")
    response = client.post("/builds/new", data, headers=HTMX)
    saved = SavedBuild.objects.get()
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/builds/{saved.pk}"
    assert saved.owner == customer_user
    assert (saved.name, saved.notes, saved.valid) == ("Рабочая станция", "для отдела", True)
    assert saved.payload["gpus"] == [{"sku": "rtx-pro-6000-blackwell-maxq", "qty": 2}]
    page = client.get(f"/builds/{saved.pk}").content.decode()
    assert "Сборка сохранена." in page
    assert 'value="Рабочая станция"' in page
    assert "Сохранить изменения" in page


def test_saving_without_htmx_redirects(catalog: None, customer_user: User, client_for: ClientFor) -> None:
    data = editor_data(build(GOOD_BUILD), name="Без htmx", op="save")
    response = client_for(customer_user).post("/builds/new", data)
    assert response.status_code == 302
    assert response["Location"] == f"/builds/{SavedBuild.objects.get().pk}"


def test_another_customers_build_is_404_and_stays_as_it_was(
    catalog: None, customer_user: User, other_customer: User, client_for: ClientFor
) -> None:
    saved = saved_build_create(owner=customer_user, name="Моя", payload=build(GOOD_BUILD))
    intruder = client_for(other_customer)
    assert intruder.get(f"/builds/{saved.pk}").status_code == 404
    data = editor_data(build(TOO_FEW_PSUS), name="Чужая", op="save")
    assert intruder.post(f"/builds/{saved.pk}", data).status_code == 404
    assert intruder.post(f"/builds/{saved.pk}", {**data, "op": "quote"}).status_code == 404
    saved.refresh_from_db()
    assert (saved.name, saved.payload["chassis"]) == ("Моя", GOOD_BUILD["chassis"])
    assert Quote.objects.count() == 0
    assert "Моя" not in intruder.get("/builds/").content.decode()


def test_sales_see_and_edit_every_customers_build(
    catalog: None, customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    saved = saved_build_create(owner=customer_user, name="Моя", payload=build(GOOD_BUILD))
    client = client_for(sales_user)
    listing = client.get("/builds/").content.decode()
    assert "Моя" in listing and "alice" in listing
    assert client.get(f"/builds/{saved.pk}").status_code == 200


def test_a_build_with_errors_cannot_be_quoted(catalog: None, customer_user: User, client_for: ClientFor) -> None:
    data = editor_data(build(TOO_FEW_PSUS), op="quote")
    body = client_for(customer_user).post("/builds/new", data, headers=HTMX).content.decode()
    assert "В сборке есть ошибки: исправьте их, прежде чем запрашивать КП." in body
    assert Quote.objects.count() == 0


def test_warnings_must_be_acknowledged_before_a_quote(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    client = client_for(customer_user)
    refused = client.post("/builds/new", editor_data(build(WARNING_BUILD), op="quote"), headers=HTMX).content.decode()
    assert "отметьте «Я прочитал предупреждения»" in refused
    assert 'name="acknowledge_warnings"' in refused
    assert Quote.objects.count() == 0
    data = editor_data(build(WARNING_BUILD), op="quote", acknowledge_warnings="on", quote_key="k1")
    response = client.post("/builds/new", data, headers=HTMX)
    quote = Quote.objects.get()
    assert response["HX-Redirect"] == f"/quotes/{quote.number}"
    assert quote.owner == customer_user and quote.created_by == customer_user
    again = client.post("/builds/new", data, headers=HTMX)  # a double click sends the same key
    assert again["HX-Redirect"] == f"/quotes/{quote.number}"
    assert Quote.objects.count() == 1


def test_quoting_a_saved_build_saves_it_first_and_links_it(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    saved = saved_build_create(owner=customer_user, name="Моя", payload=build(TOO_FEW_PSUS))
    data = editor_data(build(GOOD_BUILD), name="Моя, исправленная", op="quote")
    response = client_for(customer_user).post(f"/builds/{saved.pk}", data)
    quote = Quote.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/quotes/{quote.number}"
    saved.refresh_from_db()
    assert (saved.name, saved.valid, quote.saved_build_id) == ("Моя, исправленная", True, saved.pk)


def test_sales_quote_for_a_customer(
    catalog: None, customer_user: User, sales_user: User, client_for: ClientFor
) -> None:
    client = client_for(sales_user)
    page = client.post("/builds/check", editor_data(build(GOOD_BUILD)), headers=HTMX).content.decode()
    assert 'name="customer"' in page and "alice" in page
    data = editor_data(build(GOOD_BUILD), op="quote", customer=str(customer_user.pk))
    client.post("/builds/new", data)
    quote = Quote.objects.get()
    assert (quote.owner, quote.created_by) == (customer_user, sales_user)


def test_customers_cannot_choose_another_customer(
    catalog: None, customer_user: User, other_customer: User, client_for: ClientFor
) -> None:
    client = client_for(customer_user)
    page = client.post("/builds/check", editor_data(build(GOOD_BUILD)), headers=HTMX).content.decode()
    assert 'name="customer"' not in page
    client.post("/builds/new", editor_data(build(GOOD_BUILD), op="quote", customer=str(other_customer.pk)))
    assert Quote.objects.get().owner == customer_user  # the field does not exist for them: ignored


def test_the_workload_travels_with_the_build(catalog: None, customer_user: User, client_for: ClientFor) -> None:
    body: dict[str, Any] = {
        **build(GOOD_BUILD),
        "workload": {"model": "llama-3.1-70b", "precision": "q4_k_m", "context_tokens": 8192, "concurrent_users": 5},
    }
    page = client_for(customer_user).get(f"/builds/new?build={quote(json.dumps(body))}").content.decode()
    assert "Проверяется под нагрузку:" in page and "llama-3.1-70b" in page
    assert "Видеопамять каждой видеокарты" in page
    assert "Скорость на пользователя" in page


def test_enter_in_a_text_field_redraws_the_editor_without_changing_anything(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    data = editor_data(build(GOOD_BUILD), name="Черновик", op="refresh")
    body = client_for(customer_user).post("/builds/new", data, headers=HTMX).content.decode()
    assert '<div id="editor"' in body
    assert 'value="Черновик"' in body
    assert 'name="gpus-0-qty" value="2"' in body
    assert SavedBuild.objects.count() == 0
