"""A part the catalog no longer sells (is_active false: end of life, or cloud-only as AWS's A10G) is never bought
by a fix: a build that holds it may be told to remove it or swap it, never to add more of it."""

from __future__ import annotations

from configurator.engine.models_library import model_get
from configurator.engine.types import BuildSpec, CatalogSnapshot, FixOpKind, Line, Workload
from configurator.engine.validate import validate


def _ops_on(snapshot: CatalogSnapshot, chassis: str, count: int, workload: Workload | None) -> list[tuple[str, str]]:
    build = BuildSpec(chassis=snapshot.chassis[chassis], gpus=(Line(spec=snapshot.gpus["a10g"], qty=count),))
    verdict = validate(build, snapshot=snapshot, workload=workload)
    return [
        (finding.code, op.op)
        for finding in verdict.findings
        for fix in finding.fixes
        for op in fix.ops
        if op.sku == "a10g"
    ]


def test_no_fix_buys_more_of_a_gpu_not_for_sale(snapshot: CatalogSnapshot) -> None:
    assert not snapshot.gpus["a10g"].is_active
    seventy = Workload(model=model_get("llama-3.1-70b"), precision="fp16")
    # 70B FP16 needs ~8 × 24 GB cards: "add 7 more" was offered; the baseboard's 4/8 counts likewise
    ops = _ops_on(snapshot, "srv-8gpu-6u-epyc", 1, seventy) + _ops_on(snapshot, "srv-hgx-h200-5u", 2, None)
    assert FixOpKind.ADD not in {op for _, op in ops}
    verdict = validate(
        BuildSpec(chassis=snapshot.chassis["srv-8gpu-6u-epyc"], gpus=(Line(spec=snapshot.gpus["a10g"], qty=1),)),
        snapshot=snapshot,
        workload=seventy,
    )
    vram = next(f for f in verdict.findings if f.code == "workload.vram")
    bought = [fix.ops[0].sku for fix in vram.fixes if fix.ops[0].kind == "gpus" and fix.ops[0].sku]
    assert bought and all(snapshot.gpus[sku].is_active for sku in bought)
