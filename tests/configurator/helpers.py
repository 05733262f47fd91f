"""Helpers shared by the rule and validation tests: build bodies, validation, picking findings."""

from __future__ import annotations

from typing import Any

from configurator.engine.builds import PART_KINDS, build_from_payload
from configurator.engine.types import CatalogSnapshot, Finding, Verdict, Workload
from configurator.engine.validate import validate


def lines(*pairs: tuple[str, int]) -> list[dict[str, Any]]:
    """Build-body lines from (sku, qty) pairs."""
    return [{"sku": sku, "qty": qty} for sku, qty in pairs]


def validate_body(
    snapshot: CatalogSnapshot, body: dict[str, Any], workload: Workload | None = None, **changes: Any
) -> Verdict:
    """Validate `body` with `changes` applied on top (e.g. gpus=lines(("rtx-3090", 2)))."""
    return validate(build_from_payload({**body, **changes}, snapshot), snapshot=snapshot, workload=workload)


def only(verdict: Verdict, code: str) -> Finding:
    """The one finding with this code (fails when there is none or more than one)."""
    found = [finding for finding in verdict.findings if finding.code == code]
    assert len(found) == 1, verdict.findings
    return found[0]


def codes(verdict: Verdict, *prefixes: str) -> set[str]:
    """Codes of the verdict's findings, only those starting with one of `prefixes` when given."""
    return {f.code for f in verdict.findings if not prefixes or f.code.startswith(prefixes)}


def body_of(parts: str, **fields: Any) -> dict[str, Any]:
    """A build body from one line: `"ws-tower-am5: 1 ryzen-9-9950x, 1 rtx-5090, 2 ddr5-udimm-48gb"` — the
    chassis, then `qty sku` per line, each SKU's kind looked up in the catalog fixture; `fields` add
    `psu_redundancy`, `site_voltage` or empty kinds."""
    from catalog.fixture import fixture_snapshot

    snapshot = fixture_snapshot()
    chassis, _, rest = parts.partition(":")
    built: dict[str, Any] = {"chassis": chassis.strip()}
    for item in filter(None, (piece.strip() for piece in rest.split(","))):
        qty, sku = item.split()
        kind = next(kind for kind in PART_KINDS if sku in snapshot.kind(kind))
        built.setdefault(kind, []).append({"sku": sku, "qty": int(qty)})
    return {**built, **fields}
