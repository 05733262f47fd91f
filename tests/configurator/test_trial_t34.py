"""Issue 34 trial by a sales engineer (helper t34): the small, local defects it found.

- A choice that is none of a field's ("fp6", "garage", "tower") was a 400 that named no valid value, and
  "FP8" / "vLLM" / "QLoRA" as people write them were refused;
- a PSU fix that relaxes the redundancy on a build that already has the PSUs the relaxed mode needs also
  "replaced" them with the same set (a step that changes nothing);
- a lighter-precision suggestion said "(18 % less)" right after its tokens/s, where the share is of the price.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from configurator.engine.builds import build_from_payload
from configurator.engine.fixes import apply_fix
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import CatalogSnapshot, Workload
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, only, validate_body
from tests.configurator.test_precision_suggestions import RACK, W01

URL = "/api/v1/recommendations"
# ASUS ESC8000A-E12 with 8 × H200 NVL as published (4 × 3000 W), entered under N+N: 6.9 kW > 2 × 3000 W
ESC8000A = body_of(
    "srv-8gpu-4u-epyc: 2 epyc-9554, 8 h200-nvl, 4 psu-crps-3000w, 24 ddr5-rdimm-96gb, 2 nvme-1tb, 4 nvme-8tb, "
    "2 nic-400g, 1 nic-25g, 2 nvlink-bridge-h200-4way",
    psu_redundancy="n+n",
)


@pytest.mark.django_db
def test_a_bad_choice_lists_the_valid_ones(api_client: APIClient, catalog: None) -> None:
    body = {
        "workload": {"model": "qwen3-8b", "precision": "fp6", "noise": "garage"},
        "constraints": {"form_factor": "tower"},
    }
    response = api_client.post(URL, body, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert "int4, nvfp4" in fields["workload.precision"][0]
    assert fields["workload.noise"] == ['"garage" is not a valid choice; use one of: any, office, lab, server_room.']
    assert fields["constraints.form_factor"][0].endswith("use one of: workstation, rack, any.")


@pytest.mark.django_db
def test_choices_as_people_write_them(api_client: APIClient, catalog: None) -> None:
    workload = {"model": "qwen3-8b", "precision": "FP8", "engine": "vLLM", "task": "Inference"}
    body = {"workload": workload, "constraints": {"form_factor": "Workstation"}, "limit": 1}
    response = api_client.post(URL, body, format="json")
    assert response.status_code == 200, response.json()
    assert any("FP8" in line for line in response.json()["candidates"][0]["why"])


def test_relaxing_the_redundancy_keeps_psus_that_already_carry_the_load(snapshot: CatalogSnapshot) -> None:
    finding = only(validate_body(snapshot, ESC8000A), "power.psu_capacity")
    fix = finding.fixes[0]
    assert [(op.op, op.field, op.value) for op in fix.ops] == [("set", "psu_redundancy", "n+1")]
    assert fix.text == "set psu_redundancy n+1 (n+n cannot carry 6,896 W in 4 bays)"
    fixed = validate(apply_fix(build_from_payload(ESC8000A, snapshot), fix, snapshot), snapshot=snapshot)
    assert "power.psu_capacity" not in {f.code for f in fixed.findings}
    assert fixed.power.redundancy == "n+1"


def test_a_cheaper_precision_says_its_share_is_of_the_price(snapshot: CatalogSnapshot) -> None:
    tips = [str(tip) for tip in recommend(snapshot, W01, RACK, limit=3).suggestions]
    shares = [tip for tip in tips if tip.startswith("quantize to") and " % cheaper)" in tip]
    assert shares, tips
    assert not any(" % less)" in tip for tip in tips)


def test_the_vram_error_says_its_parallelism_in_words(snapshot: CatalogSnapshot) -> None:
    """Dell XE9680-class HGX H100 entered for a 70B full fine-tune under ZeRO-3: the error said "(data)"."""
    body = body_of("srv-hgx-h200-5u: 2 epyc-9454, 8 h100-sxm, 6 psu-crps-2700w, 24 ddr5-rdimm-64gb, 8 nvme-4tb")
    workload = Workload(
        model=model_get("llama-3.1-70b"), task="full_finetune", precision="bf16", sequence_length=4096, zero_stage=3
    )
    message = str(only(validate_body(snapshot, body, workload), "workload.vram").message)
    assert "on 8× h100-sxm (data parallel);" in message
