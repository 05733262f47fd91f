"""CPU rules (configurator/rules/cpu.py): socket, socket count, 1P-only parts, identical CPUs, empty socket.

Sources: validation-rules.md §6 (EPYC "P" parts are 1P-only [S3]; Xeon W and Threadripper single-socket
[V1]; 2P boards need identical CPUs [V24]).
"""

from __future__ import annotations

from typing import Any

from configurator.engine.builds import build_from_payload
from configurator.engine.types import CatalogSnapshot, Verdict
from configurator.engine.validate import validate
from tests.configurator.helpers import body_of, codes, lines, only

SERVER = body_of(
    "srv-4gpu-2u-epyc: 2 epyc-9654, 4 l40s, 4 psu-crps-2000w, 24 ddr5-rdimm-64gb, 2 nvme-1tb, 1 nic-25g",
    psu_redundancy="n+1",
)


def check(snapshot: CatalogSnapshot, **changes: Any) -> Verdict:
    return validate(build_from_payload({**SERVER, **changes}, snapshot), snapshot=snapshot)


def cpu_codes(verdict: Verdict) -> set[str]:
    return codes(verdict, "cpu.")


def test_passing_build(snapshot: CatalogSnapshot) -> None:
    assert check(snapshot).findings == ()


def test_no_cpu(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, cpus=[]), "cpu.none")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 0, 1)
    assert finding.fixes[0].ops[0].sku == "epyc-9124"  # the cheapest SP5 part


def test_socket(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, cpus=lines(("xeon-8480plus", 2))), "cpu.socket")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "LGA4677", "SP5")
    assert [fix.ops[0].sku for fix in finding.fixes] == [
        "epyc-9454",
        "srv-4gpu-2u-xeon",
    ]  # 48 cores vs 56, or the board


def test_socket_count(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, cpus=lines(("epyc-9654", 3))), "cpu.count")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 3, 2)
    assert finding.fixes[0].text == "remove 1× epyc-9654"


def test_one_socket_part_in_a_2p_build(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, cpus=lines(("epyc-9654p", 2)))
    finding = only(verdict, "cpu.one_socket_part")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 2, 1, "sockets")
    # issue 12: "remove 1× epyc-9654p" is not offered: with one socket filled the 24 DIMMs have 12 slots
    assert [fix.text for fix in finding.fixes] == ["use cpu epyc-9654 ×2"]
    assert cpu_codes(verdict) == {"cpu.one_socket_part"}
    assert "cpu.one_socket_part" not in cpu_codes(check(snapshot, cpus=lines(("epyc-9654p", 1))))


def test_two_sockets_same_model(snapshot: CatalogSnapshot) -> None:
    finding = only(check(snapshot, cpus=lines(("epyc-9654", 1), ("epyc-9554", 1))), "cpu.mixed")
    assert (finding.severity, finding.measured, finding.limit) == ("error", 2, 1)
    assert finding.fixes[0].text == "use cpu epyc-9654 ×2"


def test_empty_socket(snapshot: CatalogSnapshot) -> None:
    verdict = check(snapshot, cpus=lines(("epyc-9654", 1)), memory=lines(("ddr5-rdimm-64gb", 12)))
    finding = only(verdict, "cpu.socket_empty")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 1, 2)
    assert finding.fixes[0].text == "add 1× epyc-9654"
