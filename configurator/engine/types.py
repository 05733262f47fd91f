"""The configurator's vocabulary: frozen dataclasses with no Django imports.

Units are part of every field name (`_gib` = 2^30 bytes, `_gbs` = GB/s, `_w` = watts, `_mm`). Everything
below this module (estimate, rules, validate, recommend) takes and returns these types."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from decimal import Decimal
from enum import StrEnum
from typing import Generic, Literal, TypeVar

# the catalog specs live in engine.specs; the engine and the project import them from here as well
from configurator.engine.frozen import HashOnce, direct_init, hash_once
from configurator.engine.specs import (  # noqa: F401 - re-exported
    BridgeSpec,
    CatalogSnapshot,
    ChassisSpec,
    CpuSpec,
    GpuSpec,
    MemorySpec,
    NicSpec,
    PartSpec,
    PsuSpec,
    StorageSpec,
)

Severity = Literal["error", "warning", "info"]
Redundancy = Literal["none", "n+1", "n+n"]
Task = Literal["inference", "lora", "qlora", "full_finetune"]

REDUNDANCY_MODES: tuple[str, ...] = ("none", "n+1", "n+n")
SITE_VOLTAGES: tuple[int, ...] = (230, 120)
TASKS: tuple[str, ...] = ("inference", "lora", "qlora", "full_finetune")
NOISE_LEVELS: tuple[str, ...] = ("any", "office", "lab", "server_room")
PRECISIONS: tuple[str, ...] = (
    "fp32", "bf16", "fp16", "fp8", "int8", "int4", "nvfp4", "mxfp4", "q8_0", "q6_k", "q5_k_m", "q5_k_s",
    "q4_k_m", "q4_k_s", "q4_0", "iq4_xs", "q3_k_m", "q2_k",
)  # fmt: skip
GGUF_PRECISIONS: frozenset[str] = frozenset(
    {"q8_0", "q6_k", "q5_k_m", "q5_k_s", "q4_k_m", "q4_k_s", "q4_0", "iq4_xs", "q3_k_m", "q2_k"}
)
KV_PRECISIONS: tuple[str, ...] = ("f16", "bf16", "fp8", "q8_0", "q4_0")
ENGINES: tuple[str, ...] = ("llama.cpp", "vllm", "sglang", "tensorrt-llm", "transformers")
OPTIMIZERS: tuple[str, ...] = ("adamw", "adamw_8bit")
# Training frameworks whose memory rules differ (configurator.engine.estimate.training): Hugging Face Trainer +
# PEFT with bf16 mixed precision (the default), torchtune (pure bf16), Unsloth (PEFT with its kernels).
# LitGPT (pure bf16, `precision: bf16-true`), torchtitan (FSDP2 with fp32 sharded parameters) and Megatron-LM /
# NeMo (distributed optimizer, fp32 master) were added with the training-at-scale rows (issue 33).
FRAMEWORKS: tuple[str, ...] = ("hf_trainer", "torchtune", "unsloth", "litgpt", "torchtitan", "megatron")
# CPU offload of sharded training (DeepSpeed ZeRO-Offload `offload_optimizer` / `offload_param`, FSDP
# `CPUOffload(offload_params=True)`): none, the optimizer states and step, or the parameters and gradients too
OFFLOADS: tuple[str, ...] = ("none", "optimizer", "parameters")
# Activation checkpointing (Workload.activation_checkpointing; configurator.engine.estimate.training): keep every
# activation, keep part of each layer's and recompute the rest (torchtitan `selective` op policy), or keep only
# each layer's input and recompute the layer (full)
CHECKPOINTING_MODES: tuple[str, ...] = ("none", "selective", "full")
# Precision of the training matmuls (Workload.training_precision): BF16, or FP8 linear layers (torchao Float8Linear,
# Transformer Engine) on GPUs with FP8 tensor cores
TRAINING_PRECISIONS: tuple[str, ...] = ("bf16", "fp8")


# --------------------------------------------------------------------------- builds


SpecT = TypeVar("SpecT")


@direct_init
@dataclass(frozen=True, slots=True)
class Line(Generic[SpecT]):
    spec: SpecT
    qty: int


@direct_init
@dataclass(frozen=True, slots=True)
class BuildSpec:
    chassis: ChassisSpec
    cpus: tuple[Line[CpuSpec], ...] = ()
    gpus: tuple[Line[GpuSpec], ...] = ()
    psus: tuple[Line[PsuSpec], ...] = ()
    memory: tuple[Line[MemorySpec], ...] = ()
    storage: tuple[Line[StorageSpec], ...] = ()
    nics: tuple[Line[NicSpec], ...] = ()
    bridges: tuple[Line[BridgeSpec], ...] = ()
    psu_redundancy: str = "none"
    site_voltage: int = 230
    # Totals of the lines, worked out once when the build is made (not compared, hashed or shown: they follow
    # from the lines): the rules and the proving of fixes ask them some fifty times per validation.
    gpu_count: int = field(init=False, compare=False, hash=False, repr=False)
    cpu_count: int = field(init=False, compare=False, hash=False, repr=False)
    psu_count: int = field(init=False, compare=False, hash=False, repr=False)
    dimm_count: int = field(init=False, compare=False, hash=False, repr=False)
    total_vram_gib: float = field(init=False, compare=False, hash=False, repr=False)
    ram_gb: int = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        # plain loops: proving makes a build per fix it tries, so this runs thousands of times a second
        put = object.__setattr__
        gpus, vram = 0, 0.0
        for gpu in self.gpus:
            gpus += gpu.qty
            vram += gpu.spec.vram_gib * gpu.qty
        dimms, ram = 0, 0
        for dimm in self.memory:
            dimms += dimm.qty
            ram += dimm.spec.capacity_gb * dimm.qty
        cpus = psus = 0
        for cpu in self.cpus:
            cpus += cpu.qty
        for psu in self.psus:
            psus += psu.qty
        put(self, "gpu_count", gpus)
        put(self, "total_vram_gib", vram if self.gpus else 0)  # as sum() gave it: 0 without GPUs
        put(self, "dimm_count", dimms)
        put(self, "ram_gb", ram)
        put(self, "cpu_count", cpus)
        put(self, "psu_count", psus)


#: The build fields (BuildSpec's parts, redundancy and voltage) without the totals worked out from them.
BUILD_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(BuildSpec) if f.init)
#: each total → the field it is worked out from
BUILD_TOTALS: dict[str, str] = {
    "gpu_count": "gpus",
    "cpu_count": "cpus",
    "psu_count": "psus",
    "dimm_count": "memory",
    "total_vram_gib": "gpus",
    "ram_gb": "memory",
}


# --------------------------------------------------------------------------- LLM workloads


@direct_init
@hash_once
@dataclass(frozen=True, slots=True)
class ModelArch(HashOnce):
    """A transformer's shape, enough to size weights, KV cache, activations and speed.

    `sliding_window_layers` of the `layers` attend only to the last `sliding_window` tokens. MLA models
    (DeepSeek-V2/V3) cache `kv_lora_rank + qk_rope_head_dim` values per layer instead of K and V."""

    __hash__ = HashOnce.__hash__  # worked out once (engine.frozen.HashOnce): a memo key of every search
    slug: str
    name: str
    hf_id: str
    family: str
    layers: int
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    total_params: int
    active_params: int
    tied_embeddings: bool = False
    experts: int = 0
    active_experts: int = 0
    moe_intermediate: int = 0
    shared_experts: int = 0
    dense_layers: int = 0  # leading dense layers of an MoE model (DeepSeek first_k_dense_replace)
    sliding_window: int | None = None
    sliding_window_layers: int = 0
    kv_lora_rank: int | None = None  # MLA
    qk_rope_head_dim: int | None = None  # MLA
    max_context: int = 8192
    native_precision: str = "bf16"
    source: str = ""
    generic_layout: bool = False  # an unknown config.json model_type sized by the generic dense-decoder rule
    # hybrid linear-attention models (Qwen3-Next, Qwen3.5): these layers keep a fixed recurrent + convolution
    # state per sequence (`linear_state_elements` values each) instead of a KV cache
    linear_attention_layers: int = 0
    linear_state_elements: int = 0
    # Nemotron-H (model_type nemotron_h): of the linear_attention_layers, these are Mamba-2 mixers; the rest are
    # MLP-only blocks (model_families.nemotron_h_fields)
    mamba_layers: int = 0
    # per-checkpoint precision maps: (precision, tensor kinds kept in bf16, whole layers kept in bf16, checkpoint)
    # for published quantized checkpoints that leave part of the model unquantized (Meta's 405B FP8: attention)
    precision_maps: tuple[tuple[str, tuple[str, ...], tuple[int, ...], str], ...] = ()

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def kv_layers(self) -> int:
        """Layers that cache K and V (hybrid models: the full-attention layers only)."""
        return self.layers - self.linear_attention_layers

    def precision_map(self, precision: str) -> tuple[tuple[str, ...], tuple[int, ...], str] | None:
        """(bf16 tensor kinds, bf16 layers, checkpoint) of the published checkpoint at `precision`, if mapped."""
        for mapped, kinds, layers, checkpoint in self.precision_maps:
            if mapped == precision:
                return kinds, layers, checkpoint
        return None


@direct_init
@hash_once
@dataclass(frozen=True, slots=True)
class Workload(HashOnce):
    __hash__ = HashOnce.__hash__  # worked out once (engine.frozen.HashOnce): a memo key of every search
    model: ModelArch
    task: str = "inference"
    precision: str = "bf16"
    kv_cache_precision: str = "f16"
    context_tokens: int = 4096
    concurrent_users: int = 1
    batch_size: int = 1
    engine: str = "vllm"
    target_tokens_per_s: float | None = None  # per user, decode
    # each user's request: prompt + output ≤ context_tokens; None: from the context (engines.request_tokens)
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    # server engines (vLLM, SGLang, TensorRT-LLM) replay decode steps as CUDA graphs unless run eagerly
    # (vLLM --enforce-eager); False: every kernel is launched from the host (calibration.EAGER_LAYER_S)
    cuda_graphs: bool = True
    require_ecc: bool = False
    production: bool = False
    # the job spans several nodes (cluster training or serving): 200-400G adapters per GPU (rules/platform.py)
    multi_node: bool = False
    # where the machine will stand (enums.Noise: any | office | lab | server_room); the recommender keeps office
    # and lab requests to towers and workstations (recommend.policy.chassis_pool, through Constraints.noise)
    noise: str = "any"
    # training
    optimizer: str = "adamw"
    gradient_checkpointing: bool = True
    lora_rank: int = 16
    sequence_length: int = 2048
    zero_stage: int = 0
    framework: str = "hf_trainer"
    offload: str = "none"
    # "" follows gradient_checkpointing (True: full, False: none); otherwise one of CHECKPOINTING_MODES
    activation_checkpointing: str = ""
    training_precision: str = "bf16"  # TRAINING_PRECISIONS
    power_limit_w: float | None = None  # sustained board power cap per GPU (nvidia-smi -pl); None: the GPU's TDP
    precision_from_model_id: str = ""  # the pasted id whose suffix gave the precision ("…-AWQ": int4), if it did
    model_named: str = ""  # the typed name the model search matched to `model` ("llama 3.1 8b"), if it did

    @property
    def checkpointing(self) -> str:
        """The activation checkpointing in effect: none | selective | full."""
        if self.activation_checkpointing:
            return self.activation_checkpointing
        return "full" if self.gradient_checkpointing else "none"


@direct_init
@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """GiB for the whole model (all GPUs together) before the layout splits it."""

    weights: float
    kv_cache: float
    activations: float
    gradients: float
    optimizer: float
    overhead: float

    @property
    def total(self) -> float:
        return self.weights + self.kv_cache + self.activations + self.gradients + self.optimizer + self.overhead


@direct_init
@dataclass(frozen=True, slots=True)
class GpuLayout:
    sku: str
    count: int
    parallelism: str  # single | tensor | pipeline | data (ZeRO)
    per_gpu_gib: float
    usable_gib: float
    fits: bool
    min_gpus_to_fit: int | None  # smallest count of this GPU that fits, None if none up to the limit
    # server engines: tokens the KV pool holds (vLLM "GPU KV cache size") and the users of `context_tokens`
    # each it serves at once (vLLM "Maximum concurrency"); None for llama.cpp, transformers and training
    kv_cache_tokens: int | None = None
    max_concurrent_users: int | None = None


@direct_init
@dataclass(frozen=True, slots=True)
class Throughput:
    """Speeds of a build (estimate.serving). Inference: each of `concurrent_users` users decodes at
    `decode_tokens_per_s_per_user` while the others' prompts share the GPUs (`prefill_share` of each step is
    theirs), `decode_tokens_per_s_total` is what those sequences give together, every request's own prompt
    included (below per user × sequences by one prompt per user: a user's own prompt is its time to first
    token); `served_output_tokens_per_s` is the whole
    build's output at full load (as many sequences as the engine and the KV cache run at once: `served_sequences`),
    prefill included; all for requests of `prompt_tokens` + `output_tokens`."""

    decode_tokens_per_s_per_user: float
    decode_tokens_per_s_total: float
    prefill_tokens_per_s: float
    time_to_first_token_s: float
    # training: tokens trained per second by the whole build (all GPUs); 0 for inference
    training_tokens_per_s: float = 0.0
    served_output_tokens_per_s: float = 0.0
    served_sequences: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    prefill_share: float = 0.0
    # the full load's layout: `served_replicas` instances of `served_tensor_parallel` GPUs; 0 for training
    served_tensor_parallel: int = 0
    served_replicas: int = 0
    # the users' layout (per-user speeds, first token, speed rule, link warnings): the split fastest for them
    users_tensor_parallel: int = 0
    users_replicas: int = 0


@direct_init
@dataclass(frozen=True, slots=True)
class Estimate:
    model_slug: str
    total_params: int
    active_params: int
    memory: MemoryBreakdown
    layout: GpuLayout | None
    throughput: Throughput | None
    assumptions: Sequence[str]  # a tuple, or phrase.LazyTexts (made on first read)


# --------------------------------------------------------------------------- verdicts


class FixOpKind(StrEnum):
    """What one step of a fix does to a build (engine.fixes.apply_fix)."""

    ADD = "add"  # qty more of sku on the lines of kind
    REMOVE = "remove"  # qty fewer of sku
    REPLACE = "replace"  # the line old_sku (every line of kind when None) becomes qty × sku
    SWAP_CHASSIS = "swap_chassis"  # the chassis becomes sku (the lines it needs are further ops of the fix)
    SET = "set"  # a build field (psu_redundancy, site_voltage) takes value
    CHANGE_WORKLOAD = "change_workload"  # a decision about the workload, not the build: cannot be applied


@direct_init
@dataclass(frozen=True, slots=True)
class FixOp:
    op: FixOpKind
    kind: str | None = None  # part kind of add/remove/replace: gpus, cpus, psus, memory, storage, nics, bridges
    sku: str | None = None
    qty: int | None = None
    old_sku: str | None = None  # replace: the line that goes (None: every line of the kind)
    field: str | None = None  # set: psu_redundancy | site_voltage
    value: str | int | None = None  # set: the new value


@direct_init
@dataclass(frozen=True, slots=True)
class Fix:
    """A change that answers a finding: data, never parsed text. `ops` are applied together (a chassis swap
    with the CPUs it needs, a redundancy mode with the PSUs sized for it); `reason` says why, when the ops
    alone do not. `text` is the sentence a person reads, made by one function (engine.fixes.fix_sentence)."""

    ops: tuple[FixOp, ...]
    reason: str | None = None  # a Phrase

    @property
    def text(self) -> str:
        from configurator.engine.fixes import fix_sentence

        return fix_sentence(self)

    @property
    def applicable(self) -> bool:
        """Whether the fix changes only the build (so apply_fix can make it)."""
        return bool(self.ops) and all(op.op != FixOpKind.CHANGE_WORKLOAD for op in self.ops)


@direct_init
@dataclass(frozen=True, slots=True)
class Finding:
    code: str  # a FindingCode value (engine.enums): a stable dotted id, e.g. power.psu_capacity
    severity: str  # error | warning | info
    message: str
    measured: float | str | None = None
    limit: float | str | None = None
    unit: str = ""
    components: tuple[str, ...] = ()
    fixes: tuple[Fix, ...] = ()
    no_fix: bool = False  # an error no change to the build from the catalog clears (engine.proving)
    fixes_unchecked: bool = False  # fixes exist but were not proven within the verdict's budget (engine.proving)


@direct_init
@dataclass(frozen=True, slots=True)
class PowerSummary:
    load_w: float
    capacity_w: float  # usable under the redundancy at the site voltage
    installed_w: float
    redundancy: str
    site_voltage: int


@direct_init
@dataclass(frozen=True, slots=True)
class PcieSummary:
    lanes_needed: int
    lanes_available: int
    topology: str


@direct_init
@dataclass(frozen=True, slots=True)
class SlotSummary:
    gpus: int
    gpu_bays: int
    max_gpus: int
    dimms: int
    dimm_slots: int
    psus: int
    psu_bays: int


@direct_init
@dataclass(frozen=True, slots=True)
class VramSummary:
    total_gib: float
    needed_per_gpu_gib: float | None
    usable_per_gpu_gib: float | None


@direct_init
@dataclass(frozen=True, slots=True)
class Verdict:
    valid: bool
    findings: tuple[Finding, ...]
    power: PowerSummary
    pcie: PcieSummary
    slots: SlotSummary
    vram: VramSummary
    estimate: Estimate | None = None

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")

    def codes(self) -> set[str]:
        return {f.code for f in self.findings}


@direct_init
@dataclass(frozen=True, slots=True)
class Price:
    currency: str
    net: Decimal
    vat: Decimal
    gross: Decimal


@direct_init
@hash_once
@dataclass(frozen=True, slots=True)
class Constraints(HashOnce):
    __hash__ = HashOnce.__hash__  # worked out once (engine.frozen.HashOnce): a memo key of every search
    max_price: Decimal | None = None
    currency: str = "RUB"
    form_factor: str = "any"  # workstation | rack | any
    max_power_w: int | None = None
    site_voltage: int = 230
    require_ecc: bool = False
    max_gpus: int | None = None
    gpu_count: int | None = None  # exactly this many GPUs (max_gpus only caps): "full fine-tune on 8 GPUs"
    chassis: tuple[str, ...] = ()
    # ship by then (working days on the Russian production calendar, engine/availability.py; needs offers)
    deliver_by: dt.date | None = None
    # enums.Noise: office → desktop towers only; lab → towers and rack workstations; server_room / any → any
    noise: str = "any"


@direct_init
@dataclass(frozen=True, slots=True)
class Candidate:
    build: BuildSpec
    verdict: Verdict
    price: Price
    decode_tokens_per_s_per_user: float
    decode_tokens_per_s_total: float
    why: tuple[str, ...] = field(default_factory=tuple)
    training_tokens_per_s: float = 0.0  # training: tokens the whole build trains per second; 0 for inference
    served_output_tokens_per_s: float = 0.0  # inference: the whole build's output tokens/s at full load
    # what the build is in its list (recommend.ranking: cheapest, cheapest_meeting, value, ecc, fewer, ...),
    # checked against the list it stands in; "" outside a recommendation
    label: str = ""
