"""Helper t33's trial of POST /api/v1/estimate on published runs the estimator was never fitted on (issue 33).

Reads bench/trial_t33/rows.csv (one published measurement a row: source, engine version, settings, the figure
and what it measures, the JSON a user would POST, and a fallback where the natural request is refused), posts
each through the real API (Django test client, in-memory SQLite test database, the catalog loaded by
`catalog_load_fixture` as `make run` does), writes the answer (`status`, `estimate`, `error` = estimate /
measured - 1) back into rows.csv and prints the medians / p90 of |error| per group, the worst rows, and how
the API answers inputs a user would naturally send.

Run: cd <worktree> && PYTHONPATH=$PWD /work/main/.venv/bin/python bench/trial_t33/run.py
"""

from __future__ import annotations

import csv
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ROWS = Path(__file__).resolve().parent / "rows.csv"
URL = "/api/v1/estimate"
GROUPS = ("llama.cpp", "server_per_user", "served_total", "training_memory", "training_throughput")

# What a user would naturally type, beside the rows (status code and the first error message are printed)
PROBES: list[tuple[str, dict[str, Any]]] = [
    ("HF id of QwQ-32B", {"model": "Qwen/QwQ-32B", "gpu": "h200-sxm", "gpu_count": 8}),
    ("HF id of Llama 3.1 8B Instruct", {"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "h100-sxm"}),
    ("GGUF Q4_1", {"model": "llama-2-7b", "precision": "q4_1", "gpu": "rtx-4090"}),
    ("GGUF IQ3_XXS", {"model": "qwen3-8b", "precision": "iq3_xxs", "gpu": "rtx-4090"}),
    ("precision 'awq'", {"model": "llama-3.1-8b", "precision": "awq", "engine": "vllm", "gpu": "rtx-3090"}),
    ("precision 'nf4' (QLoRA)", {"model": "llama-3.1-8b", "task": "qlora", "precision": "nf4", "gpu": "rtx-4090"}),
    ("precision 'FP8' upper case", {"model": "llama-3.1-8b", "precision": "FP8", "gpu": "h100-sxm"}),
    ("engine 'trtllm'", {"model": "llama-3.1-8b", "engine": "trtllm", "gpu": "h100-sxm"}),
    ("engine 'ollama'", {"model": "llama-3.1-8b", "engine": "ollama", "gpu": "rtx-4090"}),
    ("gpu 'H100' (no form factor)", {"model": "llama-3.1-8b", "gpu": "H100"}),
    ("gpu 'RTX 4090' (display name)", {"model": "llama-3.1-8b", "gpu": "RTX 4090"}),
    ("gpu 'a10g' (AWS)", {"model": "llama-3.1-8b", "gpu": "a10g"}),
    ("gpu 'mi325x'", {"model": "llama-3.1-70b", "precision": "fp8", "gpu": "mi325x", "gpu_count": 8}),
    ("gpu 'gb200'", {"model": "llama-3.3-70b", "precision": "nvfp4", "gpu": "gb200"}),
    ("tensor_parallel_size", {"model": "llama-3.3-70b", "gpu": "h100-sxm", "gpu_count": 8, "tensor_parallel_size": 4}),
    ("speculative decoding", {"model": "llama-3.3-70b", "gpu": "h100-sxm", "gpu_count": 2, "speculative_tokens": 2}),
    ("cuda_graphs false (--enforce-eager)", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "cuda_graphs": False}),
    ("prompt 8192 + output 1024 at context 4096", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "prompt_tokens": 8192,
                                                   "output_tokens": 1024}),
    ("gpu_count 72 (NVL72)", {"model": "deepseek-r1", "precision": "nvfp4", "gpu": "b200-sxm", "gpu_count": 72}),
    ("model typed as a name", {"model": "llama 3.1 8b", "gpu": "h100-sxm"}),
]  # fmt: skip


def setup() -> Any:
    """Django with the test settings, a fresh test database holding the catalog, and an API client."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    connection.creation.create_test_db(verbosity=0)
    from rest_framework.test import APIClient

    from catalog.services import catalog_load_fixture

    catalog_load_fixture()
    return APIClient()


def field(data: dict[str, Any], path: str) -> Any:
    for key in path.split("."):
        data = data[key]
    return data


def message(body: Any) -> str:
    text = json.dumps(body, ensure_ascii=False)
    return text[:160]


def post(client: Any, payload: dict[str, Any]) -> tuple[int, Any]:
    response = client.post(URL, payload, format="json")
    try:
        body = response.json()
    except ValueError:
        body = response.content.decode()[:200]
    return response.status_code, body


def run_row(client: Any, row: dict[str, str]) -> None:
    code, body = post(client, json.loads(row["payload"]))
    status = str(code)
    if code != 200 and row["fallback"]:
        first = f"{code}: {message(body)}"
        code, body = post(client, json.loads(row["fallback"]))
        status = f"{first} | fallback {code}"
    if code != 200:
        row.update(status=f"{status}: {message(body)}" if "|" not in status else status, estimate="", error="")
        return
    value = field(body, row["field"])
    row["status"] = status if body["gpu"]["fits"] else f"{status} (fits: false, {body['gpu']['per_gpu_gib']} GiB/GPU)"
    if row["group"] == "fit_check":
        row["estimate"] = "fits" if value else "oom"
        row["error"] = "pass" if row["estimate"] == row["measured"] else "FAIL"
        return
    row["estimate"] = f"{value:.6g}"
    row["error"] = f"{value / float(row['measured']) - 1:+.3f}"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    rank = share * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary(rows: list[dict[str, str]]) -> None:
    print(f"\n{'group':<20} {'n':>3} {'refused':>7} {'median |err|':>12} {'p90 |err|':>9} {'median signed':>13}")
    for group in GROUPS:
        members = [r for r in rows if r["group"] == group]
        errors = [float(r["error"]) for r in members if r["error"]]
        refused = sum(1 for r in members if not r["error"])
        if not errors:
            print(f"{group:<20} {len(members):>3} {refused:>7}")
            continue
        absolute = [abs(e) for e in errors]
        print(
            f"{group:<20} {len(errors):>3} {refused:>7} {statistics.median(absolute):>12.1%} "
            f"{percentile(absolute, 0.9):>9.1%} {statistics.median(errors):>+13.1%}"
        )
    checks = [r for r in rows if r["group"] == "fit_check"]
    passed = sum(1 for r in checks if r["error"] == "pass")
    print(f"{'fit_check':<20} {len(checks):>3}   pass {passed} / {len(checks)}")
    errors = [float(r["error"]) for r in rows if r["error"] not in ("", "pass", "FAIL")]
    absolute = [abs(e) for e in errors]
    middle, p90 = statistics.median(absolute), percentile(absolute, 0.9)
    print(f"{'all numeric':<20} {len(errors):>3}         {middle:>12.1%} {p90:>9.1%}")


def worst(rows: list[dict[str, str]], count: int = 8) -> None:
    numeric = [r for r in rows if r["error"] not in ("", "pass", "FAIL")]
    numeric.sort(key=lambda r: abs(float(r["error"])), reverse=True)
    print(f"\nWorst {count} rows (estimate / measured - 1):")
    for r in numeric[:count]:
        print(
            f"  {r['id']:<4} {r['error']:>7}  {r['gpu_count']} x {r['gpu']}, {r['model']} {r['precision']}, "
            f"{r['engine']}, conc {r['concurrency']}, {r['isl']}/{r['osl']}: measured {r['measured']}, "
            f"API {r['estimate']} ({r['field']})"
        )
    unfit = [r for r in rows if "fits: false" in r["status"]]
    if unfit:
        print("\nAnswered for a layout the API itself says does not fit:")
        for r in unfit:
            print(f"  {r['id']:<4} {r['status']} (published layout {r['layout']})")
    failed = [r for r in rows if r["error"] in ("", "FAIL")]
    if failed:
        print("\nRefused or failed:")
        for r in failed:
            verdict = f"FAIL: API {r['estimate']}, published {r['measured']}" if r["error"] == "FAIL" else r["status"]
            print(f"  {r['id']:<4} {verdict}")


def probes(client: Any) -> None:
    print("\nInputs a user would naturally send:")
    for label, payload in PROBES:
        code, body = post(client, payload)
        detail = message(body) if code != 200 else ""
        if code == 200:
            t = body["throughput"]
            detail = (
                f"per-user {t['decode_tokens_per_s_per_user']}, served {t['served_output_tokens_per_s']}, "
                f"prompt/output {t['prompt_tokens']}/{t['output_tokens']}, fits {body['gpu']['fits']}"
            )
        print(f"  {code}  {label}: {detail}")


def main() -> int:
    client = setup()
    with ROWS.open(newline="") as handle:
        reader = csv.DictReader(handle)
        columns = list(reader.fieldnames or [])
        rows = list(reader)
    for row in rows:
        run_row(client, row)
    with ROWS.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    for row in rows:
        answer = f"measured {row['measured']:>9} API {row['estimate']:>9} err {row['error']:>7}"
        print(f"{row['id']:<4} {row['group']:<20} {answer}")
    summary(rows)
    worst(rows)
    probes(client)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
