from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from catalog.fixture import CATALOG_FIXTURE
from catalog.services import catalog_load_fixture, cluster_catalog_load_fixture


class Command(BaseCommand):
    help = "Load fixtures/catalog.json: add missing SKUs (idempotent); --update overwrites changed rows."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--path", type=Path, default=CATALOG_FIXTURE)
        parser.add_argument("--update", action="store_true", help="overwrite rows that differ from the file")

    def handle(self, *args: Any, **options: Any) -> None:
        report = catalog_load_fixture(path=options["path"], update=options["update"])
        cluster = cluster_catalog_load_fixture(update=options["update"])
        report.created.update(cluster.created)
        report.updated.update(cluster.updated)
        report.unchanged.update(cluster.unchanged)
        for kind in report.created:
            self.stdout.write(
                f"{kind:9s} created {report.created[kind]:3d}  updated {report.updated[kind]:3d}  "
                f"unchanged {report.unchanged[kind]:3d}"
            )
        self.stdout.write(
            self.style.SUCCESS(f"catalog: {report.total_created} created, {report.total_updated} updated")
        )
