"""Trial tr34: tensor parallelism over GPUs without NVLink (8× L40S for Qwen2.5 72B, 40 users) said "instead of
13.5 with an NVLink 4 link (900 GB/s)", which reads as a part to buy; the L40S has none. The finding now says
the GPU has no NVLink and that the faster figure is that of GPUs joined by NVLink 4."""

from __future__ import annotations

from configurator.engine.builds import build_from_payload
from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, Workload
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, only

L40S = body_of(
    "srv-8gpu-4u-epyc: 2 epyc-9354, 8 l40s, 4 psu-crps-3000w, 24 ddr5-rdimm-32gb, 2 nvme-2tb, 1 nic-100g",
    psu_redundancy="n+1",
)


def test_a_gpu_without_nvlink_is_not_offered_an_nvlink_link(snapshot: CatalogSnapshot) -> None:
    workload = Workload(model=model_get("qwen2.5-72b"), concurrent_users=40, target_tokens_per_s=15)
    verdict = validate(build_from_payload(L40S, snapshot), snapshot=snapshot, workload=workload)
    finding = only(verdict, "interconnect.tp_over_pcie")
    assert "as this GPU has no NVLink" in finding.message
    assert "on GPUs joined by NVLink 4 (900 GB/s)" in finding.message
    assert "with an NVLink 4 link" not in finding.message
    assert finding.fixes == ()
