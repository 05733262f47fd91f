"""configurator.output_data makes the estimate, validate and recommendation answers without DRF; the
output serializers stay the contract. Both must give the same data, key order and value types included
(an int where DRF gives a float would render `1` instead of `1.0`): random builds of catalog parts with and
without a workload, estimates of every task with and without a GPU, recommendations with and without
candidates, with and without the suppliers' offers."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from configurator.engine.availability import BuildAvailability, OfferInfo, Schedule, build_availability
from configurator.engine.builds import build_price
from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import BuildSpec, Constraints, Workload
from configurator.engine.validate import validate
from configurator.output_data import estimate_data, recommendation_data, validate_data
from configurator.outputs import (
    EstimateOutputSerializer,
    PricedVerdict,
    RecommendationOutputSerializer,
    ValidateOutputSerializer,
)
from tests.configurator.test_validate_properties import SNAPSHOT, builds

TODAY = dt.date(2026, 3, 2)
WORKLOADS = (
    None,
    Workload(model=model_get("llama-3.1-70b"), precision="q4_k_m", engine="llama.cpp", context_tokens=8192),
    Workload(model=model_get("llama-3.1-8b"), precision="bf16", engine="vllm", concurrent_users=16),
    Workload(model=model_get("llama-3.1-8b"), task="lora", precision="bf16", engine="vllm"),
    Workload(model=model_get("llama-3.1-70b"), task="full_finetune", precision="bf16", engine="vllm", zero_stage=3),
)


def same(made: Any, reference: Any, where: str = "") -> None:
    """Equal values of the same types, dict keys in the same order, all the way down."""
    assert type(made) is type(reference), f"{where}: {type(made).__name__} != {type(reference).__name__}"
    if isinstance(reference, dict):
        assert list(made) == list(reference), where
        for key in reference:
            same(made[key], reference[key], f"{where}.{key}")
    elif isinstance(reference, list):
        assert len(made) == len(reference), where
        for index, (left, right) in enumerate(zip(made, reference, strict=True)):
            same(left, right, f"{where}[{index}]")
    else:
        assert made == reference, where


def reader(stocked: bool) -> Any:
    """Offers for every catalog part (stocked or on order), or none for GPUs: a build with no ship date."""
    book = {
        sku: (OfferInfo(sku, "s1", Decimal(1), 4 if stocked else 0, 9),)
        for kind in ("chassis", "cpus", "memory", "storage", "psus", "nics", "bridges")
        for sku in SNAPSHOT.kind(kind)
    }

    def availability(build: BuildSpec) -> BuildAvailability:
        return build_availability(build, book, today=TODAY, schedule=Schedule())

    return availability


PROFILE = settings(
    max_examples=120, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROFILE
@given(build=builds(), workload=st.sampled_from(WORKLOADS), offers=st.sampled_from((None, True, False)))
def test_a_verdict_is_answered_as_the_serializer_answers_it(
    build: BuildSpec, workload: Workload | None, offers: bool | None
) -> None:
    verdict = validate(build, snapshot=SNAPSHOT, workload=workload)
    price = build_price(build, vat_percent=Decimal(22))
    found = None if offers is None else reader(offers)(build)
    reference = ValidateOutputSerializer(PricedVerdict(verdict, price, found)).data
    made = validate_data(verdict, price, found)
    same(made, dict(reference))
    assert json.dumps(made, sort_keys=False) == json.dumps(reference, sort_keys=False)


@pytest.mark.parametrize("workload", WORKLOADS[1:])
@pytest.mark.parametrize(("gpu", "count"), [(None, 1), ("rtx-4090", 2), ("h200-nvl", 8), ("rtx-3090", 1)])
def test_an_estimate_is_answered_as_the_serializer_answers_it(workload: Workload, gpu: str | None, count: int) -> None:
    spec = SNAPSHOT.gpus[gpu] if gpu else None
    result = estimate(workload, spec, count)
    same(estimate_data(result), dict(EstimateOutputSerializer(result).data))


@pytest.mark.parametrize(
    ("workload", "constraints"),
    [
        (WORKLOADS[1], Constraints()),
        (WORKLOADS[2], Constraints(form_factor="rack", require_ecc=True)),
        (WORKLOADS[3], Constraints()),
        (WORKLOADS[1], Constraints(max_price=Decimal(1000))),  # nothing fits: suggestions instead
    ],
)
@pytest.mark.parametrize("offers", [None, True, False])
def test_a_recommendation_is_answered_as_the_serializer_answers_it(
    workload: Workload, constraints: Constraints, offers: bool | None
) -> None:
    availability = None if offers is None else reader(offers)
    result = recommend(SNAPSHOT, workload, constraints, limit=5, availability=availability)
    reference = RecommendationOutputSerializer(result, context={"availability": availability}).data
    made = recommendation_data(result, availability)
    same(made, dict(reference))
    assert made["candidates"] or made["suggestions"]
