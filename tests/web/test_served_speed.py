"""Issue 33 on the pages: the workload form takes the request's size (a size the context cannot hold is an
error on its field), and the builds show the output at full load beside the speed per user."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.web.conftest import HTMX

pytestmark = pytest.mark.django_db

WORKLOAD = {
    "model": "llama-3.1-8b",
    "task": "inference",
    "precision": "bf16",
    "context_tokens": "4096",
    "concurrent_users": "8",
    "form_factor": "any",
    "prompt_tokens": "3000",
    "output_tokens": "500",
}


def test_the_builds_show_the_output_at_full_load(catalog: None) -> None:
    body = Client().post("/", WORKLOAD).content.decode()
    cards = body.count('<article class="card candidate"')
    assert cards >= 2
    assert body.count("data-served-speed") == 2 * cards  # on each card and in each column of the comparison
    assert "при полной нагрузке" in body
    assert "Выдача при полной нагрузке" in body
    assert 'name="prompt_tokens"' in body and 'value="3000"' in body
    assumptions = body[body.index("Допущения расчёта") :]
    assert "запрос: промпт 3" in assumptions and "(как задано)" in assumptions


def test_a_request_the_context_cannot_hold_is_an_error_on_its_field(catalog: None) -> None:
    body = Client().post("/", {**WORKLOAD, "prompt_tokens": "4000"}, headers=HTMX).content.decode()
    assert body.count('<article class="card candidate"') == 0
    error = body[body.index('id="id_prompt_tokens_error"') :]
    assert "больше, чем context_tokens = 4" in error[: error.index("</ul>")]  # said beside the field
    assert 'id="id_output_tokens_error"' in body  # both sizes were given: both are named
