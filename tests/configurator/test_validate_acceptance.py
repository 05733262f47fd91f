"""Issue 4 acceptance: the listed verdicts, and every platform check of fixtures/catalog.json.

`_meta.platform_checks` in the catalog states, for each of the platforms we sell, the advertised maximum build
with its power budget (load, PSU set, usable watts) and lane budget, and builds that must fail. The test
parses those lines and checks the validator reaches the same numbers and the same outcome.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

import pytest

from catalog.fixture import CATALOG_FIXTURE
from configurator.engine.builds import build_from_payload
from configurator.engine.fixes import apply_fix
from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, Verdict, Workload
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, lines, only


def check(snapshot: CatalogSnapshot, body: dict[str, Any], workload: Workload | None = None) -> Verdict:
    return validate(build_from_payload(body, snapshot), snapshot=snapshot, workload=workload)


def errors(verdict: Verdict) -> set[str]:
    return {finding.code for finding in verdict.errors}


EIGHT_H200_NVL = body_of(
    "srv-8gpu-4u-epyc: 2 epyc-9755, 8 h200-nvl, 16 ddr5-rdimm-128gb, 2 nvme-4tb, 1 nic-200g, 2 nvlink-bridge-h200-4way"
)
LOAD_W = round((8 * 600 + 2 * 500 + 16 * 8 + 2 * 12 + 30 + 400) * 1.10, 1)  # 7,020.2 W (platform_checks)


# --------------------------------------------------------------------------- the listed verdicts


def test_eight_h200_nvl_on_two_1600w_psus(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, {**EIGHT_H200_NVL, "psus": lines(("psu-crps-1600w", 2)), "psu_redundancy": "n+1"})
    finding = only(verdict, "power.psu_capacity")
    assert (finding.severity, finding.measured, finding.limit) == ("error", LOAD_W, 1600.0)
    assert errors(verdict) == {"power.psu_capacity"}
    assert finding.fixes[0].text == "replace psus with 4× psu-crps-3000w"


@pytest.mark.parametrize("chassis", ["srv-8gpu-4u-epyc", "srv-8gpu-4u-xeon"])
def test_eight_h200_nvl_on_four_2000w_in_n_plus_n(snapshot: CatalogSnapshot, chassis: str) -> None:
    cpus = lines(("epyc-9755", 2)) if chassis.endswith("epyc") else lines(("xeon-6980p", 2))
    body = {**EIGHT_H200_NVL, "chassis": chassis, "cpus": cpus}
    verdict = check(snapshot, {**body, "psus": lines(("psu-crps-2000w", 4)), "psu_redundancy": "n+n"})
    finding = only(verdict, "power.psu_capacity")
    assert (finding.severity, finding.measured, finding.limit) == ("error", LOAD_W, 4000.0)  # (4 − 2) × 2000 W
    assert errors(verdict) == {"power.psu_capacity"}
    # N+N cannot carry 7 kW in 4 bays with any catalog PSU: relax to N+1 with 4 × 3000 W, both in one fix
    fix = finding.fixes[0]
    assert (
        fix.text == "set psu_redundancy n+1; replace psus with 4× psu-crps-3000w (n+n cannot carry 7,020 W in 4 bays)"
    )
    build = build_from_payload({**body, "psus": lines(("psu-crps-2000w", 4)), "psu_redundancy": "n+n"}, snapshot)
    fixed = validate(apply_fix(build, fix, snapshot), snapshot=snapshot)
    assert fixed.errors == () and fixed.power.redundancy == "n+1"


def test_rtx_pro_6000_with_an_nvlink_bridge(snapshot: CatalogSnapshot) -> None:
    body = body_of(
        "ws-tr-pro-6gpu-6u5: 1 tr-pro-9995wx, 2 rtx-pro-6000-blackwell, 2 psu-crps-2000w, 8 ddr5-rdimm-64gb, "
        "1 nvlink-bridge-h200-2way"
    )
    verdict = check(snapshot, body)
    finding = only(verdict, "interconnect.no_nvlink")
    assert (finding.severity, finding.measured) == ("error", "none")
    assert errors(verdict) == {"interconnect.no_nvlink"}


def test_two_rtx_3090_with_their_bridge(snapshot: CatalogSnapshot) -> None:
    body = body_of(
        "ws-tower-trx50: 1 tr-7960x, 2 rtx-3090, 1 psu-atx-1600w, 4 ddr5-rdimm-32gb, 1 nvlink-bridge-rtx-3090-2way"
    )
    verdict = check(snapshot, body)
    assert [f.code for f in verdict.findings if f.code.startswith("interconnect.")] == []
    assert verdict.valid


def test_four_x16_gpus_on_tr_7960x_in_trx50(snapshot: CatalogSnapshot) -> None:
    body = body_of("ws-tower-trx50: 1 tr-7960x, 4 rtx-pro-6000-blackwell-maxq, 1 psu-atx-2200w, 4 ddr5-rdimm-64gb")
    finding = only(check(snapshot, body), "pcie.slot_lanes")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 64, 48, "lanes")


def test_four_rtx_4090_in_a_2u_chassis(snapshot: CatalogSnapshot) -> None:
    body = body_of(
        "srv-4gpu-2u-epyc: 2 epyc-9554, 4 rtx-4090, 4 psu-crps-2700w, 24 ddr5-rdimm-64gb", psu_redundancy="n+n"
    )
    verdict = check(snapshot, body)
    assert errors(verdict) == {"fit.gpu_slot_width", "fit.gpu_length", "fit.gpu_height"}
    width = only(verdict, "fit.gpu_slot_width")
    assert (width.measured, width.limit) == (3.0, 2.0)
    length = only(verdict, "fit.gpu_length")
    assert (length.measured, length.limit) == (304, 267)


def test_h200_nvl_in_an_am5_tower(snapshot: CatalogSnapshot) -> None:
    body = body_of("ws-tower-am5: 1 ryzen-9-9950x, 1 h200-nvl, 1 psu-atx-1600w, 4 ddr5-udimm-48gb")
    verdict = check(snapshot, body)
    finding = only(verdict, "cooling.passive_airflow")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "passive", "server airflow")
    assert errors(verdict) == {"cooling.passive_airflow"}


def test_two_epyc_9654p(snapshot: CatalogSnapshot) -> None:
    body = body_of("srv-4gpu-2u-epyc: 2 epyc-9654p, 4 l40s, 4 psu-crps-2000w, 24 ddr5-rdimm-64gb", psu_redundancy="n+1")
    verdict = check(snapshot, body)
    finding = only(verdict, "cpu.one_socket_part")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 2, 1)
    assert errors(verdict) == {"cpu.one_socket_part"}


def test_udimms_in_an_epyc_server(snapshot: CatalogSnapshot) -> None:
    body = body_of("srv-4gpu-2u-epyc: 2 epyc-9554, 4 l40s, 4 psu-crps-2000w, 24 ddr5-udimm-32gb", psu_redundancy="n+1")
    verdict = check(snapshot, body)
    finding = only(verdict, "memory.ecc_rdimm_required")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "udimm", "rdimm")
    assert errors(verdict) == {"memory.ecc_rdimm_required"}


def test_require_ecc_with_rtx_5090(snapshot: CatalogSnapshot) -> None:
    body = body_of("ws-tower-trx50: 1 tr-7960x, 1 rtx-5090, 1 psu-atx-1300w, 4 ddr5-rdimm-32gb")
    workload = Workload(model=model_get("llama-3.1-8b"), precision="bf16", engine="vllm", require_ecc=True)
    verdict = check(snapshot, body, workload)
    finding = only(verdict, "ecc.gpu_required")
    assert (finding.severity, finding.components) == ("error", ("rtx-5090",))
    assert errors(verdict) == {"ecc.gpu_required"}
    assert check(snapshot, body).valid  # the same build without the workload is fine


def test_120v_site_with_a_high_line_only_psu(snapshot: CatalogSnapshot) -> None:
    body = {
        **EIGHT_H200_NVL,
        "psus": lines(("psu-crps-3000w", 4)),
        "psu_redundancy": "n+1",
        "site_voltage": 120,
    }
    verdict = check(snapshot, body)
    finding = only(verdict, "power.input_voltage")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 120, 200, "V")
    assert check(snapshot, {**body, "site_voltage": 230}).valid


# --------------------------------------------------------------------------- platform checks of the catalog

CHECK_LINE = re.compile(
    r"^(?P<chassis>[a-z0-9-]+) \| (?P<label>[^:]+): (?P<parts>.*?) \| power: .*?= (?P<load>\d+) W; "
    r"PSUs (?P<psu_qty>\d+)x (?P<psu>[a-z0-9-]+) (?P<redundancy>none|n\+1|n\+n) @ (?P<voltage>\d+) V "
    r"-> usable (?P<usable>\d+) W .*?\| lanes: .*?= (?P<needed>\d+) of (?P<available>\d+).*?\| (?P<status>.+)$"
)
PART = re.compile(r"(\d+)x ([a-z0-9-]+)")


def _platform_checks() -> list[str]:
    return list(json.loads(CATALOG_FIXTURE.read_text(encoding="utf-8"))["_meta"]["platform_checks"])


def _body(match: re.Match[str], snapshot: CatalogSnapshot) -> dict[str, Any]:
    parts: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for qty, sku in PART.findall(match["parts"]):
        kind = next(kind for kind in ("gpus", "cpus", "memory", "storage", "nics") if sku in snapshot.kind(kind))
        parts[kind].append({"sku": sku, "qty": int(qty)})
    return {
        "chassis": match["chassis"],
        **parts,
        "psus": lines((match["psu"], int(match["psu_qty"]))),
        "psu_redundancy": match["redundancy"],
        "site_voltage": int(match["voltage"]),
    }


@pytest.mark.parametrize("line", _platform_checks(), ids=lambda line: line.split(" | ")[0] + ":" + line[-20:])
def test_platform_checks(snapshot: CatalogSnapshot, line: str) -> None:
    match = CHECK_LINE.match(line)
    assert match, line
    verdict = check(snapshot, _body(match, snapshot))
    # the same budgets as the catalog's arithmetic
    assert round(verdict.power.load_w) == int(match["load"])
    assert verdict.power.capacity_w == float(match["usable"])
    assert (verdict.pcie.lanes_needed, verdict.pcie.lanes_available) == (
        int(match["needed"]),
        int(match["available"]),
    )
    status, label = match["status"], match["label"]
    if status == "OK":
        assert verdict.errors == (), verdict.errors
        assert "power.headroom" not in verdict.codes()
    elif status.startswith("OK with warning"):
        assert "power.headroom" in {finding.code for finding in verdict.warnings}
        assert verdict.errors == ()
    else:
        assert status.startswith("FAILS")
        if "circuit" in status:
            # beyond the PSU budget: a workstation above 1,440 W at the wall on 120 V/15 A
            expected = {"power.circuit_120v"}
        elif "cables" in status:
            expected = {"power.gpu_connectors"}
        else:
            expected = {"power.psu_capacity"}
        assert {finding.code for finding in verdict.errors} == expected
    if "max" in label:
        assert verdict.valid


def test_every_platform_has_an_advertised_maximum() -> None:
    advertised = {line.split(" | ")[0] for line in _platform_checks() if "max:" in line}
    assert advertised >= {
        "ws-tr-pro-2gpu-4u5",
        "ws-tr-pro-6gpu-6u5",
        "srv-8gpu-6u-epyc",
        "srv-8gpu-6u-xeon",
        "srv-4gpu-2u-epyc",
        "srv-4gpu-2u-xeon",
        "srv-8gpu-4u-epyc",
        "srv-8gpu-4u-xeon",
        "srv-hgx-h200-5u",
    }
