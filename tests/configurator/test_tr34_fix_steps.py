"""Trial tr34: a chained fix ("these steps together leave the build valid") says no step that a later step
overrides. A server build with desktop UDIMMs and the wrong CPUs was offered "replace ddr5-udimm-32gb with 12×
ddr5-rdimm-32gb; replace memory with 24× ddr5-rdimm-64gb": the first memory step did nothing."""

from __future__ import annotations

from rest_framework.test import APIClient

from configurator.engine.fixes import add_op, replace_op
from configurator.engine.proving import _merged

BUILD = {
    "chassis": "srv-8gpu-4u-xeon",
    "cpus": [{"sku": "xeon-8480plus", "qty": 2}],
    "gpus": [{"sku": "h100-pcie", "qty": 4}, {"sku": "a100-80gb-pcie", "qty": 4}],
    "memory": [{"sku": "ddr5-udimm-32gb", "qty": 12}],
    "psus": [{"sku": "psu-crps-2000w", "qty": 2}],
}


def test_a_step_overridden_by_a_whole_kind_replacement_is_left_out() -> None:
    cpu = replace_op("cpus", "xeon-6960p", 2)
    first = replace_op("memory", "ddr5-rdimm-32gb", 12, old_sku="ddr5-udimm-32gb")
    whole = replace_op("memory", "ddr5-rdimm-64gb", 24)
    psus = add_op("psus", "psu-crps-2000w", 2)
    assert _merged((cpu, first, whole, psus)) == (cpu, whole, psus)
    # a replacement of one SKU, or of the whole kind without a stated quantity, overrides nothing
    assert _merged((first, psus)) == (first, psus)
    unsized = replace_op("memory", "ddr5-rdimm-64gb", None)
    assert _merged((first, unsized)) == (first, unsized)


def test_no_offered_fix_says_a_step_for_nothing(catalog: None, api_client: APIClient) -> None:
    response = api_client.post("/api/v1/builds/validate", BUILD, format="json")
    assert response.status_code == 200, response.content
    fixes = [fix for finding in response.json()["findings"] for fix in finding["fixes"]]
    assert any(len(fix["ops"]) >= 3 for fix in fixes)
    for fix in fixes:
        for index, op in enumerate(fix["ops"]):
            later = fix["ops"][index + 1 :]
            overridden = any(
                o["op"] == "replace" and o.get("kind") == op.get("kind") and "old_sku" not in o and "qty" in o
                for o in later
            )
            assert not overridden, fix["text"]


def test_the_population_fix_uses_the_module_the_board_takes(catalog: None, api_client: APIClient) -> None:
    """The same build's population warning was fixed with "16× ddr5-udimm-32gb": the non-ECC module the server
    refuses in its own error; it is now the RDIMM of the same size."""
    response = api_client.post("/api/v1/builds/validate", BUILD, format="json")
    finding = next(f for f in response.json()["findings"] if f["code"] == "memory.population")
    texts = [fix["text"] for fix in finding["fixes"]]
    assert texts == ["replace memory with 16× ddr5-rdimm-32gb (every channel alike)"]
