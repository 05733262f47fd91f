"""Build bodies the tests send, each with a known verdict; one definition for every suite."""

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
# AM5 tower with two RTX 4090 at x8 and 2 DIMMs per channel: valid, with warnings.
WARNING_BUILD: dict[str, Any] = {
    "chassis": "ws-tower-am5",
    "cpus": [{"sku": "ryzen-9-9950x", "qty": 1}],
    "gpus": [{"sku": "rtx-4090", "qty": 2}],
    "psus": [{"sku": "psu-atx-2200w", "qty": 1}],
    "memory": [{"sku": "ddr5-udimm-48gb", "qty": 4}],
    "storage": [{"sku": "nvme-2tb", "qty": 1}],
    "psu_redundancy": "none",
    "site_voltage": 230,
}
# The same tower on a 1300 W PSU: the power rule refuses it.
ERROR_BUILD: dict[str, Any] = {**WARNING_BUILD, "psus": [{"sku": "psu-atx-1300w", "qty": 1}]}
# 8 × H200 NVL on two 3 kW PSUs: power.psu_capacity, fixed by adding two more.
TOO_FEW_PSUS: dict[str, Any] = {
    "chassis": "srv-8gpu-4u-epyc",
    "cpus": [{"sku": "epyc-9554", "qty": 2}],
    "gpus": [{"sku": "h200-nvl", "qty": 8}],
    "psus": [{"sku": "psu-crps-3000w", "qty": 2}],
    "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 24}],
    "storage": [{"sku": "nvme-4tb", "qty": 1}],
    "psu_redundancy": "n+1",
    "site_voltage": 230,
}
# The body of ARCHITECTURE.md's `POST /api/v1/builds/validate` example: 8 × H200 NVL on 4 × 3 kW N+1, bridged.
ARCHITECTURE_EXAMPLE: dict[str, Any] = {
    "chassis": "srv-8gpu-4u-epyc",
    "cpus": [{"sku": "epyc-9554", "qty": 2}],
    "gpus": [{"sku": "h200-nvl", "qty": 8}],
    "psus": [{"sku": "psu-crps-3000w", "qty": 4}],
    "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 24}],
    "storage": [],
    "nics": [],
    "bridges": [{"sku": "nvlink-bridge-h200-4way", "qty": 2}],
    "psu_redundancy": "n+1",
    "site_voltage": 230,
    "workload": None,
}
