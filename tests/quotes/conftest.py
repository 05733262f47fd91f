"""Fixtures of the quote tests: build bodies with known verdicts, users per role, a quote factory."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from accounts.models import User
from quotes.models import Quote
from tests import factories

# A workstation the rules pass without findings: TR PRO, 2 × RTX PRO 6000 Max-Q, 2 × 2000 W N+1.
GOOD_BUILD: dict[str, Any] = {
    "chassis": "ws-tr-pro-2gpu-4u5",
    "cpus": [{"sku": "tr-pro-7975wx", "qty": 1}],
    "gpus": [{"sku": "rtx-pro-6000-blackwell-maxq", "qty": 2}],
    "psus": [{"sku": "psu-crps-2000w", "qty": 2}],
    "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 8}],
    "storage": [{"sku": "nvme-4tb", "qty": 1}],
    "nics": [],
    "bridges": [],
    "psu_redundancy": "n+1",
    "site_voltage": 230,
}
# AM5 tower with two RTX 4090 at x8 and 2 DIMMs per channel: valid, with warnings.
WARNING_BUILD: dict[str, Any] = {
    "chassis": "ws-tower-am5",
    "cpus": [{"sku": "ryzen-9-9950x", "qty": 1}],
    "gpus": [{"sku": "rtx-4090", "qty": 2}],
    "psus": [{"sku": "psu-atx-2200w", "qty": 1}],
    "memory": [{"sku": "ddr5-udimm-48gb", "qty": 4}],
    "storage": [{"sku": "nvme-2tb", "qty": 1}],
}
# The same tower on a 1300 W PSU: the power rule refuses it.
ERROR_BUILD: dict[str, Any] = {**WARNING_BUILD, "psus": [{"sku": "psu-atx-1300w", "qty": 1}]}


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
