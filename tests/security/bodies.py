"""Request bodies the security tests send: each one is accepted by its endpoint (so a denied request is
denied for who sent it, not for what it carried)."""

from __future__ import annotations

from typing import Any

from tests.builds import GOOD_BUILD

WORKLOAD: dict[str, Any] = {"model": "llama-3.1-8b", "precision": "q4_k_m", "context_tokens": 8192}
ESTIMATE: dict[str, Any] = {**WORKLOAD, "gpu": "rtx-4090", "gpu_count": 1}
RECOMMENDATION: dict[str, Any] = {"workload": WORKLOAD, "limit": 1}

# a fix the validate answer could carry, on the shared passing build
APPLY_FIX: dict[str, Any] = {
    "build": GOOD_BUILD,
    "fix": {"ops": [{"op": "add", "kind": "storage", "sku": "nvme-4tb", "qty": 1}]},
}

# a cluster quote (issue 39): 405B BF16 for 200 users on H200 nodes
CLUSTER_QUOTE: dict[str, Any] = {
    "cluster": {
        "workload": {"model": "llama-3.1-405b", "precision": "bf16", "concurrent_users": 200},
        "gpu": "h200-sxm",
    }
}
