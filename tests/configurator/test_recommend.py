"""Recommendations: the article's use cases get the cheapest valid build, the same one an exhaustive
search of the same space finds, and the article's guidance comes out of it."""

from __future__ import annotations

import functools
from dataclasses import replace
from decimal import Decimal

import pytest

from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend, speed_target
from configurator.engine.recommend.ranking import label_is_true, standing, weighing
from configurator.engine.types import CatalogSnapshot, Constraints, Workload
from configurator.engine.validate import validate
from configurator.use_cases import use_cases
from tests.configurator.exhaustive import exhaustive_search


def _w(slug: str, **kwargs: object) -> Workload:
    return Workload(model=model_get(slug), **kwargs)  # type: ignore[arg-type]


# The ten use cases of the article (../shared/reference/gpu-guide-2026.ru.txt) and issue 5.
CASES: dict[str, tuple[Workload, Constraints]] = {case.title: (case.workload, case.constraints) for case in use_cases()}

HOPPER = {"h100-pcie", "h100-nvl", "h100-sxm", "h200-nvl", "h200-sxm"}


@pytest.fixture(scope="module")
def results(snapshot: CatalogSnapshot) -> dict[str, tuple[object, object]]:
    return {
        name: (recommend(snapshot, workload, constraints), exhaustive_search(snapshot, workload, constraints)[0])
        for name, (workload, constraints) in CASES.items()
    }


@pytest.mark.parametrize("name", list(CASES))
def test_top_candidate_is_valid_fits_and_is_the_exhaustive_cheapest(
    snapshot: CatalogSnapshot, results: dict[str, tuple], name: str
) -> None:
    recommendation, reference = results[name]
    workload, _ = CASES[name]
    assert recommendation.candidates, f"{name}: nothing recommended; suggestions {recommendation.suggestions}"
    top = recommendation.candidates[0]
    verdict = validate(top.build, snapshot=snapshot, workload=top.verdict.estimate and workload)
    assert top.verdict.errors == ()
    assert verdict.valid or ({f.code for f in verdict.errors} <= {"workload.vram"} and workload.task != "inference")
    assert top.verdict.estimate is not None and top.verdict.estimate.layout is not None
    assert top.verdict.estimate.layout.fits
    assert reference is not None
    assert (top.build, top.price.gross) == (reference.build, reference.price.gross), (
        f"{name}: recommend {top.build.gpu_count}× {top.build.gpus[0].spec.sku} in {top.build.chassis.sku} "
        f"{top.price.gross} vs exhaustive {reference.build.gpu_count}× {reference.build.gpus[0].spec.sku} "
        f"in {reference.build.chassis.sku} {reference.price.gross}"
    )
    for candidate in recommendation.candidates:
        assert candidate.verdict.errors == ()
        assert candidate.why and candidate.why[0]


def test_every_candidate_is_sorted_cheapest_first_then_alternatives(results: dict[str, tuple]) -> None:
    recommendation, _ = results["70B Q4 for a team"]
    gross = [c.price.gross for c in recommendation.candidates]
    assert gross[0] == min(gross)
    assert len({(c.build.gpus[0].spec.sku, c.build.gpu_count) for c in recommendation.candidates}) == len(gross)


def test_beginner_gets_an_rtx_3060_class_build(results: dict[str, tuple]) -> None:
    """Article: «Новичку … хватит RTX 3060 12GB — на ней запускаются модели 7–8B»."""
    top = results["beginner 7B Q4 chat"][0].candidates[0]
    gpu = top.build.gpus[0].spec
    assert top.build.gpu_count == 1
    assert gpu.sku == "rtx-3060-12gb"
    assert top.build.chassis.kind == "tower-workstation"


def test_production_ecc_never_gets_geforce_cards(results: dict[str, tuple]) -> None:
    """Article: «Брать карту без ECC для продакшна с SLA» is a mistake."""
    recommendation, _ = results["production service requiring ECC"]
    assert recommendation.candidates
    for candidate in recommendation.candidates:
        for line in candidate.build.gpus:
            assert line.spec.ecc
            assert not line.spec.is_consumer


@pytest.mark.parametrize(
    "name", ["beginner 7B Q4 chat", "30B Q4 on a workstation", "70B Q4 for a team", "LoRA of an 8B model"]
)
def test_no_hopper_where_a_cheaper_card_meets_the_workload_and_speed(results: dict[str, tuple], name: str) -> None:
    """Article: «Переплачивать за H100, когда хватает A100 или RTX 5090» is a mistake."""
    recommendation, _ = results[name]
    workload, _ = CASES[name]
    target = speed_target(workload)
    top = recommendation.candidates[0]
    assert top.build.gpus[0].spec.sku not in HOPPER
    if target:
        assert top.decode_tokens_per_s_per_user >= target
    for candidate in recommendation.candidates:
        assert candidate.build.gpus[0].spec.sku not in HOPPER


def test_30b_on_a_workstation_stays_a_workstation(results: dict[str, tuple]) -> None:
    recommendation, _ = results["30B Q4 on a workstation"]
    assert all(c.build.chassis.is_workstation for c in recommendation.candidates)


def test_speed_target_is_met_when_the_catalog_can(snapshot: CatalogSnapshot) -> None:
    workload = _w("llama-3.1-70b", precision="fp8", engine="vllm", context_tokens=4096, target_tokens_per_s=40.0)
    recommendation = recommend(snapshot, workload, Constraints())
    top = recommendation.candidates[0]
    assert top.decode_tokens_per_s_per_user >= 40.0
    slower = recommend(snapshot, replace(workload, target_tokens_per_s=5.0), Constraints()).candidates[0]
    assert slower.price.gross <= top.price.gross


def test_budget_form_factor_and_gpu_limits_are_respected(snapshot: CatalogSnapshot) -> None:
    workload = CASES["70B Q4 for a team"][0]
    limited = recommend(
        snapshot, workload, Constraints(max_price=Decimal("1500000"), form_factor="workstation", max_gpus=2)
    )
    assert limited.candidates
    for candidate in limited.candidates:
        assert candidate.price.gross <= Decimal("1500000")
        assert candidate.build.chassis.is_workstation
        assert candidate.build.gpu_count <= 2


def test_when_nothing_fits_it_says_what_would(snapshot: CatalogSnapshot) -> None:
    workload = _w("llama-3.1-405b", precision="bf16", engine="vllm", context_tokens=8192)
    result = recommend(snapshot, workload, Constraints(max_price=Decimal("1000000"), form_factor="workstation"))
    assert result.candidates == ()
    text = " | ".join(result.suggestions)
    assert "raise the budget to" in text
    assert "allow rack servers" in text


def test_quantization_is_suggested_when_only_a_lighter_precision_fits(snapshot: CatalogSnapshot) -> None:
    workload = _w("llama-3.1-70b", precision="bf16", engine="vllm", context_tokens=4096)
    result = recommend(snapshot, workload, Constraints(max_price=Decimal("1500000")))
    assert result.candidates == ()
    quantize = [tip for tip in result.suggestions if tip.startswith("quantize to")]
    assert quantize and "RUB" in quantize[0]  # a lighter precision, with the build it gives and its price
    # most useful first: keeping the job (a lighter precision) before spending more
    assert result.suggestions.index(quantize[0]) < min(
        (i for i, tip in enumerate(result.suggestions) if tip.startswith("raise the budget")), default=99
    )


def test_recommend_is_deterministic(snapshot: CatalogSnapshot) -> None:
    workload, constraints = CASES["70B FP8 serving for 50 users"]
    first = recommend(snapshot, workload, constraints)
    second = recommend(snapshot, workload, constraints)
    assert [c.build for c in first.candidates] == [c.build for c in second.candidates]
    assert first.considered == second.considered


@pytest.mark.parametrize("name", list(CASES))
def test_a_repeated_request_answers_as_the_first_did(snapshot: CatalogSnapshot, name: str) -> None:
    """The search's memos of earlier requests (streams, priced builds, verdicts: engine.recommend.parts) give
    the same answer as a search without them: candidates, prices, verdicts, reasons and work counted."""
    from configurator.engine.recommend.parts import _PARTS, SEARCH_MEMOS, forget_searches

    workload, constraints = CASES[name]
    forget_searches()
    first = recommend(snapshot, workload, constraints)
    remembered = [{memo: len(parts._remembered.get(memo, {})) for memo in SEARCH_MEMOS} for parts in _PARTS.values()]
    repeated = recommend(snapshot, workload, constraints)
    forget_searches()
    fresh = recommend(snapshot, workload, constraints)
    for other in (repeated, fresh):
        assert [(c.build, c.price, c.verdict, c.why) for c in other.candidates] == [
            (c.build, c.price, c.verdict, c.why) for c in first.candidates
        ]
        assert (other.considered, other.suggestions) == (first.considered, first.suggestions)
    assert any(counts["verdicts"] and counts["plans"] for counts in remembered), remembered  # it did remember


def test_a_remembered_verdict_is_the_verdict_of_that_build_and_workload(snapshot: CatalogSnapshot) -> None:
    """Parts.verdict keys by what the build is made of: two builds that differ in one part's quantity or in
    redundancy get their own verdicts, each equal to validate()'s."""
    from configurator.engine.recommend.parts import Parts

    workload, constraints = CASES["70B Q4 for a team"]
    top = recommend(snapshot, workload, constraints).candidates[0]
    build = top.build
    fewer_dimms = replace(build, memory=(replace(build.memory[0], qty=max(1, build.memory[0].qty // 2)),))
    redundant = replace(build, psu_redundancy="n+1" if build.psu_redundancy == "none" else "none")
    parts = Parts(snapshot)
    for variant in (build, fewer_dimms, redundant):
        for prove in (False, True):
            remembered = parts.verdict(variant, workload, prove=prove)
            assert remembered == validate(variant, snapshot=snapshot, workload=workload, prove=prove)
            assert parts.verdict(variant, workload, prove=prove) is remembered
    assert parts.verdict(build, workload, prove=False) != parts.verdict(fewer_dimms, workload, prove=False)


def test_request_keyed_caches_stay_bounded(snapshot: CatalogSnapshot) -> None:
    """A long-running server asked for ever new constraints keeps a bounded cache (engine.recommend.parts)."""
    from configurator.engine.recommend import parts

    cache = parts.Parts(snapshot)
    for price in range(parts.MAX_REMEMBERED + 10):
        cache.chassis_pool(Constraints(max_price=Decimal(1_000_000 + price)))
    assert 0 < len(cache._pools) <= parts.MAX_REMEMBERED
    for name, most in parts.MOST_REMEMBERED.items():  # the search's memos, each with its own bound
        for key in range(most + 10):
            cache.remembered(name, key, functools.partial(int, key))
        assert 0 < len(cache._remembered[name]) <= most
        assert cache.remembered(name, most + 9, lambda: -1) == most + 9  # the newest is kept


def test_no_candidate_uses_more_than_95_percent_of_a_gpus_memory(
    snapshot: CatalogSnapshot, results: dict[str, tuple]
) -> None:
    """Issue 14: every engine keeps a VRAM reserve (5 %, at least 1 GiB per GPU), stated in the assumptions."""
    for name, (recommendation, _) in results.items():
        assert any("free" in str(text) and "5%" in str(text) for text in recommendation.estimate.assumptions), name
        for candidate in recommendation.candidates:
            layout = candidate.verdict.estimate.layout
            vram = candidate.build.gpus[0].spec.vram_gib
            assert layout.per_gpu_gib <= vram - max(0.05 * vram, 1.0), (name, candidate.build.gpus[0].spec.sku)


def test_a_tight_fit_moves_to_the_next_count_under_a_larger_reserve(snapshot: CatalogSnapshot) -> None:
    from configurator.engine.recommend import VramReserve

    workload, constraints = CASES["beginner 7B Q4 chat"]
    roomy = recommend(snapshot, workload, constraints, reserve=VramReserve(share=0.9, min_gib=1.0))
    for candidate in roomy.candidates:
        assert candidate.verdict.estimate is not None and candidate.verdict.estimate.layout is not None
        layout = candidate.verdict.estimate.layout
        assert layout.per_gpu_gib <= 0.1 * candidate.build.gpus[0].spec.vram_gib
    assert any("90%" in str(text) for text in roomy.estimate.assumptions)


def test_production_ecc_20_users_gets_a_rack_server_with_redundant_psus_and_ecc(results: dict[str, tuple]) -> None:
    """Article: production under load needs server accelerators with ECC; issue 14: a rack chassis, redundant
    PSUs, ECC GPUs and registered ECC memory, and the class said with its reason."""
    recommendation, _ = results["production service requiring ECC"]
    assert recommendation.candidates
    for candidate in recommendation.candidates:
        build = candidate.build
        assert build.chassis.kind in ("rack-server", "hgx")
        assert build.psu_redundancy in ("n+1", "n+n")
        assert candidate.verdict.power.redundancy in ("n+1", "n+n")
        assert all(line.spec.ecc for line in build.gpus)
        assert all(line.spec.ecc and line.spec.kind == "rdimm" for line in build.memory)
        assert any(str(why).startswith("class: ") and "production or ECC" in str(why) for why in candidate.why)


def test_a_personal_workload_gets_no_datacenter_gpu(results: dict[str, tuple]) -> None:
    from configurator.engine.recommend.policy import datacenter_gpu

    for name in ("beginner 7B Q4 chat", "30B Q4 on a workstation"):
        recommendation, _ = results[name]
        assert recommendation.candidates, name
        for candidate in recommendation.candidates:
            assert not datacenter_gpu(candidate.build.gpus[0].spec), (name, candidate.build.gpus[0].spec.sku)
            assert any("no datacenter GPU" in str(why) for why in candidate.why)


def test_every_candidate_says_its_class(results: dict[str, tuple]) -> None:
    from configurator.engine.recommend.policy import machine_class

    for recommendation, _ in results.values():
        for candidate in recommendation.candidates:
            assert machine_class(candidate.build.chassis) in (
                "desktop-workstation",
                "rack-workstation",
                "gpu-server",
                "hgx-server",
            )
            assert sum(str(why).startswith("class: ") for why in candidate.why) == 1


def test_lora_of_llama_70b_is_a_sharded_two_gpu_build_under_3_6_m_rub(snapshot: CatalogSnapshot) -> None:
    """Issue 14: 2 × RTX PRO 6000 with ZeRO-3 instead of one H200 NVL at 139.6 of 141 GiB."""
    workload = _w("llama-3.1-70b", task="lora", precision="bf16", engine="transformers", sequence_length=2048)
    top = recommend(snapshot, workload, Constraints()).candidates[0]
    assert top.verdict.estimate is not None and top.verdict.estimate.layout is not None
    layout = top.verdict.estimate.layout
    assert top.build.gpu_count == 2
    assert layout.parallelism == "data"
    assert top.price.gross < Decimal("3600000"), (top.build.gpus[0].spec.sku, top.price.gross)
    assert top.verdict.warnings == ()


def test_an_empty_catalog_says_so(snapshot: CatalogSnapshot) -> None:
    """Issue 14: not «ask for a multi-node cluster» when the catalog has nothing to sell."""
    empty = CatalogSnapshot(
        version="empty", gpus={}, cpus={}, chassis={}, psus={}, memory={}, storage={}, nics={}, bridges={}
    )
    result = recommend(empty, CASES["beginner 7B Q4 chat"][0], Constraints())
    assert result.candidates == ()
    assert [str(tip) for tip in result.suggestions] == [
        "the catalog has no active GPUs, chassis, CPUs, PSUs, memory, storage: "
        "nothing can be recommended until catalog staff add them"
    ]
    no_gpus = replace(snapshot, version="no-gpus", gpus={})
    tips = [str(tip) for tip in recommend(no_gpus, CASES["beginner 7B Q4 chat"][0], Constraints()).suggestions]
    assert tips == ["the catalog has no active GPUs: nothing can be recommended until catalog staff add them"]


@pytest.mark.parametrize("name", list(CASES))
def test_builds_rank_by_speed_then_warnings_that_matter_and_labels_are_true(
    results: dict[str, tuple], name: str
) -> None:
    """Issues 14 and 34: builds meeting the speed target first, then those without a warning that matters to
    the workload (recommend.ranking), each by price; warnings that matter are said, the others said as not
    mattering; "the most tokens/s per rouble" only on a build that has more of them than the cheapest."""
    recommendation, _ = results[name]
    workload = CASES[name][0]
    target = speed_target(workload)
    candidates = recommendation.candidates
    standings = [standing(c, workload, target) for c in candidates]
    assert standings[0] == min(standings), name
    rest = [(place, c.price.gross) for place, c in zip(standings[1:], candidates[1:], strict=True)]
    assert rest == sorted(rest), name
    cheapest = candidates[0]
    for index, candidate in enumerate(candidates):
        said = " ".join(str(why) for why in candidate.why)
        assert label_is_true(candidate.label, index, candidates, workload, target), (name, candidate.label)
        if weighing(candidate, workload, target):
            assert "warnings to acknowledge" in said
        if "the most tokens/s per rouble" in said:
            value = candidate.decode_tokens_per_s_total / float(candidate.price.gross)
            assert value > cheapest.decode_tokens_per_s_total / float(cheapest.price.gross), name
