"""Fixtures of the quote tests: build bodies with known verdicts, users per role, a quote factory."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import User
from quotes.models import Quote
from tests import factories
from tests.builds import GOOD_BUILD


@pytest.fixture(autouse=True)
def _renders(renders_in_process: None) -> None:
    """Quote renders run in process, PDFs in a temporary folder (tests/conftest.py)."""


@pytest.fixture
def good_build() -> dict[str, Any]:
    return copy.deepcopy(GOOD_BUILD)


@pytest.fixture
def customer_user(db: None) -> User:
    return factories.customer(username="alice", first_name="Алиса", last_name="Иванова", company="ООО Нейросеть")


@pytest.fixture
def make_quote(catalog: None, customer_user: User) -> Callable[..., Quote]:
    from quotes.services import quote_create

    def make(**kwargs: Any) -> Quote:
        kwargs.setdefault("customer", customer_user)
        kwargs.setdefault("created_by", kwargs["customer"])
        if "payload" not in kwargs and "saved_build" not in kwargs:
            kwargs["payload"] = copy.deepcopy(GOOD_BUILD)
        return quote_create(**kwargs)

    return make
