"""GET /api/v1/schema/ generates the schema once per process and language (config/schema.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from config import schema as schema_view

JSON = "application/vnd.oai.openapi+json"


@pytest.fixture(autouse=True)
def _no_kept_schemas() -> Iterator[None]:
    schema_view._made.clear()
    yield
    schema_view._made.clear()


def _get(query: str = "") -> dict[str, Any]:
    response = APIClient().get(f"/api/v1/schema/{query}", HTTP_ACCEPT=JSON)
    assert response.status_code == 200, response.content[:500]
    data: dict[str, Any] = json.loads(response.content)
    return data


@pytest.mark.django_db
def test_the_schema_is_generated_once_per_language_and_is_the_generated_one() -> None:
    with mock.patch.object(
        SchemaGenerator, "get_schema", autospec=True, side_effect=SchemaGenerator.get_schema
    ) as made:
        first, again = _get("?lang=en"), _get("?lang=en")
        assert made.call_count == 1
        russian = _get("?lang=ru")
        assert made.call_count == 2
    with translation.override("en"):
        fresh = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    assert first == again == fresh
    assert russian["paths"].keys() == first["paths"].keys()
    assert russian != first  # the descriptions are translated


@pytest.mark.django_db
def test_the_kept_schemas_are_bounded_by_the_languages_not_by_the_query() -> None:
    default = _get("?lang=ru")
    assert _get("?lang=xx-unknown") == default  # gettext's fallback: the default language's texts
    assert _get("?lang=ru-RU") == default
    versioned = _get("?lang=ru&version=anything-the-caller-likes")
    assert versioned["info"]["version"] == default["info"]["version"] != "anything-the-caller-likes"
    assert set(schema_view._made) == {"ru"}
