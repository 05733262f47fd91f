"""Issue 16 on the server side: the live answer fragment and its address, cards by product name with ship dates,
the comparison, named sources, one rounding; the editor's options for the chosen chassis and its address."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from django.test import Client
from django.utils import translation

from accounts.models import User
from configurator.engine.phrase import Num, Phrase
from configurator.services import saved_build_create
from configurator.web.viewmodels import cited
from configurator.wording import num
from tests.builds import TOO_FEW_PSUS
from tests.web.conftest import HTMX, build, editor_data
from tests.web.test_workload_views import WORKLOAD

pytestmark = pytest.mark.django_db

ClientFor = Callable[[User | None], Client]


@pytest.fixture
def offers(catalog: None) -> None:
    """The sample suppliers' offers (fixtures/offers.json), so builds have ship dates."""
    from procurement.services import offers_load_fixture

    offers_load_fixture()


def test_numbers_are_rounded_once_half_up_not_cut_off() -> None:
    """14.0999 tokens/s read "14,0" in the editor (Django cut the digits) and "14,1" on the card (rounded to
    two places first): now both round the same way."""
    with translation.override("ru"):
        assert num(14.0999, 1) == "14,1"
        assert num(round(14.0999, 2), 1) == "14,1"
        assert num(14.04, 1) == "14,0"
        assert num(Decimal("1057740.50"), 0) == "1\u00a0057\u00a0741"
        assert num(2.5) == "3"


def test_the_live_answer_is_the_results_alone_and_replaces_the_address(catalog: None) -> None:
    response = Client().post("/", {**WORKLOAD, "concurrent_users": "7", "fragment": "results"}, headers=HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    # only what goes inside #results: no workload form (each card's own quote-request form stays, issue 37)
    outside_cards = re.sub(r'<form method="get" action="/quotes/request".*?</form>', "", body, flags=re.S)
    assert "<form" not in outside_cards and 'id="results"' not in body
    assert body.count('data-request-box="') == 3
    assert body.count('<article class="card candidate"') == 3
    assert 'data-users="7"' in body
    assert "data-focus-on-swap" not in body  # a live answer does not take the focus from the field being typed in
    address = response["HX-Replace-Url"]
    assert "HX-Push-Url" not in response
    assert parse_qs(urlsplit(address).query)["concurrent_users"] == ["7"]
    assert "fragment" not in address


def test_a_live_answer_with_a_bad_field_names_it(catalog: None) -> None:
    response = Client().post("/", {**WORKLOAD, "concurrent_users": "0", "fragment": "results"}, headers=HTMX)
    body = response.content.decode()
    assert "Одновременных пользователей:" in body
    assert "HX-Replace-Url" not in response


def test_cards_lead_with_the_product_price_ship_date_and_verdict(catalog: None, offers: None) -> None:
    body = Client().post("/", WORKLOAD).content.decode()
    card = body[body.index('<article class="card candidate"') :]
    card = card[: card.index("</article>")]
    title = re.search(r'<h3 id="candidate-1-title">([^<]*)</h3>', card)
    assert title is not None
    assert re.fullmatch(r"\d+ × [A-Z][^<]+", title.group(1)), title.group(1)
    assert not re.search(r"\b[a-z0-9]+(-[a-z0-9]+){2,}\b", title.group(1))  # no SKU
    head = card[: card.index("</header>")]
    assert "data-price" in head and "₽" in head
    assert re.search(r'data-ships-in="\d+"', head) and re.search(r"отгрузка \d\d\.\d\d\.\d{4}, через", head)
    assert "data-verdict-valid" in head
    details = card[card.index('<details class="card__details">') :]
    assert 'class="meter' in details and "table--parts" in details  # power, lanes and parts open on demand


def test_the_comparison_table_has_a_column_per_build(catalog: None, offers: None) -> None:
    body = Client().post("/", WORKLOAD).content.decode()
    table = body[body.index('<table class="table table--compare">') :]
    table = table[: table.index("</table>")]
    assert table.count('<th scope="col">') == 3
    for row in ("Цена с НДС", "Отгрузка", "Скорость на пользователя", "Потребление", "Форм-фактор", "Шум"):
        assert f'<th scope="row">{row}</th>' in table
    assert table.count("data-free-gpu-slots=") == 3


def test_sources_are_named_not_pasted(catalog: None) -> None:
    body = Client().post("/", WORKLOAD).content.decode()
    assert "опубликованный config.json модели" in body
    assert "таблица квантования llama.cpp" in body
    assert not re.search(r"@[0-9a-f]{7,}", body)
    assert "maxtext" not in body and "decode_calibration.csv" not in body
    with translation.override("en"):
        line = Phrase(
            "%(model)s: %(total)s B parameters (%(source)s)", model="M", total=Num(7, 0), source="a/b c.py @0123abcd"
        )
        assert cited(line) == "M: 7 B parameters (the model's published config.json)"
        pasted = Phrase(
            "%(model)s: %(total)s B parameters (%(source)s)",
            model="M",
            total=Num(7, 0),
            source="pasted config.json (model_type llama)",
        )
        assert cited(pasted) == "M: 7 B parameters (pasted config.json (model_type llama))"


def test_the_instruct_release_is_named(catalog: None) -> None:
    body = Client().post("/", WORKLOAD).content.decode()
    assert "meta-llama/Llama-3.1-70B-Instruct" in body
    options = Client().get("/models/search", {"model": "llama-3.1-70"}).content.decode()
    assert "meta-llama/Llama-3.1-70B-Instruct" in options


def test_the_model_field_is_marked_required(catalog: None) -> None:
    body = Client().get("/").content.decode()
    field = body[body.index('<label for="id_model">') :]
    assert 'class="required"' in field[: field.index("</label>")]
    assert 'aria-required="true"' in body


def test_the_editor_greys_out_parts_that_do_not_fit_the_chassis(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    body = client_for(customer_user).get(f"/builds/new?build={quote(json.dumps(TOO_FEW_PSUS))}").content.decode()
    sxm = re.search(r'<option value="h200-sxm"([^>]*)>([^<]*)</option>', body)
    assert sxm is not None
    assert "disabled" in sxm.group(1) and 'title="форм-фактор SXM' in sxm.group(1)
    assert "не подходит" in sxm.group(2)
    nvl = re.search(r'<option value="h200-nvl"([^>]*)>([^<]*)</option>', body)
    assert nvl is not None and "disabled" not in nvl.group(1)
    assert "141 ГБ" in nvl.group(2) and "₽" in nvl.group(2)  # key specs and price on the line
    assert '<optgroup label="Не подходят к этой платформе">' in body


def test_a_chosen_part_that_does_not_fit_stays_selectable(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    """A disabled <option> is not posted: a misfit already in the build stays enabled, so the rules name it."""
    wrong = {**build(TOO_FEW_PSUS), "gpus": [{"sku": "h200-sxm", "qty": 8}]}
    body = client_for(customer_user).get(f"/builds/new?build={quote(json.dumps(wrong))}").content.decode()
    sxm = re.search(r'<option value="h200-sxm"([^>]*)>', body)
    assert sxm is not None and "selected" in sxm.group(1) and "disabled" not in sxm.group(1)
    assert "fit.gpu_form_factor" in body


def test_the_editor_keeps_its_build_in_the_address(catalog: None, customer_user: User, client_for: ClientFor) -> None:
    client = client_for(customer_user)
    response = client.post("/builds/check", editor_data(build(TOO_FEW_PSUS)), headers=HTMX)
    state = re.search(r'data-state-url="([^"]+)" data-unsaved="(true|false)"', response.content.decode())
    assert state is not None and state.group(2) == "true"
    url = state.group(1).replace("&amp;", "&")
    assert url.startswith("/builds/new?build=")
    kept = json.loads(parse_qs(urlsplit(url).query)["build"][0])
    assert kept["psus"] == TOO_FEW_PSUS["psus"] and kept["chassis"] == TOO_FEW_PSUS["chassis"]
    assert 'name="gpus-0-qty" value="8"' in client.get(url).content.decode()


def test_a_saved_build_opens_with_its_unsaved_changes_from_the_address(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    saved = saved_build_create(owner=customer_user, name="Mine", payload=build(TOO_FEW_PSUS))
    client = client_for(customer_user)
    plain = client.get(f"/builds/{saved.pk}").content.decode()
    assert f'data-state-url="/builds/{saved.pk}" data-unsaved="false"' in plain
    changed = {**build(TOO_FEW_PSUS), "psus": [{"sku": "psu-crps-3000w", "qty": 4}]}
    body = client.get(f"/builds/{saved.pk}?build={quote(json.dumps(changed))}").content.decode()
    assert 'name="psus-0-qty" value="4"' in body
    assert 'data-unsaved="true"' in body
    check = client.post("/builds/check", editor_data(changed, saved_build=str(saved.pk)), headers=HTMX)
    assert f'data-state-url="/builds/{saved.pk}?build=' in check.content.decode()


def test_another_customers_saved_build_is_not_reachable_through_the_check(
    catalog: None, customer_user: User, client_for: ClientFor
) -> None:
    from tests import factories

    other = factories.customer(username="other")
    saved = saved_build_create(owner=other, name="Theirs", payload=build(TOO_FEW_PSUS))
    response = client_for(customer_user).post(
        "/builds/check", editor_data(build(TOO_FEW_PSUS), saved_build=str(saved.pk)), headers=HTMX
    )
    assert response.status_code == 404
