"""Issue 34 (trial t34, item E): a full fine-tune of Llama-3.1-70B on 8 × H100 SXM (ZeRO-3) needs 148.7 GiB per
GPU and said no fix, though `"offload": "optimizer"` (ZeRO-Offload, Ren et al. 2021) makes it fit. The VRAM
finding now offers that workload decision, with the training speed the estimator gives for it. The catalog's HGX
chassis carries the HGX H200 board (H100 modules do not go on it), so the build here has 8 × H200 SXM, which
the same 148.7 GiB does not fit either."""

from __future__ import annotations

from dataclasses import replace

from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, FixOpKind, Workload
from tests.configurator.helpers import body_of, lines, only, validate_body

FULL_FT_70B = Workload(
    model=model_get("llama-3.1-70b"), task="full_finetune", sequence_length=4096, zero_stage=3, multi_node=True
)
HGX = body_of(
    "srv-hgx-h200-5u: 2 epyc-9454, 8 h200-sxm, 24 ddr5-rdimm-64gb, 2 nvme-1tb, 6 nvme-4tb, 8 nic-400g, "
    "6 psu-crps-2700w",
    psu_redundancy="n+1",
)


def test_the_vram_error_offers_optimizer_offload_with_its_speed(snapshot: CatalogSnapshot) -> None:
    finding = only(validate_body(snapshot, HGX, FULL_FT_70B), "workload.vram")
    offload = [fix for fix in finding.fixes if 'train with "offload": "optimizer"' in str(fix.reason)]
    assert len(offload) == 1 and offload[0].ops[0].op == FixOpKind.CHANGE_WORKLOAD
    h200 = snapshot.gpus["h200-sxm"]
    before = estimate(FULL_FT_70B, h200, 8).throughput
    after = estimate(replace(FULL_FT_70B, offload="optimizer"), h200, 8)
    assert before is not None and after.throughput is not None and after.layout is not None and after.layout.fits
    slower = after.throughput.training_tokens_per_s
    assert slower < before.training_tokens_per_s  # the PCIe traffic and the CPU's Adam step cost time
    assert f"≈ {slower:,.0f} training tokens/s instead of {before.training_tokens_per_s:,.0f}" in str(offload[0].reason)
    # the workload as changed is valid on the same build
    assert not [f for f in validate_body(snapshot, HGX, replace(FULL_FT_70B, offload="optimizer")).findings
                if f.code == "workload.vram"]  # fmt: skip


def test_no_offload_is_offered_when_host_ram_cannot_hold_the_optimizer(snapshot: CatalogSnapshot) -> None:
    small_ram = validate_body(snapshot, HGX, FULL_FT_70B, memory=lines(("ddr5-rdimm-16gb", 24)))
    finding = only(small_ram, "workload.vram")  # 384 GB of RAM for ~790 GiB of optimizer states
    assert not any("offload" in str(fix.reason) for fix in finding.fixes)
