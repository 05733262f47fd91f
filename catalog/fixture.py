"""Reading and loading `fixtures/catalog.json`.

The file is grouped by part kind (`gpus`, `cpus`, `chassis`, `psus`, `memory`, `storage`, `nics`,
`bridges`); each row has the model's fields by name, `list_price` as a decimal string and `source`.
Bridges list the GPU SKUs they join in `gpus`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from configurator.engine.cluster.parts import ClusterCatalog
from configurator.engine.types import CatalogSnapshot

CATALOG_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "catalog.json"
# cluster parts (issue 39): switches, adapters, cables, storage nodes, racks, PDUs
CLUSTER_FIXTURE = CATALOG_FIXTURE.parent / "cluster_catalog.json"


def read_catalog_fixture(path: Path = CATALOG_FIXTURE) -> dict[str, list[dict[str, Any]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {kind: rows for kind, rows in data.items() if not kind.startswith("_")}


@lru_cache(maxsize=4)
def fixture_snapshot(path: Path = CATALOG_FIXTURE) -> CatalogSnapshot:
    """The fixture catalog as a snapshot without touching a database (pure tests, benchmarks)."""
    from catalog.specs import snapshot_from_rows

    return snapshot_from_rows(read_catalog_fixture(path), version=f"fixture:{path.name}")


@lru_cache(maxsize=4)
def cluster_fixture_catalog(path: Path = CLUSTER_FIXTURE) -> ClusterCatalog:
    """The cluster parts of the fixture as the engine's ClusterCatalog, without a database."""
    from catalog.cluster_specs import cluster_catalog_from_rows

    return cluster_catalog_from_rows(read_catalog_fixture(path), version=f"fixture:{path.name}")
