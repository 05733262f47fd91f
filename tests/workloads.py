"""Workload bodies shared by the API tests and the load benchmark (the builds are in tests/builds.py)."""

from __future__ import annotations

from typing import Any

# An estimate body: Llama 3.1 70B at Q4_K_M on 2 × RTX 4090 (the load benchmark's estimate).
ESTIMATE_EXAMPLE: dict[str, Any] = {
    "model": "llama-3.1-70b",
    "task": "inference",
    "precision": "q4_k_m",
    "context_tokens": 8192,
    "gpu": "rtx-4090",
    "gpu_count": 2,
}
