"""Issue 34 (trial t34, item D): the HGX chassis' on-board M.2 sockets. A G593-SD1-class build with the boot pair
(2 × 1 TB) and 8 × 4 TB U.2 data drives was refused ("10 drives do not fit the 8 drive bays") and the fix removed
the boot mirror. The class's boards carry 2 M.2 sockets beside the 8 U.2 bays (fixture source); a drive-bay fix
never removes the mirrored boot pair of a GPU server or a production build."""

from __future__ import annotations

from configurator.engine.models_library import model_get
from configurator.engine.types import CatalogSnapshot, Workload
from tests.configurator.helpers import body_of, codes, lines, only, validate_body

HGX = body_of(
    "srv-hgx-h200-5u: 2 epyc-9554, 8 h200-sxm, 24 ddr5-rdimm-96gb, 2 nvme-1tb, 8 nvme-4tb, 8 nic-400g, 1 nic-25g, "
    "6 psu-crps-3000w",
    psu_redundancy="n+1",
)


def test_the_boot_pair_goes_in_the_m2_sockets(snapshot: CatalogSnapshot) -> None:
    assert snapshot.chassis["srv-hgx-h200-5u"].chipset_m2_slots == 2
    assert "fit.drive_bays" not in codes(validate_body(snapshot, HGX))


def test_a_drive_bay_fix_keeps_the_boot_mirror(snapshot: CatalogSnapshot) -> None:
    too_many = validate_body(snapshot, HGX, storage=lines(("nvme-1tb", 2), ("nvme-4tb", 10)))
    finding = only(too_many, "fit.drive_bays")
    assert finding.limit == 10
    assert [fix.text for fix in finding.fixes] == ["remove 2× nvme-4tb"]
    # a production workload on a workstation keeps its pair too
    production = Workload(model=model_get("llama-3.1-8b"), production=True)
    tower = body_of("ws-tower-trx50: 1 tr-7970x, 1 rtx-pro-6000-blackwell, 4 ddr5-rdimm-64gb, 1 psu-atx-1600w")
    crowded = validate_body(snapshot, tower, production, storage=lines(("nvme-1tb", 2), ("nvme-4tb", 3)))
    assert [fix.text for fix in only(crowded, "fit.drive_bays").fixes] == ["remove 1× nvme-4tb"]
