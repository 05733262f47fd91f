"""Issue 33: the request a workload serves, the decode speed each user sees while the others' prompts share the
GPUs, and the whole build's output at full load (configurator.engine.estimate.serving), each as estimate()
reports it."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from catalog.fixture import CatalogSnapshot
from configurator.engine import calibration as cal
from configurator.engine.errors import DomainError
from configurator.engine.estimate import estimate, serving, workload_problems
from configurator.engine.estimate.engines import request_tokens
from configurator.engine.estimate.layout import _per_gpu_bytes, _usable_gib
from configurator.engine.estimate.speed import step_seconds, workload_step_terms
from configurator.engine.estimate.weights import GIB
from configurator.engine.models_library import model_get
from configurator.engine.specs import GpuSpec
from configurator.engine.types import Workload


def _w(slug: str, **kwargs: object) -> Workload:
    return Workload(model=model_get(slug), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("context", "prompt", "output", "expected"),
    [
        (8192, None, None, (7680, 512)),  # 512 answered, the rest of the context is the prompt
        (4096, None, None, (3584, 512)),
        (1024, None, None, (768, 256)),  # a short context: a quarter of it answered
        (3, None, None, (2, 1)),
        (1, None, None, (1, 1)),  # at least one token each, whatever the context
        (4096, 4000, None, (4000, 96)),  # a stated prompt: the answer is what the context leaves (≤ 512)
        (4096, 1000, None, (1000, 512)),
        (4096, None, 100, (3996, 100)),  # a stated answer: the prompt fills the rest
        (5500, 5000, 500, (5000, 500)),
    ],
)
def test_the_request_defaults_to_one_that_fills_the_context(
    context: int, prompt: int | None, output: int | None, expected: tuple[int, int]
) -> None:
    workload = _w("llama-3.1-8b", context_tokens=context, prompt_tokens=prompt, output_tokens=output)
    assert request_tokens(workload) == expected


def test_a_request_larger_than_the_context_names_the_fields_given() -> None:
    both = workload_problems(_w("llama-3.1-8b", context_tokens=4096, prompt_tokens=4000, output_tokens=200))
    assert sorted(both) == ["output_tokens", "prompt_tokens"]
    assert "4,200" in both["prompt_tokens"][0] and "4,096" in both["prompt_tokens"][0]
    answer = workload_problems(_w("llama-3.1-8b", context_tokens=4096, output_tokens=4096))
    assert list(answer) == ["output_tokens"]  # the prompt left is one token: 4,097 > 4,096
    prompt = workload_problems(_w("llama-3.1-8b", context_tokens=4096, prompt_tokens=4096))
    assert list(prompt) == ["prompt_tokens"]
    assert workload_problems(_w("llama-3.1-8b", context_tokens=4096, prompt_tokens=0)) == {
        "prompt_tokens": ["Must be at least 1."]
    }
    assert workload_problems(_w("llama-3.1-8b", context_tokens=4096, prompt_tokens=4095, output_tokens=1)) == {}
    # training has no requests: the fields are not read
    assert workload_problems(_w("llama-3.1-8b", task="lora", context_tokens=4096, prompt_tokens=9999)) == {}
    with pytest.raises(DomainError) as refused:
        estimate(_w("llama-3.1-8b", context_tokens=1000, prompt_tokens=900, output_tokens=200))
    assert sorted(refused.value.fields) == ["output_tokens", "prompt_tokens"]


def _serving(
    workload: Workload, gpu: GpuSpec, count: int, replicas: int = 1
) -> tuple[serving.UserDecode, serving.Served]:
    """The serving functions at the users' layout the estimate reports: `replicas` instances of count / replicas
    GPUs, the users split evenly (one instance by default)."""
    prompt, output = request_tokens(workload)
    link = gpu.nvlink_gbs
    part = replace(workload, concurrent_users=-(-workload.concurrent_users // replicas))
    user = serving.decode_per_user(
        part, gpu, count // replicas, prompt_tokens=prompt, output_tokens=output, link_gbs=link
    )
    user = replace(user, all_users_tokens_per_s=user.all_users_tokens_per_s * replicas)
    served = serving.served_throughput(
        workload, gpu, count, prompt_tokens=prompt, output_tokens=output, link_gbs=link,
        users=workload.concurrent_users * workload.batch_size,
    )  # fmt: skip
    return user, served


@pytest.mark.parametrize(
    ("slug", "precision", "engine", "users", "sku", "count"),
    [
        ("llama-3.3-70b", "fp8", "vllm", 25, "h100-sxm", 2),
        ("qwen3-235b-a22b", "fp8", "sglang", 16, "h200-sxm", 8),
        ("llama-3.1-70b", "q4_k_m", "llama.cpp", 2, "rtx-4090", 2),  # 2 users fit at 8192 tokens; 3 do not
        ("llama-3.1-8b", "bf16", "vllm", 1, "l40s", 1),
    ],
)
def test_estimate_reports_the_serving_functions(
    snapshot: CatalogSnapshot, slug: str, precision: str, engine: str, users: int, sku: str, count: int
) -> None:
    gpu = snapshot.gpus[sku]
    workload = _w(slug, precision=precision, engine=engine, concurrent_users=users, context_tokens=8192)
    speed = estimate(workload, gpu, count, link_gbs=gpu.nvlink_gbs).throughput
    assert speed is not None
    _, served = _serving(workload, gpu, count)
    # the users run on the layout of the full load: each replica of `served_tensor_parallel` GPUs serves its share
    share = math.ceil(users / speed.served_replicas)
    user, _ = _serving(replace(workload, concurrent_users=share), gpu, speed.served_tensor_parallel)
    assert speed.decode_tokens_per_s_per_user == user.tokens_per_s
    # the users' layout is never slower for them than one instance on all the GPUs (issue 34)
    assert user.tokens_per_s >= _serving(workload, gpu, count)[0].tokens_per_s
    # together the users give less than users × one's decode speed (each request's own prompt counts), never
    # more than the full load
    assert speed.decode_tokens_per_s_total == pytest.approx(user.all_users_tokens_per_s * users / share, rel=1e-12)
    assert speed.decode_tokens_per_s_total <= user.tokens_per_s * users
    assert speed.decode_tokens_per_s_total <= speed.served_output_tokens_per_s
    assert speed.prefill_share == user.prefill_share
    layout = serving.best_served_layout(
        workload, gpu, count, prompt_tokens=7680, output_tokens=512, link_gbs=gpu.nvlink_gbs, users=users
    )
    # the same load as the users' total where the KV cache holds no more (equal to the last bit or two)
    assert speed.served_output_tokens_per_s == pytest.approx(layout.served.tokens_per_s, rel=1e-12)
    assert speed.served_sequences == layout.served.sequences
    assert (speed.served_tensor_parallel, speed.served_replicas) == (layout.tensor_parallel, layout.replicas)
    # the best layout is never below the single instance on all GPUs
    assert speed.served_output_tokens_per_s >= served.tokens_per_s * (1 - 1e-12)
    assert (speed.prompt_tokens, speed.output_tokens) == (7680, 512)
    assert speed.served_output_tokens_per_s > 0
    assert speed.time_to_first_token_s == pytest.approx(7680 / speed.prefill_tokens_per_s)


def test_each_user_decodes_while_the_other_users_prompts_are_prefilled(snapshot: CatalogSnapshot) -> None:
    """1 / per-user speed = a decode step of the N sequences (at the request's mean depth) + (N − 1) × prompt /
    output of one prompt's prefill. One user: the decode step alone (its own prompt is its time to first
    token)."""
    gpu = snapshot.gpus["h100-sxm"]
    link = gpu.nvlink_gbs
    for users in (1, 8, 50):
        workload = _w(
            "llama-3.3-70b", precision="fp8", kv_cache_precision="fp8", context_tokens=5500, concurrent_users=users,
            prompt_tokens=5000, output_tokens=500,
        )  # fmt: skip
        step = step_seconds(workload_step_terms(workload, gpu, 2, link), cal.DECODE_CONSTANTS[("vllm", "hbm")], 0.42)
        prompt_s = serving.prompt_prefill_s(workload, gpu, 2, prompt_tokens=5000, output_tokens=500, link_gbs=link)
        user = serving.decode_per_user(workload, gpu, 2, prompt_tokens=5000, output_tokens=500, link_gbs=link)
        others = (users - 1) * prompt_s / 500
        assert 1 / user.tokens_per_s == pytest.approx(step + others, rel=1e-12)
        assert user.prefill_share == pytest.approx(others / (step + others), rel=1e-12)
    assert user.prefill_share > 0.5  # 50 users of 5,000-token prompts: prefill takes most of each step


def test_the_largest_batch_that_fits_is_the_best_of_every_batch(snapshot: CatalogSnapshot) -> None:
    """served_throughput takes the largest batch whose KV cache fits (found by bisection); trying every batch
    from one up, as the search did before, gives the same answer."""
    cases = [
        (_w("llama-3.1-405b", precision="fp8", kv_cache_precision="fp8", engine="tensorrt-llm"), "h200-sxm", 8),
        (_w("qwen3-235b-a22b", precision="bf16", engine="vllm"), "h100-sxm", 8),
        (_w("gpt-oss-120b", precision="mxfp4", engine="vllm"), "h100-sxm", 1),
        (_w("llama-3.1-8b", precision="fp8", engine="sglang"), "h200-sxm", 1),
        (_w("deepseek-v3", precision="fp8", engine="sglang"), "h200-sxm", 8),
        (_w("qwen3-32b", precision="bf16", engine="vllm"), "rtx-4090", 2),
        (_w("llama-3.1-70b", precision="q4_k_m", engine="llama.cpp"), "rtx-3090", 2),
        (_w("gemma-2-27b", precision="bf16", engine="transformers"), "a100-80gb-sxm", 1),
    ]
    shapes = [(1000, 1000, None), (2048, 128, None), (128, 2048, None), (3998, 134, 500), (200, 200, 100)]
    checked = 0
    for workload, sku, count in cases:
        gpu = snapshot.gpus[sku]
        for prompt, output, requests in shapes:
            fast = serving.served_throughput(
                workload, gpu, count, prompt_tokens=prompt, output_tokens=output, link_gbs=gpu.nvlink_gbs,
                max_sequences=requests,
            )  # fmt: skip
            slow = _every_batch(workload, gpu, count, prompt, output, requests)
            assert fast.tokens_per_s == pytest.approx(slow.tokens_per_s, rel=1e-12)
            assert fast.sequences == slow.sequences
            checked += fast.sequences > 1
    assert checked > 10


def _every_batch(
    workload: Workload, gpu: GpuSpec, count: int, prompt: int, output: int, requests: int | None
) -> serving.Served:
    """The search as it was: every power of two from one up while it fits, the best tokens/s kept."""
    setting = serving._setting(workload, gpu, count, prompt, output, gpu.nvlink_gbs, None, None)
    prefill_s = serving._prompt_s(setting, gpu, count, None)
    plan = setting.decode_plan
    cap = serving.max_running_sequences(plan.engine, gpu)
    batches = [1 << i for i in range(cap.bit_length()) if 1 << i <= cap]
    if requests:
        batches = [b for b in batches if b < requests] + [min(requests, cap)]
    best = serving.Served(0.0, 0, 1.0)
    for sequences in batches:
        if _per_gpu_bytes(plan, setting.parallelism, count, sequences=sequences) > _usable_gib(plan, gpu) * GIB:
            break
        step = serving._step_s(setting, gpu, count, sequences, None)
        per_token = step / sequences + prefill_s / output
        if 1.0 / per_token > best.tokens_per_s:
            best = serving.Served(1.0 / per_token, sequences, step / sequences / per_token)
    return best


def test_per_gpu_bytes_of_a_batch_is_the_plan_of_that_batch(snapshot: CatalogSnapshot) -> None:
    """The full-load search sizes a batch of b sequences on the one-sequence plan: the same bytes as a plan made
    for b sequences."""
    from configurator.engine.estimate.plans import _plan

    for workload, sku, count in [
        (_w("llama-3.1-70b", precision="fp8", engine="vllm", context_tokens=2000), "h100-sxm", 2),
        (_w("llama-3.1-70b", precision="q4_k_m", engine="llama.cpp", context_tokens=2000), "rtx-4090", 3),
        (_w("qwen3-next-80b-a3b", precision="bf16", engine="vllm", context_tokens=2000), "h100-sxm", 4),
    ]:
        gpu = snapshot.gpus[sku]
        one = _plan(workload)
        for sequences in (1, 4, 64):
            plan = _plan(replace(workload, concurrent_users=sequences))
            for parallelism in ("single", "tensor", "pipeline"):
                assert _per_gpu_bytes(one, parallelism, count, gpu, sequences=sequences) == pytest.approx(
                    _per_gpu_bytes(plan, parallelism, count, gpu), rel=1e-12
                )


# --------------------------------------------------------------------------- the testers' published cases
#
# NVIDIA NIM benchmarking docs (via the testers' report, issue 33): the per-user figures are not in
# fixtures/server_speed.csv, so they are derived from the testers' percentages against what estimate() said
# before this change for the same workload (decode alone at concurrent_users, KV at the context): Llama-3.3-70B
# FP8 on 2 × H100 SXM (TP-2), 5,000-token prompts, 500 output tokens, fp8 KV cache (NIM's FP8 profiles; with a
# bf16 cache 50 users of 5,500 tokens do not fit on two H100s), context 5,500: before 54.08 / 45.16 / 38.55
# tokens/s per user at 1 / 25 / 50 users, which the testers found 0 % / +52 % / +83 % too fast, so measured
# 54.1 / 29.7 / 21.1. Llama-3.1-8B FP16 on one H100 at 64 users: 21 tokens/s measured (we said 97).

NIM_70B = [(1, 54.08, 0.10), (25, 45.16 / 1.52, 0.30), (50, 38.55 / 1.83, 0.40)]


@pytest.mark.parametrize(("users", "measured", "claimed"), NIM_70B)
def test_nim_llama_3_3_70b_fp8_on_2_h100_per_user(
    snapshot: CatalogSnapshot, users: int, measured: float, claimed: float
) -> None:
    """Claimed: ±10 % at 1 user (+2.6 % achieved), ±30 % at 25 (−24 %), ±40 % at 50 (−34 %). The prefill of
    the other users' prompts is added to the decode step (the judged full-load model, fitted on the published
    rows); on this prompt-heavy load the GPUs overlap part of it with the decode step's weight reads, which
    the additive model does not, so at 25 and 50 users it errs on the slow side. The old figure (decode
    alone) was 52 % and 83 % too fast."""
    gpu = snapshot.gpus["h100-sxm"]
    workload = _w(
        "llama-3.3-70b", precision="fp8", kv_cache_precision="fp8", engine="vllm", context_tokens=5500,
        concurrent_users=users, prompt_tokens=5000, output_tokens=500,
    )  # fmt: skip
    speed = estimate(workload, gpu, 2, link_gbs=gpu.nvlink_gbs).throughput
    assert speed is not None
    assert speed.decode_tokens_per_s_per_user == pytest.approx(measured, rel=claimed)
    if users > 1:
        assert speed.decode_tokens_per_s_per_user < measured  # errs on the slow side (see the docstring)
        assert speed.prefill_share > 0.4


def test_nim_llama_3_1_8b_fp16_on_one_h100_at_64_users(snapshot: CatalogSnapshot) -> None:
    """21 tokens/s per user measured at 64 users (we said 97). The testers' report gives no request lengths for
    this run: the NIM 70B run's 5,000 / 500 are ASSUMED here. Claimed ±20 % (+1.7 % achieved)."""
    gpu = snapshot.gpus["h100-sxm"]
    workload = _w(
        "llama-3.1-8b", precision="fp16", engine="vllm", context_tokens=5500, concurrent_users=64,
        prompt_tokens=5000, output_tokens=500,
    )  # fmt: skip
    speed = estimate(workload, gpu, 1).throughput
    assert speed is not None
    assert speed.decode_tokens_per_s_per_user == pytest.approx(21, rel=0.20)


def test_users_the_kv_cache_cannot_hold_set_no_floor_under_the_full_load(snapshot: CatalogSnapshot) -> None:
    """Trial tr33: TensorRT-LLM Llama-3.3-70B FP8 on 2 × H100 with 1,024 requests in flight. The GPUs hold the KV
    caches of ~200 of them; the engine runs those and queues the rest. The full load was floored at 1,024 running
    users (10,446 tokens/s, +57 % on the published row); it is the build's capacity, whatever the users' count,
    and the users together give no more than it."""
    gpu = snapshot.gpus["h100-sxm"]
    said = {"precision": "fp8", "kv_cache_precision": "fp8", "engine": "tensorrt-llm", "context_tokens": 2176,
            "prompt_tokens": 128, "output_tokens": 2048}  # fmt: skip
    few = estimate(_w("llama-3.3-70b", concurrent_users=1, **said), gpu, 2, link_gbs=gpu.nvlink_gbs)
    many = estimate(_w("llama-3.3-70b", concurrent_users=1024, **said), gpu, 2, link_gbs=gpu.nvlink_gbs)
    assert few.layout is not None and many.layout is not None and few.throughput and many.throughput
    assert few.layout.fits and not many.layout.fits
    held = few.layout.max_concurrent_users
    assert held is not None and 100 < held < 1024
    assert many.throughput.served_output_tokens_per_s == few.throughput.served_output_tokens_per_s
    assert many.throughput.served_sequences < 1024
    assert many.throughput.decode_tokens_per_s_total <= many.throughput.served_output_tokens_per_s
