"""Issue 38 item 2: optional lines per quote are bounded. Before: 20,000 optional lines on one quote made
9-23 s requests, 5-41 MB answers and a PDF that never rendered."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from configurator.engine.errors import InvalidInput
from quotes.models import Quote, QuoteLine
from quotes.services.create import MAX_OPTIONAL_LINES
from tests.builds import GOOD_BUILD


def test_twenty_thousand_optional_lines_are_a_400_naming_the_limit(catalog: None, customer_user: User) -> None:
    client = APIClient()
    client.force_authenticate(customer_user)
    lines = [{"sku": "nvme-4tb", "qty": 1}] * 20_000
    response = client.post("/api/v1/quotes/", {"build": GOOD_BUILD, "optional_lines": lines}, format="json")
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert list(error["fields"]) == ["optional_lines"]
    assert error["fields"]["optional_lines"] == [f"Ensure this field has no more than {MAX_OPTIONAL_LINES} elements."]
    assert Quote.objects.count() == 0 and QuoteLine.objects.count() == 0


def test_the_limit_holds_in_the_service_too(make_quote: Callable[..., Quote]) -> None:
    with pytest.raises(InvalidInput) as caught:
        make_quote(optional_lines=[{"sku": "nvme-4tb", "qty": 1}] * (MAX_OPTIONAL_LINES + 1))
    assert caught.value.fields == {"optional_lines": [f"at most {MAX_OPTIONAL_LINES} lines (MAX_OPTIONAL_LINES)"]}
    assert Quote.objects.count() == 0


def test_the_limit_itself_is_taken(make_quote: Callable[..., Quote]) -> None:
    quote = make_quote(
        payload=copy.deepcopy(GOOD_BUILD), optional_lines=[{"sku": "nvme-4tb", "qty": 1}] * MAX_OPTIONAL_LINES
    )
    assert quote.lines.filter(optional=True).count() == MAX_OPTIONAL_LINES
