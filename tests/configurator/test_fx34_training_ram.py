"""Trial 34 follow-up, U09: a full fine-tune on a build whose RAM is short of what training asks of host memory
is a warning (it was an info note), with more DIMMs as the fix where the platform takes them; the recommender
takes an exact GPU count (`Constraints.gpu_count`)."""

from __future__ import annotations

from configurator.engine.builds import build_from_payload
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import CatalogSnapshot, Constraints, Finding, Workload
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of

FULL_FT_8B = Workload(
    model=model_get("llama-3.1-8b"), task="full_finetune", sequence_length=4096, batch_size=4, zero_stage=3
)


def _ram_finding(snapshot: CatalogSnapshot, body: dict[str, object], workload: Workload | None) -> Finding | None:
    verdict = validate(build_from_payload(body, snapshot), snapshot=snapshot, workload=workload)
    return next((f for f in verdict.findings if f.code.startswith("memory.ram_below")), None)


def test_a_tower_short_of_the_training_ram_is_a_warning(snapshot: CatalogSnapshot) -> None:
    """3 × RTX PRO 6000 Max-Q (288 GB) in the TRX50 tower with 512 GB: training asks 576 GB (2 × VRAM). The
    tower takes no more (4 × 128 GB is its most), so the warning carries no DIMM fix."""
    body = body_of(
        "ws-tower-trx50: 1 tr-7960x, 3 rtx-pro-6000-blackwell-maxq, 1 psu-atx-2200w, 4 ddr5-rdimm-128gb, 1 nvme-1tb"
    )
    finding = _ram_finding(snapshot, body, FULL_FT_8B)
    assert finding is not None and finding.severity == "warning", finding
    assert (finding.measured, finding.limit) == (512, 576)
    assert "at least 576 GB" in str(finding.message)
    assert finding.fixes == ()
    inference = _ram_finding(snapshot, body, None)  # the same build without a training workload: an info note
    assert inference is not None and inference.severity == "info"


def test_a_fix_adds_dimms_where_the_platform_takes_them(snapshot: CatalogSnapshot) -> None:
    """2 × 96 GB with 256 GB of RAM: training asks 384 GB; 4 × 128 GB DIMMs reach it."""
    body = body_of(
        "ws-tower-trx50: 1 tr-7960x, 2 rtx-pro-6000-blackwell-maxq, 1 psu-atx-2200w, 4 ddr5-rdimm-64gb, 1 nvme-1tb"
    )
    finding = _ram_finding(snapshot, body, FULL_FT_8B)
    assert finding is not None and finding.severity == "warning"
    assert finding.fixes, finding
    step = finding.fixes[0].ops[0]
    assert step.sku is not None and snapshot.memory[str(step.sku)].capacity_gb * int(step.qty or 0) >= 384


def test_an_exact_gpu_count_is_what_every_build_has(snapshot: CatalogSnapshot) -> None:
    """U09 "full fine-tune on 8 GPUs": max_gpus=8 gave 3-GPU builds; gpu_count=8 gives 8 in each."""
    capped = recommend(snapshot, FULL_FT_8B, Constraints(max_gpus=8), limit=3).candidates
    assert capped and any(c.build.gpu_count < 8 for c in capped)
    exact = recommend(snapshot, FULL_FT_8B, Constraints(gpu_count=8), limit=3).candidates
    assert exact and all(c.build.gpu_count == 8 for c in exact)
    odd = recommend(snapshot, FULL_FT_8B, Constraints(gpu_count=3), limit=3).candidates
    assert odd and all(c.build.gpu_count == 3 for c in odd)
