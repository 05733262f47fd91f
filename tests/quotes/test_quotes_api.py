"""/api/v1/quotes/: bodies, the authorization matrix (anonymous / customer / other customer / sales /
catalog staff), the Idempotency-Key header, 409 for the PDF while rendering and for bad transitions, and
that a denied request writes nothing."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from quotes.models import Quote, QuoteEvent, QuoteLine
from quotes.tasks import quote_render
from tests import factories
from tests.builds import ERROR_BUILD, GOOD_BUILD, WARNING_BUILD

URL = "/api/v1/quotes/"
NUMBER = re.compile(r"^Q-\d{4}-\d{6}$")


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def _counts() -> tuple[int, int, int]:
    return Quote.objects.count(), QuoteLine.objects.count(), QuoteEvent.objects.count()


def _error(response: Any) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "fields"}
    return body["error"]


@pytest.fixture
def catalog_user(db: None) -> User:
    return factories.catalog_staff(username="cathy")


# --------------------------------------------------------------------------- create


@pytest.mark.django_db
def test_customer_creates_a_quote_and_gets_the_full_body(catalog: None, customer_user: User) -> None:
    response = client_for(customer_user).post(URL, {"build": GOOD_BUILD}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert NUMBER.match(body["number"])
    assert body["revision"] == 1 and body["revisions"] == [1] and body["is_latest"] is True
    assert body["status"] == "draft"
    assert body["customer"] == {
        "id": customer_user.pk,
        "username": "alice",
        "email": "alice@example.com",
        "company": "ООО Нейросеть",
    }
    assert body["created_by"] == "alice"
    assert (body["currency"], body["vat_percent"], body["discount_percent"]) == ("RUB", "22.00", "0.00")
    assert body["needs_approval"] is False
    quote = Quote.objects.get()
    assert body["totals"] == {
        "net": str(quote.net_total),
        "vat": str(quote.vat_total),
        "gross": str(quote.gross_total),
    }
    assert Decimal(body["totals"]["gross"]) == Decimal(body["totals"]["net"]) + Decimal(body["totals"]["vat"])
    assert [line["sku"] for line in body["lines"]] == [
        "ws-tr-pro-2gpu-4u5",
        "tr-pro-7975wx",
        "rtx-pro-6000-blackwell-maxq",
        "psu-crps-2000w",
        "ddr5-rdimm-64gb",
        "nvme-4tb",
    ]
    gpu = body["lines"][2]
    assert gpu == {
        "position": 3,
        "kind": "gpus",
        "sku": "rtx-pro-6000-blackwell-maxq",
        "name": gpu["name"],
        "spec_summary": gpu["spec_summary"],
        "qty": 2,
        "list_price": "990000.00",
        "discount_percent": "0.00",
        "unit_price": "990000.00",
        "line_total": "1980000.00",
        "optional": False,
        "service_percent": None,  # a hardware line; a percentage service line says its percentage (issue 35)
        "section": "",  # a server's lines have no section; a cluster quote's say theirs (issue 39)
    }
    assert body["build"]["chassis"] == "ws-tr-pro-2gpu-4u5"
    assert body["verdict"]["valid"] is True
    assert body["pdf"] == {"status": "pending", "sha256": "", "url": None}
    assert [event["type"] for event in body["events"]] == ["created"]
    assert body["valid_until"] is None and "НДС 22 %" in body["terms"]


@pytest.mark.django_db
def test_sales_creates_for_a_customer_with_a_discount(catalog: None, sales_user: User, customer_user: User) -> None:
    response = client_for(sales_user).post(
        URL,
        {"build": GOOD_BUILD, "customer": customer_user.pk, "discount_percent": "12.5"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["customer"]["id"] == customer_user.pk and body["created_by"] == "sam"
    assert body["discount_percent"] == "12.50" and body["needs_approval"] is True
    assert Quote.objects.get().owner == customer_user


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"build": GOOD_BUILD, "customer": "OTHER"}, 403, "forbidden"),
        ({"build": GOOD_BUILD, "discount_percent": "5"}, 403, "discount_not_allowed"),
        ({"build": ERROR_BUILD}, 400, "build_invalid"),
        ({"build": WARNING_BUILD}, 400, "warnings_not_acknowledged"),
        ({"build": {**GOOD_BUILD, "gpus": [{"sku": "rtx-9999", "qty": 2}]}}, 400, "invalid"),
        ({}, 400, "invalid"),
        ({"build": GOOD_BUILD, "saved_build": 1}, 400, "invalid"),
        ({"build": GOOD_BUILD, "discount_percent": "101"}, 400, "invalid"),
        ({"build": "not an object"}, 400, "invalid"),
        ({"saved_build": 999999}, 400, "invalid"),
    ],
)
def test_refused_creates_write_nothing(
    catalog: None, customer_user: User, other_customer: User, body: dict[str, Any], status: int, code: str
) -> None:
    body = copy.deepcopy(body)
    if body.get("customer") == "OTHER":
        body["customer"] = other_customer.pk
    before = _counts()
    response = client_for(customer_user).post(URL, body, format="json")
    assert response.status_code == status, response.json()
    assert _error(response)["code"] == code
    assert _counts() == before


@pytest.mark.django_db
def test_build_errors_name_the_findings_and_bad_skus_name_the_field(catalog: None, customer_user: User) -> None:
    client = client_for(customer_user)
    error = _error(client.post(URL, {"build": ERROR_BUILD}, format="json"))
    assert any(reason.startswith("power.psu_capacity") for reason in error["fields"]["build"])
    assert "power.psu_capacity" in error["message"]

    error = _error(client.post(URL, {"build": {**GOOD_BUILD, "gpus": [{"sku": "rtx-9999"}]}}, format="json"))
    assert error["fields"] == {"build.gpus[0].sku": ["unknown gpus SKU 'rtx-9999'"]}


@pytest.mark.django_db
def test_warnings_must_be_acknowledged(catalog: None, customer_user: User) -> None:
    client = client_for(customer_user)
    error = _error(client.post(URL, {"build": WARNING_BUILD}, format="json"))
    codes = {reason.split(":")[0] for reason in error["fields"]["acknowledge_warnings"]}
    assert "pcie.x8_fallback" in codes
    response = client.post(URL, {"build": WARNING_BUILD, "acknowledge_warnings": True}, format="json")
    assert response.status_code == 201
    created = QuoteEvent.objects.get(type="created")
    assert set(created.data["acknowledged_warnings"]) == codes


@pytest.mark.django_db
def test_a_saved_build_makes_a_quote(catalog: None, customer_user: User, other_customer: User) -> None:
    from configurator.services import saved_build_create

    mine = saved_build_create(owner=customer_user, name="2 × RTX PRO", payload=GOOD_BUILD)
    theirs = saved_build_create(owner=other_customer, name="theirs", payload=GOOD_BUILD)
    client = client_for(customer_user)
    response = client.post(URL, {"saved_build": mine.pk}, format="json")
    assert response.status_code == 201
    assert Quote.objects.get().saved_build == mine
    response = client.post(URL, {"saved_build": theirs.pk}, format="json")
    assert response.status_code == 400
    assert _error(response)["fields"] == {"saved_build": ["no saved build with this id"]}
    assert Quote.objects.count() == 1


@pytest.mark.django_db
def test_anonymous_users_cannot_create_or_list(catalog: None) -> None:
    anonymous = client_for(None)
    assert anonymous.post(URL, {"build": GOOD_BUILD}, format="json").status_code in (401, 403)
    assert anonymous.get(URL).status_code in (401, 403)
    assert _counts() == (0, 0, 0)


# --------------------------------------------------------------------------- idempotency


@pytest.mark.django_db
def test_the_same_idempotency_key_returns_the_same_quote(
    catalog: None, customer_user: User, other_customer: User
) -> None:
    client = client_for(customer_user)
    first = client.post(URL, {"build": GOOD_BUILD}, format="json", HTTP_IDEMPOTENCY_KEY="order-42")
    again = client.post(URL, {"build": GOOD_BUILD}, format="json", HTTP_IDEMPOTENCY_KEY="order-42")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again["Idempotent-Replayed"] == "true"
    assert first.json()["number"] == again.json()["number"]
    assert Quote.objects.count() == 1
    assert QuoteEvent.objects.filter(type="created").count() == 1

    other = client.post(URL, {"build": GOOD_BUILD}, format="json", HTTP_IDEMPOTENCY_KEY="order-43")
    assert other.status_code == 201 and other.json()["number"] != first.json()["number"]
    # keys are per creator: another customer's "order-42" is another quote
    theirs = client_for(other_customer).post(URL, {"build": GOOD_BUILD}, format="json", HTTP_IDEMPOTENCY_KEY="order-42")
    assert theirs.status_code == 201
    assert Quote.objects.count() == 3

    too_long = client.post(URL, {"build": GOOD_BUILD}, format="json", HTTP_IDEMPOTENCY_KEY="k" * 101)
    assert too_long.status_code == 400 and Quote.objects.count() == 3


# --------------------------------------------------------------------------- list and detail


@pytest.fixture
def two_quotes(make_quote: Callable[..., Quote], customer_user: User, other_customer: User) -> tuple[Quote, Quote]:
    return make_quote(customer=customer_user), make_quote(customer=other_customer)


@pytest.mark.django_db
def test_list_shows_own_quotes_to_customers_and_all_to_sales(
    two_quotes: tuple[Quote, Quote], customer_user: User, other_customer: User, sales_user: User, catalog_user: User
) -> None:
    mine, theirs = two_quotes

    def numbers(user: User, **params: Any) -> list[str]:
        response = client_for(user).get(URL, params)
        assert response.status_code == 200
        return [row["number"] for row in response.json()["results"]]

    assert numbers(customer_user) == [mine.number]
    assert numbers(other_customer) == [theirs.number]
    assert sorted(numbers(sales_user)) == sorted([mine.number, theirs.number])
    assert numbers(catalog_user) == []
    Quote.objects.filter(pk=theirs.pk).update(status="sent")
    assert numbers(sales_user, status="sent") == [theirs.number]
    assert numbers(sales_user, status="draft") == [mine.number]
    assert client_for(sales_user).get(URL, {"status": "bogus"}).status_code == 400


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "status"),
    [("anonymous", 403), ("owner", 200), ("other", 404), ("sales", 200), ("catalog", 404)],
)
def test_detail_authorization(
    two_quotes: tuple[Quote, Quote],
    customer_user: User,
    other_customer: User,
    sales_user: User,
    catalog_user: User,
    who: str,
    status: int,
) -> None:
    mine, _ = two_quotes
    user = {"anonymous": None, "owner": customer_user, "other": other_customer, "sales": sales_user}.get(
        who, catalog_user
    )
    response = client_for(user).get(f"{URL}{mine.number}/")
    assert response.status_code in ((401, 403) if who == "anonymous" else (status,))
    if status == 200:
        assert response.json()["number"] == mine.number
    else:
        assert _error(response)["code"] in {"not_found", "not_authenticated"}


@pytest.mark.django_db
def test_detail_is_the_latest_revision_unless_asked(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user)
    client = client_for(sales_user)
    assert client.post(f"{URL}{quote.number}/send/").status_code == 200
    revised = client.post(f"{URL}{quote.number}/revise/", {"discount_percent": "4"}, format="json")
    assert revised.status_code == 201
    assert (revised.json()["revision"], revised.json()["status"]) == (2, "draft")
    latest = client_for(customer_user).get(f"{URL}{quote.number}/").json()
    assert (latest["revision"], latest["revisions"], latest["is_latest"]) == (2, [1, 2], True)
    first = client_for(customer_user).get(f"{URL}{quote.number}/", {"revision": 1}).json()
    assert (first["revision"], first["status"], first["is_latest"]) == (1, "superseded", False)
    assert client.get(f"{URL}{quote.number}/", {"revision": 7}).status_code == 404
    assert client.get(f"{URL}{quote.number}/", {"revision": "x"}).status_code == 400
    assert client.get(f"{URL}Q-2026-999999/").status_code == 404


# --------------------------------------------------------------------------- actions


@pytest.mark.django_db
def test_full_flow_through_the_api(
    make_quote: Callable[..., Quote], customer_user: User, sales_user: User, sales_lead: User
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user, discount_percent=15)
    url = f"{URL}{quote.number}"
    sam, lena, alice = client_for(sales_user), client_for(sales_lead), client_for(customer_user)

    blocked = sam.post(f"{url}/send/")
    assert blocked.status_code == 409 and _error(blocked)["code"] == "approval_required"
    assert sam.post(f"{url}/submit/").json()["status"] == "pending_approval"
    same = sam.post(f"{url}/approve/")
    assert same.status_code == 403 and _error(same)["code"] == "approver_must_differ"
    assert lena.post(f"{url}/approve/").json()["status"] == "approved"
    sent = sam.post(f"{url}/send/").json()
    assert sent["status"] == "sent" and sent["valid_until"] is not None
    accepted = alice.post(f"{url}/accept/")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    types = [event["type"] for event in accepted.json()["events"]]
    assert types.count("status_changed") == 4


@pytest.mark.django_db
def test_a_forbidden_transition_is_409_naming_from_and_to_and_writes_nothing(
    make_quote: Callable[..., Quote], customer_user: User, sales_lead: User
) -> None:
    quote = make_quote()
    before = _counts()
    response = client_for(sales_lead).post(f"{URL}{quote.number}/approve/")
    assert response.status_code == 409
    error = _error(response)
    assert error["code"] == "invalid_transition"
    assert error["message"] == f"Quote {quote.number} R1 cannot go from draft to approved."
    assert error["fields"] == {"status": ["draft → approved is not allowed"]}
    assert _counts() == before
    response = client_for(customer_user).post(f"{URL}{quote.number}/accept/")
    assert response.status_code == 409 and "from draft to accepted" in _error(response)["message"]
    assert _counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["submit", "approve", "send", "revise", "accept", "reject", "refresh-prices"])
def test_actions_by_the_wrong_people_are_denied_and_write_nothing(
    make_quote: Callable[..., Quote],
    customer_user: User,
    other_customer: User,
    sales_user: User,
    catalog_user: User,
    action: str,
) -> None:
    quote = make_quote(customer=customer_user, created_by=sales_user)
    if action in ("accept", "reject"):
        Quote.objects.filter(pk=quote.pk).update(status="sent")
    if action == "approve":
        Quote.objects.filter(pk=quote.pk).update(status="pending_approval", submitted_by=sales_user)
    status_before = Quote.objects.get(pk=quote.pk).status
    before = _counts()
    url = f"{URL}{quote.number}/{action}/"

    assert client_for(None).post(url).status_code in (401, 403)
    assert client_for(other_customer).post(url).status_code == 404  # not yours: it does not exist for you
    assert client_for(catalog_user).post(url).status_code == 404
    if action in ("accept", "reject"):
        denied = client_for(sales_user).post(url)  # only the customer accepts or rejects
    elif action == "approve":
        denied = client_for(sales_user).post(url)  # the submitter cannot approve
    elif action in ("refresh-prices", "submit"):
        denied = None  # the owner may re-price their own draft and submit it for approval
    else:
        denied = client_for(customer_user).post(url)
    if denied is not None:
        assert denied.status_code == 403
        assert _error(denied)["code"] in {"forbidden", "approver_must_differ"}
    assert _counts() == before
    assert Quote.objects.get(pk=quote.pk).status == status_before


@pytest.mark.django_db
def test_reject_records_the_reason(make_quote: Callable[..., Quote], customer_user: User) -> None:
    quote = make_quote()
    Quote.objects.filter(pk=quote.pk).update(status="sent")
    response = client_for(customer_user).post(
        f"{URL}{quote.number}/reject/", {"reason": "Нашли дешевле"}, format="json"
    )
    assert response.status_code == 200 and response.json()["status"] == "rejected"
    event = QuoteEvent.objects.filter(quote=quote, type="status_changed").get()
    assert event.data == {"from": "sent", "to": "rejected", "reason": "Нашли дешевле"}


@pytest.mark.django_db
def test_refresh_prices_through_the_api(make_quote: Callable[..., Quote], customer_user: User) -> None:
    quote = make_quote()
    response = client_for(customer_user).post(f"{URL}{quote.number}/refresh-prices/")
    assert response.status_code == 200
    assert response.json()["events"][-1]["type"] == "prices_refreshed"


# --------------------------------------------------------------------------- PDF


@pytest.mark.django_db
def test_pdf_is_409_while_rendering_then_a_download(
    make_quote: Callable[..., Quote], customer_user: User, other_customer: User
) -> None:
    quote = make_quote()
    url = f"{URL}{quote.number}/pdf/"
    client = client_for(customer_user)

    pending = client.get(url)
    assert pending.status_code == 409 and pending["Retry-After"] == "5"
    error = _error(pending)
    assert error["code"] == "pdf_not_ready"
    assert (
        error["message"] == f"The PDF of quote {quote.number} R1 is queued for rendering; try again in a few seconds."
    )
    assert error["fields"] == {"render_status": ["pending"]}

    Quote.objects.filter(pk=quote.pk).update(render_status="generating")
    generating = client.get(url, HTTP_ACCEPT="application/pdf")
    assert generating.status_code == 409 and generating["Content-Type"] == "application/json"
    assert "is still being rendered" in _error(generating)["message"]

    Quote.objects.filter(pk=quote.pk).update(render_status="pending")
    quote_render.apply(args=(quote.pk,))
    quote.refresh_from_db()
    ready = client.get(url)
    assert ready.status_code == 200
    assert ready["Content-Type"] == "application/pdf"
    assert f'filename="{quote.number}-R1.pdf"' in ready["Content-Disposition"]
    content = b"".join(ready.streaming_content)  # type: ignore[attr-defined]
    assert content.startswith(b"%PDF-")
    import hashlib

    assert hashlib.sha256(content).hexdigest() == quote.pdf_sha256
    detail = client.get(f"{URL}{quote.number}/").json()
    assert detail["pdf"] == {
        "status": "ready",
        "sha256": quote.pdf_sha256,
        "url": f"/api/v1/quotes/{quote.number}/pdf/?revision=1",
    }
    assert client_for(customer_user).get(url, HTTP_ACCEPT="application/pdf").status_code == 200
    assert client_for(other_customer).get(url).status_code == 404
    assert client_for(None).get(url).status_code in (401, 403)
