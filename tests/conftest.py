"""Shared fixtures: the real catalog loaded into the test database, users per role, API clients."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from catalog.fixture import fixture_snapshot
from catalog.services import catalog_load_fixture
from catalog.specs import catalog_snapshot_clear
from configurator.domain import CatalogSnapshot


@pytest.fixture
def catalog(db: None) -> None:
    """Load fixtures/catalog.json into the test database (through the same service `make run` uses)."""
    catalog_load_fixture()
    catalog_snapshot_clear()


@pytest.fixture(scope="session")
def snapshot() -> CatalogSnapshot:
    """The fixture catalog as specs, without a database."""
    return fixture_snapshot()


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()
