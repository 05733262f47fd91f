from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from procurement.services import OFFERS_FIXTURE, offers_load_fixture


class Command(BaseCommand):
    help = "Load the sample suppliers and offers of fixtures/offers.json that are missing (idempotent)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--path", type=Path, default=OFFERS_FIXTURE)

    def handle(self, *args: Any, **options: Any) -> None:
        suppliers, offers = offers_load_fixture(path=options["path"])
        self.stdout.write(self.style.SUCCESS(f"offers: {suppliers} suppliers, {offers} offers created"))
