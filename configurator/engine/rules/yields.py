"""What each rule can find: the (code, severity) pairs it yields, by `concern.rule`.

engine.proving reads them to skip, while proving a fix, the rules that cannot matter to the proof: a rule
that can yield neither the finding being answered nor an error code the build does not already have.
tests/configurator/test_proving_incremental.py checks the pairs against what the rules yield on the shared
builds, the platform checks and random catalog builds, and that each code is a FindingCode. FINDING_READS (below)
says which rules read fewer build fields when they only find (no fixes searched).
"""

from __future__ import annotations

E, W, INFO = "error", "warning", "info"

YIELDS: dict[str, frozenset[tuple[str, str]]] = {
    name: frozenset(pairs)
    for name, pairs in {
        "power.psu_capacity": {("power.psu_capacity", E), ("power.headroom", W)},
        "power.psu_models": {("power.psu_mixed", E)},
        "power.psu_form_factor": {("power.psu_form_factor", E)},
        "power.psu_bays": {("power.psu_bays", E)},
        "power.psu_redundancy": {("power.redundancy_count", E), ("power.redundancy_unsupported", E)},
        "power.input_voltage": {("power.input_voltage", E)},
        "power.gpu_power_connectors": {("power.gpu_connectors", E), ("power.gpu_adapters", INFO)},
        "power.circuit_120v": {("power.circuit_120v", E)},
        "power.atx_transients": {("power.transient", W)},
        "pcie.gpu_slot_links": {("pcie.slot_lanes", E), ("pcie.x8_fallback", W)},
        "pcie.dead_gpu_positions": {("pcie.dead_slots", E)},
        "pcie.shared_uplinks": {("pcie.shared_uplink", W)},
        "pcie.switch_p2p": {("pcie.p2p_acs", INFO)},
        "pcie.cpu_lane_budget": {("pcie.lanes", E)},
        "fit.gpu_count": {("fit.gpu_count", E)},
        "fit.baseboard_count": {("fit.baseboard_count", E)},
        "fit.gpu_slot_width": {("fit.gpu_slot_width", E)},
        "fit.gpu_length": {("fit.gpu_length", E)},
        "fit.gpu_tdp": {("fit.gpu_tdp", E)},
        "fit.gpu_form_factor": {("fit.gpu_form_factor", E)},
        "fit.gpu_generation": {("fit.gpu_generation", E)},
        "fit.gpu_height": {("fit.gpu_height", E)},
        "fit.passive_airflow": {("cooling.passive_airflow", E)},
        "fit.axial_density": {("cooling.axial_density", W)},
        "fit.flow_through_in_server": {("cooling.flow_through_server", W), ("cooling.flow_through_server", INFO)},
        "fit.drive_bays": {("fit.drive_bays", E)},
        "fit.chassis_kind": {("fit.chassis_kind", E)},
        "interconnect.no_nvlink": {("interconnect.no_nvlink", E)},
        "interconnect.mixed_gpus": {("interconnect.mixed_gpus", W)},
        "interconnect.bridge_mismatch": {("interconnect.bridge_mismatch", E)},
        "interconnect.mixed_models": {("interconnect.mixed_models", E)},
        "interconnect.bridge_ways": {("interconnect.bridge_ways", E)},
        "interconnect.bridge_count": {
            ("interconnect.bridge_count", E),
            ("interconnect.bridge_missing", W),
            ("interconnect.unbridged_gpu", W),
        },
        "interconnect.bridge_suggested": {("interconnect.no_bridge", INFO)},
        "interconnect.nvswitch": {("interconnect.nvswitch", E)},
        "interconnect.bridge_spacing": {("interconnect.bridge_spacing", E)},
        "interconnect.tensor_parallel_over_pcie": {
            ("interconnect.tp_over_pcie", W),
            ("interconnect.tp_over_pcie", INFO),
            ("interconnect.tp_partly_bridged", W),
            ("interconnect.tp_over_sockets", W),
            ("interconnect.tp_over_sockets", INFO),
        },
        "cpu.cpu_present": {("cpu.none", E)},
        "cpu.cpu_socket": {("cpu.socket", E)},
        "cpu.cpu_count": {("cpu.count", E)},
        "cpu.one_socket_parts": {("cpu.one_socket_part", E)},
        "cpu.identical_cpus": {("cpu.mixed", E)},
        "cpu.empty_socket": {("cpu.socket_empty", W)},
        "memory.memory_present": {("memory.none", E)},
        "memory.memory_kind": {("memory.ecc_rdimm_required", E), ("memory.kind", E)},
        "memory.memory_mix": {("memory.ecc_mixed", E), ("memory.mixed_modules", W)},
        "memory.dimm_slots": {("memory.dimm_slots", E)},
        "memory.population": {("memory.population", W)},
        "memory.dimms_per_channel": {("memory.2dpc", W)},
        "memory.ram_vs_vram": {
            ("memory.ram_below_vram", E),
            ("memory.ram_below_vram", W),
            ("memory.ram_below_1_5x_vram", W),
            ("memory.ram_below_2x_vram", W),
            ("memory.ram_below_2x_vram", INFO),
        },
        "platform.cpu_cores": {("platform.cpu_cores", W)},
        "platform.boot_mirror": {("platform.boot_mirror", W)},
        "platform.network": {("platform.network", W)},
        "platform.multi_node_nics": {("platform.multi_node_nics", W)},
        "ecc.gpu_ecc": {("ecc.gpu_required", E)},
        "ecc.memory_ecc": {("ecc.memory_required", E)},
        "workload.estimate_problem": {("workload.estimate", E)},
        "workload.vram_fit": {("workload.no_gpu", E), ("workload.vram", E)},
        "workload.decode_speed": {("workload.speed", W)},
        "workload.engine_support": {("workload.engine_support", E), ("workload.rocm_stack", W)},
        "workload.precision_kernels": {("workload.precision_unsupported", E), ("workload.precision_weight_only", W)},
    }.items()
}


# What a rule reads when no fixes are wanted (rules.context.findings_only: engine.proving's focused checks), for
# the rules where that is less than their READS: the PSU fixes size a set for the whole load, the findings read
# only the PSUs. A proof re-runs such a rule only when the fix changes one of these fields.
# tests/configurator/test_proving_incremental.py checks them by recording, like READS.
FINDING_READS: dict[str, frozenset[str]] = {
    "power.psu_form_factor": frozenset({"chassis", "psus"}),
    "power.psu_bays": frozenset({"chassis", "psus"}),
    "power.psu_redundancy": frozenset({"chassis", "psu_redundancy", "psus"}),
    "power.input_voltage": frozenset({"psus", "site_voltage"}),
    "power.gpu_power_connectors": frozenset({"chassis", "gpus", "psus"}),
}


def rule_name(rule: object) -> str:
    """`concern.rule` of a rule function (the key of YIELDS)."""
    module = getattr(rule, "__module__", "").rsplit(".", 1)[-1]
    return f"{module}.{getattr(rule, '__name__', '')}"
