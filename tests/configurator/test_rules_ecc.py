"""ECC need (configurator/rules/ecc.py): a production / require_ecc workload needs ECC GPU and system memory.

Source: validation-rules.md §5.1 (GeForce cards have no ECC; "requires ECC end-to-end and picks GeForce → ERROR").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from configurator.engine.builds import build_from_payload
from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, Verdict, Workload
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, codes, lines, only

TOWER = body_of("ws-tower-am5: 1 ryzen-9-9950x, 1 rtx-5090, 1 psu-atx-1300w, 2 ddr5-udimm-48gb")
WORKSTATION = body_of("ws-tower-trx50: 1 tr-7960x, 1 rtx-5090, 1 psu-atx-1300w, 4 ddr5-rdimm-32gb")
WORKLOAD = Workload(model=model_get("llama-3.1-8b"), precision="bf16", kv_cache_precision="bf16", engine="vllm")


def check(snapshot: CatalogSnapshot, body: dict[str, Any], workload: Workload | None, **changes: Any) -> Verdict:
    return validate(build_from_payload({**body, **changes}, snapshot), snapshot=snapshot, workload=workload)


def ecc_codes(verdict: Verdict) -> set[str]:
    return codes(verdict, "ecc.")


@pytest.mark.parametrize("flags", [{"require_ecc": True}, {"production": True}])
def test_gpu_without_ecc(snapshot: CatalogSnapshot, flags: dict[str, Any]) -> None:
    verdict = check(snapshot, WORKSTATION, replace(WORKLOAD, **flags))
    finding = only(verdict, "ecc.gpu_required")
    assert (finding.severity, finding.measured, finding.limit, finding.components) == (
        "error",
        "no ecc",
        "ecc",
        ("rtx-5090",),
    )
    # ECC GPUs of similar or larger VRAM that this tower takes; issue 12: NVIDIA (the card's vendor, the
    # workload's CUDA stack) before AMD, then the closest capacity first: since issue 13's catalog the 32 GB ECC
    # cards (RTX PRO 4500 Blackwell, then the dearer RTX 5000 Ada), before the 48 GB ones
    skus = [fix.ops[0].sku or "" for fix in finding.fixes]
    assert skus[:2] == ["rtx-pro-4500-blackwell", "rtx-5000-ada"]
    assert all(snapshot.gpus[sku].vram_gib >= snapshot.gpus["rtx-5090"].vram_gib for sku in skus)
    assert all(snapshot.gpus[sku].vendor == snapshot.gpus["rtx-5090"].vendor for sku in skus)
    assert ecc_codes(verdict) == {"ecc.gpu_required"}  # RDIMMs are ECC


def test_ecc_gpu_passes(snapshot: CatalogSnapshot) -> None:
    strict = replace(WORKLOAD, require_ecc=True)
    assert ecc_codes(check(snapshot, WORKSTATION, strict, gpus=lines(("rtx-6000-ada", 1)))) == set()
    assert ecc_codes(check(snapshot, WORKSTATION, WORKLOAD)) == set()  # not asked for
    assert ecc_codes(check(snapshot, WORKSTATION, None)) == set()


def test_non_ecc_system_memory(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, TOWER, replace(WORKLOAD, require_ecc=True), gpus=lines(("rtx-6000-ada", 1)))
    finding = only(verdict, "ecc.memory_required")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "no ecc", "ecc")
    assert finding.fixes[0].ops[0].sku == "ws-tower-trx50"  # the cheapest RDIMM platform that takes the GPU
