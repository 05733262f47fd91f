"""Issue 38: a lone surrogate (`"\\ud800"`, valid JSON, no text) anywhere in a body is a 400 naming the field.

Before: a surrogate in a key of a build or in a quote's build answered 500 (it reached the engine's
dataclasses and then the database as text PostgreSQL cannot hold)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from config.parsers import LoneSurrogate, json_loads_limited, lone_surrogate_check
from tests.factories import customer

CASES = [
    ("/api/v1/builds/validate", b'{"chassis": "ws-tower-am5", "\\ud800": 1}', "\ud800"),
    ("/api/v1/builds/validate", b'{"chassis": "ws-tower-am5", "cpus": [{"sku": "\\ud800", "qty": 1}]}', "cpus[0].sku"),
    ("/api/v1/builds/validate", b'{"chassis": "ws-\\udfff", "cpus": []}', "chassis"),
    ("/api/v1/quotes/", b'{"build": {"chassis": "ws-tower-am5\\udc00"}}', "build.chassis"),
    (
        "/api/v1/quotes/",
        b'{"build": {"chassis": "ws-tower-am5"}, "optional_lines": [{"\\ud800": 1}]}',
        "optional_lines[0]",
    ),
]


@pytest.mark.parametrize(("url", "body", "field"), CASES)
def test_a_lone_surrogate_is_a_400_naming_the_field(catalog: None, url: str, body: bytes, field: str) -> None:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(customer())
    response = client.post(url, body, content_type="application/json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    expected = field if not field.startswith("\ud800") else "non_field_errors"
    assert list(error["fields"]) == [expected]
    assert "lone surrogate (U+D" in error["fields"][expected][0]


def test_a_paired_surrogate_is_text_and_passes() -> None:
    assert json_loads_limited('{"name": "\\ud83d\\ude00"}') == {"name": "\U0001f600"}


def test_the_check_names_keys_and_nested_values() -> None:
    with pytest.raises(LoneSurrogate) as caught:
        lone_surrogate_check({"a": [1, {"b": ["ok", "x\udbff"]}]})
    assert (caught.value.path, caught.value.code_point) == ("a[1].b[1]", 0xDBFF)
    with pytest.raises(ValueError, match="lone surrogate"):
        json_loads_limited('{"config": {"\\ud800": 1}}')
