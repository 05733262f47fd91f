"""Words the web pages show for the domain's codes, translated (the domain itself speaks English).

Findings carry a stable `code` and an English `message`; the pages show a translated title per code,
translated units and choice labels, and keep the English message one click away. A code or unit missing
here falls back to the raw value, so a new rule never breaks a page.

The value sets the engine shares (configurator.engine.enums) are `TextChoices` here, or in catalog.models
for the catalog's columns: one label per value, translated in django.po.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from django.db import models
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from configurator.engine import enums

FINDING_TITLES: dict[str, Promise] = {
    "cpu.none": _("No CPU"),
    "cpu.socket": _("The CPU does not fit the socket"),
    "cpu.count": _("Wrong number of CPUs"),
    "cpu.one_socket_part": _("A single-socket CPU in a multi-socket build"),
    "cpu.mixed": _("Different CPU models"),
    "cpu.socket_empty": _("An empty CPU socket"),
    "ecc.gpu_required": _("GPUs without ECC memory"),
    "ecc.memory_required": _("System memory without ECC"),
    "fit.gpu_count": _("Too many GPUs for the chassis"),
    "fit.gpu_slot_width": _("The GPU is too thick for the slots"),
    "fit.gpu_length": _("The GPU is too long for the chassis"),
    "fit.gpu_tdp": _("The GPU draws more than the chassis can cool"),
    "fit.gpu_form_factor": _("The GPU form factor does not fit the chassis"),
    "fit.gpu_height": _("The GPU is too tall for the chassis"),
    "fit.drive_bays": _("Not enough drive bays"),
    "fit.chassis_kind": _("The chassis type does not suit the build"),
    "cooling.passive_airflow": _("Passive GPUs without server airflow"),
    "cooling.axial_density": _("Open-fan GPUs packed side by side"),
    "interconnect.no_nvlink": _("The GPUs have no NVLink"),
    "interconnect.bridge_mismatch": _("The bridge does not match the GPUs"),
    "interconnect.mixed_models": _("Different GPU models joined by a bridge"),
    "interconnect.mixed_gpus": _("Different GPU models in one build"),
    "fit.baseboard_count": _("The GPU baseboard is built for other counts"),
    "pcie.dead_slots": _("GPU positions on an empty CPU socket"),
    "interconnect.bridge_ways": _("Wrong bridge width for the GPU count"),
    "interconnect.bridge_count": _("Wrong number of bridge sets"),
    "interconnect.bridge_missing": _("NVLink bridges are missing"),
    "interconnect.unbridged_gpu": _("Some GPUs have no bridge"),
    "interconnect.no_bridge": _("NVLink is possible but not used"),
    "interconnect.nvswitch": _("This GPU needs an NVSwitch platform"),
    "interconnect.bridge_spacing": _("The bridge spacing does not match the slots"),
    "interconnect.tp_over_pcie": _("Tensor parallelism over PCIe"),
    "interconnect.tp_partly_bridged": _("Tensor parallelism beyond the NVLink bridges"),
    "interconnect.tp_over_sockets": _("Tensor parallelism across CPU sockets"),
    "memory.none": _("No system memory"),
    "memory.kind": _("Wrong memory type for the platform"),
    "memory.ecc_rdimm_required": _("ECC RDIMM memory is required"),
    "memory.ecc_mixed": _("ECC and non-ECC modules mixed"),
    "memory.mixed_modules": _("Different memory modules"),
    "memory.dimm_slots": _("Not enough memory slots"),
    "memory.population": _("Memory channels filled unevenly"),
    "memory.2dpc": _("Two modules per channel lower the memory speed"),
    "memory.ram_below_vram": _("Less system memory than video memory"),
    "memory.ram_below_2x_vram": _("System memory below twice the video memory"),
    "memory.ram_below_1_5x_vram": _("System memory below 1.5 times the video memory"),
    "fit.gpu_generation": _("The GPU module is of another baseboard generation"),
    "cooling.flow_through_server": _("Workstation cards with flow-through coolers in a server"),
    "power.gpu_adapters": _("GPUs powered through 2 × 8-pin adapters"),
    "platform.cpu_cores": _("Too few CPU cores per GPU"),
    "platform.boot_mirror": _("No mirrored boot drives"),
    "platform.network": _("No server network card"),
    "platform.multi_node_nics": _("Too few network cards for a multi-node job"),
    "pcie.slot_lanes": _("Not enough PCIe lanes in the GPU slots"),
    "pcie.x8_fallback": _("GPUs run at PCIe x8"),
    "pcie.shared_uplink": _("GPUs share a PCIe uplink"),
    "pcie.p2p_acs": _("PCIe switches: check the peer-to-peer settings"),
    "pcie.lanes": _("Not enough CPU PCIe lanes"),
    "power.psu_capacity": _("Not enough PSU power"),
    "power.headroom": _("Little PSU headroom"),
    "power.psu_mixed": _("Different PSU models"),
    "power.psu_form_factor": _("The PSU form factor does not fit the chassis"),
    "power.psu_bays": _("Not enough PSU bays"),
    "power.redundancy_unsupported": _("The chassis does not support this redundancy"),
    "power.redundancy_count": _("The PSU count does not match the redundancy"),
    "power.input_voltage": _("The PSU does not run on the site voltage"),
    "power.gpu_connectors": _("Not enough GPU power cables"),
    "power.circuit_120v": _("The load exceeds a 120 V circuit"),
    "power.transient": _("Power spikes can trip the PSU"),
    "workload.estimate": _("The workload cannot be estimated"),
    "workload.no_gpu": _("No GPU for the workload"),
    "workload.vram": _("Not enough video memory for the workload"),
    "workload.speed": _("Slower than the target speed"),
    "workload.engine_support": _("The inference engine does not support these GPUs"),
    "workload.rocm_stack": _("AMD GPUs need the ROCm software stack"),
    "workload.precision_unsupported": _("The GPU cannot run this precision"),
    "workload.precision_weight_only": _("The GPU runs this precision weight-only"),
}

UNITS: dict[str, Promise] = {
    "W": pgettext_lazy("unit", "W"),
    "V": pgettext_lazy("unit", "V"),
    "GiB": pgettext_lazy("unit", "GiB"),
    "GB": pgettext_lazy("unit", "GB"),
    "GB/s": pgettext_lazy("unit", "GB/s"),
    "TB": pgettext_lazy("unit", "TB"),
    "MT/s": pgettext_lazy("unit", "MT/s"),
    "Gb/s": pgettext_lazy("unit", "Gb/s"),
    "tokens/s": pgettext_lazy("unit", "tokens/s"),
    "U": pgettext_lazy("unit", "U"),
    "mm": pgettext_lazy("unit", "mm"),
    "ms": pgettext_lazy("unit", "ms"),
    "%": pgettext_lazy("unit", "%"),
    "CPUs": pgettext_lazy("unit", "CPUs"),
    "GPUs": pgettext_lazy("unit", "GPUs"),
    "PSUs": pgettext_lazy("unit", "PSUs"),
    "DIMMs": pgettext_lazy("unit", "DIMMs"),
    "lanes": pgettext_lazy("unit", "lanes"),
    "slots": pgettext_lazy("unit", "slots"),
    "sockets": pgettext_lazy("unit", "sockets"),
    "drives": pgettext_lazy("unit", "drives"),
    "models": pgettext_lazy("unit", "models"),
    "bridge sets": pgettext_lazy("unit", "bridge sets"),
    "bridged GPUs": pgettext_lazy("unit", "bridged GPUs"),
    "GPUs per bridge": pgettext_lazy("unit", "GPUs per bridge"),
    "GPUs per uplink": pgettext_lazy("unit", "GPUs per uplink"),
    "DIMMs per channel": pgettext_lazy("unit", "DIMMs per channel"),
    "DIMMs per socket": pgettext_lazy("unit", "DIMMs per socket"),
    "CPU models": pgettext_lazy("unit", "CPU models"),
    "DIMM models": pgettext_lazy("unit", "DIMM models"),
    "GPU models": pgettext_lazy("unit", "GPU models"),
    "cores": pgettext_lazy("unit", "cores"),
    "NICs": pgettext_lazy("unit", "NICs"),
    "adapters": pgettext_lazy("unit", "adapters"),
}


class Severity(models.TextChoices):
    ERROR = enums.Severity.ERROR.value, _("Error")
    WARNING = enums.Severity.WARNING.value, _("Warning")
    INFO = enums.Severity.INFO.value, _("Note")


PART_KIND_LABELS: dict[str, Promise] = {
    "chassis": _("Chassis"),
    "cpus": _("CPUs"),
    "gpus": _("GPUs"),
    "psus": _("Power supplies"),
    "memory": _("Memory"),
    "storage": _("Storage"),
    "nics": _("Network cards"),
    "bridges": _("NVLink bridges"),
}


class Task(models.TextChoices):
    INFERENCE = enums.Task.INFERENCE.value, _("Inference")
    LORA = enums.Task.LORA.value, _("LoRA fine-tuning")
    QLORA = enums.Task.QLORA.value, _("QLoRA fine-tuning")
    FULL_FINETUNE = enums.Task.FULL_FINETUNE.value, _("Full fine-tuning")


class FormFactor(models.TextChoices):
    ANY = enums.FormFactor.ANY.value, _("Any")
    WORKSTATION = enums.FormFactor.WORKSTATION.value, _("Workstation")
    RACK = enums.FormFactor.RACK.value, _("Rack server")


class Redundancy(models.TextChoices):
    NONE = enums.Redundancy.NONE.value, _("none")
    N_PLUS_1 = enums.Redundancy.N_PLUS_1.value, _("N+1")
    N_PLUS_N = enums.Redundancy.N_PLUS_N.value, _("N+N")


PARALLELISM_LABELS: dict[str, Promise] = {
    "single": _("one GPU"),
    "pipeline": _("split by layers"),
    "tensor": _("tensor parallel"),
    "dp_attention": _("data-parallel attention, MoE tensor parallel"),
    "data": _("data parallel"),
}

MEMORY_PARTS: tuple[tuple[str, Promise], ...] = (
    ("weights", _("Weights")),
    ("kv_cache", _("KV cache")),
    ("activations", _("Activations")),
    ("gradients", _("Gradients")),
    ("optimizer", _("Optimizer")),
    ("overhead", _("Overhead")),
)

#: The article's use cases (configurator.use_cases) as the workload page's presets.
USE_CASE_TITLES: dict[str, Promise] = {
    "beginner-chat": _("7–8B chat for a beginner (Q4)"),
    "30b-workstation": _("30B model on a workstation (Q4)"),
    "70b-team": _("70B for a team of five (Q4)"),
    "lora-8b": _("LoRA of an 8B model"),
    "qlora-70b": _("QLoRA of a 70B model"),
    "full-ft-8b": _("Full fine-tuning of an 8B model"),
    "70b-fp8-50-users": _("70B FP8 serving 50 users"),
    "deepseek-v3": _("DeepSeek-V3 serving"),
    "405b-fp8": _("405B in FP8"),
    "production-ecc": _("Production service with ECC"),
}


#: The inference engines as their projects spell them (the README of each: ggml-org/llama.cpp, vllm-project/vllm,
#: sgl-project/sglang, NVIDIA/TensorRT-LLM, huggingface/transformers); product names, the same in every language.
ENGINE_LABELS: dict[str, Promise] = {
    "llama.cpp": _("llama.cpp"),
    "vllm": _("vLLM"),
    "sglang": _("SGLang"),
    "tensorrt-llm": _("TensorRT-LLM"),
    "transformers": _("Hugging Face Transformers"),
}

LabelTable = Mapping[str, Promise | str] | type[models.Choices]


def label(table: LabelTable, key: str | None) -> str:
    """The translated label of `key` in a table or a `TextChoices`, or `key` itself when it has none."""
    if key is None:
        return ""
    if isinstance(table, type):
        return str(table(key).label) if key in table.values else key
    found = table.get(key)
    return str(found) if found is not None else key


def label_filters(library: Any, **tables: LabelTable) -> None:
    """Register one template filter per table on `library`: `{{ code|<name> }}` → the code's label."""
    for name, table in tables.items():
        library.filter(name, partial(label, table))


# --------------------------------------------------------------------------- codes inside findings (issue 37 item 2)

#: The words the rules write as a finding's measured value or limit when it is not a number; the door shows
#: their labels ("Сейчас SXM-модуль, предел PCIe-карта", not "Сейчас sxm, предел pcie").
VALUE_WORDS: dict[str, Promise] = {
    "server airflow": _("server airflow"),
    "no ecc": _("without ECC"),
    "ecc": _("with ECC"),
    "ecc + non-ecc": _("ECC and non-ECC together"),
    "one kind": _("one kind"),
    "no GPU": _("no GPU"),
    "no nvswitch": _("no NVSwitch"),
    "nvswitch": _("NVSwitch"),
}

REDUNDANCY_WORDS: dict[str, Promise] = {
    enums.Redundancy.NONE.value: _("no redundancy"),
    enums.Redundancy.N_PLUS_1.value: _("N+1"),
    enums.Redundancy.N_PLUS_N.value: _("N+N"),
}


#: Where the machine will stand (engine.enums.Noise; "any" is FormFactor's "Any").
NOISE_WORDS: dict[str, Promise] = {
    enums.Noise.OFFICE.value: _("office"),
    enums.Noise.LAB.value: _("lab"),
    enums.Noise.SERVER_ROOM.value: _("server room"),
}


def _choice_labels(choices: type[models.Choices]) -> dict[str, Promise | str]:
    return {str(value): label for value, label in choices.choices}


def _value_tables() -> tuple[dict[str, LabelTable], tuple[LabelTable, ...]]:
    from catalog import choices  # the catalog's choice sets carry the labels of the engine's part enums

    by_code: dict[str, LabelTable] = {
        "fit.gpu_form_factor": choices.GpuFormFactor,
        "fit.gpu_generation": choices.GpuSocket,
        "fit.chassis_kind": choices.ChassisKind,
        "power.psu_form_factor": choices.PsuFormFactor,
        "memory.kind": choices.MemoryKind,
        "power.redundancy_unsupported": REDUNDANCY_WORDS,
        "power.redundancy_count": REDUNDANCY_WORDS,
        "interconnect.no_nvlink": choices.NvlinkKind,
        "cooling.passive_airflow": choices.Cooling,
        "workload.engine_support": ENGINE_LABELS,
    }
    # values that mean one thing wherever they appear ("none" and "oam" do not: they are left to `by_code`)
    general: tuple[LabelTable, ...] = (
        VALUE_WORDS,
        choices.ChassisKind,
        choices.NvlinkKind,
        choices.Cooling,
        choices.PsuFormFactor,
        choices.MemoryKind,
        choices.StorageInterface,
        {key: value for key, value in REDUNDANCY_WORDS.items() if key != "none"},
        Task,
        ENGINE_LABELS,
        {"sxm": _("SXM module"), "pcie": _("PCIe card"), "oam": _("OAM")},
        {key: value for key, value in _choice_labels(choices.PowerConnector).items() if key != "none"},
        choices.PcieTopology,
        {key: value for key, value in _choice_labels(choices.GpuSocket).items() if key not in ("", "oam")},
        FormFactor,
        NOISE_WORDS,
    )
    return by_code, general


def _one_value(word: str, code: str) -> str:
    by_code, general = _value_tables()
    for table in ((by_code[code],) if code in by_code else ()) + general:
        said = label(table, word)
        if said != word or (isinstance(table, type) and word in table.values):
            return said
    return word


def value_label(value: Any, code: str = "", names: Mapping[str, str] | None = None) -> Any:
    """A finding's measured value or limit, or a string a phrase carries, in the reader's words: a code of the
    engine's value sets as its translated label (the finding's `code` picks the set where a value means
    different things: "none", "oam"), a catalog SKU as the part's name (`names`), lists the rules joined
    (", ", " or ") item by item. Numbers and anything unknown pass through."""
    if not isinstance(value, str) or not value:
        return value
    names = names or {}
    if value in names:
        return names[value]
    whole = _one_value(value, code)
    if whole != value:
        return whole
    for joint, shown in ((" or ", " / "), (", ", ", ")):
        if joint in value:
            return shown.join(str(value_label(part, code, names)) for part in value.split(joint))
    return value
