"""The workload page `/`: the form, the recommended builds (full page and htmx fragment), the model search."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from configurator.engine.models_library import model_library
from tests.web.conftest import HTMX

pytestmark = pytest.mark.django_db

WORKLOAD = {
    "model": "llama-3.1-70b",
    "task": "inference",
    "precision": "q4_k_m",
    "context_tokens": "8192",
    "concurrent_users": "5",
    "form_factor": "any",
}


def _cards(body: str) -> int:
    return body.count('<article class="card candidate"')


def test_the_page_is_russian_by_default_and_open_to_anonymous_visitors(catalog: None) -> None:
    response = Client().get("/")
    body = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="ru">' in body
    assert "Подберите GPU-сборку под свою модель" in body
    assert 'for="id_model"' in body
    assert "Подобрать сборки" in body
    assert body.count('class="chip"') == 10  # the article's ten use cases
    assert _cards(body) == 0
    assert "/static/vendor/htmx/htmx.min.js" in body


def test_english_is_one_switch_away(catalog: None) -> None:
    client = Client()
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    body = client.get("/").content.decode()
    assert '<html lang="en">' in body
    assert "Find a GPU build for your model" in body
    assert "Подобрать сборки" not in body


def test_three_valid_builds_for_a_70b_model_for_five_users(catalog: None) -> None:
    response = Client().post("/", WORKLOAD)
    body = response.content.decode()
    assert response.status_code == 200
    assert _cards(body) == 3
    assert body.count('data-verdict-valid="true"') == 3
    assert "3 сборки для Llama 3.1 70B" in body
    assert "ток/с" in body and "₽" in body and "ГиБ" in body and "Вт" in body
    assert body.count('class="stack__seg seg--weights"') == 4  # the model's bar and one per build
    assert "Допущения расчёта" in body
    assumptions = body[body.index("Допущения расчёта") :]
    assumptions = assumptions[: assumptions.index("</details>")]
    assert "Веса: Q4_K_M = " in assumptions and "ГиБ на GPU" in assumptions
    assert 'lang="en"' not in assumptions and "Weights:" not in body  # said in Russian, not left in English
    why = body[body.index("самая дешёвая корректная сборка") :]
    assert "пользователя" in why[: why.index("</details>")]


def test_htmx_gets_only_the_form_and_results_with_a_shareable_address(catalog: None) -> None:
    response = Client().post("/", WORKLOAD, headers=HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body
    assert 'id="results"' in body
    assert _cards(body) == 3
    push = response["HX-Push-Url"]
    assert push.startswith("/?") and "model=llama-3.1-70b" in push and "concurrent_users=5" in push
    shared = Client().get(push)
    assert _cards(shared.content.decode()) == 3


def test_a_preset_from_the_article_fills_the_form_and_shows_builds(catalog: None) -> None:
    body = Client().get("/?preset=70b-team").content.decode()
    assert 'value="llama-3.1-70b"' in body
    assert _cards(body) == 3


def test_a_missing_model_is_an_error_on_the_field_and_no_search_runs(catalog: None) -> None:
    response = Client().post("/", {**WORKLOAD, "model": ""}, headers=HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert "Выберите модель или вставьте её config.json." in body
    assert 'aria-invalid="true"' in body
    assert "Исправьте отмеченные поля." in body
    assert _cards(body) == 0
    assert "HX-Push-Url" not in response


def test_an_unknown_model_is_named_as_such(catalog: None) -> None:
    body = Client().post("/", {**WORKLOAD, "model": "no-such-model-9b"}).content.decode()
    assert "Неизвестная модель." in body
    assert _cards(body) == 0


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("context_tokens", "0", "Убедитесь, что это значение больше либо равно 1."),
        ("concurrent_users", "много", "Введите целое число."),
        ("precision", "q9_z", "Выберите корректный вариант."),
    ],
)
def test_bad_numbers_and_choices_are_refused_in_russian(catalog: None, field: str, value: str, message: str) -> None:
    body = Client().post("/", {**WORKLOAD, field: value}).content.decode()
    assert message in body
    assert _cards(body) == 0


def test_a_pasted_config_json_replaces_the_model_name(catalog: None) -> None:
    from configurator.engine.models_library import LLM_MODELS_FIXTURE

    entry = next(m for m in json.loads(LLM_MODELS_FIXTURE.read_text())["models"] if m["slug"] == "qwen2.5-7b")
    response = Client().post("/", {**WORKLOAD, "model": "", "model_config": json.dumps(entry["config"])}, headers=HTMX)
    body = response.content.decode()
    assert _cards(body) >= 1
    assert "HX-Push-Url" not in response  # a pasted config is too long for an address


def test_a_config_that_is_not_json_is_refused(catalog: None) -> None:
    body = Client().post("/", {**WORKLOAD, "model": "", "model_config": "{not json"}).content.decode()
    assert "Это не корректный JSON" in body
    assert _cards(body) == 0


def test_a_budget_nothing_fits_says_so(catalog: None) -> None:
    body = Client().post("/", {**WORKLOAD, "max_price": "1000"}).content.decode()
    assert _cards(body) == 0
    assert "Ни одна сборка из каталога не подходит" in body


def test_model_search_lists_matching_library_models() -> None:
    response = Client().get("/models/search", {"model": "qwen3"}, headers=HTMX)
    body = response.content.decode()
    expected = [
        slug for slug, m in model_library().items() if "qwen3" in (m.slug + m.name + m.hf_id + m.family).lower()
    ]
    assert response.status_code == 200
    assert body.count("data-pick-model=") == min(len(expected), 8)
    assert 'data-pick-model="qwen3-8b"' in body
    assert "млрд параметров" in body


def test_model_search_with_nothing_typed_or_nothing_found() -> None:
    assert "data-pick-model" not in Client().get("/models/search", {"model": ""}).content.decode()
    body = Client().get("/models/search", {"model": "zzz-no-model"}).content.decode()
    assert "В библиотеке такой модели нет" in body


def test_the_open_in_editor_link_carries_the_build_and_workload(catalog: None, customer_user: Any) -> None:
    client = Client()
    client.force_login(customer_user)
    body = client.post("/", WORKLOAD).content.decode()
    assert body.count("/builds/new?build=") == 3
    anonymous = Client().post("/", WORKLOAD).content.decode()
    assert anonymous.count("/accounts/login/?next=/builds/new%3Fbuild%3D") == 3


@pytest.mark.parametrize(
    ("phrase", "first"),
    [
        ("llama 8b", ["llama-3.1-8b", "llama-3-8b"]),
        ("llama3", ["llama-3-8b", "llama-3-70b", "llama-3.3-70b"]),
        ("qwen 32b", ["qwen3-32b", "qwen2.5-32b"]),
        ("deepseek 671b", ["deepseek-r1", "deepseek-v3"]),
        ("r1", ["deepseek-r1", "deepseek-r1-distill-qwen-14b"]),
    ],
)
def test_the_pickers_search_finds_each_phrase_of_issue_37_best_first(phrase: str, first: list[str]) -> None:
    body = Client().get("/models/search", {"model": phrase}, headers=HTMX).content.decode()
    picked = re.findall(r'data-pick-model="([^"]+)"', body)
    assert picked[: len(first)] == first
    assert "В библиотеке такой модели нет" not in body


def test_the_pickers_search_says_did_you_mean_when_nothing_matches() -> None:
    body = Client().get("/models/search", {"model": "llama 9b"}, headers=HTMX).content.decode()
    assert "В библиотеке такой модели нет" in body
    assert "Возможно, вы имели в виду:" in body
    assert re.findall(r'data-pick-model="([^"]+)"', body) == ["llama-3-8b", "llama-3.1-8b", "llama-2-7b"]
    nothing = Client().get("/models/search", {"model": "zzz-no-model"}, headers=HTMX).content.decode()
    assert "Возможно, вы имели в виду" not in nothing


def test_a_phrase_submitted_as_the_model_says_which_models_it_likely_means(catalog: None) -> None:
    body = Client().post("/", {**WORKLOAD, "model": "llama 8b"}).content.decode()
    assert "Неизвестная модель." in body
    assert "Возможно, вы имели в виду: Llama 3.1 8B, Llama 3 8B?" in body  # names, not slugs
    assert _cards(body) == 0


@pytest.mark.parametrize(("phrase", "latin"), [("ллама 70б", "llama 70b"), ("лама 3 8б", "llama 3 8b")])
def test_a_size_typed_with_the_russian_b_finds_what_the_latin_one_does(phrase: str, latin: str) -> None:
    """A customer trial (issue 37): "70б" — the Cyrillic "б" glued to the number — found nothing."""

    def picked(query: str) -> list[str]:
        body = Client().get("/models/search", {"model": query}, headers=HTMX).content.decode()
        assert "В библиотеке такой модели нет" not in body
        return re.findall(r'data-pick-model="([^"]+)"', body)

    assert picked(phrase) == picked(latin) != []
