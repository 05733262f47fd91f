"""Issue 34 (trial t34, item B): the KV cache is sized for the traffic the request gives. A RAG box for 20 users
of Llama-3.1-8B with a 32k context but 6,000-token prompts and 500-token answers: vLLM pages its KV cache
(PagedAttention, Kwon et al., SOSP 2023), so it holds 20 × 6,500 tokens, not 20 × 32,768 (80 GiB: no single
48 GB card would do). llama.cpp's slots are n_ctx / n_parallel each, whatever the requests hold."""

from __future__ import annotations

from dataclasses import replace

import pytest

from configurator.engine.estimate import estimate
from configurator.engine.estimate.kv_cache import kv_cache_bytes
from configurator.engine.estimate.weights import GIB
from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, Workload

RAG = Workload(
    model=model_get("llama-3.1-8b"), concurrent_users=20, context_tokens=32768, prompt_tokens=6000,
    output_tokens=500, production=True,
)  # fmt: skip


def test_paged_kv_holds_the_requests_not_the_context(snapshot: CatalogSnapshot) -> None:
    l40s = snapshot.gpus["l40s"]
    result = estimate(RAG, l40s, 1)
    per_request = kv_cache_bytes(RAG.model, RAG.kv_cache_precision, 6500, 20) / GIB
    assert result.memory.kv_cache == pytest.approx(per_request)  # 20 × 6,500 × 128 KiB = 15.9 GiB
    assert result.memory.kv_cache == pytest.approx(15.87, abs=0.01)
    assert result.layout is not None and result.layout.fits  # 80 GiB for 20 × 32k did not fit a 48 GB L40S
    assert result.layout.max_concurrent_users is not None and result.layout.max_concurrent_users >= 20
    said = [str(s) for s in result.assumptions]
    assert any("6,500 tokens × 20 sequence(s)" in s for s in said)
    assert any("PagedAttention, Kwon et al., SOSP 2023" in s for s in said)


def test_the_pool_still_holds_one_whole_context(snapshot: CatalogSnapshot) -> None:
    one = replace(RAG, concurrent_users=1, prompt_tokens=100, output_tokens=100)
    result = estimate(one, snapshot.gpus["l40s"], 1)
    assert result.memory.kv_cache == pytest.approx(kv_cache_bytes(RAG.model, RAG.kv_cache_precision, 32768, 1) / GIB)


def test_unstated_prompts_and_llama_cpp_keep_the_whole_context(snapshot: CatalogSnapshot) -> None:
    l40s = snapshot.gpus["l40s"]
    whole = kv_cache_bytes(RAG.model, RAG.kv_cache_precision, 32768, 20) / GIB  # 80 GiB
    unstated = replace(RAG, prompt_tokens=None, output_tokens=None)
    assert estimate(unstated, l40s, 1).memory.kv_cache == pytest.approx(whole)
    slots = replace(RAG, engine="llama.cpp", precision="q4_k_m")
    assert estimate(slots, l40s, 1).memory.kv_cache == pytest.approx(whole)
