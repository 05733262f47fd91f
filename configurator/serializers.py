"""Serializers shared by the estimate, build-validation and recommendation APIs.

`WorkloadInputSerializer` checks the shape and bounds of a workload body (ARCHITECTURE.md §HTTP API);
`workload_from_data` turns validated data into a `Workload` (resolving the model, filling engine-dependent
defaults) and raises DomainError with field names — from the view, never from inside the serializer.
The output side (Estimate → JSON) is configurator.outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from configurator.engine.builds import unknown_keys
from configurator.engine.errors import DomainError, UnknownModelError
from configurator.engine.estimate import default_engine, workload_problems
from configurator.engine.estimate.engines import DEFAULT_OUTPUT_TOKENS, request_tokens
from configurator.engine.models_library import model_by_name, model_from_hf_config, model_id_precision
from configurator.engine.phrase import Num, Phrase
from configurator.engine.spellings import canonical_engine, canonical_kv, canonical_precision, model_id_kv, plain_amount
from configurator.engine.types import (
    CHECKPOINTING_MODES,
    ENGINES,
    FRAMEWORKS,
    KV_PRECISIONS,
    NOISE_LEVELS,
    OFFLOADS,
    OPTIMIZERS,
    PRECISIONS,
    TASKS,
    TRAINING_PRECISIONS,
    Workload,
)
from configurator.wording import said_fields

MAX_CONTEXT_TOKENS = 2_097_152
DEFAULT_CONTEXT_TOKENS = 4096
MAX_USERS = 10_000
MAX_BATCH = 4_096
MAX_LORA_RANK = 4_096
MAX_TARGET_TOKENS_PER_S = 100_000


class StrictKeysMixin:
    """Unknown keys are a 400 naming the key and the closest valid one (a typo is never silently dropped)."""

    fields: Any

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = unknown_keys(data, tuple(self.fields))
            if unknown:
                raise serializers.ValidationError(said_fields(unknown))
        return super().to_internal_value(data)  # type: ignore[misc]


class CaseFreeChoiceField(serializers.ChoiceField):
    """A choice typed as people write it ("FP8", " Selective "): matched without case or surrounding spaces;
    a value that is none of them is a 400 that lists the choices (DRF's own message names none of them)."""

    default_error_messages = {"invalid_choice": gettext_lazy('"{input}" is not a valid choice; use one of: {choices}.')}

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            data = data.strip().lower()
        if str(data) not in self.choice_strings_to_values and not (data == "" and self.allow_blank):
            self.fail("invalid_choice", input=data, choices=", ".join(self.choice_strings_to_values))
        return super().to_internal_value(data)


class SpelledChoiceField(CaseFreeChoiceField):
    """A choice also given by another name people write ("AWQ", "Q4_1", "trtllm", "ollama"): `canonical` maps
    the name to a choice (configurator.engine.spellings), None leaves it to be refused with the choices listed."""

    def __init__(self, *, canonical: Callable[[str], str | None], **kwargs: Any) -> None:
        self.canonical = canonical
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            data = self.canonical(data) or data
        return super().to_internal_value(data)


class NoiseField(CaseFreeChoiceField):
    """Where the machine stands, as people write it: "Office", "server room", "server-room" → office,
    server_room; anything else is a 400 naming the field and the choices."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            data = "_".join(data.replace("-", " ").split())
        return super().to_internal_value(data)


class AmountField(serializers.DecimalField):
    """A sum of money as people type it: "6 000 000", "6 000 000,00 ₽", "1,500,000" (spellings.plain_amount);
    what is still not a number is the DecimalField's 400."""

    def to_internal_value(self, data: Any) -> Any:
        return super().to_internal_value(plain_amount(data) if isinstance(data, str) else data)


class WorkloadInputSerializer(StrictKeysMixin, serializers.Serializer):
    """A workload: `model` (library slug or Hugging Face id) or `model_config` (a pasted config.json)."""

    model = serializers.CharField(required=False, max_length=200, help_text="Library slug or Hugging Face id")
    model_config = serializers.JSONField(required=False, help_text="A Hugging Face config.json object")
    task = CaseFreeChoiceField(choices=TASKS, default="inference")
    precision = SpelledChoiceField(
        choices=PRECISIONS,
        canonical=canonical_precision,
        required=False,
        help_text="Weight storage precision; default the model's native one. Written as people do: any case, "
        "'-' or '_'; awq, gptq, w4a16 → int4; w8a8 → int8; fp8_e4m3 → fp8; fp4 → nvfp4; nf4/bnb-4bit → int4 "
        "(QLoRA stores NF4 anyway); GGUF types not modelled (q4_1, q5_0, iq3_xxs, …) → the modelled GGUF type of "
        "nearest bits per weight. The assumptions say every reading that is not the same format",
    )
    kv_cache_precision = SpelledChoiceField(
        choices=KV_PRECISIONS,
        canonical=canonical_kv,
        required=False,
        help_text="Default f16 on llama.cpp, fp8 on tensorrt-llm with fp8 or nvfp4 weights (NVIDIA's ModelOpt "
        "checkpoints carry an FP8 KV cache), bf16 elsewhere (fp16 → f16, fp8_e4m3 → fp8; auto, the engines' "
        "--kv-cache-dtype default, → bf16: the model's 16-bit dtype)",
    )
    context_tokens = serializers.IntegerField(
        min_value=1,
        max_value=MAX_CONTEXT_TOKENS,
        required=False,
        help_text="Inference: tokens of context each sequence holds (the KV cache is sized for it). Default 4096, "
        "raised to prompt_tokens + output_tokens (512 when not given) when a given prompt needs more; the "
        "assumptions then say so",
    )
    concurrent_users = serializers.IntegerField(min_value=1, max_value=MAX_USERS, default=1)
    prompt_tokens = serializers.IntegerField(
        min_value=1,
        max_value=MAX_CONTEXT_TOKENS,
        required=False,
        allow_null=True,
        help_text="Inference: prompt tokens of the request each user sends; prompt_tokens + output_tokens ≤ "
        "context_tokens. Default: the context less output_tokens (a request that fills the context)",
    )
    output_tokens = serializers.IntegerField(
        min_value=1,
        max_value=MAX_CONTEXT_TOKENS,
        required=False,
        allow_null=True,
        help_text="Inference: tokens generated per request. Default: min(512, context_tokens / 4), at most what "
        "the context leaves after a given prompt",
    )
    batch_size = serializers.IntegerField(
        min_value=1, max_value=MAX_BATCH, default=1, help_text="Sequences per user (inference) or micro-batch"
    )
    cuda_graphs = serializers.BooleanField(
        default=True,
        help_text="Inference on vLLM, SGLang or TensorRT-LLM: decode steps replayed as CUDA graphs (their default); "
        "false for eager mode (vLLM --enforce-eager), where every kernel is launched from the host: slower per "
        "step, most on small batches. Ignored by llama.cpp and transformers",
    )
    engine = SpelledChoiceField(
        choices=ENGINES,
        canonical=canonical_engine,
        required=False,
        help_text="Default llama.cpp for GGUF types, vllm otherwise. Also as people write them: trtllm, TRT-LLM, "
        "tensorrt_llm → tensorrt-llm; llamacpp, llama-server → llama.cpp; ollama, LM Studio → llama.cpp (their "
        "backend); tgi, lmdeploy → vllm (not modelled; the assumptions say so); NIM → tensorrt-llm (NIM 1.x's "
        "backend; the assumptions say so); trtllm-serve → tensorrt-llm; vLLM V1 → vllm; hf → transformers",
    )
    optimizer = CaseFreeChoiceField(choices=OPTIMIZERS, default="adamw")
    gradient_checkpointing = serializers.BooleanField(default=True)
    lora_rank = serializers.IntegerField(min_value=1, max_value=MAX_LORA_RANK, default=16)
    sequence_length = serializers.IntegerField(min_value=1, max_value=MAX_CONTEXT_TOKENS, default=2048)
    zero_stage = serializers.IntegerField(min_value=0, max_value=3, default=0)
    framework = CaseFreeChoiceField(
        choices=FRAMEWORKS,
        default="hf_trainer",
        help_text="Training framework: hf_trainer (HF Trainer + PEFT, bf16 mixed precision; default), torchtune "
        "(pure bf16, chunked cross-entropy, FSDP on several GPUs), unsloth, litgpt (bf16-true; QLoRA loads the "
        "checkpoint in bf16 before quantising), torchtitan (FSDP2, fp32 sharded parameters), megatron "
        "(Megatron-LM/NeMo, distributed optimizer, Transformer Engine attention)",
    )
    activation_checkpointing = CaseFreeChoiceField(
        choices=CHECKPOINTING_MODES,
        required=False,
        allow_null=True,
        help_text="Training: none (keep every activation), selective (torchtitan's op policy: attention and every "
        "second matmul output kept, the rest recomputed) or full (layer inputs only). Default: full when "
        "gradient_checkpointing is true, none when it is false",
    )
    training_precision = CaseFreeChoiceField(
        choices=TRAINING_PRECISIONS,
        default="bf16",
        help_text="Training: precision of the linear layers' matmuls; fp8 (torchao Float8 / Transformer Engine) "
        "runs them at the FP8 peak on GPUs with FP8 tensor cores, at BF16 speed on others",
    )
    power_limit_w = serializers.FloatField(
        min_value=1,
        max_value=5000,
        required=False,
        allow_null=True,
        help_text="Training: sustained board-power cap per GPU in watts (nvidia-smi -pl); default the GPU's TDP. "
        "Below the TDP the matmul rate falls as (cap/TDP)^0.87 on HBM data-center GPUs, ^0.23 on GDDR cards",
    )
    offload = CaseFreeChoiceField(
        choices=OFFLOADS,
        default="none",
        help_text="Training with ZeRO/FSDP: keep the optimizer (optimizer) or also the parameters and gradients "
        "(parameters) in host RAM (DeepSpeed ZeRO-Offload, FSDP CPUOffload); none by default",
    )
    target_tokens_per_s = serializers.FloatField(
        min_value=0.01, max_value=MAX_TARGET_TOKENS_PER_S, required=False, allow_null=True
    )
    require_ecc = serializers.BooleanField(default=False)
    production = serializers.BooleanField(default=False)
    multi_node = serializers.BooleanField(
        default=False,
        help_text="The job spans several nodes (cluster training or serving): each data-centre server gets "
        "200-400G fabric adapters, one per GPU on HGX and one per two GPUs on PCIe (NVIDIA Enterprise RA)",
    )
    noise = NoiseField(
        choices=NOISE_LEVELS,
        default="any",
        help_text="Where the machine will stand: office (desktop towers only), lab (towers and rack workstations, "
        "no rack servers with server fans), server_room or any (no limit). Recommendations respect it",
    )
    rope_scaling = serializers.BooleanField(
        default=False,
        help_text="Allow a context (or training sequence) beyond the model's window, stretched by RoPE scaling; "
        "the estimate's assumptions then say the window is exceeded",
    )

    def validate_model_config(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise serializers.ValidationError("Expected a JSON object (the model's config.json).")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_model = bool(attrs.get("model"))
        has_config = attrs.get("model_config") is not None
        if has_model == has_config:
            raise serializers.ValidationError(
                {"model": ["Give either a model (slug or Hugging Face id) or model_config, not both."]}
                if has_model
                else {"model": ["This field is required (or paste the model's config.json as model_config)."]}
            )
        return attrs

    def to_workload(self, *, field_prefix: str = "") -> Workload:
        return workload_from_data(self.validated_data, field_prefix=field_prefix)


def _prefixed(error: DomainError, prefix: str) -> DomainError:
    """`error` with its field names under `prefix` (a new error; the caught one is left as it was)."""
    return error.nested(prefix) if prefix else error


def _window_stated(data: dict[str, Any]) -> bool:
    """The model's context window is known: a library model, or a config.json that states it."""
    config = data.get("model_config")
    if config is None:
        return True
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else {}
    return any(key in layer for layer in (config, text) for key in ("max_position_embeddings", "max_sequence_length"))


def _window_problems(workload: Workload, data: dict[str, Any]) -> dict[str, list[str]]:
    """A context (inference) or sequence (training) beyond the model's stated window is refused unless
    `rope_scaling` asks for it explicitly."""
    if data.get("rope_scaling") or not _window_stated(data):
        return {}
    window = workload.model.max_context
    field, tokens = (
        ("context_tokens", workload.context_tokens)
        if workload.task == "inference"
        else ("sequence_length", workload.sequence_length)
    )
    if tokens <= window:
        return {}
    message = gettext(
        "%(tokens)s tokens is beyond %(model)s's context window of %(window)s tokens; use at most the window, "
        "or set rope_scaling to stretch it (the assumptions will say so)."
    ) % {"tokens": f"{tokens:,}", "model": workload.model.name, "window": f"{window:,}"}
    return {field: [message]}


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def context_tokens_of(data: Mapping[str, Any]) -> int:
    """The context a workload holds: as given, else DEFAULT_CONTEXT_TOKENS, raised to prompt_tokens +
    output_tokens (DEFAULT_OUTPUT_TOKENS when not given) when an inference request states a longer prompt."""
    given = data.get("context_tokens")
    if given is not None:
        return int(given)
    prompt, output = data.get("prompt_tokens"), data.get("output_tokens")
    if data.get("task", "inference") != "inference" or prompt is None or int(prompt) < 1:
        return DEFAULT_CONTEXT_TOKENS
    return max(DEFAULT_CONTEXT_TOKENS, int(prompt) + int(output or DEFAULT_OUTPUT_TOKENS))


def context_note(data: Mapping[str, Any], workload: Workload) -> Phrase | None:
    """The assumption for a context raised to hold the request (None when it was given or not raised)."""
    if data.get("context_tokens") is not None or workload.context_tokens == DEFAULT_CONTEXT_TOKENS:
        return None
    return Phrase(
        "context_tokens not given: %(context)s tokens, the prompt and the answer of the request (the default "
        "%(default)s would not hold them)",
        context=Num(workload.context_tokens),
        default=Num(DEFAULT_CONTEXT_TOKENS),
    )


def _context_problems(workload: Workload, data: Mapping[str, Any], problems: dict[str, list[str]]) -> None:
    """A given context that the stated request does not fit in is named too (the user chose both)."""
    if data.get("context_tokens") is None or workload.task != "inference" or "context_tokens" in problems:
        return
    stated = [problems[name][0] for name in ("prompt_tokens", "output_tokens") if name in problems]
    if stated and sum(request_tokens(workload)) > workload.context_tokens:
        problems["context_tokens"] = [stated[0]]


# TensorRT-LLM runs FP8 and NVFP4 checkpoints quantised by NVIDIA's ModelOpt (the nvidia/…-FP8, …-FP4 releases its
# perf-overview measures), whose hf_quant_config.json carries "kv_cache_quant_algo": "FP8" (ModelOpt's own example:
# {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}); the engine reads it, so their KV cache is FP8 (trial tr33)
FP8_KV_BY_DEFAULT = {"tensorrt-llm": ("fp8", "nvfp4")}


def default_kv_precision(engine: str, precision: str) -> str:
    """The KV cache precision a request that names none runs with: f16 on llama.cpp, FP8 where the engine takes it
    from the checkpoint (FP8_KV_BY_DEFAULT), else the model's 16-bit dtype (bf16)."""
    if engine == "llama.cpp":
        return "f16"
    return "fp8" if precision in FP8_KV_BY_DEFAULT.get(engine, ()) else "bf16"


def workload_from_data(data: dict[str, Any], *, field_prefix: str = "") -> Workload:
    """Validated workload data → Workload. Raises UnknownModelError / DomainError naming the field
    (prefixed with `field_prefix`, e.g. "workload." when the workload is nested)."""
    model_key = str(data.get("model", ""))
    named = False  # the model was found by its typed name (the estimate's assumptions say which it took)
    try:
        if data.get("model_config") is not None:
            model = model_from_hf_config(data["model_config"])
        else:
            model, named = model_by_name(model_key)
    except (UnknownModelError, DomainError) as error:
        raise _prefixed(error, field_prefix) from None
    # a quantised release's id ("Qwen/Qwen2.5-32B-Instruct-AWQ") names its precision when the request gives none
    read = None if data.get("precision") or data.get("model_config") is not None else model_id_precision(model_key)
    precision = data.get("precision") or read or model.native_precision
    if precision not in PRECISIONS:
        precision = "bf16"
    engine = data.get("engine") or default_engine(precision)
    named_kv = None if data.get("model_config") is not None else model_id_kv(model_key)
    kv = data.get("kv_cache_precision") or named_kv or default_kv_precision(engine, precision)
    workload = Workload(
        model=model,
        task=data.get("task", "inference"),
        precision=precision,
        kv_cache_precision=kv,
        context_tokens=context_tokens_of(data),
        concurrent_users=int(data.get("concurrent_users", 1)),
        prompt_tokens=_optional_int(data.get("prompt_tokens")),
        output_tokens=_optional_int(data.get("output_tokens")),
        batch_size=int(data.get("batch_size", 1)),
        cuda_graphs=bool(data.get("cuda_graphs", True)),
        engine=engine,
        target_tokens_per_s=data.get("target_tokens_per_s"),
        require_ecc=bool(data.get("require_ecc", False)),
        production=bool(data.get("production", False)),
        multi_node=bool(data.get("multi_node", False)),
        noise=data.get("noise", "any"),
        optimizer=data.get("optimizer", "adamw"),
        gradient_checkpointing=bool(data.get("gradient_checkpointing", True)),
        lora_rank=int(data.get("lora_rank", 16)),
        sequence_length=int(data.get("sequence_length", 2048)),
        zero_stage=int(data.get("zero_stage", 0)),
        framework=data.get("framework", "hf_trainer"),
        offload=data.get("offload", "none"),
        activation_checkpointing=data.get("activation_checkpointing") or "",
        training_precision=data.get("training_precision", "bf16"),
        power_limit_w=data.get("power_limit_w"),
        precision_from_model_id=model_key if read else "",
        model_named=model_key if named else "",
    )
    problems = {**workload_problems(workload), **_window_problems(workload, data)}
    _context_problems(workload, data, problems)
    if problems:
        raise _prefixed(DomainError("The workload cannot be estimated as given.", fields=problems), field_prefix)
    return workload
