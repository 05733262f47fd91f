"""config.parsers.JsonBodyRequest: an `application/json` body reaches the engine endpoints' parser without DRF's
negotiation, to the same data, the same errors and the same request afterwards as DRF's own path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import RequestFactory, override_settings
from rest_framework.exceptions import ParseError, UnsupportedMediaType
from rest_framework.request import Request
from rest_framework.test import APIClient

from config.parsers import JsonBodyRequest, LimitedJSONParser, RequestBodyTooLarge
from configurator.api.builds import BuildValidateApi
from tests.builds import ARCHITECTURE_EXAMPLE

BODIES: tuple[bytes, ...] = (
    json.dumps(ARCHITECTURE_EXAMPLE).encode(),
    b'{"model": "llama-3.1-8b", "context_tokens": 12345678901234567890123}',  # a long integer: the stdlib's
    b'{"text": "\\u043f\\u0440\\u0438\\u0432\\u0435\\u0442", "n": 1e400}',
    b"[1, 2, 3]",
    b'"just a string"',
    b"{not json",
    b"[" * 40 + b"]" * 40,  # deeper than JSON_MAX_DEPTH
    b"\xff\xfe{}",  # not UTF-8
    b'{"a": NaN}',
    b"",
)


def _requests(body: bytes, content_type: str) -> tuple[Request, JsonBodyRequest]:
    """DRF's Request and a JsonBodyRequest on two Django requests made alike, with the API's parser."""
    made = [RequestFactory().generic("POST", "/api/v1/builds/validate", body, content_type=content_type) for _ in "ab"]
    context = {"view": BuildValidateApi()}
    return (
        Request(made[0], parsers=[LimitedJSONParser()], parser_context=dict(context)),
        JsonBodyRequest(made[1], parsers=[LimitedJSONParser()], parser_context=dict(context)),
    )


def _outcome(request: Request) -> tuple[str, Any]:
    try:
        return "data", request.data
    except Exception as error:  # the kind and words of any error are what is compared
        return type(error).__name__, str(error)


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8", "text/plain"])
@pytest.mark.parametrize("body", BODIES, ids=lambda body: body[:24].decode(errors="replace"))
def test_a_body_reads_as_drfs_own_path_reads_it(body: bytes, content_type: str) -> None:
    drf, fast = _requests(body, content_type)
    expected, got = _outcome(drf), _outcome(fast)
    assert got == expected
    if expected[0] == "data":
        assert type(got[1]) is type(expected[1])
    # afterwards: the body is still there for whoever reads it (DRF keeps Django's copy), the data settled
    assert fast.body == drf.body == body
    assert _outcome(fast) == _outcome(drf)
    if expected[0] == "data":
        assert fast.POST == drf.POST and dict(fast.FILES) == dict(drf.FILES)


def test_a_json_body_skips_drfs_negotiation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The saving cannot rot unnoticed: an `application/json` body never reaches DRF's `_parse`."""

    def refuse(self: Request) -> Any:
        raise AssertionError("DRF's _parse was called")

    monkeypatch.setattr(Request, "_parse", refuse)
    _, fast = _requests(json.dumps(ARCHITECTURE_EXAMPLE).encode(), "application/json")
    assert fast.data == ARCHITECTURE_EXAMPLE
    _, other = _requests(b"{}", "application/json; charset=utf-8")
    with pytest.raises(AssertionError, match="_parse was called"):
        _ = other.data  # a charset parameter: DRF's path


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=64)
def test_a_body_over_the_limit_is_refused_on_both_paths() -> None:
    body = json.dumps({"padding": "x" * 100}).encode()
    drf, fast = _requests(body, "application/json")
    assert _outcome(fast) == _outcome(drf)
    assert _outcome(fast)[0] in {"RequestDataTooBig", RequestBodyTooLarge.__name__}
    assert _outcome(fast) == _outcome(drf)  # and again: the same state after the refusal


@pytest.mark.django_db
def test_the_validate_endpoint_answers_alike_whatever_the_json_content_type(catalog: None) -> None:
    client = APIClient()
    body = json.dumps(ARCHITECTURE_EXAMPLE)
    plain = client.post("/api/v1/builds/validate", body, content_type="application/json")
    charset = client.post("/api/v1/builds/validate", body, content_type="application/json; charset=utf-8")
    assert plain.status_code == charset.status_code == 200
    assert plain.json() == charset.json()
    broken = client.post("/api/v1/builds/validate", "{not json", content_type="application/json")
    assert broken.status_code == 400
    assert broken.json()["error"]["code"] == "parse_error"
    form = client.post("/api/v1/builds/validate", "a=1", content_type="application/x-www-form-urlencoded")
    assert form.status_code == 415, form.content


def test_errors_are_drfs_kinds() -> None:
    """A sanity check of the comparison itself: the bad bodies above fail, with DRF's exception kinds."""
    kinds = {_outcome(_requests(body, "application/json")[1])[0] for body in BODIES}
    assert ParseError.__name__ in kinds
    assert UnsupportedMediaType.__name__ not in kinds  # application/json is the parser's type
