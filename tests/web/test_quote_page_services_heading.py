"""The quote page shows its services under one "Услуги" heading, not "Услуги" on every service row (issue 37
trial)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import User
from quotes.services import quote_create
from servicelines.services import services_load_fixture
from tests.builds import GOOD_BUILD

pytestmark = pytest.mark.django_db


def test_one_services_heading_then_rows(customer_user: User, catalog: None) -> None:
    services_load_fixture()
    services = ["warranty-1y", "burn-in-report-48h", "delivery-moscow"]
    quote = quote_create(customer=customer_user, created_by=customer_user, payload=GOOD_BUILD, services=services)
    client = Client()
    client.force_login(customer_user)
    page = client.get(f"/quotes/{quote.number}").content.decode()
    table = page[page.index("<table") : page.index("</table>")]
    assert len(re.findall(r'class="section-row"><th scope="rowgroup" colspan="2">Услуги<', table)) == 1
    services_body = table[table.index('data-section="services"') :]
    assert services_body.count("<tr>") == 3  # the three service rows under that heading
    assert "Услуги</span>" not in table  # no per-row kind label
    assert table.count('class="part-kind"') >= 3  # the parts keep their kind labels
