"""Request bodies the security tests send: each one is accepted by its endpoint (so a denied request is
denied for who sent it, not for what it carried)."""

from __future__ import annotations

from typing import Any

# A workstation the rules pass without findings: TR PRO, 2 × RTX PRO 6000 Max-Q, 2 × 2000 W N+1.
GOOD_BUILD: dict[str, Any] = {
    "chassis": "ws-tr-pro-2gpu-4u5",
    "cpus": [{"sku": "tr-pro-7975wx", "qty": 1}],
    "gpus": [{"sku": "rtx-pro-6000-blackwell-maxq", "qty": 2}],
    "psus": [{"sku": "psu-crps-2000w", "qty": 2}],
    "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 8}],
    "storage": [{"sku": "nvme-4tb", "qty": 1}],
    "nics": [],
    "bridges": [],
    "psu_redundancy": "n+1",
    "site_voltage": 230,
}
WORKLOAD: dict[str, Any] = {"model": "llama-3.1-8b", "precision": "q4_k_m", "context_tokens": 8192}
ESTIMATE: dict[str, Any] = {**WORKLOAD, "gpu": "rtx-4090", "gpu_count": 1}
RECOMMENDATION: dict[str, Any] = {"workload": WORKLOAD, "limit": 1}
