"""Fixtures of the quote tests: build bodies with known verdicts, users per role, a quote factory."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from accounts.models import User
from quotes.models import Quote
from tests import factories
from tests.builds import GOOD_BUILD


@pytest.fixture(autouse=True)
def _eager_celery() -> Iterator[None]:
    """Unit tests render in process even when CI sets CELERY_BROKER_URL: only tests/integration publish."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Any) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def good_build() -> dict[str, Any]:
    return copy.deepcopy(GOOD_BUILD)


@pytest.fixture
def customer_user(db: None) -> User:
    return factories.customer(username="alice", first_name="Алиса", last_name="Иванова", company="ООО Нейросеть")


@pytest.fixture
def other_customer(db: None) -> User:
    return factories.customer(username="bob")


@pytest.fixture
def sales_user(db: None) -> User:
    return factories.sales(username="sam")


@pytest.fixture
def sales_lead(db: None) -> User:
    return factories.sales(username="lena")


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
