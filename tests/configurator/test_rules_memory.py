"""Memory rules (configurator/rules/memory.py): kind and ECC, mixing, slots, channel population, DPC, RAM/VRAM.

Sources: validation-rules.md §5 (RDIMM ECC platforms [V23]; 12 channels per EPYC socket [V25], 1 DPC full
speed and 2 DPC slower: DDR5-4800 → 4400 [V1]; RAM ≥ 2× VRAM advice, WARN below 1× [V26][V27]).
"""

from __future__ import annotations

from typing import Any

from configurator.engine.types import CatalogSnapshot, Verdict
from tests.configurator.helpers import body_of, codes, lines, only, validate_body

# 2 × EPYC 9554: 12 channels per socket, 24 slots
SERVER = body_of(
    "srv-4gpu-2u-epyc: 2 epyc-9554, 4 l40s, 4 psu-crps-2000w, 24 ddr5-rdimm-32gb, 2 nvme-1tb, 1 nic-25g",
    psu_redundancy="n+1",
)
XEON = {  # 2 × Xeon 8480+: 8 channels per socket, 32 slots (2 DPC possible)
    **SERVER,
    "chassis": "srv-4gpu-2u-xeon",
    "cpus": lines(("xeon-8480plus", 2)),
    "memory": lines(("ddr5-rdimm-64gb", 16)),
}
TOWER = body_of("ws-tower-am5: 1 ryzen-9-9950x, 1 rtx-5090, 1 psu-atx-1300w, 2 ddr5-udimm-48gb")


def check(snapshot: CatalogSnapshot, body: dict[str, Any], **changes: Any) -> Verdict:
    return validate_body(snapshot, body, **changes)


def memory_codes(verdict: Verdict) -> set[str]:
    return codes(verdict, "memory.")


def test_passing_builds(snapshot: CatalogSnapshot) -> None:
    assert check(snapshot, SERVER).findings == ()  # 768 GB for 192 GB VRAM, 12 DIMMs per socket
    assert check(snapshot, XEON).findings == ()
    assert check(snapshot, TOWER).findings == ()


def test_no_memory(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, memory=[]), "memory.none")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 0, 1)
    # one DIMM per channel, the smallest size giving ≥ 2 × 192 GB of VRAM: 24 × 16 GB = 384 GB
    assert finding.fixes[0].text == "add 24× ddr5-rdimm-16gb"


def test_udimm_in_an_epyc_server(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SERVER, memory=lines(("ddr5-udimm-32gb", 24)))
    finding = only(verdict, "memory.ecc_rdimm_required")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "udimm", "rdimm")
    assert finding.fixes[0].text == "replace ddr5-udimm-32gb with 24× ddr5-rdimm-32gb"


def test_rdimm_in_a_desktop_board(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, TOWER, memory=lines(("ddr5-rdimm-64gb", 2))), "memory.kind")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "rdimm", "udimm")


def test_ecc_and_non_ecc_mixed(snapshot: CatalogSnapshot) -> None:
    mixed = check(snapshot, SERVER, memory=lines(("ddr5-rdimm-32gb", 12), ("ddr5-udimm-32gb", 12)))
    finding = only(mixed, "memory.ecc_mixed")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "ecc + non-ecc", "one kind")


def test_mixed_modules(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SERVER, memory=lines(("ddr5-rdimm-32gb", 12), ("ddr5-rdimm-64gb", 12)))
    finding = only(verdict, "memory.mixed_modules")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 2, 1)
    assert "memory.ecc_mixed" not in memory_codes(verdict)


def test_dimm_slots(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, SERVER, memory=lines(("ddr5-rdimm-32gb", 26))), "memory.dimm_slots")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 26, 24)
    # 832 GB in fewer, larger DIMMs, every channel alike (trial tr34: 13× left 13 of 24 channels used, which
    # memory.population then warned about); the cheaper way, 2 DIMMs out, is the other fix
    assert [fix.text for fix in finding.fixes] == [
        "replace memory with 24× ddr5-rdimm-64gb",
        "remove 2× ddr5-rdimm-32gb",
    ]
    fixed = check(snapshot, SERVER, memory=lines(("ddr5-rdimm-64gb", 24)))
    assert "memory.population" not in memory_codes(fixed)


def test_dimm_slots_fix_fills_every_channel(snapshot: CatalogSnapshot) -> None:
    """Trial tr34: 32× 64 GB in an HGX H200 server (24 slots) → 24× 96 GB, not 22× (11 of 12 channels)."""
    body = body_of(
        "srv-hgx-h200-5u: 2 epyc-9454, 8 h200-sxm, 6 psu-crps-3000w, 32 ddr5-rdimm-64gb, 2 nvme-4tb, 8 nic-400g",
        psu_redundancy="n+1",
    )
    finding = only(check(snapshot, body), "memory.dimm_slots")
    assert finding.fixes[0].text == "replace memory with 24× ddr5-rdimm-96gb"
    assert memory_codes(check(snapshot, body, memory=lines(("ddr5-rdimm-96gb", 24)))) == set()


def test_dimm_slots_of_an_empty_socket_do_not_count(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SERVER, cpus=lines(("epyc-9554", 1)))
    assert only(verdict, "memory.dimm_slots").limit == 12


def test_population_uneven_channels(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SERVER, memory=lines(("ddr5-rdimm-64gb", 16)))
    finding = only(verdict, "memory.population")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == (
        "warning",
        8.0,
        12,
        "DIMMs per socket",
    )
    assert "~67% of peak memory bandwidth" in finding.message  # 8 of 12 channels
    assert finding.fixes[0].text == "replace memory with 24× ddr5-rdimm-64gb (every channel alike)"


def test_two_dimms_per_channel(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, XEON, memory=lines(("ddr5-rdimm-64gb", 32)))
    finding = only(verdict, "memory.2dpc")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 2, 1)
    assert "4,400 MT/s instead of 4,800 MT/s" in finding.message
    assert "memory.population" not in memory_codes(verdict)


def test_ram_below_vram(snapshot: CatalogSnapshot) -> None:
    # a data-centre GPU server (issue 34): less RAM than VRAM is an error
    verdict = check(snapshot, SERVER, memory=lines(("ddr5-rdimm-16gb", 8)))  # 128 GB for 192 GB of VRAM
    finding = only(verdict, "memory.ram_below_vram")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 128, 192.0, "GB")
    assert finding.fixes[0].text == "replace memory with 24× ddr5-rdimm-16gb"  # 384 GB ≥ 1.5 × 192
    # a workstation: a warning, as before
    finding = only(check(snapshot, TOWER, memory=lines(("ddr5-udimm-16gb", 1))), "memory.ram_below_vram")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 16, 32.0)


def test_server_ram_below_one_and_a_half_vram(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, SERVER, memory=lines(("ddr5-rdimm-16gb", 24)))  # 384 GB = 2 × 192: fine
    assert memory_codes(verdict) == set()
    verdict = check(snapshot, SERVER, gpus=lines(("h200-nvl", 4)), memory=lines(("ddr5-rdimm-32gb", 24)))
    finding = only(verdict, "memory.ram_below_1_5x_vram")  # 768 GB for 564 GB = 1.36 ×
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 768, 846.0)
    assert finding.fixes[0].text == "replace memory with 24× ddr5-rdimm-64gb"
    verdict = check(snapshot, SERVER, gpus=lines(("h200-nvl", 4)), memory=lines(("ddr5-rdimm-64gb", 24)))
    assert memory_codes(verdict) == set()  # 1,536 GB = 2.7 ×


def test_workstation_ram_below_twice_vram(snapshot: CatalogSnapshot) -> None:
    body = body_of("ws-tr-pro-2gpu-4u5: 1 tr-pro-9995wx, 2 h200-nvl, 2 psu-crps-2000w, 8 ddr5-rdimm-64gb, 1 nvme-4tb")
    finding = only(check(snapshot, body, psu_redundancy="n+1"), "memory.ram_below_2x_vram")  # 512 GB for 282 GB
    assert (finding.severity, finding.measured, finding.limit) == ("info", 512, 564.0)
    assert finding.fixes[0].text == "replace memory with 8× ddr5-rdimm-96gb"
