"""Fit and cooling rules (configurator/rules/fit.py) against the chassis limits in fixtures/catalog.json.

Card sizes: RTX 4090 3-slot 304 mm, RTX 5090 2-slot 304 mm, DW datacenter cards 2-slot 267 mm
(validation-rules.md §3.1-3.2 [S2][S12]); passive cards need server airflow (§3.3 [S1][V20]).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from configurator.engine.builds import build_from_payload
from configurator.engine.types import CatalogSnapshot, Verdict
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, codes, lines, only, validate_body

# srv-4gpu-2u-epyc: 4 bays, 2-slot, 267 mm, 600 W, server airflow
SERVER = body_of(
    "srv-4gpu-2u-epyc: 2 epyc-9554, 4 h200-nvl, 4 psu-crps-2700w, 24 ddr5-rdimm-64gb, 2 nvme-4tb", psu_redundancy="n+n"
)
HGX = body_of("srv-hgx-h200-5u: 2 epyc-9754, 8 h200-sxm, 6 psu-crps-3000w, 24 ddr5-rdimm-128gb", psu_redundancy="n+1")
TOWER = body_of("ws-tower-am5: 1 ryzen-9-9950x, 1 rtx-5090, 1 psu-atx-1300w, 2 ddr5-udimm-48gb")
SIX_SLOT_WORKSTATION = body_of(
    "ws-tr-pro-6gpu-6u5: 1 tr-pro-9995wx, 3 rtx-5090, 4 psu-crps-3000w, 8 ddr5-rdimm-128gb", psu_redundancy="n+n"
)


def check(snapshot: CatalogSnapshot, body: dict[str, Any], **changes: Any) -> Verdict:
    return validate_body(snapshot, body, **changes)


def fit_codes(verdict: Verdict) -> set[str]:
    return codes(verdict, "fit.", "cooling.")


def test_passing_builds(snapshot: CatalogSnapshot) -> None:
    for build in (SERVER, HGX, TOWER, SIX_SLOT_WORKSTATION):
        assert fit_codes(check(snapshot, build)) == set(), build["chassis"]


def test_gpu_count(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, gpus=lines(("h200-nvl", 5))), "fit.gpu_count")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 5, 4, "GPUs")
    # rack servers on the same EPYC socket first, then the cheapest
    assert [fix.ops[0].sku for fix in finding.fixes] == ["srv-8gpu-6u-epyc", "srv-8gpu-4u-epyc", "h200-nvl"]
    assert finding.fixes[-1].text == "remove 1× h200-nvl"


def test_slot_width(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, gpus=lines(("rtx-4090", 4))), "fit.gpu_slot_width")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 3.0, 2.0, "slots")


def test_length(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, gpus=lines(("rtx-5090", 4))), "fit.gpu_length")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 304, 267, "mm")


def test_tdp(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, HGX, gpus=lines(("b200-sxm", 8))), "fit.gpu_tdp")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 1000, 700, "W")


def test_form_factor(snapshot: CatalogSnapshot) -> None:
    sxm_in_pcie = only(check(snapshot, SERVER, gpus=lines(("h200-sxm", 4))), "fit.gpu_form_factor")
    assert (sxm_in_pcie.severity, sxm_in_pcie.measured, sxm_in_pcie.limit) == ("error", "sxm", "pcie")
    # issue 34: the card's edition that fits the chassis (H200 NVL, PCIe) before a chassis swap (HGX board)
    assert sxm_in_pcie.fixes[0].ops[0].sku == "h200-nvl"
    pcie_on_hgx = only(check(snapshot, HGX, gpus=lines(("h200-nvl", 8))), "fit.gpu_form_factor")
    assert (pcie_on_hgx.measured, pcie_on_hgx.limit) == ("pcie", "sxm")


def test_consumer_cards_do_not_fit_2u(snapshot: CatalogSnapshot) -> None:
    # an RTX 5060 Ti is 2-slot and 241 mm, but its top-edge power connector does not fit 2U (§3.2)
    verdict = check(snapshot, SERVER, gpus=lines(("rtx-5060-ti-16gb", 2)))
    finding = only(verdict, "fit.gpu_height")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 2.0, 3.0, "U")
    assert fit_codes(verdict) == {"fit.gpu_height"}


def test_passive_card_needs_server_airflow(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, TOWER, gpus=lines(("h200-nvl", 1))), "cooling.passive_airflow")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "passive", "server airflow")
    assert finding.fixes[0].ops[0].sku == "ws-tr-pro-2gpu-4u5"  # a rack workstation with server fans
    assert "cooling.passive_airflow" not in fit_codes(check(snapshot, SERVER))


def test_axial_consumer_cards_side_by_side(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SIX_SLOT_WORKSTATION, gpus=lines(("rtx-5090", 4))), "cooling.axial_density")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 4, 3)
    # blower cards pack densely without the warning
    assert fit_codes(check(snapshot, SIX_SLOT_WORKSTATION, gpus=lines(("rtx-pro-6000-blackwell-maxq", 6)))) == set()


def test_drive_bays(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, storage=lines(("nvme-4tb", 5))), "fit.drive_bays")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 5, 4)
    assert finding.fixes[0].text == "remove 1× nvme-4tb"


def test_chassis_kind_and_rack_units_agree(snapshot: CatalogSnapshot) -> None:
    build = build_from_payload(SERVER, snapshot)
    broken = replace(build, chassis=replace(build.chassis, rack_units=None))
    finding = only(validate(broken, snapshot=snapshot), "fit.chassis_kind")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "none", "rack-server")
