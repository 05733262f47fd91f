"""Issue 37 trial: a picked model showed as its slug in the field, and a result card took every warranty at
once. The field shows the model's name and submits its slug in a hidden input; a card's services of a kind
sold once carry `data-one-of` (app.js makes them exclusive, tests/e2e/test_phone_pick_and_card.py)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from servicelines.services import services_load_fixture

pytestmark = pytest.mark.django_db


def test_a_library_model_shows_by_name_and_its_slug_goes_in_the_hidden_input(catalog: None) -> None:
    body = Client().get("/?preset=70b-team").content.decode()
    visible = re.search(r'<input type="text"[^>]*id="id_model"[^>]*>', body, re.S)
    assert visible is not None
    assert 'value="Llama 3.1 70B"' in visible.group(0)
    assert re.search(r'\sname="model"', visible.group(0)) is None  # the visible field is not what the form sends
    assert '<input type="hidden" id="model-slug" name="model" value="llama-3.1-70b">' in body


def test_a_typed_query_stays_the_fields_own_value(catalog: None) -> None:
    body = Client().get("/?model=llama+8b").content.decode()
    visible = re.search(r'<input type="text"[^>]*id="id_model"[^>]*>', body, re.S)
    assert (
        visible is not None
        and re.search(r'\sname="model"', visible.group(0))
        and 'value="llama 8b"' in visible.group(0)
    )
    assert 'id="model-slug"' not in body


def test_the_suggestions_name_first_and_the_slug_small(catalog: None) -> None:
    body = Client().get("/models/search", {"model": "gemma 3 27"}).content.decode()
    option = re.search(r'<button[^>]*data-pick-model="gemma-3-27b".*?</button>', body, re.S)
    assert option is not None
    text = option.group(0)
    assert 'data-model-name="Gemma 3 27B"' in text
    assert text.index("model-option__name") < text.index('<span class="sku">gemma-3-27b</span>')


def test_a_cards_warranties_and_deliveries_are_each_one_choice(catalog: None) -> None:
    services_load_fixture()
    body = Client().get("/?preset=70b-team").content.decode()
    box = body[body.index("data-request-box") :]
    box = box[: box.index("</form>")]
    assert len(re.findall(r'value="warranty-\w+" [^>]*data-one-of="warranty"', box)) == 3
    assert len(re.findall(r'data-one-of="delivery"', box)) == 2
    assert (
        'value="software-ai-stack" id="svc-1-' in box and re.search(r'software-ai-stack"[^>]*data-one-of', box) is None
    )
