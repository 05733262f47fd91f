"""Issue 33, item 2: the layout a server engine is set to at full load (estimate.serving.best_served_layout) and the
publications `make accuracy` holds out together (calibration.source_group)."""

from __future__ import annotations

import pytest

from catalog.fixture import CatalogSnapshot
from configurator.engine import calibration as cal
from configurator.engine import server_calibration as srv
from configurator.engine.estimate import serving
from configurator.engine.estimate.plans import serving_plans
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload


def _w(slug: str, engine: str, precision: str = "fp8") -> Workload:
    return Workload(
        model=model_get(slug), precision=precision, kv_cache_precision="fp8" if engine != "llama.cpp" else "f16",
        engine=engine, context_tokens=2048, prompt_tokens=1024, output_tokens=1024,
    )  # fmt: skip


def test_instance_sizes_are_the_divisors_the_heads_split_over() -> None:
    plan = serving_plans(_w("llama-2-70b", "vllm"), 1024, 1024)[1]
    assert serving.instance_sizes(plan, 8) == [8, 4, 2, 1]
    assert serving.instance_sizes(plan, 6) == [6, 2, 1]  # 64 heads do not split over 3 or 6: 6 stays a layer split
    gguf = serving_plans(_w("llama-2-70b", "llama.cpp", "q4_k_m"), 1024, 1024)[1]
    assert serving.instance_sizes(gguf, 8) == [8]  # llama.cpp: one instance on all GPUs


def test_the_best_layout_is_the_best_of_every_split(snapshot: CatalogSnapshot) -> None:
    """The answer is the split of most output tokens/s, each replica at served_throughput on its GPUs."""
    for slug, sku in (("llama-2-70b", "h200-sxm"), ("llama-3.1-8b", "h100-sxm"), ("qwen3-235b-a22b", "h200-sxm")):
        gpu = snapshot.gpus[sku]
        workload = _w(slug, "vllm")
        best = serving.best_served_layout(
            workload, gpu, 8, prompt_tokens=1024, output_tokens=1024, link_gbs=gpu.nvlink_gbs
        )
        by_size = {
            size: (8 // size)
            * serving.served_throughput(
                workload, gpu, size, prompt_tokens=1024, output_tokens=1024, link_gbs=gpu.nvlink_gbs
            ).tokens_per_s
            for size in (8, 4, 2, 1)
        }
        assert best.served.tokens_per_s == pytest.approx(max(by_size.values()))
        assert best.tensor_parallel * best.replicas == 8
        assert by_size[best.tensor_parallel] == pytest.approx(best.served.tokens_per_s)
    # a model that needs all 8 GPUs' memory has one layout only
    gpu = snapshot.gpus["h100-sxm"]
    huge = serving.best_served_layout(
        _w("llama-3.1-405b", "vllm"), gpu, 8, prompt_tokens=1024, output_tokens=1024, link_gbs=gpu.nvlink_gbs
    )
    assert (huge.tensor_parallel, huge.replicas) == (8, 1)


def test_mlperf_and_web_page_rows_are_held_out_by_publication() -> None:
    groups = {cal.source_group(r.source) for r in srv.read_server_rows()}
    assert "mlcommons/inference_results_v4.1 closed/NVIDIA" in groups
    assert "mlcommons/inference_results_v4.1 closed/AMD" in groups
    assert "docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance" in groups
    assert "buildkite.com/vllm/performance-benchmark/builds/9515" in groups
    rows = srv.read_server_rows()
    assert {r.replicas for r in rows if r.model == "llama-2-70b" and "mlcommons" in r.source} == {1, 4, 8}
