"""Which parts the editor offers for a chassis (configurator/engine/part_fit.py): a part it greys out must be one
the rules refuse in that chassis, and a part it offers must pass those rules' single-part checks."""

from __future__ import annotations

from configurator.engine.builds import PART_KINDS, build_from_payload
from configurator.engine.part_fit import part_misfit
from configurator.engine.types import CatalogSnapshot
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of

#: the rule each misfit stands for: the editor never offers a part these would refuse
SINGLE_PART_RULES = {
    "gpus": {"fit.gpu_form_factor", "fit.gpu_slot_width", "fit.gpu_length", "fit.gpu_tdp"},
    "cpus": {"cpu.socket"},
    "memory": {"memory.kind", "memory.ecc_rdimm_required"},
    "psus": {"power.psu_form_factor"},
}
BASE = {
    "srv-8gpu-4u-epyc": "srv-8gpu-4u-epyc: 2 epyc-9554, 24 ddr5-rdimm-64gb, 4 psu-crps-3000w",
    "srv-hgx-h200-5u": "srv-hgx-h200-5u: 2 epyc-9754, 24 ddr5-rdimm-128gb, 6 psu-crps-3000w",
    "ws-tower-am5": "ws-tower-am5: 1 ryzen-9-9950x, 2 ddr5-udimm-48gb, 1 psu-atx-1300w",
}


def test_an_sxm_module_does_not_fit_a_pcie_chassis_and_a_pcie_card_not_an_hgx_board(
    snapshot: CatalogSnapshot,
) -> None:
    pcie, hgx = snapshot.chassis["srv-8gpu-4u-epyc"], snapshot.chassis["srv-hgx-h200-5u"]
    sxm, nvl = snapshot.gpus["h200-sxm"], snapshot.gpus["h200-nvl"]
    assert str(part_misfit("gpus", sxm, pcie)) == "SXM form factor; this chassis takes PCIe GPUs only"
    assert part_misfit("gpus", nvl, pcie) is None
    assert part_misfit("gpus", sxm, hgx) is None
    assert part_misfit("gpus", nvl, hgx) is not None
    assert part_misfit("gpus", sxm, None) is None  # no chassis chosen yet: everything is offered


def test_cpus_memory_and_psus_by_socket_kind_and_form_factor(snapshot: CatalogSnapshot) -> None:
    tower = snapshot.chassis["ws-tower-am5"]
    assert part_misfit("cpus", snapshot.cpus["ryzen-9-9950x"], tower) is None
    assert str(part_misfit("cpus", snapshot.cpus["epyc-9554"], tower)) == "socket SP5; this chassis has AM5"
    assert part_misfit("memory", snapshot.memory["ddr5-udimm-48gb"], tower) is None
    assert str(part_misfit("memory", snapshot.memory["ddr5-rdimm-64gb"], tower)) == "RDIMM; this chassis takes UDIMM"
    assert part_misfit("psus", snapshot.psus["psu-atx-1300w"], tower) is None
    assert part_misfit("psus", snapshot.psus["psu-crps-3000w"], tower) is not None
    assert part_misfit("storage", next(iter(snapshot.storage.values())), tower) is None


def test_greyed_parts_are_exactly_the_ones_the_single_part_rules_refuse(snapshot: CatalogSnapshot) -> None:
    """For three chassis and every active GPU, CPU, DIMM and PSU: put one in the chassis' base build and
    validate; the part is greyed out if and only if one of its single-part rules fires."""
    checked = 0
    for chassis_sku, base in BASE.items():
        chassis = snapshot.chassis[chassis_sku]
        body = body_of(base)
        for kind, rules in SINGLE_PART_RULES.items():
            assert kind in PART_KINDS
            for spec in snapshot.kind(kind).values():
                if not spec.is_active:
                    continue
                qty = 1 if kind in ("gpus", "psus") else (body[kind][0]["qty"] if body.get(kind) else 1)
                trial = {**body, kind: [{"sku": spec.sku, "qty": qty}]}
                verdict = validate(build_from_payload(trial, snapshot), snapshot=snapshot)
                fired = {f.code for f in verdict.findings if spec.sku in f.components} & rules
                assert (part_misfit(kind, spec, chassis) is not None) == bool(fired), (chassis_sku, spec.sku, fired)
                checked += 1
    assert checked > 100
