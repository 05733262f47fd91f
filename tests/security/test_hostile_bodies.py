"""Hostile request bodies: JSON nested deeper than JSON_MAX_DEPTH, huge numbers, invalid UTF-8, NUL bytes and
chunked bodies over the size limit are 400/413 envelopes on every endpoint that reads a JSON body, never a
500; the same deep JSON in the pages' form fields (url-encoded or multipart) is a form error."""

from __future__ import annotations

import io
import json
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.conf import settings
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.models import User
from config.parsers import JsonTooDeep, LimitedJSONParser, json_depth_check, json_loads_limited
from configurator.models import SavedBuild
from orders.services import order_place
from quotes import services
from quotes.models import Quote
from tests import factories
from tests.builds import GOOD_BUILD
from tests.security.test_hygiene import envelope

pytestmark = pytest.mark.django_db

DEPTH = 32  # config/settings/base.py JSON_MAX_DEPTH
DEEP_ARRAY = "[" * 1000 + "]" * 1000  # Python's json recursion gave out at ~950 levels: a 500 before
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000
JUST_TOO_DEEP = '{"model":' + "[" * DEPTH + "]" * DEPTH + "}"  # 33 levels
DEEP_MESSAGE = f"JSON parse error - JSON nested deeper than {DEPTH} levels (the limit is {DEPTH})"

# Every operation of the schema with a request body, and who can reach its parser (None: anonymous).
JSON_OPERATIONS: dict[tuple[str, str], str | None] = {
    ("post", "/api/v1/estimate"): None,
    ("post", "/api/v1/builds/validate"): None,
    ("post", "/api/v1/builds/apply-fix"): None,
    ("post", "/api/v1/recommendations"): None,
    ("post", "/api/v1/clusters/recommendations"): None,
    ("post", "/api/v1/builds/"): "customer",
    ("put", "/api/v1/builds/{id}/"): "customer",
    ("patch", "/api/v1/builds/{id}/"): "customer",
    ("post", "/api/v1/quotes/"): "customer",
    ("post", "/api/v1/quotes/cluster/"): "customer",
    ("post", "/api/v1/quotes/{number}/reject/"): "customer",
    ("post", "/api/v1/quotes/{number}/revise/"): "sales",
    ("post", "/api/v1/quotes/{number}/services"): "sales",
    ("post", "/api/v1/orders/{number}/advance/"): "sales",
    ("post", "/api/v1/orders/{number}/build-steps/"): "sales",
    ("post", "/api/v1/purchase-orders/"): "sales",
    ("post", "/api/v1/purchase-orders/{number}/transition/"): "sales",  # the body is read before the lookup
    ("post", "/api/v1/receipts/"): "sales",
    ("post", "/api/v1/orders/{number}/service-costs/"): "sales",
    ("post", "/api/v1/invoices/"): "sales",
    ("post", "/api/v1/payments/"): "sales",
    ("post", "/api/v1/transfer-documents/"): "sales",
}


@pytest.fixture
def actors(catalog: None) -> dict[str, Any]:
    customer = factories.customer(username="carol")
    sales = factories.sales(username="sid")
    saved = SavedBuild.objects.create(owner=customer, name="mine", payload=GOOD_BUILD)
    quote = services.quote_send(
        quote=services.quote_create(customer=customer, created_by=customer, payload=GOOD_BUILD), user=sales
    )
    ordered = services.quote_send(
        quote=services.quote_create(customer=customer, created_by=customer, payload=GOOD_BUILD), user=sales
    )
    services.quote_accept(quote=ordered, user=customer)
    order, _ = order_place(quote=ordered, user=customer)
    return {"customer": customer, "sales": sales, "pk": saved.pk, "number": quote.number, "order": order.number}


def _client(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {factories.api_token(user)}")
    return client


def _send(actors: dict[str, Any], method: str, path: str, raw: bytes) -> Any:
    role = JSON_OPERATIONS[(method, path)]
    number = actors["order"] if path.startswith("/api/v1/orders/") else actors["number"]
    if path.startswith("/api/v1/purchase-orders/"):
        number = "PO-2026-999999"
    url = path.format(id=actors["pk"], number=number)
    client = _client(actors[role] if role else None)
    return getattr(client, method)(url, data=raw, content_type="application/json")


# Operations that take a file (multipart/form-data) rather than JSON.
MULTIPART_OPERATIONS = {("post", "/api/v1/suppliers/{slug}/price-lists")}


def test_the_list_names_every_operation_that_takes_a_body() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    with_body = {
        (method, path): set(operation["requestBody"]["content"])
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    }
    assert {key for key, types in with_body.items() if "application/json" in types} == set(JSON_OPERATIONS)
    assert {key for key, types in with_body.items() if "application/json" not in types} == MULTIPART_OPERATIONS
    assert all(with_body[key] == {"multipart/form-data"} for key in MULTIPART_OPERATIONS)


def test_json_sent_to_a_file_upload_is_a_415_envelope(catalog: None) -> None:
    from procurement.models import PriceListImport, Supplier

    Supplier.objects.create(slug="dist", name="Distributor")
    response = _client(factories.catalog_staff()).post(
        "/api/v1/suppliers/dist/price-lists", data=DEEP_ARRAY.encode(), content_type="application/json"
    )
    assert response.status_code == 415
    assert envelope(response)["code"] == "unsupported_media_type"
    assert not PriceListImport.objects.exists()


@pytest.mark.parametrize(("method", "path"), list(JSON_OPERATIONS))
@pytest.mark.parametrize("raw", [DEEP_ARRAY, DEEP_OBJECT, JUST_TOO_DEEP], ids=["array", "object", "33-levels"])
def test_json_nested_too_deep_is_a_400_parse_error_naming_the_limit(
    actors: dict[str, Any], method: str, path: str, raw: str
) -> None:
    quotes_before = Quote.objects.count()
    response = _send(actors, method, path, raw.encode())
    assert response.status_code == 400
    assert envelope(response) == {"code": "parse_error", "message": DEEP_MESSAGE, "fields": {}}
    assert Quote.objects.count() == quotes_before
    assert SavedBuild.objects.get(pk=actors["pk"]).payload == GOOD_BUILD


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"gpu_count": 1' + b"0" * 5000 + b"}", "JSON parse error - Exceeds the limit (4300 digits)"),
        (b'{"model": "\xff\xfe"}', "JSON parse error - the body is not valid utf-8"),
        (b'{"model": "x"}\x00', "JSON parse error - Extra data: line 1 column 15 (char 14)"),
        (b'{"gpu_count": NaN}', "JSON parse error - Out of range float values are not JSON compliant: 'NaN'"),
    ],
    ids=["huge-number", "invalid-utf8", "nul", "nan"],
)
def test_other_hostile_bodies_are_400_parse_errors(raw: bytes, message: str) -> None:
    response = APIClient().post("/api/v1/estimate", data=raw, content_type="application/json")
    assert response.status_code == 400
    error = envelope(response)
    assert (error["code"], error["message"][: len(message)]) == ("parse_error", message)


def test_brackets_inside_strings_do_not_count_as_nesting(catalog: None) -> None:
    body = {"model": "[" * 5000 + '\\"{' * 100, "precision": "q4_k_m"}
    response = APIClient().post("/api/v1/estimate", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    error = envelope(response)
    assert error["code"] != "parse_error"
    assert "model" in error["fields"]


def test_a_body_at_the_depth_limit_is_parsed() -> None:
    assert json_loads_limited("[" * DEPTH + "]" * DEPTH, max_depth=DEPTH) == json.loads("[" * DEPTH + "]" * DEPTH)
    with pytest.raises(JsonTooDeep, match="the limit is 32"):
        json_depth_check("[" * (DEPTH + 1) + "]" * (DEPTH + 1), DEPTH)
    json_depth_check(b'["' + b"[" * 100 + b'"]', DEPTH)  # inside a string: no error


def test_a_chunked_body_over_the_upload_limit_is_a_413_without_content_length() -> None:
    """No Content-Length (chunked): the middleware cannot refuse it up front, the parser stops reading."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    stream = io.BytesIO(b'{"model": "' + b"x" * limit + b'"}')
    with pytest.raises(Exception, match=f"larger than {limit} bytes") as raised:
        LimitedJSONParser().parse(stream, "application/json", {})
    assert raised.value.status_code == 413  # type: ignore[attr-defined]
    assert stream.tell() == limit + 1  # read no further than one byte past the limit


# --------------------------------------------------------------------------- the pages' JSON form fields


WORKLOAD_FORM = {
    "model": "",
    "task": "inference",
    "precision": "q4_k_m",
    "context_tokens": "8192",
    "concurrent_users": "1",
    "form_factor": "any",
}


@pytest.mark.parametrize("multipart", [False, True], ids=["urlencoded", "multipart"])
def test_a_deep_config_json_on_the_workload_page_is_a_form_error(catalog: None, multipart: bool) -> None:
    data = {**WORKLOAD_FORM, "model_config": DEEP_OBJECT}
    if multipart:
        response = Client().post("/", data)  # the test client sends multipart/form-data by default
    else:
        response = Client().post("/", urlencode(data), content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    assert f"JSON nested deeper than {DEPTH} levels" in response.content.decode()


def test_a_deep_build_in_the_editor_address_opens_an_empty_editor(catalog: None) -> None:
    client = Client()
    client.force_login(factories.customer(username="dave"))
    response = client.get(f"/builds/new?build={quote(DEEP_OBJECT)}")
    assert response.status_code == 200
    assert 'name="gpus-TOTAL_FORMS" value="0"' in response.content.decode()


def test_a_deep_fix_in_the_editor_is_refused_and_changes_nothing(catalog: None) -> None:
    from tests.web.conftest import HTMX, editor_data

    client = Client()
    client.force_login(factories.customer(username="erin"))
    body = client.post("/builds/new", editor_data(GOOD_BUILD, op="fix:" + DEEP_OBJECT), headers=HTMX)
    assert body.status_code == 200
    assert "Это исправление применить не удалось; сборка не изменилась." in body.content.decode()


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
_EDGE_BODIES = [
    b"1e400",
    b"-1e400",
    b"123456789012345678901234567890",
    b"-9223372036854775809",
    b"18446744073709551616",
    # b'"\\ud800"': a lone surrogate is refused now, naming the field (tests/api/test_lone_surrogate.py)
    b'{"a": 1, "a": 2}',
    b"\xef\xbb\xbf{}",
    b"[1,]",
    b'"a\tb"',
    b"Infinity",
    b'{"x": -0.0, "y": 1E5, "z": 0.1e-400}',
]


def _read(raw: bytes) -> tuple[str, Any]:
    """What the API's parser makes of `raw`: the value, or the parse error's message."""
    from rest_framework.exceptions import ParseError

    try:
        return "value", LimitedJSONParser().parse(io.BytesIO(raw))
    except ParseError as error:
        return "error", str(error.detail)


def _reference(raw: bytes) -> tuple[str, Any]:
    """The standard library's reading (strict: no NaN or Infinity), with DRF's error message."""
    from rest_framework.utils import json as drf_json

    try:
        return "value", drf_json.loads(raw.decode("utf-8"), parse_constant=drf_json.strict_constant)
    except ValueError as error:
        return "error", f"JSON parse error - {error}"


@hypothesis_settings(max_examples=300, deadline=None)
@given(value=_JSON_VALUES, spaced=st.booleans())
def test_the_parser_reads_every_body_as_the_standard_library_does(value: Any, spaced: bool) -> None:
    """orjson reads the body when it can; the values, their types (an exact int, however long) and the
    errors are those of the standard library's reading."""
    raw = json.dumps(value, indent=1 if spaced else None, ensure_ascii=False).encode()
    made, reference = _read(raw), _reference(raw)
    assert made == reference
    assert repr(made) == repr(reference)  # 1 stays an int, 1.0 a float, -0.0 its sign


@pytest.mark.parametrize("raw", _EDGE_BODIES)
def test_edge_bodies_read_as_the_standard_library_reads_them(raw: bytes) -> None:
    made, reference = _read(raw)[0], _reference(raw)[0]
    assert made == reference
    if made == "value":
        assert repr(_read(raw)) == repr(_reference(raw))
