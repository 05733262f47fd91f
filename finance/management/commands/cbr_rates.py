"""Store the CBR's daily exchange rates: fetched (the beat job's way), or from a saved XML_daily file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from finance.cbr import CbrError, cbr_fetch, cbr_store

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "cbr_daily_sample.xml"


class Command(BaseCommand):
    help = "Store the CBR's daily rates: --file PATH (a saved XML_daily answer), --sample, or fetched from the CBR"

    def add_arguments(self, parser: CommandParser) -> None:
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--file", type=Path, help="a saved XML_daily answer")
        group.add_argument(
            "--sample",
            action="store_true",
            help="the stored sample (finance/fixtures/cbr_daily_sample.xml): demo and offline machines",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            saved = options["file"] or (SAMPLE if options["sample"] else None)
            content = saved.read_bytes() if saved else cbr_fetch()
            day, written = cbr_store(content)
        except (OSError, CbrError) as exc:
            raise CommandError(f"no rates stored: {exc}") from exc
        self.stdout.write(f"{written} rates stored for {day:%d.%m.%Y}")
