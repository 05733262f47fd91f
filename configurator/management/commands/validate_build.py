"""python manage.py validate_build build.json — the verdict of a build body as a table; exit 1 on errors.

The file holds a build body as sent to `POST /api/v1/builds/validate` (optionally with a workload);
`-` reads it from standard input. `--json` prints the API response body instead of the table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from configurator.engine.errors import DomainError
from configurator.engine.types import Finding, Verdict
from configurator.output_data import validate_data
from configurator.outputs import PriceOutputSerializer
from configurator.services import build_validate

MESSAGE_WIDTH = 100


def _number(value: float | str | None) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:,.1f}".rstrip("0").rstrip(".")
    return f"{value:,}" if isinstance(value, int) else str(value)


def _measure(finding: Finding) -> str:
    if finding.measured is None and finding.limit is None:
        return ""
    text = f"{_number(finding.measured)} / {_number(finding.limit)}"
    return f"{text} {finding.unit}".rstrip()


def verdict_table(verdict: Verdict) -> list[str]:
    rows = [("severity", "code", "measured / limit", "message")]
    rows += [(f.severity, f.code, _measure(f), f.message) for f in verdict.findings]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for index, row in enumerate(rows):
        head = "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True))
        lines.append(f"{head}  {row[3]}")
        if index == 0:
            lines.append("  ".join("-" * width for width in widths) + "  " + "-" * len(row[3]))
            continue
        finding = verdict.findings[index - 1]
        indent = " " * (sum(widths) + 6)
        lines.extend(f"{indent}fix: {fix.text}" for fix in finding.fixes)
    return lines


class Command(BaseCommand):
    help = "Validate a build body (JSON file, or - for stdin) and print the verdict; exit status 1 on errors."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="build JSON file, or - for standard input")
        parser.add_argument("--json", action="store_true", help="print the API response body as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        path = options["path"]
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
            payload = json.loads(text)
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error}") from None
        except json.JSONDecodeError as error:
            raise CommandError(f"{path} is not JSON: {error}") from None
        try:
            build, verdict, price = build_validate(payload=payload)
        except DomainError as error:
            fields = "; ".join(f"{name}: {' '.join(why)}" for name, why in error.fields.items())
            raise CommandError(f"{error.message} {fields}".strip()) from None

        if options["json"]:
            body = validate_data(verdict, price)
            self.stdout.write(json.dumps(body, indent=2, ensure_ascii=False))
        else:
            self._print(build.chassis.sku, verdict, PriceOutputSerializer(price).data)
        if not verdict.valid:
            raise SystemExit(1)

    def _print(self, chassis: str, verdict: Verdict, price: dict[str, str]) -> None:
        power, pcie = verdict.power, verdict.pcie
        usage = f" ({power.load_w / power.capacity_w:.0%})" if power.capacity_w else ""
        errors, warnings = len(verdict.errors), len(verdict.warnings)
        status = "VALID" if verdict.valid else "INVALID"
        self.stdout.write(f"{chassis}: {status} — {errors} error(s), {warnings} warning(s)")
        self.stdout.write(
            f"power: load {power.load_w:,.0f} W of {power.capacity_w:,.0f} W usable{usage}, "
            f"{power.installed_w:,.0f} W installed, {power.redundancy} @ {power.site_voltage} V"
        )
        self.stdout.write(f"pcie:  {pcie.lanes_needed} of {pcie.lanes_available} lanes ({pcie.topology})")
        self.stdout.write(f"price: {price['net']} {price['currency']} net, {price['gross']} gross")
        if verdict.findings:
            self.stdout.write("")
            for line in verdict_table(verdict):
                self.stdout.write(line)
