"""config.renderers.FastJSONRenderer writes what DRF's JSONRenderer wrote: the same bytes for the engine's
answers (random builds' verdicts, estimates) and for values DRF's encoder converts (datetimes, Decimals,
lazy translations, UUIDs), U+2028/U+2029 escaped; an indent asked for goes to DRF's renderer."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest
from django.utils.translation import gettext_lazy
from hypothesis import HealthCheck, given, settings
from rest_framework.renderers import JSONRenderer

from config.renderers import FastJSONRenderer
from configurator.engine.builds import build_price
from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_get
from configurator.engine.types import BuildSpec, Workload
from configurator.engine.validate import validate
from configurator.output_data import estimate_data, validate_data
from tests.configurator.test_validate_properties import SNAPSHOT, builds

FAST, DRF = FastJSONRenderer(), JSONRenderer()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(build=builds())
def test_a_verdict_renders_as_drf_rendered_it(build: BuildSpec) -> None:
    workload = Workload(model=model_get("llama-3.1-70b"), precision="q4_k_m", engine="llama.cpp")
    verdict = validate(build, snapshot=SNAPSHOT, workload=workload)
    data = validate_data(verdict, build_price(build, vat_percent=Decimal(20)), None)
    assert FAST.render(data) == DRF.render(data)


def test_an_estimate_renders_as_drf_rendered_it() -> None:
    gpu = SNAPSHOT.gpus["rtx-4090"]
    for task in ("inference", "lora", "qlora", "full_finetune"):
        workload = Workload(model=model_get("llama-3.1-8b"), task=task, precision="bf16", engine="vllm")
        data = estimate_data(estimate(workload, gpu, 2))
        assert FAST.render(data) == DRF.render(data)


def test_values_drf_converts_are_converted_the_same_way() -> None:
    data = {
        "at": dt.datetime(2026, 12, 1, 5, 30, 1, 123456, tzinfo=dt.UTC),
        "day": dt.date(2026, 12, 1),
        "price": Decimal("1234.50"),
        "label": gettext_lazy("Quote"),
        "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "nested": [{"n": 1, "x": 1.5, "none": None, "flag": True}, ("a", "b")],
        "text": "ГПУ \u2028 line \u2029 para",
        3: "an int key",
    }
    rendered = FAST.render(data)
    assert rendered == DRF.render(data)
    assert b"\\u2028" in rendered and b"\\u2029" in rendered
    assert json.loads(rendered)["at"] == "2026-12-01T05:30:01.123456Z"  # DRF's form (orjson's ends +00:00)


def test_an_indent_asked_for_is_honoured() -> None:
    data = {"a": [1, 2]}
    rendered = FAST.render(data, "application/json; indent=2")
    assert rendered == DRF.render(data, "application/json; indent=2")
    assert b"\n  " in rendered


def test_what_neither_can_write_is_refused() -> None:
    with pytest.raises(TypeError):
        FAST.render({"a": object()})
    assert FAST.render(None) == b""
