"""Error pages in the site's frame and the visitor's language, each with the request number that the
X-Request-ID header and the log lines carry, and a way back (issue 37 item 8)."""

from __future__ import annotations

import re

import pytest
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import path

from config import api as config_api
from tests import factories

pytestmark = pytest.mark.django_db


def _request_number(body: str) -> str:
    found = re.search(r'class="error-id">[^<]*<code>([0-9a-f]{32})</code>', body)
    assert found, body
    return found.group(1)


def test_a_customer_opening_the_purchase_lists_gets_a_russian_403_in_the_sites_frame() -> None:
    client = Client()
    client.force_login(factories.customer(username="ivan"))
    page = client.get("/orders/purchasing")
    body = page.content.decode()
    assert page.status_code == 403
    assert "<h1>Нет доступа</h1>" in body and "Вернуться к подбору" in body
    assert 'class="site-header"' in body and "Forbidden" not in body
    assert _request_number(body) == page["X-Request-ID"]


def test_an_unknown_page_is_a_404_in_english_with_its_request_number() -> None:
    client = Client()
    client.cookies["django_language"] = "en"  # the site's language switch (pages ignore Accept-Language)
    page = client.get("/no-such-page/")
    body = page.content.decode()
    assert page.status_code == 404 and "<h1>Not found</h1>" in body and 'class="site-header"' in body
    assert _request_number(body) == page["X-Request-ID"]


def _boom(request: object) -> HttpResponse:
    raise RuntimeError("a bug")


urlpatterns = [path("boom", _boom)]
handler500 = config_api.handler500


@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_a_server_error_page_names_the_request_number_in_the_visitors_language() -> None:
    client = Client(raise_request_exception=False)  # Russian: the site's language without a cookie
    page = client.get("/boom")
    body = page.content.decode()
    assert page.status_code == 500 and "Что-то пошло не так" in body
    assert _request_number(body) == page["X-Request-ID"]
