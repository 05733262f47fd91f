"""bench/bench_load.py's probe (bench/load_urls.py): validate without the engine's work, on the benchmark's
server only. It must answer what validate answers, or the benchmark would compare different work."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.builds import ARCHITECTURE_EXAMPLE

BENCH = Path(__file__).resolve().parent.parent / "bench"
PROBE = "/api/v1/bench/validate-without-engine"
VALIDATE = "/api/v1/builds/validate"


@pytest.fixture
def load_urls(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(BENCH))
    import load_urls as module  # bench/ is not a package: the benchmark's server puts it on the path

    monkeypatch.setattr(module, "_kept", {})
    settings.ROOT_URLCONF = "load_urls"  # Django clears its URL caches when this setting changes
    yield module
    sys.modules.pop("load_urls", None)


def test_the_probe_answers_what_validate_answers_and_keeps_the_first_verdict(
    catalog: None, api_client: APIClient, load_urls: Any
) -> None:
    validated = api_client.post(VALIDATE, ARCHITECTURE_EXAMPLE, format="json")
    probed = [api_client.post(PROBE, ARCHITECTURE_EXAMPLE, format="json") for _ in range(2)]
    assert validated.status_code == 200 and [answer.status_code for answer in probed] == [200, 200]
    assert probed[0].json() == validated.json() == probed[1].json()
    assert validated.json()["findings"]  # the verdict compared is not an empty one
    assert len(load_urls._kept) == 1  # computed once, then kept


def test_the_probe_checks_the_body_as_validate_does(catalog: None, api_client: APIClient, load_urls: Any) -> None:
    body = {**ARCHITECTURE_EXAMPLE, "gpus": [{"sku": "no-such-gpu", "qty": 8}]}
    validated, probed = (api_client.post(path, body, format="json") for path in (VALIDATE, PROBE))
    assert probed.status_code == validated.status_code == 400
    assert probed.json() == validated.json()
    assert "gpus[0].sku" in probed.json()["error"]["fields"]
    assert load_urls._kept == {}  # nothing validated, nothing kept


def test_the_project_has_no_probe(catalog: None, api_client: APIClient) -> None:
    answer = api_client.post(PROBE, ARCHITECTURE_EXAMPLE, format="json")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"
