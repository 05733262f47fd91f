"""Issue 33, one path: the per-user speed and the output at full load that users see come from the functions
`make accuracy` judges (configurator.engine.estimate.serving). The API handler, the recommender and
bench/accuracy_server.py all reach the same function objects; the estimate API answers their figures."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from catalog.fixture import CatalogSnapshot
from configurator.engine import server_calibration as srv
from configurator.engine.estimate import serving
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import Constraints, Workload

BENCH = Path(__file__).resolve().parents[2] / "bench"
URL = "/api/v1/estimate"
NIM_70B = {
    "model": "llama-3.3-70b", "precision": "fp8", "kv_cache_precision": "fp8", "engine": "vllm",
    "context_tokens": 5500, "prompt_tokens": 5000, "output_tokens": 500, "concurrent_users": 25,
    "gpu": "h100-sxm", "gpu_count": 2,
}  # fmt: skip


@pytest.fixture
def accuracy_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.syspath_prepend(str(BENCH))
    import accuracy_server as module  # bench/ is not a package: `make accuracy` runs it from there

    yield module
    sys.modules.pop("accuracy_server", None)


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Workload]]:
    """The workloads each judged function is called with, from whichever door called it."""
    calls: dict[str, list[Workload]] = {"decode_per_user": [], "served_throughput": []}
    for name in calls:
        original = getattr(serving, name)

        def spy(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            calls[_name].append(args[0])
            return _original(*args, **kwargs)

        monkeypatch.setattr(serving, name, spy)
    return calls


def test_api_recommender_and_accuracy_script_reach_the_same_functions(
    catalog: None, api_client: APIClient, snapshot: CatalogSnapshot, spied: dict[str, list[Workload]],
    accuracy_server: Any,
) -> None:  # fmt: skip
    assert accuracy_server.serving is serving  # the script calls them by module, as estimate() does

    response = api_client.post(URL, NIM_70B, format="json")
    assert response.status_code == 200
    assert [w.prompt_tokens for w in spied["decode_per_user"]] == [5000]
    # the full load of the layouts the engine could run on 2 GPUs (serving.best_served_layout): the users' split
    # (TP2 only, one H100 cannot hold the 70B FP8 and 13 users), then the build's capacity (the function `make
    # accuracy` judges): 2 × TP1 worked out, TP2 taken from the users' split, all for the stated request
    assert [w.output_tokens for w in spied["served_throughput"]] == [500, 500]

    workload = Workload(model_get("llama-3.1-8b"), precision="bf16", concurrent_users=7, context_tokens=3000)
    assert recommend(snapshot, workload, Constraints(), limit=1).candidates
    for name in spied:
        assert any(w.concurrent_users == 7 and w.model.slug == "llama-3.1-8b" for w in spied[name]), name

    per_user = next(r for r in srv.read_server_rows() if r.metric == "per_user" and r.concurrency == "64")
    full_load = next(r for r in srv.read_server_rows() if r.metric == "total_output")
    before = {name: len(calls) for name, calls in spied.items()}
    accuracy_server.predict_per_user(per_user, snapshot.gpus)
    accuracy_server.predict_full_load(full_load, snapshot.gpus, 0.42, 0.4)
    assert spied["decode_per_user"][before["decode_per_user"] :][0].concurrent_users == 64
    assert spied["served_throughput"][before["served_throughput"] :][0].model.slug == full_load.model


def test_estimate_answers_the_served_throughput_of_the_engine(
    catalog: None, api_client: APIClient, snapshot: CatalogSnapshot
) -> None:
    """`throughput.served_output_tokens_per_s` is `serving.served_throughput` for the stated request at full
    load (no cap on requests), rounded to 0.1; sanity: 2 × H100 serve a 70B FP8 at a few hundred to a few
    thousand output tokens/s on 5,000-token prompts (TensorRT-LLM perf-overview @00f37686: 4,205 tokens/s on
    1,000/1,000, and prefill-heavy shapes run 5-10× slower)."""
    response = api_client.post(URL, NIM_70B, format="json")
    assert response.status_code == 200
    speed = response.json()["throughput"]
    gpu = snapshot.gpus["h100-sxm"]
    workload = Workload(
        model_get("llama-3.3-70b"), precision="fp8", kv_cache_precision="fp8", engine="vllm", context_tokens=5500,
        concurrent_users=25, prompt_tokens=5000, output_tokens=500,
    )  # fmt: skip
    served = serving.served_throughput(
        workload, gpu, 2, prompt_tokens=5000, output_tokens=500, link_gbs=gpu.nvlink_gbs, users=25
    )
    user = serving.decode_per_user(workload, gpu, 2, prompt_tokens=5000, output_tokens=500, link_gbs=gpu.nvlink_gbs)
    assert speed["served_output_tokens_per_s"] == round(served.tokens_per_s, 1)
    assert speed["served_sequences"] == served.sequences
    assert 300 < speed["served_output_tokens_per_s"] < 3000
    assert speed["decode_tokens_per_s_per_user"] == round(user.tokens_per_s, 1)
    # the 25 users together: every request's own prompt counts too (25 / (step + 25 × prompt / output))
    assert (
        speed["decode_tokens_per_s_total"] == round(user.all_users_tokens_per_s, 1) < round(user.tokens_per_s * 25, 1)
    )
    assert speed["decode_tokens_per_s_total"] <= speed["served_output_tokens_per_s"]
    assert (speed["prompt_tokens"], speed["output_tokens"]) == (5000, 500)
    assert speed["prefill_share"] == round(user.prefill_share, 3) > 0.4


@pytest.mark.parametrize(
    ("change", "fields"),
    [
        # the context is given too: the request overflowing it names it as well (issue 33)
        ({"prompt_tokens": 8000, "output_tokens": 500}, ["context_tokens", "output_tokens", "prompt_tokens"]),
        ({"prompt_tokens": 8192}, ["context_tokens", "prompt_tokens"]),
        ({"output_tokens": 8192}, ["context_tokens", "output_tokens"]),
        ({"prompt_tokens": 0}, ["prompt_tokens"]),
        ({"output_tokens": -5}, ["output_tokens"]),
        ({"output_tokens": "many"}, ["output_tokens"]),
    ],
)
def test_a_bad_request_size_is_400_naming_the_field(
    catalog: None, api_client: APIClient, change: dict[str, Any], fields: list[str]
) -> None:
    body = {"model": "llama-3.1-8b", "precision": "bf16", "context_tokens": 8192, "gpu": "h100-sxm", **change}
    response = api_client.post(URL, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert sorted(error["fields"]) == fields
    assert error["code"] and error["message"]
    if "prompt_tokens" in change and change["prompt_tokens"] > 0:
        assert "context_tokens" in error["fields"][fields[0]][0]


def test_the_recommendation_workload_is_checked_too(catalog: None, api_client: APIClient) -> None:
    workload = {"model": "llama-3.1-8b", "context_tokens": 4096, "prompt_tokens": 4000, "output_tokens": 200}
    response = api_client.post("/api/v1/recommendations", {"workload": workload}, format="json")
    assert response.status_code == 400
    assert sorted(response.json()["error"]["fields"]) == [
        "workload.context_tokens", "workload.output_tokens", "workload.prompt_tokens"
    ]  # fmt: skip


def test_candidates_carry_the_output_at_full_load(catalog: None, api_client: APIClient) -> None:
    workload = {"model": "llama-3.1-8b", "precision": "bf16", "context_tokens": 4096, "concurrent_users": 8}
    response = api_client.post("/api/v1/recommendations", {"workload": workload, "limit": 2}, format="json")
    assert response.status_code == 200
    for candidate in response.json()["candidates"]:
        speed = candidate["verdict"]["estimate"]["throughput"]
        assert candidate["served_output_tokens_per_s"] == speed["served_output_tokens_per_s"] > 0
        assert candidate["decode_tokens_per_s_per_user"] == pytest.approx(speed["decode_tokens_per_s_per_user"], 0.01)
