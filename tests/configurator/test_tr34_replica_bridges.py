"""Trial tr34: 4× H100 NVL in the Threadripper PRO workstation serving Qwen2.5 72B AWQ to 30 users run as 2
replicas of tensor parallelism 2. The tensor-parallel warning's fix was "add 1× nvlink-bridge-h100-2way", which
joins one pair only (the speed stayed 25.7 tokens/s and two new warnings came); and the H100 NVL build had no
bridge note at all, since that rule read the full-load split (4 replicas of 1) instead of the users' split the
speeds are for. Both now bridge every replica: 2 sets."""

from __future__ import annotations

import pytest

from configurator.engine.builds import build_from_payload
from configurator.engine.fixes import apply_fix
from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, Workload
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, only

WORKLOAD = Workload(model=model_get("qwen2.5-72b"), precision="int4", concurrent_users=30, target_tokens_per_s=20)


@pytest.mark.parametrize("gpu", ["h100-nvl", "h100-pcie"])
def test_the_bridge_fix_joins_every_replica(snapshot: CatalogSnapshot, gpu: str) -> None:
    body = body_of(
        f"ws-tr-pro-6gpu-6u5: 1 tr-pro-7975wx, 4 {gpu}, 3 psu-crps-1600w, 8 ddr5-rdimm-64gb, 1 nvme-1tb, 1 nic-25g"
    )
    build = build_from_payload(body, snapshot)
    verdict = validate(build, snapshot=snapshot, workload=WORKLOAD)
    throughput = verdict.estimate.throughput if verdict.estimate else None
    assert throughput is not None and (throughput.users_replicas, throughput.users_tensor_parallel) == (2, 2)
    warning = only(verdict, "interconnect.tp_over_pcie")
    note = only(verdict, "interconnect.no_bridge")
    assert [f.text for f in warning.fixes] == [f.text for f in note.fixes] == ["add 2× nvlink-bridge-h100-2way"]
    bridged = validate(apply_fix(build, warning.fixes[0], snapshot), snapshot=snapshot, workload=WORKLOAD)
    assert not {f.code for f in bridged.findings if f.code.startswith("interconnect.")}
    faster = bridged.estimate.throughput if bridged.estimate else None
    assert faster is not None and faster.decode_tokens_per_s_per_user > throughput.decode_tokens_per_s_per_user
