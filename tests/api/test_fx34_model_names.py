"""Trial 34 follow-up (issue 33): Mistral-Nemo-12B and QwQ-32B in the library, and the `model` field taking a
typed name the model search matches to one model (said in the assumptions); an ambiguous name is a 400 that
lists the candidates."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from configurator.engine.models_library import model_get

URL = "/api/v1/estimate"


def test_mistral_nemo_and_qwq_are_in_the_library() -> None:
    nemo = model_get("mistralai/Mistral-Nemo-Instruct-2407")
    assert (nemo.slug, nemo.layers, nemo.hidden, nemo.intermediate, nemo.heads, nemo.kv_heads, nemo.head_dim) == (
        "mistral-nemo-12b", 40, 5120, 14336, 32, 8, 128,
    )  # fmt: skip
    assert nemo.vocab == 131072 and nemo.max_context == 128000
    assert 12.2e9 <= nemo.total_params <= 12.3e9  # the card's 12.2 B
    qwq, qwen = model_get("Qwen/QwQ-32B"), model_get("qwen2.5-32b")
    assert qwq.slug == "qwq-32b"
    shape = ("layers", "hidden", "intermediate", "heads", "kv_heads", "head_dim", "vocab", "total_params")
    assert [getattr(qwq, name) for name in shape] == [getattr(qwen, name) for name in shape]


@pytest.mark.parametrize(
    ("typed", "slug"),
    [("llama 3.1 8b", "llama-3.1-8b"), ("qwen 2.5 72b", "qwen2.5-72b"), ("mistral nemo", "mistral-nemo-12b")],
)
def test_a_typed_name_of_one_model_is_estimated_and_said(
    catalog: None, api_client: APIClient, typed: str, slug: str
) -> None:
    response = api_client.post(URL, {"model": typed}, format="json")
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    assert body["model"]["slug"] == slug
    assert any(a.startswith(f"model '{typed}' read as ") and f"({slug})" in a for a in body["assumptions"])


def test_an_id_is_not_said_to_be_a_typed_name(catalog: None, api_client: APIClient) -> None:
    body = api_client.post(URL, {"model": "Llama-3.1-8B-Instruct"}, format="json").json()
    assert body["model"]["slug"] == "llama-3.1-8b"
    assert not any(" read as " in a for a in body["assumptions"])


def test_an_ambiguous_name_is_a_400_listing_the_candidates(catalog: None, api_client: APIClient) -> None:
    response = api_client.post(URL, {"model": "llama 8b"}, format="json")
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "the name matches several library models" in message
    assert "llama-3.1-8b" in message and "llama-3-8b" in message


def test_recommendations_take_a_typed_name(catalog: None, api_client: APIClient) -> None:
    body = {"workload": {"model": "qwen 2.5 72b", "precision": "int4", "concurrent_users": 2}, "limit": 1}
    response = api_client.post("/api/v1/recommendations", body, format="json")
    assert response.status_code == 200, response.content
    assert any("read as" in a for a in response.json()["estimate"]["assumptions"])
