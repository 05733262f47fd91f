"""Who may do what: every /api/v1 endpoint and every admin changelist / add / change page, for the
personas anonymous, customer (owns the objects), another customer, sales, catalog staff and superuser.

The endpoints are enumerated from the URL resolver and the admin pages from the admin site's registry,
so a new endpoint or admin model without a row here fails `test_every_*_has_a_matrix_entry`. Rules of
ARCHITECTURE.md §Users and permissions: anonymous users estimate, validate and get recommendations;
saving builds and quotes needs an account; customers see only their own objects and another customer's
object answers 404 (not 403); sales see and work on all builds and quotes; catalog staff administer
the catalog. Every refused write is checked to have changed nothing in the database, and every write
body sent here is one the endpoint accepts from someone allowed (the allowed personas' 2xx prove it).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, cast

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group
from django.core.files.base import ContentFile
from django.db.models import Model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from billing.models import Invoice, InvoiceLine, Payment, ServiceCost, TransferDocument, TransferLine
from catalog import models as catalog_models
from configurator.models import SavedBuild
from configurator.services import saved_build_create
from finance.models import ExchangeRate, VatRate
from orders import services as order_services
from orders.models import (
    Order,
    OrderEvent,
    PurchaseLine,
    PurchaseOrder,
    PurchaseOrderLine,
    Receipt,
    ReceivedSerial,
)
from procurement import models as procurement_models
from quotes import services as quote_services
from quotes.models import Quote, QuoteEvent, QuoteLine, RenderStatus
from servicelines.models import ServiceItem
from servicelines.services import services_load_fixture
from tests import factories
from tests.builds import GOOD_BUILD
from tests.module_rows import rows_for_the_module
from tests.security.admin_forms import form_data as _form_data
from tests.security.billing_rows import (
    BILLERS_CREATE,
    BILLERS_READ,
    DOCUMENT_READ,
    MARGIN_READ,
    MARGIN_WRITE,
    SERVICE_COST_BODY,
    billing_invoice,
    billing_upd,
    invoice_url,
    order_body,
    payment_body,
    payments_with_an_invoice,
    upd_create_url,
    upd_pdf_url,
)
from tests.security.bodies import APPLY_FIX, CLUSTER_QUOTE, ESTIMATE, RECOMMENDATION
from tests.security.procurement_rows import (
    BUILD_STEP,
    ORDER_ADVANCE,
    ORDER_PURCHASES,
    ORDER_READ,
    STAFF_ONLY,
    order_url,
    po_url,
    price_list_upload,
    procurement_object,
    purchase_csv_url,
    purchase_xlsx_url,
    receipt_body,
    receipt_url,
    receipts_post_url,
    sample_offers_load,
    world_po,
    world_serial,
)

pytestmark = pytest.mark.django_db

PERSONAS = ("anonymous", "customer", "other_customer", "sales", "catalog", "superuser")
ANON, CUST, OTHER, SALES, CAT, SUPER = PERSONAS
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


# --------------------------------------------------------------------------- the world each cell runs in


# "ordered": accepted, with the world's order; "accepted": accepted, no order yet
QUOTE_STATES = ("draft", "pending_approval", "sent", "accepted", "ordered", "pdf_ready")


@dataclass
class World:
    """The personas and the customer's objects, made once per module (`make_world`) and read by every cell."""

    users: dict[str, User]
    tokens: dict[str, str]
    build: SavedBuild
    sales2: User
    quotes: dict[str, Quote] = field(default_factory=dict)
    orders: list[Order] = field(default_factory=list)
    sessions: dict[str, str] = field(default_factory=dict)  # persona -> the key of a session signed in once
    forms: dict[str, dict[str, Any]] = field(default_factory=dict)  # change page URL -> its form (_change_data)

    def client(self, persona: str) -> Client:
        """A browser signed in as `persona` (anonymous: not signed in), with the session made with the world."""
        client = Client()
        if persona != ANON:
            client.cookies[settings.SESSION_COOKIE_NAME] = self.sessions[persona]
        return client

    @property
    def customer(self) -> User:
        return self.users[CUST]

    def order(self) -> Order:
        """The customer's order of the "ordered" quote, planned from the sample offers."""
        return self.orders[0]

    def quote(self, state: str) -> Quote:
        """The customer's quote in `state` (one of QUOTE_STATES)."""
        return self.quotes[state]


def make_world(prefix: str, *, tokens: bool) -> World:
    """Five signed-in personas (each with a session and, when `tokens`, an API token), a saved build of the
    customer, their quote in each of QUOTE_STATES and their order of the "ordered" one."""
    users = {
        CUST: factories.customer(username=f"{prefix}-customer"),
        OTHER: factories.customer(username=f"{prefix}-other"),
        SALES: factories.sales(username=f"{prefix}-sales"),
        CAT: factories.catalog_staff(username=f"{prefix}-catalog"),
        SUPER: cast(User, factories.UserFactory(username=f"{prefix}-admin", is_staff=True, is_superuser=True)),
    }
    world = World(
        users=users,
        tokens={name: factories.api_token(user) for name, user in users.items()} if tokens else {},
        build=saved_build_create(owner=users[CUST], name="customer's build", payload=GOOD_BUILD),
        sales2=factories.sales(username=f"{prefix}-sales2"),
    )
    for name, user in users.items():
        browser = Client()
        browser.force_login(user)
        world.sessions[name] = browser.cookies[settings.SESSION_COOKIE_NAME].value
    world.quotes.update((state, _make_quote(world, state)) for state in QUOTE_STATES)
    sample_offers_load()  # offers_load_fixture(), faster after its first call
    order, _ = order_services.order_place(quote=world.quote("ordered"), user=world.customer)
    order_services.order_plan(order_id=order.pk)
    world.orders.append(order)
    return world


def _make_quote(world: World, state: str) -> Quote:
    if state == "pending_approval":  # made and submitted by another sales engineer, so `sales` may approve
        quote = quote_services.quote_create(
            customer=world.customer, created_by=world.sales2, payload=GOOD_BUILD, discount_percent=15
        )
        return quote_services.quote_submit(quote=quote, user=world.sales2)
    quote = quote_services.quote_create(customer=world.customer, created_by=world.customer, payload=GOOD_BUILD)
    if state == "sent":
        return quote_services.quote_send(quote=quote, user=world.sales2)
    if state in ("accepted", "ordered"):
        quote = quote_services.quote_send(quote=quote, user=world.sales2)
        return quote_services.quote_accept(quote=quote, user=world.customer)
    if state == "pdf_ready":  # the file itself is written by each test that reads it (pdf_url): MEDIA_ROOT is per test
        quote.pdf.name = f"quotes/{quote.number}-R1-1.pdf"
        quote.render_status = RenderStatus.READY
        quote.save(update_fields=["pdf", "render_status"])
    return quote


@pytest.fixture(scope="module")
def module_world(django_db_setup: None, django_db_blocker: Any) -> Iterator[World]:
    """The world, made once for the module's tests (each test's writes are rolled back, tests/module_rows.py)."""
    with rows_for_the_module(django_db_blocker):
        yield make_world("matrix", tokens=True)


@pytest.fixture
def world(catalog: None, module_world: World) -> World:
    return module_world


def fingerprint(*models: type[Model]) -> dict[str, list[dict[str, Any]]]:
    """Every row of the tables a request could write, to compare before and after."""
    return {model.__name__: list(model._default_manager.order_by("pk").values()) for model in models}


API_TABLES: tuple[type[Model], ...] = (
    SavedBuild, Quote, QuoteLine, QuoteEvent, ApiToken, User, catalog_models.Gpu, Order, OrderEvent, PurchaseLine,
    procurement_models.PriceListImport, PurchaseOrder, PurchaseOrderLine, Receipt, ReceivedSerial, Invoice,
    InvoiceLine, Payment, TransferDocument, TransferLine, ServiceCost,
)  # fmt: skip


def api_client(world: World, persona: str) -> APIClient:
    client = APIClient()
    if persona != ANON:
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens[persona]}")
    return client


# --------------------------------------------------------------------------- the API matrix


def everyone(status: int) -> dict[str, int]:
    return dict.fromkeys(PERSONAS, status)


def signed_in(status: int) -> dict[str, int]:
    return {**everyone(status), ANON: 401}


def own_or_sales(status: int) -> dict[str, int]:
    """Objects of `customer`: theirs, sales' and the superuser's; 404 to anyone else signed in."""
    return {ANON: 401, CUST: status, OTHER: 404, SALES: status, CAT: 404, SUPER: status}


def sales_only(status: int) -> dict[str, int]:
    """A sales action on the customer's quote: the customer sees the quote but may not act (403)."""
    return {ANON: 401, CUST: 403, OTHER: 404, SALES: status, CAT: 404, SUPER: status}


def customer_only(status: int) -> dict[str, int]:
    """The customer's own decision on a sent quote: sales and superusers see it but may not decide."""
    return {ANON: 401, CUST: status, OTHER: 404, SALES: 403, CAT: 404, SUPER: 403}


@dataclass(frozen=True)
class Cell:
    expected: dict[str, int]
    url: Callable[[World], str]
    body: Any = None  # or a function making it (a file is read once: one per request)
    format: str = "json"


def fixed(url: str) -> Callable[[World], str]:
    return lambda world: url


def quote_url(state: str, action: str = "") -> Callable[[World], str]:
    return lambda world: f"/api/v1/quotes/{world.quote(state).number}/" + (f"{action}/" if action else "")


def pdf_url(world: World) -> str:
    """The PDF of the "pdf_ready" quote, its file written to this test's MEDIA_ROOT."""
    quote = world.quote("pdf_ready")
    written = quote.pdf.storage.save(quote.pdf.name, ContentFile(b"%PDF-1.4 matrix test\n%%EOF\n"))
    assert written == quote.pdf.name, written
    return f"/api/v1/quotes/{quote.number}/pdf/"


def build_url(world: World) -> str:
    return f"/api/v1/builds/{world.build.pk}/"


CATALOG_SKUS = {
    "gpus": "rtx-4090",
    "cpus": "epyc-9554",
    "chassis": "srv-8gpu-4u-epyc",
    "psus": "psu-crps-3000w",
    "memory": "ddr5-rdimm-64gb",
    "storage": "nvme-4tb",
    "nics": "nic-200g",
    "bridges": "nvlink-bridge-h200-4way",
}

API_MATRIX: dict[tuple[str, str], Cell] = {
    **{
        (f"api/v1/catalog/{kind}/", "GET"): Cell(everyone(200), fixed(f"/api/v1/catalog/{kind}/"))
        for kind in CATALOG_SKUS
    },
    **{
        (f"api/v1/catalog/{kind}/<slug:sku>/", "GET"): Cell(everyone(200), fixed(f"/api/v1/catalog/{kind}/{sku}/"))
        for kind, sku in CATALOG_SKUS.items()
    },
    ("api/v1/estimate", "POST"): Cell(everyone(200), fixed("/api/v1/estimate"), ESTIMATE),
    ("api/v1/llm-models/", "GET"): Cell(everyone(200), fixed("/api/v1/llm-models/")),
    ("api/v1/builds/validate", "POST"): Cell(everyone(200), fixed("/api/v1/builds/validate"), GOOD_BUILD),
    ("api/v1/builds/apply-fix", "POST"): Cell(everyone(200), fixed("/api/v1/builds/apply-fix"), APPLY_FIX),
    ("api/v1/recommendations", "POST"): Cell(everyone(200), fixed("/api/v1/recommendations"), RECOMMENDATION),
    ("api/v1/clusters/recommendations", "POST"): Cell(
        everyone(200),
        fixed("/api/v1/clusters/recommendations"),
        {"workload": {"model": "llama-3.1-405b", "precision": "bf16", "concurrent_users": 200}},
    ),
    ("api/v1/builds/", "GET"): Cell(signed_in(200), fixed("/api/v1/builds/")),
    ("api/v1/builds/", "POST"): Cell(signed_in(201), fixed("/api/v1/builds/"), {"name": "new", "build": GOOD_BUILD}),
    ("api/v1/builds/<int:pk>/", "GET"): Cell(own_or_sales(200), build_url),
    ("api/v1/builds/<int:pk>/", "PUT"): Cell(own_or_sales(200), build_url, {"name": "renamed", "build": GOOD_BUILD}),
    ("api/v1/builds/<int:pk>/", "PATCH"): Cell(own_or_sales(200), build_url, {"notes": "changed"}),
    ("api/v1/builds/<int:pk>/", "DELETE"): Cell(own_or_sales(204), build_url),
    ("api/v1/quotes/", "GET"): Cell(signed_in(200), fixed("/api/v1/quotes/")),
    ("api/v1/quotes/", "POST"): Cell(signed_in(201), fixed("/api/v1/quotes/"), {"build": GOOD_BUILD}),
    ("api/v1/quotes/cluster/", "POST"): Cell(signed_in(201), fixed("/api/v1/quotes/cluster/"), CLUSTER_QUOTE),
    ("api/v1/quotes/<quote_number:number>/", "GET"): Cell(own_or_sales(200), quote_url("draft")),
    # the customer may submit their own draft for approval too (issue 16)
    ("api/v1/quotes/<quote_number:number>/submit/", "POST"): Cell(own_or_sales(200), quote_url("draft", "submit")),
    ("api/v1/quotes/<quote_number:number>/approve/", "POST"): Cell(
        sales_only(200), quote_url("pending_approval", "approve")
    ),
    ("api/v1/quotes/<quote_number:number>/send/", "POST"): Cell(sales_only(200), quote_url("draft", "send")),
    ("api/v1/quotes/<quote_number:number>/accept/", "POST"): Cell(customer_only(200), quote_url("sent", "accept")),
    ("api/v1/quotes/<quote_number:number>/reject/", "POST"): Cell(
        customer_only(200), quote_url("sent", "reject"), {"reason": "too expensive"}
    ),
    ("api/v1/quotes/<quote_number:number>/revise/", "POST"): Cell(sales_only(201), quote_url("sent", "revise"), {}),
    ("api/v1/quotes/<quote_number:number>/refresh-prices/", "POST"): Cell(
        own_or_sales(200), quote_url("draft", "refresh-prices")
    ),
    ("api/v1/quotes/<quote_number:number>/pdf/", "GET"): Cell(own_or_sales(200), pdf_url),
    ("api/v1/quotes/<quote_number_for_order:number>/order", "POST"): Cell(
        own_or_sales(201), lambda world: f"/api/v1/quotes/{world.quote('accepted').number}/order"
    ),
    ("api/v1/orders/", "GET"): Cell(signed_in(200), fixed("/api/v1/orders/")),
    ("api/v1/services/", "GET"): Cell(everyone(200), fixed("/api/v1/services/")),
    ("api/v1/suppliers/", "GET"): Cell(
        {ANON: 401, CUST: 403, OTHER: 403, SALES: 200, CAT: 200, SUPER: 200}, fixed("/api/v1/suppliers/")
    ),
    # catalog staff send suppliers' price lists (a preview here: it stores the import, changes no offer)
    ("api/v1/suppliers/<slug:slug>/price-lists", "POST"): Cell(
        {ANON: 401, CUST: 403, OTHER: 403, SALES: 403, CAT: 200, SUPER: 200},
        fixed("/api/v1/suppliers/sample-ocs/price-lists"),
        price_list_upload,
        format="multipart",
    ),
    ("api/v1/quotes/<quote_number_for_order:number>/services", "POST"): Cell(
        own_or_sales(200), lambda world: f"/api/v1/quotes/{world.quote('draft').number}/services", {}
    ),
    ("api/v1/orders/<order_number:number>/", "GET"): Cell(ORDER_READ, order_url()),
    ("api/v1/orders/<order_number:number>/advance/", "POST"): Cell(
        ORDER_ADVANCE, order_url("advance/"), {"to": "parts_ordered"}
    ),
    ("api/v1/orders/<order_number:number>/purchase-lists/", "GET"): Cell(ORDER_PURCHASES, order_url("purchase-lists/")),
    ("api/v1/orders/<order_number:number>/purchase-lists/<slug:supplier>.csv", "GET"): Cell(
        ORDER_PURCHASES, purchase_csv_url
    ),
    ("api/v1/orders/<order_number:number>/purchase-lists/<slug:supplier>.xlsx", "GET"): Cell(
        ORDER_PURCHASES, purchase_xlsx_url
    ),
    # issue 36: purchase orders and receipts (staff only), build steps and the delivery note of an order
    ("api/v1/purchase-orders/", "GET"): Cell(STAFF_ONLY, fixed("/api/v1/purchase-orders/")),
    ("api/v1/purchase-orders/", "POST"): Cell(
        {**STAFF_ONLY, "sales": 201, "catalog": 201, "superuser": 201},
        fixed("/api/v1/purchase-orders/"),
        lambda: {"order": Order.objects.order_by("pk").values_list("number", flat=True)[0]},
    ),
    ("api/v1/purchase-orders/<po_number:number>/", "GET"): Cell(STAFF_ONLY, po_url()),
    ("api/v1/purchase-orders/<po_number:number>/transition/", "POST"): Cell(
        STAFF_ONLY, po_url("transition/"), {"to": "cancelled"}
    ),
    ("api/v1/purchase-orders/<po_number:number>/pdf/", "GET"): Cell(STAFF_ONLY, po_url("pdf/")),
    ("api/v1/purchase-orders/<po_number:number>/xlsx/", "GET"): Cell(STAFF_ONLY, po_url("xlsx/")),
    ("api/v1/receipts/", "GET"): Cell(STAFF_ONLY, fixed("/api/v1/receipts/?serial=MATRIX-SN-1")),
    ("api/v1/receipts/", "POST"): Cell(
        {**STAFF_ONLY, "sales": 201, "catalog": 201, "superuser": 201}, receipts_post_url, receipt_body
    ),
    ("api/v1/receipts/<int:pk>/", "GET"): Cell(STAFF_ONLY, receipt_url),
    ("api/v1/orders/<order_number:number>/build-steps/", "POST"): Cell(
        BUILD_STEP, order_url("build-steps/"), {"kind": "assembly", "result": "passed"}
    ),
    ("api/v1/orders/<order_number:number>/delivery-note/", "GET"): Cell(ORDER_READ, order_url("delivery-note/")),
    # billing (issue 36): customers read their documents, sales write them; the margin and 1C export are sales'
    ("api/v1/invoices/", "GET"): Cell(signed_in(200), fixed("/api/v1/invoices/")),
    ("api/v1/invoices/", "POST"): Cell(BILLERS_CREATE, fixed("/api/v1/invoices/"), order_body),
    ("api/v1/invoices/<invoice_number:number>/", "GET"): Cell(DOCUMENT_READ, invoice_url()),
    ("api/v1/invoices/<invoice_number:number>/pdf", "GET"): Cell(DOCUMENT_READ, invoice_url("pdf")),
    ("api/v1/payments/", "GET"): Cell(signed_in(200), fixed("/api/v1/payments/")),
    ("api/v1/payments/", "POST"): Cell(BILLERS_CREATE, payments_with_an_invoice, payment_body),
    ("api/v1/transfer-documents/", "GET"): Cell(signed_in(200), fixed("/api/v1/transfer-documents/")),
    ("api/v1/transfer-documents/", "POST"): Cell(BILLERS_CREATE, upd_create_url, order_body),
    ("api/v1/transfer-documents/<upd_number:number>/pdf", "GET"): Cell(DOCUMENT_READ, upd_pdf_url),
    ("api/v1/orders/<order_number:number>/margin/", "GET"): Cell(MARGIN_READ, order_url("margin/")),
    ("api/v1/orders/<order_number:number>/service-costs/", "POST"): Cell(
        MARGIN_WRITE, order_url("service-costs/"), SERVICE_COST_BODY
    ),
    ("api/v1/exchange/1c/documents.xml", "GET"): Cell(BILLERS_READ, fixed("/api/v1/exchange/1c/documents.xml")),
    ("api/v1/exchange/1c/catalog.xml", "GET"): Cell(BILLERS_READ, fixed("/api/v1/exchange/1c/catalog.xml")),
    ("api/v1/auth/token", "POST"): Cell(signed_in(201), fixed("/api/v1/auth/token")),
    ("api/v1/auth/token", "DELETE"): Cell(signed_in(204), fixed("/api/v1/auth/token")),
    ("api/v1/ping", "GET"): Cell(everyone(200), fixed("/api/v1/ping")),
    ("api/v1/schema/", "GET"): Cell(everyone(200), fixed("/api/v1/schema/")),
    ("api/v1/docs/", "GET"): Cell(everyone(200), fixed("/api/v1/docs/")),
}


def _walk(patterns: list[URLPattern | URLResolver], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern.callback


def api_endpoints() -> set[tuple[str, str]]:
    """(route, method) of every /api/v1 view, from the URL resolver and the views' handlers
    (HEAD and OPTIONS follow GET and the permission checks of the view; they are not listed)."""
    endpoints: set[tuple[str, str]] = set()
    for route, callback in _walk(get_resolver().url_patterns):
        if not route.startswith("api/v1/"):
            continue
        view_class = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        assert view_class is not None, f"{route}: not a class-based view; add it to the matrix by hand"
        for method in view_class.http_method_names:
            if method not in ("head", "options") and hasattr(view_class, method):
                endpoints.add((route, method.upper()))
    return endpoints


def test_every_api_endpoint_has_a_matrix_entry() -> None:
    endpoints = api_endpoints()
    assert len(endpoints) >= 40
    assert sorted(endpoints - set(API_MATRIX)) == [], "endpoints without a matrix entry"
    assert sorted(set(API_MATRIX) - endpoints) == [], "matrix entries of endpoints that no longer exist"


def test_every_operation_of_the_openapi_schema_is_in_the_matrix() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    routes = {(route, method) for route, method in API_MATRIX}
    operations = {(path, method.upper()) for path, methods in schema["paths"].items() for method in methods}
    for path, method in operations:
        candidates = [route for route, m in routes if m == method and _same_shape(route, path)]
        assert candidates, f"{method} {path} has no matrix entry"


def _same_shape(route: str, path: str) -> bool:
    import re

    return re.sub(r"<[^>]+>", "{}", "/" + route) == re.sub(r"{[^}]+}", "{}", path)


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize(("route", "method"), sorted(API_MATRIX), ids=lambda value: str(value))
def test_api_matrix(world: World, route: str, method: str, persona: str) -> None:
    cell = API_MATRIX[route, method]
    url = cell.url(world)
    expected = cell.expected[persona]
    before = fingerprint(*API_TABLES) if method in UNSAFE else None  # a read is not compared
    client = api_client(world, persona)
    body = cell.body() if callable(cell.body) else cell.body
    kwargs: dict[str, Any] = {"format": cell.format} if body is not None else {}
    response = getattr(client, method.lower())(url, body, **kwargs) if method in UNSAFE else client.get(url)
    assert response.status_code == expected, (persona, method, url, response.content[:300])
    if response.status_code >= 400:
        error = json.loads(response.content)["error"]
        assert error["code"] and error["message"], error
        assert (error["code"] == "not_found") == (response.status_code == 404), error
        if method in UNSAFE:
            assert fingerprint(*API_TABLES) == before, f"a refused {method} {url} by {persona} changed the database"


def test_lists_show_customers_only_their_own_objects(world: World) -> None:
    others_build = saved_build_create(owner=world.users[OTHER], name="other's build", payload=GOOD_BUILD)
    mine = {quote.number for quote in world.quotes.values()}
    theirs = quote_services.quote_create(
        customer=world.users[OTHER], created_by=world.users[OTHER], payload=GOOD_BUILD
    ).number

    def listed(persona: str, url: str, key: str) -> set[Any]:
        return {row[key] for row in api_client(world, persona).get(url).json()["results"]}

    assert listed(CUST, "/api/v1/builds/", "id") == {world.build.pk}
    assert listed(OTHER, "/api/v1/builds/", "id") == {others_build.pk}
    assert listed(CAT, "/api/v1/builds/", "id") == set()
    assert (
        listed(SALES, "/api/v1/builds/", "id")
        == listed(SUPER, "/api/v1/builds/", "id")
        == {
            world.build.pk,
            others_build.pk,
        }
    )
    assert len(mine) == len(QUOTE_STATES)
    assert listed(CUST, "/api/v1/quotes/", "number") == mine
    assert listed(OTHER, "/api/v1/quotes/", "number") == {theirs}
    assert listed(CAT, "/api/v1/quotes/", "number") == set()
    assert listed(SALES, "/api/v1/quotes/", "number") == mine | {theirs}


def test_billing_lists_show_customers_only_their_own_documents(world: World) -> None:
    """The customer's invoice, payment and УПД are listed for them and staff, never for another customer."""
    invoice = Invoice.objects.get(number=invoice_url()(world).split("/")[-2])
    upd = upd_pdf_url(world).split("/")[-2]
    payment_body_ = payment_body()
    assert api_client(world, SALES).post("/api/v1/payments/", payment_body_, format="json").status_code == 201
    for url, key, value in (
        ("/api/v1/invoices/", "number", invoice.number),
        ("/api/v1/payments/", "invoice", invoice.number),
        ("/api/v1/transfer-documents/", "number", upd),
    ):
        rows = {persona: [row[key] for row in api_client(world, persona).get(url).json()["results"]]
                for persona in (CUST, OTHER, SALES, CAT)}  # fmt: skip
        assert rows[CUST] == rows[SALES] == rows[CAT] == [value], (url, rows)
        assert rows[OTHER] == [], (url, rows)


def test_a_customer_cannot_quote_from_another_customers_saved_build_or_for_someone_else(world: World) -> None:
    before = fingerprint(*API_TABLES)
    other = api_client(world, OTHER)
    by_build = other.post("/api/v1/quotes/", {"saved_build": world.build.pk}, format="json")
    assert by_build.status_code == 400
    assert by_build.json()["error"]["fields"] == {"saved_build": ["no saved build with this id"]}
    for_someone = other.post("/api/v1/quotes/", {"build": GOOD_BUILD, "customer": world.customer.pk}, format="json")
    assert for_someone.status_code == 403
    discount = other.post("/api/v1/quotes/", {"build": GOOD_BUILD, "discount_percent": "5"}, format="json")
    assert discount.status_code == 403
    assert fingerprint(*API_TABLES) == before


# --------------------------------------------------------------------------- the admin matrix

ADMIN_PAGES = ("changelist", "add", "change")
LOGIN_REDIRECT = 302
CATALOG_ADMIN_MODELS: tuple[type[Model], ...] = (
    *catalog_models.CATALOG_MODELS.values(),
    *catalog_models.CLUSTER_MODELS.values(),
)


def _pages(changelist: int, add: int, change: int) -> dict[str, int]:
    return {"changelist": changelist, "add": add, "change": change}


def _admin_row(sales: dict[str, int], catalog: dict[str, int], superuser: dict[str, int]) -> dict[str, dict[str, int]]:
    redirected = _pages(LOGIN_REDIRECT, LOGIN_REDIRECT, LOGIN_REDIRECT)  # not staff: to the login page
    return {ANON: redirected, CUST: redirected, OTHER: redirected, SALES: sales, CAT: catalog, SUPER: superuser}


DENIED = _pages(403, 403, 403)
FULL = _pages(200, 200, 200)
VIEW_ONLY = _pages(200, 403, 200)

ADMIN_MATRIX: dict[type[Model], dict[str, dict[str, int]]] = {
    **{model: _admin_row(sales=VIEW_ONLY, catalog=FULL, superuser=FULL) for model in CATALOG_ADMIN_MODELS},
    SavedBuild: _admin_row(sales=FULL, catalog=DENIED, superuser=FULL),
    # quotes are made through quote_create only: no add page for anyone
    Quote: _admin_row(sales=VIEW_ONLY, catalog=DENIED, superuser=_pages(200, 403, 200)),
    User: _admin_row(sales=VIEW_ONLY, catalog=DENIED, superuser=FULL),
    Group: _admin_row(sales=DENIED, catalog=DENIED, superuser=FULL),
    ApiToken: _admin_row(sales=DENIED, catalog=DENIED, superuser=FULL),
    # procurement: catalog staff keep suppliers and offers, sales look; imports and the price log are records
    procurement_models.Supplier: _admin_row(sales=VIEW_ONLY, catalog=FULL, superuser=FULL),
    procurement_models.SupplierOffer: _admin_row(sales=VIEW_ONLY, catalog=FULL, superuser=FULL),
    procurement_models.PriceFreeze: _admin_row(sales=DENIED, catalog=FULL, superuser=FULL),
    procurement_models.PriceListImport: _admin_row(sales=DENIED, catalog=VIEW_ONLY, superuser=VIEW_ONLY),
    procurement_models.ListPriceChange: _admin_row(sales=DENIED, catalog=VIEW_ONLY, superuser=VIEW_ONLY),
    # orders change through the API's services only: a read-only record in the admin
    Order: _admin_row(sales=VIEW_ONLY, catalog=VIEW_ONLY, superuser=VIEW_ONLY),
    PurchaseOrder: _admin_row(sales=VIEW_ONLY, catalog=VIEW_ONLY, superuser=VIEW_ONLY),
    ReceivedSerial: _admin_row(sales=VIEW_ONLY, catalog=VIEW_ONLY, superuser=VIEW_ONLY),
    ServiceItem: _admin_row(sales=VIEW_ONLY, catalog=FULL, superuser=FULL),
    # catalog staff enter a rate by hand; the VAT table changes with the law: the superuser's
    ExchangeRate: _admin_row(sales=VIEW_ONLY, catalog=FULL, superuser=FULL),
    VatRate: _admin_row(sales=VIEW_ONLY, catalog=VIEW_ONLY, superuser=FULL),
    # invoices and УПД are made by billing.services only: read-only records in the admin
    Invoice: _admin_row(sales=VIEW_ONLY, catalog=VIEW_ONLY, superuser=VIEW_ONLY),
    TransferDocument: _admin_row(sales=VIEW_ONLY, catalog=VIEW_ONLY, superuser=VIEW_ONLY),
}
# Who may save a change page; everyone else gets a read-only page, a 403 or the login page, and their
# POST must change nothing.
MAY_CHANGE: dict[type[Model], set[str]] = {
    **{model: {CAT, SUPER} for model in CATALOG_ADMIN_MODELS},
    SavedBuild: {SALES, SUPER},
    Quote: {SALES, SUPER},  # a draft's terms (quotes.change_quote)
    User: {SUPER},
    Group: {SUPER},
    ApiToken: {SUPER},
    procurement_models.Supplier: {CAT, SUPER},
    procurement_models.SupplierOffer: {CAT, SUPER},
    procurement_models.PriceFreeze: {CAT, SUPER},
    procurement_models.PriceListImport: set(),
    procurement_models.ListPriceChange: set(),
    Order: set(),
    PurchaseOrder: set(),
    ReceivedSerial: set(),
    ServiceItem: {CAT, SUPER},
    ExchangeRate: {CAT, SUPER},
    VatRate: {SUPER},
    Invoice: set(),
    TransferDocument: set(),
}


def test_every_admin_model_has_a_matrix_entry() -> None:
    registered = set(admin.site._registry)
    assert registered - set(ADMIN_MATRIX) == set(), "admin models without a matrix entry"
    assert set(ADMIN_MATRIX) - registered == set(), "matrix entries of models no longer in the admin"


def _admin_object(world: World, model: type[Model]) -> Model:
    if model is SavedBuild:
        return world.build
    if model is Quote:
        return world.quote("draft")
    if model is User:
        return world.customer
    if model is Group:
        return Group.objects.get(name="customers")
    if model is ApiToken:
        return ApiToken.objects.get(user=world.customer)
    if model is Order:
        return world.order()
    if model is PurchaseOrder:
        return world_po(world)
    if model is ReceivedSerial:
        return world_serial(world)
    if model is Invoice:  # made inside the test (rolled back after it)
        return billing_invoice(world)
    if model is TransferDocument:
        return billing_upd(world)
    if model is ServiceItem:  # made inside the test, as the procurement rows are (_made_per_test)
        services_load_fixture()
    if model is ExchangeRate:
        return ExchangeRate.objects.get_or_create(
            currency="USD", date=dt.date(2026, 12, 3), defaults={"rub_per_unit": Decimal("78.2235")}
        )[0]
    if model._meta.app_label == "procurement":
        return procurement_object(model)
    return model._default_manager.order_by("pk").first()  # type: ignore[return-value]


def _admin_url(model: type[Model], page: str, obj: Model) -> str:
    name = f"admin:{model._meta.app_label}_{model._meta.model_name}_{page}"
    if page != "change":
        return reverse(name)
    return reverse(name, args=[obj.pk])


def _change_data(world: World, model: type[Model], obj: Model) -> dict[str, Any] | None:
    """A valid POST for the object's change page with one visible field changed (None: no editable field)."""
    field_name = {
        Quote: "terms",
        User: "company",
        ApiToken: None,
        procurement_models.SupplierOffer: "supplier_sku",
        procurement_models.PriceFreeze: "reason",
        procurement_models.PriceListImport: None,
        procurement_models.ListPriceChange: None,
        Order: None,
        PurchaseOrder: None,
        ReceivedSerial: None,
        Invoice: None,
        TransferDocument: None,
        ExchangeRate: "note",
        VatRate: "note",
    }.get(model, "name")
    if field_name is None:
        return None
    url = _admin_url(model, "change", obj)
    form = None if _made_per_test(model) else world.forms.get(url)
    if form is None:
        form = _form_data(world.client(SUPER), url)
        if not _made_per_test(model):  # the world's rows are as made at each test's start: read once per module
            world.forms[url] = form
    return {**form, field_name: "changed by the authorization matrix"}


def _made_per_test(model: type[Model]) -> bool:
    """_admin_object makes this model's object inside the test (rolled back after it)."""
    return model in (ServiceItem, ExchangeRate, PurchaseOrder, ReceivedSerial) or model._meta.app_label == "procurement"


def _add_data(world: World, model: type[Model], obj: Model) -> dict[str, Any]:
    """A valid POST for the model's add page."""
    if model is User:
        return {"username": "matrix-new-user", "password1": "Xq7!matrix-test-pass", "password2": "Xq7!matrix-test-pass"}
    if model is Group:
        return {"name": "matrix-new-group"}
    if model is ApiToken:
        return {"user": str(factories.customer(username="matrix-tokenless").pk)}
    data = _change_data(world, model, obj) or {}
    if "sku" in data:
        data["sku"] = "matrix-new-sku"
    if "slug" in data:
        data["slug"] = "matrix-new-slug"
    if model is ExchangeRate:  # one rate per currency and day
        data["currency"] = "EUR"
    if model is VatRate:  # one rate per date
        data["valid_from"] = data["valid_from"].replace("2019", "2031").replace("2026", "2031")
    return data


def _admin_tables(model: type[Model]) -> tuple[type[Model], ...]:
    concrete = model
    return (concrete, LogEntry, QuoteEvent) if model is Quote else (concrete, LogEntry)


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("model", list(ADMIN_MATRIX), ids=lambda model: model._meta.label)
def test_admin_matrix(world: World, model: type[Model], persona: str) -> None:
    obj = _admin_object(world, model)
    client = world.client(persona)
    expected = ADMIN_MATRIX[model][persona]
    for page in ADMIN_PAGES:
        response = client.get(_admin_url(model, page, obj))
        assert response.status_code == expected[page], (persona, model._meta.label, page)
        if response.status_code == LOGIN_REDIRECT:
            assert response["Location"].startswith(reverse("admin:login")), response["Location"]

    # writes this persona may not make change nothing (the same bodies succeed for the superuser)
    refused = {"add": expected["add"] != 200, "change": persona not in MAY_CHANGE[model]}
    for page in ADMIN_PAGES[1:]:
        if not refused[page]:
            continue
        data = _add_data(world, model, obj) if page == "add" else _change_data(world, model, obj)
        if data is None:
            continue
        before = fingerprint(*_admin_tables(model))
        response = client.post(_admin_url(model, page, obj), data)
        assert response.status_code in (LOGIN_REDIRECT, 403), (persona, model._meta.label, page)
        if response.status_code == LOGIN_REDIRECT:
            assert response["Location"].startswith(reverse("admin:login"))
        assert fingerprint(*_admin_tables(model)) == before, f"refused admin {page} by {persona} changed rows"


@pytest.mark.parametrize("model", list(ADMIN_MATRIX), ids=lambda model: model._meta.label)
def test_admin_write_bodies_are_accepted_from_the_superuser(world: World, model: type[Model]) -> None:
    """The control of the refused writes above: the same bodies change the database when allowed."""
    obj = _admin_object(world, model)
    client = world.client(SUPER)
    concrete = model
    change = _change_data(world, model, obj)
    if change is not None:
        response = client.post(_admin_url(model, "change", obj), change)
        assert response.status_code == 302, response.content.decode()[:2000]
        assert "changed by the authorization matrix" in json.dumps(
            list(concrete._default_manager.filter(pk=obj.pk).values()), default=str
        )
    if ADMIN_MATRIX[model][SUPER]["add"] == 200:
        count = concrete._default_manager.count()
        response = client.post(_admin_url(model, "add", obj), _add_data(world, model, obj))
        assert response.status_code == 302, response.content.decode()[:2000]
        assert concrete._default_manager.count() == count + 1


# --------------------------------------------------------------------------- the cluster card's quote request

CLUSTER_QUOTE_FORM = {"model": "llama-3.1-405b", "task": "inference", "precision": "bf16", "concurrent_users": "200",
                      "rack_kw_limit": "40", "gpu": "h200-sxm"}  # fmt: skip


@pytest.mark.parametrize("persona", PERSONAS)
def test_cluster_quote_page_matrix(world: World, persona: str) -> None:
    """POST /clusters/quote (issue 39): anyone signed in gets their own quote (a redirect to it, customer = them);
    anonymous is sent to sign in and nothing is made. The customer sees it without purchase prices or suppliers."""
    client = world.client(persona)
    before = Quote.objects.count()
    response = client.post("/clusters/quote", CLUSTER_QUOTE_FORM)
    assert response.status_code == 302, (persona, response.content[:500])
    if persona == ANON:
        assert response["Location"].startswith(reverse(settings.LOGIN_URL)), response["Location"]
        assert Quote.objects.count() == before
        return
    quote = Quote.objects.exclude(pk__in=[q.pk for q in world.quotes.values()]).latest("pk")
    assert quote.owner == world.users[persona] and quote.created_by == world.users[persona]
    assert response["Location"] == f"/quotes/{quote.number}"
    page = client.get(response["Location"])
    assert page.status_code == 200
    if persona == CUST:
        text = page.content.decode().lower()
        assert "supplier" not in text and "purchase" not in text
    assert world.client(OTHER if persona != OTHER else CUST).get(response["Location"]).status_code == 404
