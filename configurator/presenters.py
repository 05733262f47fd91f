"""Verdict → the JSON of `POST /api/v1/builds/validate` (ARCHITECTURE.md §HTTP API), and a price body.

Plain dicts of JSON types: the API, the saved-build `last_verdict` column and the management command all
print the same shape.
"""

from __future__ import annotations

from typing import Any

from configurator.engine.types import Finding, Fix, Price, Verdict
from configurator.serializers import estimate_to_dict


def fix_to_dict(fix: Fix) -> dict[str, Any]:
    return {"action": fix.action, "sku": fix.sku, "detail": fix.detail, "target": fix.target, "qty": fix.qty}


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    return {
        "code": finding.code,
        "severity": finding.severity,
        "message": finding.message,
        "measured": finding.measured,
        "limit": finding.limit,
        "unit": finding.unit,
        "components": list(finding.components),
        "fixes": [fix_to_dict(fix) for fix in finding.fixes],
    }


def verdict_to_dict(verdict: Verdict) -> dict[str, Any]:
    """`utilization` is load / usable capacity as a fraction (null when nothing is usable)."""
    power = verdict.power
    return {
        "valid": verdict.valid,
        "findings": [finding_to_dict(finding) for finding in verdict.findings],
        "power": {
            "load_w": power.load_w,
            "capacity_w": power.capacity_w,
            "installed_w": power.installed_w,
            "redundancy": power.redundancy,
            "site_voltage": power.site_voltage,
            "utilization": round(power.load_w / power.capacity_w, 3) if power.capacity_w > 0 else None,
        },
        "pcie": {
            "lanes_needed": verdict.pcie.lanes_needed,
            "lanes_available": verdict.pcie.lanes_available,
            "topology": verdict.pcie.topology,
        },
        "slots": {
            "gpus": verdict.slots.gpus,
            "gpu_bays": verdict.slots.gpu_bays,
            "max_gpus": verdict.slots.max_gpus,
            "dimms": verdict.slots.dimms,
            "dimm_slots": verdict.slots.dimm_slots,
            "psus": verdict.slots.psus,
            "psu_bays": verdict.slots.psu_bays,
        },
        "vram": {
            "total_gib": verdict.vram.total_gib,
            "needed_per_gpu_gib": verdict.vram.needed_per_gpu_gib,
            "usable_per_gpu_gib": verdict.vram.usable_per_gpu_gib,
        },
        "estimate": estimate_to_dict(verdict.estimate) if verdict.estimate is not None else None,
    }


def price_to_dict(price: Price) -> dict[str, str]:
    """Money as decimal strings (ARCHITECTURE.md: "money as decimal strings")."""
    return {"currency": price.currency, "net": str(price.net), "vat": str(price.vat), "gross": str(price.gross)}
