"""Issue 34, trial W03: DeepSeek-R1 FP8 for 100 users at 16k context had no build, because under tensor
parallelism every GPU holds the whole MLA latent cache (189 GiB per GPU on 8 × H200). SGLang's
`--enable-dp-attention` and vLLM's data-parallel attention split the cache over the ranks (estimate.layout,
DP_ATTENTION); the estimate picks that layout where TP's replicated cache does not fit or where it serves the
workload's users faster, and keeps TP at low concurrency."""

from __future__ import annotations

from catalog.fixture import CatalogSnapshot
from configurator.engine import server_calibration as srv
from configurator.engine.estimate import estimate
from configurator.engine.estimate.layout import DP_ATTENTION, _per_gpu_bytes
from configurator.engine.estimate.plans import _plan
from configurator.engine.estimate.serving import decode_per_user
from configurator.engine.estimate.weights import GIB
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import Constraints, Workload


def _w03(engine: str = "vllm", users: int = 100, context: int = 16384) -> Workload:
    return Workload(
        model=model_get("deepseek-r1"), precision="fp8", context_tokens=context, concurrent_users=users,
        engine=engine, production=True, target_tokens_per_s=15,
    )  # fmt: skip


def test_w03_fits_8_h200_with_dp_attention(snapshot: CatalogSnapshot) -> None:
    gpu = snapshot.gpus["h200-sxm"]
    for engine in ("vllm", "sglang"):
        result = estimate(_w03(engine), gpu, 8, link_gbs=srv.nvswitch_gbs(gpu))
        assert result.layout is not None and result.throughput is not None
        assert result.layout.parallelism == DP_ATTENTION
        assert result.layout.fits
        assert result.layout.max_concurrent_users is not None and result.layout.max_concurrent_users >= 100
        assert result.throughput.served_tensor_parallel == 8 and result.throughput.served_replicas == 1
        assert any("data-parallel attention over 8 GPUs" in words for words in result.assumptions)


def test_w03_kv_cache_per_gpu_is_an_eighth_of_tensor_parallel(snapshot: CatalogSnapshot) -> None:
    gpu = snapshot.gpus["h200-sxm"]
    plan = _plan(_w03())
    tensor = _per_gpu_bytes(plan, "tensor", 8, gpu)
    dp = _per_gpu_bytes(plan, DP_ATTENTION, 8, gpu)
    assert tensor / GIB > 0.9 * gpu.vram_gib  # the trial's "189 GiB per GPU": TP does not fit
    # what each layout holds besides the KV cache, the same at 0 sequences
    tensor_kv = tensor - _per_gpu_bytes(plan, "tensor", 8, gpu, sequences=0)
    dp_kv = dp - _per_gpu_bytes(plan, DP_ATTENTION, 8, gpu, sequences=0)
    assert tensor_kv / GIB > 100  # 100 × 16,384 tokens × 68.6 KiB on every GPU
    assert 1 / 8 <= dp_kv / tensor_kv <= 13 / 100  # the fullest rank holds ceil(100 / 8) = 13 users' caches


def test_dp_attention_counts_the_replicated_attention_weights(snapshot: CatalogSnapshot) -> None:
    """Each rank keeps all of MLA's projections (q_a, q_b, kv_a, kv_b, output): 61 layers × ~187 M parameters of
    DeepSeek-V3's config, ~10.6 GiB in FP8, where TP keeps 1/8 of them."""
    gpu = snapshot.gpus["h200-sxm"]
    plan = _plan(_w03())
    assert 9.5 < plan.attention_bytes / GIB < 12
    empty_tp = _per_gpu_bytes(plan, "tensor", 8, gpu, sequences=0)
    empty_dp = _per_gpu_bytes(plan, DP_ATTENTION, 8, gpu, sequences=0)
    assert empty_dp - empty_tp > plan.attention_bytes * 7 / 8 * 0.95


def test_low_concurrency_stays_tensor_parallel(snapshot: CatalogSnapshot) -> None:
    """One user or 8 (InferenceX #870's TP8 case): the DP rank reading all attention weights is slower than a
    TP GPU reading 1/8 of them and the cache is small, so TP stays; at 100 users DP is faster per user too."""
    gpu = snapshot.gpus["h200-sxm"]
    link = srv.nvswitch_gbs(gpu)
    for users, prompt, output in ((1, 128, 256), (8, 1024, 1024)):
        workload = Workload(
            model=model_get("deepseek-r1"), precision="fp8", context_tokens=prompt + output, concurrent_users=users,
            engine="sglang", prompt_tokens=prompt, output_tokens=output,
        )  # fmt: skip
        result = estimate(workload, gpu, 8, link_gbs=link)
        assert result.layout is not None and result.layout.parallelism == "tensor"
        speeds = [
            decode_per_user(
                workload, gpu, 8, prompt_tokens=prompt, output_tokens=output, link_gbs=link, parallelism=layout
            ).tokens_per_s
            for layout in ("tensor", DP_ATTENTION)
        ]
        assert speeds[0] > speeds[1]
    many = Workload(
        model=model_get("deepseek-r1"), precision="fp8", context_tokens=4096, concurrent_users=100,
        engine="sglang", prompt_tokens=3072, output_tokens=1024,
    )  # fmt: skip
    tp, dp = (
        decode_per_user(many, gpu, 8, prompt_tokens=3072, output_tokens=1024, link_gbs=link, parallelism=layout)
        for layout in ("tensor", DP_ATTENTION)
    )
    assert dp.tokens_per_s > tp.tokens_per_s
    assert estimate(many, gpu, 8, link_gbs=link).layout.parallelism == DP_ATTENTION  # type: ignore[union-attr]


def test_engines_without_dp_attention_keep_tensor_parallel(snapshot: CatalogSnapshot) -> None:
    gpu = snapshot.gpus["h200-sxm"]
    result = estimate(_w03("tensorrt-llm"), gpu, 8, link_gbs=srv.nvswitch_gbs(gpu))
    assert result.layout is not None
    assert result.layout.parallelism == "tensor" and not result.layout.fits


def test_w03_recommends_8_data_centre_gpus(snapshot: CatalogSnapshot) -> None:
    """The trial answered "no build"; an integrator sells 8 × H200 (SXM or NVL) or 8 × B200 for it."""
    found = recommend(snapshot, _w03(), Constraints(form_factor="rack"), limit=3)
    assert found.candidates
    for candidate in found.candidates:
        (line,) = candidate.build.gpus
        assert line.spec.sku in ("h200-sxm", "h200-nvl", "b200-sxm") and line.qty == 8
