"""schemathesis hooks of tests/security/test_fuzz_api.py (loaded with SCHEMATHESIS_HOOKS=<this file>).

Random strings almost never name a catalog SKU, a model of the library, a saved build or a quote, so
without help nearly every generated body stops at "unknown SKU" and the rules, the estimator, the
recommender and the quote actions are never reached. These hooks swap three of every four such values
for real ones (chosen from the generated value, so a case stays reproducible) and keep the fourth as
generated. Nothing else of a case changes: the structure, the numbers and the negative cases stay as
schemathesis made them. The seeded ids come from the test through FUZZ_* variables.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import schemathesis

ROOT = Path(__file__).resolve().parents[2]
_CATALOG = json.loads((ROOT / "fixtures" / "catalog.json").read_text(encoding="utf-8"))
SKUS: dict[str, list[str]] = {kind: [row["sku"] for row in rows] for kind, rows in _CATALOG.items() if kind != "_meta"}
ALL_SKUS = sorted(sku for skus in SKUS.values() for sku in skus)
MODELS = [
    model["slug"] for model in json.loads((ROOT / "fixtures" / "llm_models.json").read_text(encoding="utf-8"))["models"]
]


def _seeded(name: str) -> list[str]:
    return [value for value in os.environ.get(name, "").split(",") if value]


QUOTES = _seeded("FUZZ_QUOTE_NUMBERS")
BUILD_IDS = [int(value) for value in _seeded("FUZZ_BUILD_IDS")]
USER_IDS = [int(value) for value in _seeded("FUZZ_USER_IDS")]


def steer(original: Any, choices: list[Any]) -> Any:
    """A real value for three generated values in four, picked by the generated value's hash."""
    if not choices:
        return original
    digest = int(hashlib.sha256(repr(original).encode()).hexdigest()[:12], 16)
    return original if digest % 4 == 0 else choices[digest % len(choices)]


def _walk(value: Any, kind: str | None = None) -> Any:
    if isinstance(value, list):
        return [_walk(item, kind) for item in value]
    if not isinstance(value, dict):
        return value
    steered: dict[str, Any] = {}
    for key, item in value.items():
        if key == "sku" and isinstance(item, str):
            steered[key] = steer(item, SKUS.get(kind or "", ALL_SKUS))
        elif key == "chassis" and isinstance(item, str):
            steered[key] = steer(item, SKUS["chassis"])
        elif key == "chassis" and isinstance(item, list):
            steered[key] = [steer(sku, SKUS["chassis"]) if isinstance(sku, str) else sku for sku in item]
        elif key == "gpu" and isinstance(item, str):
            steered[key] = steer(item, SKUS["gpus"])
        elif key == "model" and isinstance(item, str):
            steered[key] = steer(item, MODELS)
        elif key == "saved_build" and isinstance(item, int):
            steered[key] = steer(item, BUILD_IDS)
        elif key == "customer" and isinstance(item, int):
            steered[key] = steer(item, USER_IDS)
        else:
            steered[key] = _walk(item, key if key in SKUS else kind)
    return steered


@schemathesis.hook
def map_body(context: schemathesis.HookContext, body: Any) -> Any:
    return _walk(body)


@schemathesis.hook
def map_path_parameters(context: schemathesis.HookContext, path_parameters: Any) -> Any:
    if not isinstance(path_parameters, dict):
        return path_parameters
    steered = dict(path_parameters)
    path = context.operation.path if context.operation is not None else ""
    if isinstance(steered.get("number"), str):
        steered["number"] = steer(steered["number"], QUOTES)
    if isinstance(steered.get("id"), int):
        steered["id"] = steer(steered["id"], BUILD_IDS)
    if isinstance(steered.get("sku"), str):
        kind = path.split("/catalog/", 1)[-1].split("/", 1)[0]
        steered["sku"] = steer(steered["sku"], SKUS.get(kind, ALL_SKUS))
    return steered
