"""Fixtures of the web page tests: users per role, build bodies with known verdicts, the editor's form data."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from configurator.engine.builds import PART_KINDS
from tests import factories

HTMX = {"HX-Request": "true"}


@pytest.fixture(autouse=True)
def _site(renders_in_process: None) -> None:
    """Russian by default (the site's default), PDFs rendered in process into a temporary folder."""


@pytest.fixture
def customer_user(db: None) -> User:
    return factories.customer(username="alice", company="ООО «Нейросеть»")


@pytest.fixture
def client_for() -> Callable[[User | None], Client]:
    def make(user: User | None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user)
        return client

    return make


def build(body: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(body)


def editor_data(
    body: dict[str, Any], *, name: str = "", notes: str = "", op: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The POST data of the build editor's form showing `body` (what the browser sends)."""
    data: dict[str, Any] = {
        "build-chassis": body.get("chassis", ""),
        "build-psu_redundancy": body.get("psu_redundancy", "none"),
        "build-site_voltage": str(body.get("site_voltage", 230)),
        "build-name": name,
        "build-notes": notes,
        "build-workload": json.dumps(body["workload"]) if body.get("workload") else "",
    }
    for kind in PART_KINDS:
        lines = body.get(kind) or []
        data[f"{kind}-TOTAL_FORMS"] = str(len(lines))
        data[f"{kind}-INITIAL_FORMS"] = str(len(lines))
        data[f"{kind}-MIN_NUM_FORMS"] = "0"
        data[f"{kind}-MAX_NUM_FORMS"] = "64"
        for index, line in enumerate(lines):
            data[f"{kind}-{index}-sku"] = line["sku"]
            data[f"{kind}-{index}-qty"] = str(line["qty"])
    if op is not None:
        data["op"] = op
    data.update(extra)
    return data
