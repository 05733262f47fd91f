"""The fixture catalogs and the HGX H200 node every cluster test starts from (no database)."""

from __future__ import annotations

import pytest

from catalog.fixture import cluster_fixture_catalog, fixture_snapshot
from configurator.engine.cluster.nodes import hgx_node
from configurator.engine.cluster.parts import ClusterCatalog
from configurator.engine.types import BuildSpec, CatalogSnapshot


@pytest.fixture(scope="session")
def snapshot() -> CatalogSnapshot:
    return fixture_snapshot()


@pytest.fixture(scope="session")
def cat() -> ClusterCatalog:
    return cluster_fixture_catalog()


@pytest.fixture(scope="session")
def h200_node(snapshot: CatalogSnapshot) -> BuildSpec:
    return hgx_node(snapshot, "h200-sxm")
