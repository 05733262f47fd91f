from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from servicelines.services import services_load_fixture


class Command(BaseCommand):
    help = "Load the sample services of fixtures/services.json that are missing (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(self.style.SUCCESS(f"services: {services_load_fixture()} created"))
