"""Issue 34, items 1, 2 and 5: the platform around the GPUs, compatibility by generation, rules an engineer
applies — each case with the answer a senior sales engineer signs.

Sources of the thresholds: configurator/engine/rules/platform.py and rules/memory.py (NVIDIA Enterprise RA
2-8-5 / 2-8-9, DGX H100/H200/B200 specifications).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.rules.platform import datacenter_server, total_cores
from configurator.engine.types import BuildSpec, CatalogSnapshot, Constraints, Workload
from configurator.engine.validate import validate
from configurator.use_cases import use_cases
from tests.configurator.helpers import body_of, codes, lines, only, validate_body

# HGX H200 as integrators quote it: 2 × 64-core EPYC (16 per GPU), mirrored boot + data NVMe, 25 GbE
HGX = body_of(
    "srv-hgx-h200-5u: 2 epyc-9554, 8 h200-sxm, 6 psu-crps-3000w, 24 ddr5-rdimm-96gb, 2 nvme-1tb, 2 nvme-4tb, 1 nic-25g",
    psu_redundancy="n+1",
)
# the trial's box: 2 × 16-core EPYC 9124, one 960 GB M.2, no network card
TRIAL_HGX = body_of(
    "srv-hgx-h200-5u: 2 epyc-9124, 8 h200-sxm, 6 psu-crps-3000w, 24 ddr5-rdimm-16gb, 1 nvme-1tb", psu_redundancy="n+1"
)
TRX50_MAXQ = body_of(
    "ws-tower-trx50: 1 tr-7960x, 3 rtx-pro-6000-blackwell-maxq, 1 psu-atx-2200w, 4 ddr5-rdimm-96gb, 1 nvme-2tb"
)
EIGHT_WS_CARDS = body_of(
    "srv-8gpu-6u-epyc: 2 epyc-9554, 8 rtx-pro-6000-blackwell, 4 psu-crps-3000w, 24 ddr5-rdimm-64gb, 3 nvme-2tb, "
    "1 nic-25g",
    psu_redundancy="n+1",
)


def _gens(snapshot: CatalogSnapshot) -> dict[str, str]:
    return {sku: gpu.module_socket for sku, gpu in snapshot.gpus.items() if gpu.form_factor != "pcie"}


# --------------------------------------------------------------------------- 2. compatibility by generation


def test_every_module_and_baseboard_names_its_generation(snapshot: CatalogSnapshot) -> None:
    assert _gens(snapshot) == {
        "a100-80gb-sxm": "sxm4",
        "h100-sxm": "hgx-h100",
        "h200-sxm": "hgx-h200",
        "b200-sxm": "sxm6",
        "b300-sxm": "hgx-b300",
        "mi300x": "oam",
        "mi325x": "oam",
    }
    assert {sku: c.baseboard_socket for sku, c in snapshot.chassis.items() if c.baseboard_socket} == {
        "srv-hgx-h200-5u": "hgx-h200"
    }
    assert all(gpu.module_socket == "" for gpu in snapshot.gpus.values() if gpu.form_factor == "pcie")


def test_a100_sxm4_in_the_hgx_h200_chassis_is_an_error_naming_both_generations(snapshot: CatalogSnapshot) -> None:
    verdict = validate_body(snapshot, HGX, gpus=lines(("a100-80gb-sxm", 8)))
    assert not verdict.valid
    finding = only(verdict, "fit.gpu_generation")
    assert (finding.severity, finding.measured, finding.limit) == ("error", "sxm4", "hgx-h200")
    assert finding.message == (
        "a100-80gb-sxm is an SXM4 module for the HGX A100 baseboard; srv-hgx-h200-5u has an HGX H200 8-GPU "
        "baseboard for H200 SXM5 modules only."
    )
    assert finding.components == ("a100-80gb-sxm", "srv-hgx-h200-5u")
    # the fix keeps the chassis and puts its own modules on it
    assert [fix.text for fix in finding.fixes] == ["replace a100-80gb-sxm with 8× h200-sxm"]
    # another form factor altogether (OAM) is the form-factor error only, not both
    oam = validate_body(snapshot, HGX, gpus=lines(("mi300x", 8)))
    assert "fit.gpu_form_factor" in oam.codes() and "fit.gpu_generation" not in oam.codes()
    # B200 (SXM6) on the SXM5 board: the generation error beside the TDP one
    assert {"fit.gpu_generation", "fit.gpu_tdp"} <= validate_body(snapshot, HGX, gpus=lines(("b200-sxm", 8))).codes()
    # the same chassis with its own generation has no such finding
    assert "fit.gpu_generation" not in codes(validate_body(snapshot, HGX))
    # issue 34 trial t34: the HGX H100 and HGX H200 8-GPU boards are distinct assemblies, each shipped with its
    # own modules: H100 SXM on the HGX H200 board is the same error, naming both
    h100 = only(validate_body(snapshot, HGX, gpus=lines(("h100-sxm", 8))), "fit.gpu_generation")
    assert h100.message == (
        "h100-sxm is an H100 SXM5 module for the HGX H100 8-GPU baseboard; srv-hgx-h200-5u has an HGX H200 8-GPU "
        "baseboard for H200 SXM5 modules only."
    )
    assert [fix.text for fix in h100.fixes] == ["replace h100-sxm with 8× h200-sxm"]


def test_the_recommender_never_offers_a_module_of_another_generation(snapshot: CatalogSnapshot) -> None:
    workload = Workload(model=model_get("llama-3.1-70b"), precision="bf16", engine="vllm", concurrent_users=64)
    result = recommend(snapshot, workload, Constraints(chassis=("srv-hgx-h200-5u",)), limit=5, suggest=False)
    assert result.candidates
    for candidate in result.candidates:
        assert {line.spec.module_socket for line in candidate.build.gpus} == {"hgx-h200"}


# --------------------------------------------------------------------------- 1. platform sizing


def test_hgx_h200_with_384_gb_of_ram_is_an_error_below_1x(snapshot: CatalogSnapshot) -> None:
    verdict = validate_body(snapshot, HGX, memory=lines(("ddr5-rdimm-16gb", 24)))  # 384 GB for 1,128 GB
    assert not verdict.valid
    finding = only(verdict, "memory.ram_below_vram")
    assert (finding.severity, finding.measured, finding.limit, finding.unit) == ("error", 384, 1128.0, "GB")
    assert "(0.34×)" in finding.message
    assert [fix.text for fix in finding.fixes] == ["replace memory with 24× ddr5-rdimm-96gb"]  # 2,304 GB ≥ 1.5 ×


def test_hgx_h200_below_1_5x_ram_is_a_warning_and_above_is_clean(snapshot: CatalogSnapshot) -> None:
    # the catalog's balanced populations: 24 × 64 GB = 1,536 GB = 1.36 ×, 24 × 96 GB = 2,304 GB = 2.04 ×
    warned = validate_body(snapshot, HGX, memory=lines(("ddr5-rdimm-64gb", 24)))
    finding = only(warned, "memory.ram_below_1_5x_vram")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 1536, 1692.0)
    assert warned.valid
    assert [fix.text for fix in finding.fixes] == ["replace memory with 24× ddr5-rdimm-96gb"]
    clean = validate_body(snapshot, HGX)
    assert clean.findings == (), [f.code for f in clean.findings]


def test_ram_ratio_thresholds_at_1x_1_2x_and_1_5x(snapshot: CatalogSnapshot) -> None:
    """The engineer's three answers for the HGX H200 (1,128 GB of HBM) at RAM = 1 ×, 1.2 × and 1.5 × its VRAM,
    with a DIMM spec of the exact size so the ratio is the one named."""
    base = validate_body(snapshot, HGX)
    dimm = snapshot.memory["ddr5-rdimm-96gb"]
    answers = {}
    for ratio, size in ((0.98, 46), (1.0, 47), (1.2, 57), (1.5, 71)):  # GB per DIMM × 24 DIMMs
        assert round(size * 24 / 1128, 2) in (ratio, ratio + 0.01)
        memory = (replace(dimm, sku=f"ddr5-rdimm-{size}gb", capacity_gb=size),)
        build = _build(snapshot, HGX)
        build = replace(build, memory=tuple(replace(line, spec=memory[0]) for line in build.memory))
        verdict = validate(build, snapshot=snapshot)
        answers[ratio] = sorted((f.code, f.severity) for f in verdict.findings if f.code.startswith("memory.ram"))
    assert base.valid
    assert answers == {
        0.98: [("memory.ram_below_vram", "error")],
        1.0: [("memory.ram_below_1_5x_vram", "warning")],
        1.2: [("memory.ram_below_1_5x_vram", "warning")],
        1.5: [],
    }


def _build(snapshot: CatalogSnapshot, body: dict[str, object]) -> BuildSpec:
    from configurator.engine.builds import build_from_payload

    return build_from_payload(body, snapshot)


def test_the_trial_box_gets_every_platform_finding(snapshot: CatalogSnapshot) -> None:
    """2 × EPYC 9124 (4 cores per GPU), 384 GB, one 960 GB M.2, no NIC: what the engineer would mark."""
    verdict = validate_body(snapshot, TRIAL_HGX)
    found = {(f.code, f.severity) for f in verdict.findings}
    assert found == {
        ("memory.ram_below_vram", "error"),
        ("platform.cpu_cores", "warning"),
        ("platform.boot_mirror", "warning"),
        ("platform.network", "warning"),
    }
    cores = only(verdict, "platform.cpu_cores")
    assert (cores.measured, cores.limit, cores.unit) == (32, 56, "cores")
    assert cores.fixes[0].ops[0].sku == "epyc-9354"  # 2 × 32 cores, the cheapest SP5 part with 7 per GPU
    assert [fix.text for fix in only(verdict, "platform.network").fixes] == ["add 1× nic-25g"]
    assert [fix.text for fix in only(verdict, "platform.boot_mirror").fixes] == ["add 1× nvme-1tb"]


def test_multi_node_asks_one_fabric_adapter_per_gpu_on_hgx(snapshot: CatalogSnapshot) -> None:
    workload = Workload(model=model_get("llama-3.1-70b"), precision="bf16", engine="vllm", multi_node=True)
    build = _build(snapshot, HGX)
    finding = only(validate(build, snapshot=snapshot, workload=workload), "platform.multi_node_nics")
    assert (finding.severity, finding.measured, finding.limit) == ("warning", 0, 8)
    assert [fix.text for fix in finding.fixes] == ["add 8× nic-200g"]
    single = validate(build, snapshot=snapshot, workload=replace(workload, multi_node=False))
    assert "platform.multi_node_nics" not in single.codes()


def test_workstations_keep_their_own_rules(snapshot: CatalogSnapshot) -> None:
    verdict = validate_body(snapshot, TRX50_MAXQ)
    assert not {code for code in verdict.codes() if code.startswith("platform.")}


# --------------------------------------------------------------------------- 5. rules an engineer applies


def test_three_maxq_cards_in_the_trx50_tower_are_valid_with_an_adapter(snapshot: CatalogSnapshot) -> None:
    verdict = validate_body(snapshot, TRX50_MAXQ)
    assert verdict.valid, [(f.code, f.message) for f in verdict.errors]
    note = only(verdict, "power.gpu_adapters")
    assert (note.severity, note.measured) == ("info", 1)
    assert "2 of the PCIe 8-pin leads" in note.message
    # the adapter counts against the PCIe leads: a PSU with 2 native 12V-2x6 and too few PCIe 8-pin is short
    psu = snapshot.psus["psu-atx-2200w"]
    starved = replace(_build(snapshot, TRX50_MAXQ), psus=())
    starved = replace(
        starved, psus=(type(_build(snapshot, TRX50_MAXQ).psus[0])(spec=replace(psu, connectors_pcie8=1), qty=1),)
    )
    short = only(validate(starved, snapshot=snapshot), "power.gpu_connectors")
    assert (short.severity, short.measured, short.limit) == ("error", 3, 2)


def test_a_maxq_build_the_recommender_offers_for_the_trx50_tower(snapshot: CatalogSnapshot) -> None:
    """The TRX50 tower sold "for up to 3 GPUs" takes three Max-Q cards with some catalog PSU."""
    from configurator.engine.recommend.policy import psu_sets, redundancy_for

    build = _build(snapshot, TRX50_MAXQ)
    carrying = [
        line.spec.sku
        for line in psu_sets(snapshot, build.chassis, redundancy_for(build.chassis))
        if validate(replace(build, psus=(line,)), snapshot=snapshot).valid
    ]
    assert "psu-atx-2200w" in carrying


def test_eight_flow_through_cards_in_a_rack_server_get_a_thermal_note(snapshot: CatalogSnapshot) -> None:
    verdict = validate_body(snapshot, EIGHT_WS_CARDS)
    finding = only(verdict, "cooling.flow_through_server")
    assert (finding.severity, finding.measured, finding.unit) == ("warning", 8, "GPUs")
    assert [fix.text for fix in finding.fixes] == [
        # the cheaper edition first (proving.order: same steps, least added cost)
        "replace rtx-pro-6000-blackwell with 8× rtx-pro-6000-blackwell-maxq",
        "replace rtx-pro-6000-blackwell with 8× rtx-pro-6000-blackwell-server",
    ]
    server_edition = validate_body(snapshot, EIGHT_WS_CARDS, gpus=lines(("rtx-pro-6000-blackwell-server", 8)))
    assert "cooling.flow_through_server" not in server_edition.codes()
    # the same cards in a workstation: the workstation's own airflow rules, no server note
    tower = validate_body(snapshot, TRX50_MAXQ, gpus=lines(("rtx-pro-6000-blackwell", 1)))
    assert "cooling.flow_through_server" not in tower.codes()


@pytest.mark.parametrize("noise", ["office", "lab"])
def test_noise_office_and_lab_never_return_a_rack_server(snapshot: CatalogSnapshot, noise: str) -> None:
    for case in use_cases():
        for workload, constraints in (
            (replace(case.workload, noise=noise), case.constraints),
            (case.workload, replace(case.constraints, noise=noise)),
        ):
            result = recommend(snapshot, workload, constraints, limit=3, suggest=False)
            for candidate in result.candidates:
                chassis = candidate.build.chassis
                assert chassis.is_workstation, (case.title, noise, chassis.sku)
                if noise == "office":
                    assert chassis.kind == "tower-workstation", (case.title, chassis.sku)


def test_noise_office_for_a_team_70b_gets_towers(snapshot: CatalogSnapshot) -> None:
    workload = Workload(
        model=model_get("llama-3.1-70b"), precision="q4_k_m", engine="llama.cpp", context_tokens=8192, noise="office"
    )
    result = recommend(snapshot, workload, Constraints(), limit=3)
    assert result.candidates
    assert {c.build.chassis.kind for c in result.candidates} == {"tower-workstation"}


# --------------------------------------------------------------------------- the article's use cases


def platform_rows(snapshot: CatalogSnapshot) -> list[tuple[str, BuildSpec, Workload]]:
    """Every data-centre GPU server among the recommendations of the article's ten use cases."""
    rows: list[tuple[str, BuildSpec, Workload]] = []
    for case in use_cases():
        result = recommend(snapshot, case.workload, case.constraints, limit=5, suggest=False)
        rows.extend((case.title, c.build, case.workload) for c in result.candidates if datacenter_server(c.build))
    return rows


def test_every_recommended_datacenter_server_meets_the_platform_rules(snapshot: CatalogSnapshot) -> None:
    rows = platform_rows(snapshot)
    assert len(rows) >= 5  # the article's server cases (production, 70B FP8 teams, 405B, DeepSeek …)
    for title, build, workload in rows:
        per_gpu = total_cores(build) / build.gpu_count
        training = workload.task != "inference"
        assert per_gpu >= (14 if training else 7), (title, build.chassis.sku, per_gpu)
        assert build.ram_gb >= (2.0 if training else 1.5) * build.total_vram_gib, (title, build.ram_gb)
        assert len({line.spec.sku for line in build.memory}) == 1  # one model, every channel alike
        assert sum(line.qty for line in build.storage) >= 3  # two mirrored boot drives + data
        assert max(line.spec.speed_gbps for line in build.nics) >= 25, (title, build.nics)
        verdict = validate(build, snapshot=snapshot, workload=workload)
        assert not {c for c in verdict.codes() if c.startswith("platform.") or c.startswith("memory.ram")}


def test_the_new_findings_read_in_russian(snapshot: CatalogSnapshot) -> None:
    from django.utils import translation

    from configurator.templatetags.configurator_ui import say

    findings = [
        *validate_body(snapshot, TRIAL_HGX, gpus=lines(("a100-80gb-sxm", 8))).findings,
        *validate_body(snapshot, TRX50_MAXQ).findings,
        *validate_body(snapshot, EIGHT_WS_CARDS).findings,
    ]
    with translation.override("ru"):
        said = {finding.code: str(say(finding.message)) for finding in findings}
    assert said["fit.gpu_generation"] == (
        "a100-80gb-sxm — модуль SXM4 для базовой платы HGX A100; в шасси srv-hgx-h200-5u стоит базовая плата "
        "HGX H200 8-GPU только для модулей H200 SXM5."
    )
    assert said["memory.ram_below_vram"].startswith("384 ГБ ОЗУ на 640 ГБ видеопамяти")
    assert said["platform.cpu_cores"].startswith("Ядер CPU — 32 на 8 GPU (4.0 на GPU)")
    assert said["platform.boot_mirror"].startswith("1 накопитель: продуктивный сервер")
    assert said["platform.network"].startswith("Нет сетевой карты")
    assert said["power.gpu_adapters"].startswith("1 GPU питается через переходник")
    assert said["cooling.flow_through_server"].startswith("8 карт для рабочих станций")
