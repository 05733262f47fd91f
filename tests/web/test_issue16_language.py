"""Issue 16, language: the API speaks English unless Accept-Language asks otherwise (messages and field errors in
one language), pages are Russian by default, part names follow the reader's language from one cached snapshot,
one currency sign, and a favicon."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from catalog.specs import catalog_snapshot
from configurator.web.viewmodels import part_rows
from configurator.wording import part_name
from tests.builds import GOOD_BUILD

ESTIMATE = "/api/v1/estimate"
BAD_BODY = {"model": "llama-3.1-8b", "context_tokens": "many"}


def _error(response: object) -> dict[str, object]:
    body = response.json()  # type: ignore[attr-defined]
    return body.get("error", body)


@pytest.mark.django_db
def test_the_api_answers_in_english_by_default_even_with_the_sites_russian_cookie(api_client: APIClient) -> None:
    api_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ru"
    response = api_client.post(ESTIMATE, BAD_BODY, format="json")
    assert response.status_code == 400
    assert response["Content-Language"] == "en"
    error = _error(response)
    field_errors = " ".join(str(message) for message in error["fields"]["context_tokens"])  # type: ignore[index]
    assert "A valid integer is required." in field_errors
    assert not any("а" <= char <= "я" for char in str(error).lower())


@pytest.mark.django_db
def test_the_api_speaks_russian_when_accept_language_asks(api_client: APIClient) -> None:
    response = api_client.post(ESTIMATE, BAD_BODY, format="json", HTTP_ACCEPT_LANGUAGE="ru-RU,ru;q=0.9,en;q=0.5")
    assert response.status_code == 400
    assert response["Content-Language"] == "ru"
    field_errors = " ".join(str(m) for m in _error(response)["fields"]["context_tokens"])  # type: ignore[index]
    assert "Введите правильное число." in field_errors or "целое число" in field_errors
    unsupported = api_client.post(ESTIMATE, BAD_BODY, format="json", HTTP_ACCEPT_LANGUAGE="de-DE,fr;q=0.8")
    assert unsupported["Content-Language"] == "en"


@pytest.mark.django_db
def test_pages_are_russian_by_default_whatever_the_browser_says(client: Client) -> None:
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert page["Content-Language"] == "ru"
    assert '<html lang="ru">' in page.content.decode()


@pytest.mark.django_db
def test_one_cached_snapshot_names_parts_in_each_readers_language(catalog: None) -> None:
    snapshot = catalog_snapshot()
    psu = snapshot.psus["psu-crps-2000w"]
    gpu = snapshot.gpus["rtx-4090"]
    with translation.override("ru"):
        russian = {row.sku: row.name for row in part_rows(GOOD_BUILD, snapshot)}
        assert part_name(gpu) == "NVIDIA GeForce RTX 4090"  # brand names stay
    with translation.override("en"):
        english = {row.sku: row.name for row in part_rows(GOOD_BUILD, snapshot)}
    assert catalog_snapshot() is snapshot  # the same cached snapshot served both
    assert russian["psu-crps-2000w"] == "Блок питания CRPS 2000 Вт с горячей заменой, 80 PLUS Titanium"
    assert english["psu-crps-2000w"] == psu.name == "CRPS 2000 W hot-swap PSU, 80 PLUS Titanium"
    assert russian["ws-tr-pro-2gpu-4u5"].startswith("ИИ-станция 4,5U")
    assert english["ws-tr-pro-2gpu-4u5"].startswith("AI workstation 4.5U")


@pytest.mark.django_db
def test_the_favicon_is_linked_and_served(client: Client) -> None:
    page = client.get("/").content.decode()
    assert 'rel="icon"' in page and "favicon.svg" in page
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("/static/favicon.ico")
    assert (Path(settings.BASE_DIR) / "static" / "favicon.ico").read_bytes()[:4] == b"\x00\x00\x01\x00"


@pytest.mark.django_db
def test_pages_show_the_rouble_sign_never_the_code(client: Client, catalog: None) -> None:
    page = client.get("/").content.decode()
    assert "RUB" not in page
    assert "₽" in page


@pytest.mark.django_db
def test_one_language_per_answer_whatever_the_previous_caller_asked(api_client: APIClient) -> None:
    """The API's serializers are reused per thread: a Russian caller after an English one (and back) gets every
    message of its answer in its own language, the top-level message included."""
    body = {"model": "llama-3.1-8b", "precision": "q9", "concurrent_users": 0}
    answers: dict[str, list[dict[str, Any]]] = {}
    for language in ("en", "ru", "en"):
        response = api_client.post(ESTIMATE, body, format="json", HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 400
        answers.setdefault(language, []).append(_error(response))
    english, russian = answers["en"][0], answers["ru"][0]
    assert answers["en"][1] == english  # the same words after a Russian answer
    assert english["message"] == "The request is not valid."
    assert russian["message"] == "Запрос некорректен."
    for messages in russian["fields"].values():
        for message in messages:
            assert any("а" <= char <= "я" for char in message.lower()), message
    for messages in english["fields"].values():
        for message in messages:
            assert not any("а" <= char <= "я" for char in message.lower()), message


@pytest.mark.django_db
def test_a_builds_workload_reasons_follow_the_callers_language(api_client: APIClient, catalog: None) -> None:
    """A build's nested workload is checked by the thread's reused serializer too: its reasons are said in the
    caller's language whoever called before, under `workload.<field>`."""
    build = {**GOOD_BUILD, "workload": {"model": "llama-3.1-8b", "context_tokens": 0, "concurrent_users": 0}}
    answers: dict[str, list[dict[str, Any]]] = {}
    for language in ("en", "ru", "en", "ru"):
        response = api_client.post("/api/v1/builds/validate", build, format="json", HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 400, response.content
        answers.setdefault(language, []).append(_error(response))
    english, russian = answers["en"][0], answers["ru"][0]
    assert answers["en"][1] == english and answers["ru"][1] == russian
    assert set(english["fields"]) == set(russian["fields"]) == {"workload.context_tokens", "workload.concurrent_users"}
    for messages in russian["fields"].values():
        assert all(any("а" <= char <= "я" for char in message.lower()) for message in messages), messages
    for messages in english["fields"].values():
        assert not any(any("а" <= char <= "я" for char in message.lower()) for message in messages), messages


@pytest.mark.django_db
def test_the_engines_own_reasons_follow_the_callers_language(api_client: APIClient, catalog: None) -> None:
    """The engine's messages are Phrases: a typo'd build key, an unknown SKU and a bad pasted config are said in
    Russian to a Russian caller, the message and every field reason, and stay English otherwise."""
    build = {**GOOD_BUILD, "gpu": GOOD_BUILD["gpus"], "cpus": [{"sku": "no-such-cpu", "qty": 1}]}
    build.pop("gpus")
    config = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": -3}
    for language in ("ru", "en"):
        said = api_client.post("/api/v1/builds/validate", build, format="json", HTTP_ACCEPT_LANGUAGE=language)
        pasted = api_client.post(ESTIMATE, {"model_config": config}, format="json", HTTP_ACCEPT_LANGUAGE=language)
        assert said.status_code == pasted.status_code == 400
        fields: dict[str, list[str]] = {**_error(said)["fields"], **_error(pasted)["fields"]}  # type: ignore[dict-item]
        gpu, cpu, layers = fields["gpu"][0], fields["cpus[0].sku"][0], fields["model_config.num_hidden_layers"][0]
        message = str(_error(pasted)["message"])
        if language == "ru":
            assert gpu == "неизвестное поле 'gpu'; возможно, имелось в виду 'gpus'?"
            assert cpu == "неизвестный артикул 'no-such-cpu' (cpus)"
            assert layers.startswith("Нужно целое число от 1 до ")
            assert message.startswith("Поле `num_hidden_layers` во вставленном config.json не подходит: Нужно")
        else:
            assert gpu == "unknown field 'gpu'; did you mean 'gpus'?"
            assert cpu == "unknown cpus SKU 'no-such-cpu'"
            assert layers.startswith("An integer from 1 to ")
            assert message.startswith("`num_hidden_layers` in the pasted config.json is not usable: An integer")
            assert not any("а" <= char <= "я" for char in f"{gpu}{cpu}{layers}{message}".lower())


@pytest.mark.django_db
def test_the_workload_page_says_a_bad_pasted_config_in_russian(client: Client, catalog: None) -> None:
    config = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32}
    config |= {"num_key_value_heads": 5, "intermediate_size": 14336, "vocab_size": 128256}
    body = {"model": "", "model_config": json.dumps(config), "task": "inference", "precision": "bf16"}
    body |= {"context_tokens": "8192", "concurrent_users": "1", "form_factor": "any"}
    page = client.post("/", body).content.decode()
    assert "Должно делить num_attention_heads (32); указано 5." in page
    assert "Must divide" not in page


def test_the_editors_part_lines_say_units_and_standards_in_the_readers_language() -> None:
    from catalog.fixture import fixture_snapshot
    from configurator.web.forms import _specs

    snapshot = fixture_snapshot()
    storage = next(s for s in snapshot.storage.values() if s.interface == "nvme" and s.form_factor == "u.2")
    memory = next(iter(snapshot.memory.values()))
    with translation.override("ru"):
        assert _specs("storage", storage).endswith(" ТБ, NVMe, U.2")
        assert _specs("memory", memory).endswith(f"{memory.speed_mts} МТ/с")
    with translation.override("en"):
        assert _specs("storage", storage).endswith(" TB, NVMe, U.2")
        assert _specs("memory", memory).endswith(f"{memory.speed_mts} MT/s")


@pytest.mark.django_db
def test_a_build_that_is_not_an_object_is_refused_in_the_callers_language(api_client: APIClient) -> None:
    russian = api_client.post("/api/v1/builds/validate", [1, 2], format="json", HTTP_ACCEPT_LANGUAGE="ru")
    english = api_client.post("/api/v1/builds/validate", [1, 2], format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert russian.status_code == english.status_code == 400
    assert _error(russian)["message"] == "Сборка должна быть JSON-объектом."
    assert _error(russian)["fields"] == {"non_field_errors": ["нужен объект"]}
    assert _error(english)["message"] == "The build must be a JSON object."
