"""What the all-users speed is called: output tokens/s of the users together, their own prompts included.

A sales engineer's trial (helper t34): one user of Qwen2.5-7B Q4_K_M on an RTX 3060 read "decode ≈ 61.4 tokens/s
per user, 34 tokens/s for 1 user(s)" — decode for one user is 61.4; the 34 counts that user's 7,680-token prompt
too (estimate.serving.UserDecode.all_users_tokens_per_s). The schema said the total was per user × sequences.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from catalog.specs import catalog_snapshot
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import Constraints, Workload
from configurator.outputs import CandidateOutputSerializer, _ThroughputOutputSerializer
from configurator.wording import say

ONE_USER = {"model": "qwen2.5-7b", "precision": "q4_k_m", "context_tokens": 8192, "concurrent_users": 1}


def _total_line(candidate: dict[str, Any], total: str) -> str:
    return next(line for line in candidate["why"] if f"≈ {total} " in line)


@pytest.mark.django_db
def test_one_users_total_is_below_their_decode_and_the_reason_says_why(catalog: None, api_client: APIClient) -> None:
    body = {"workload": ONE_USER, "constraints": {"max_gpus": 1, "form_factor": "workstation"}, "limit": 1}
    english = api_client.post("/api/v1/recommendations", body, format="json", HTTP_ACCEPT_LANGUAGE="en").json()
    candidate = english["candidates"][0]
    per_user, total = candidate["decode_tokens_per_s_per_user"], candidate["decode_tokens_per_s_total"]
    assert total < per_user  # the user's own prompt is in the total, not in its decode speed
    line = _total_line(candidate, f"{total:,.0f}")
    # one user: no "1 user(s) together" beside its own speed (trial t34: "17.1 per user; 1 user together ≈ 12"
    # read as a contradiction); the line says in words why the second figure is lower
    assert line.startswith(f"decode ≈ {per_user:,.1f} tokens/s for the one user; ≈ {total:,.0f} output tokens/s")
    assert line.endswith("(its own prompt's prefill) is counted in") and "together" not in line


@pytest.mark.django_db
def test_several_users_keep_the_together_figure(catalog: None, api_client: APIClient) -> None:
    body = {"workload": {**ONE_USER, "concurrent_users": 4}, "constraints": {"max_gpus": 1}, "limit": 1}
    candidate = api_client.post("/api/v1/recommendations", body, format="json").json()["candidates"][0]
    line = _total_line(candidate, f"{candidate['decode_tokens_per_s_total']:,.0f}")
    assert "tokens/s per user; 4 user(s) together ≈ " in line and line.endswith("their prompts included")


def test_the_reason_is_said_in_russian_too(catalog: None) -> None:
    workload = Workload(model_get("qwen2.5-7b"), precision="q4_k_m", context_tokens=8192)
    candidate = recommend(catalog_snapshot(), workload, Constraints(max_gpus=1, form_factor="workstation"), limit=1)
    why = candidate.candidates[0].why
    with translation.override("ru"):
        said = [str(say(line)) for line in why]
    assert any(line.startswith("генерация ≈ ") and "для единственного пользователя" in line for line in said)


def test_the_schema_does_not_call_the_total_per_user_times_the_sequences() -> None:
    estimate = str(_ThroughputOutputSerializer().fields["decode_tokens_per_s_total"].help_text)
    candidate = str(CandidateOutputSerializer().fields["decode_tokens_per_s_total"].help_text)
    assert "prompt included" in estimate and "below decode_tokens_per_s_per_user" in estimate
    assert "prompts included" in candidate
