"""The recommender's answers to the article's ten use cases as plain JSON, to hold them fixed while the search
gets faster (tests/configurator/test_use_case_answers.py; data/use_case_answers.json was written at 24cf677,
before the issue-34 speed-up).

An answer is what the API shows (`recommendation_data` without the time taken and the count of builds
validated, which is how the search got there) plus what it rounds or leaves out: each candidate's label and
its speeds as exact floats.

Write the file again (only when an answer is meant to change):
    PYTHONPATH=. .venv/bin/python -m tests.configurator.use_case_answers
"""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

from configurator.engine.types import CatalogSnapshot, Constraints, Workload

STORED = Path(__file__).resolve().parent / "data" / "use_case_answers.json"


def _requests() -> list[tuple[str, Workload, Constraints]]:
    """The ten use cases, and a few requests whose answers carry suggestions: BF16 inference (the lighter
    precision beside a build that fits), nothing fitting (what would), a training knob."""
    from configurator.engine.models_library import model_get as m
    from configurator.use_cases import use_cases

    return [
        *((case.slug, case.workload, case.constraints) for case in use_cases()),
        (
            "70b-bf16-team",
            Workload(m("llama-3.1-70b"), precision="bf16", engine="vllm", context_tokens=8192, concurrent_users=10),
            Constraints(),
        ),
        (
            "32b-bf16-chat",
            Workload(m("qwen2.5-32b"), precision="bf16", engine="vllm", context_tokens=8192, concurrent_users=4),
            Constraints(),
        ),
        (
            "70b-bf16-small-budget",
            Workload(m("llama-3.1-70b"), precision="bf16", engine="vllm", context_tokens=32768, concurrent_users=20),
            Constraints(max_price=Decimal(1_500_000)),
        ),
        (
            "405b-workstation",
            Workload(m("llama-3.1-405b"), precision="fp8", engine="vllm", context_tokens=8192, concurrent_users=4),
            Constraints(form_factor="workstation"),
        ),
        (
            "full-ft-70b",
            Workload(
                m("llama-3.1-70b"), task="full_finetune", precision="bf16", engine="transformers", sequence_length=4096
            ),
            Constraints(max_gpus=4),
        ),
    ]


def answers(snapshot: CatalogSnapshot) -> dict[str, Any]:
    """Each request's answer (by slug), a first request for its workload (the search's memos forgotten)."""
    from configurator.engine.recommend import recommend
    from configurator.engine.recommend.parts import forget_searches
    from configurator.output_data import recommendation_data

    found: dict[str, Any] = {}
    for slug, workload, constraints in _requests():
        forget_searches()
        result = recommend(snapshot, workload, constraints)
        data = recommendation_data(result, None)
        del data["elapsed_ms"], data["considered"]
        data["exact"] = [
            {
                "label": candidate.label,
                "decode_tokens_per_s_per_user": candidate.decode_tokens_per_s_per_user,
                "decode_tokens_per_s_total": candidate.decode_tokens_per_s_total,
                "training_tokens_per_s": candidate.training_tokens_per_s,
                "served_output_tokens_per_s": candidate.served_output_tokens_per_s,
                "gross": str(candidate.price.gross),
            }
            for candidate in result.candidates
        ]
        found[slug] = json.loads(json.dumps(data, default=str))  # the JSON round trip the file makes
    return found


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from catalog.fixture import fixture_snapshot

    STORED.write_text(json.dumps(answers(fixture_snapshot()), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"wrote {STORED}")
