"""Output serializers: the engine's dataclasses (Estimate, Verdict, Finding, Fix, Price, Candidate,
Recommendation) as the API's JSON (ARCHITECTURE.md §HTTP API). They are the real output, not only its schema:
the API, the pages' view models, the management commands and the stored verdicts all go through them.

The API's estimate, validate and recommendation answers are made by configurator.output_data, plain
functions that give the same JSON as these serializers (a test holds them equal) at a fraction of the CPU.

Sentences stay `Phrase`s in `.data` (PhraseField passes them through), so a page can still say them in
its language; JSON renders them as the English text. `StoredVerdictSerializer` writes a saved build's
last verdict and a quote's verdict with each sentence's msgid and params, and `stored_findings` reads
them back as phrases.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.api import serialize
from configurator.engine.availability import BuildAvailability
from configurator.engine.builds import build_to_payload
from configurator.engine.fixes import FixNotApplicable, fix_from_data, fix_op_data, fix_sentence
from configurator.engine.phrase import Phrase, phrase_from_data, phrase_to_data
from configurator.engine.recommend.policy import machine_class
from configurator.engine.types import BuildSpec, FixOpKind, Price, Verdict
from configurator.engine.types import Fix as FixData
from configurator.wording import with_part_names


class PhraseField(serializers.CharField):
    """A sentence: kept as the engine's `Phrase` (a str) so pages can translate it; JSON shows the English."""

    def to_representation(self, value: Any) -> str:
        return value if isinstance(value, str) else str(value)


@extend_schema_field(OpenApiTypes.FLOAT)
class RoundedField(serializers.Field):
    """A float rounded to `places` decimals on output."""

    def __init__(self, places: int, **kwargs: Any) -> None:
        self.places = places
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> float:
        return round(float(value), self.places)


class BillionsField(RoundedField):
    """A parameter count in billions, to 0.01."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(2, **kwargs)

    def to_representation(self, value: Any) -> float:
        return round(value / 1e9, self.places)


# --------------------------------------------------------------------------- estimate


class _ModelOutputSerializer(serializers.Serializer):
    slug = serializers.CharField(source="model_slug")
    total_params_b = BillionsField(source="total_params")
    active_params_b = BillionsField(source="active_params")


class _MemoryOutputSerializer(serializers.Serializer):
    weights = RoundedField(2)
    kv_cache = RoundedField(2)
    activations = RoundedField(2)
    gradients = RoundedField(2)
    optimizer = RoundedField(2)
    overhead = RoundedField(2)
    total = RoundedField(2)


class _GpuOutputSerializer(serializers.Serializer):
    sku = serializers.CharField()
    count = serializers.IntegerField()
    parallelism = serializers.ChoiceField(choices=("single", "pipeline", "tensor", "dp_attention", "data"))
    per_gpu_gib = RoundedField(2)
    usable_gib = RoundedField(2)
    fits = serializers.BooleanField()
    kv_cache_tokens = serializers.IntegerField(
        allow_null=True,
        help_text="Server engines: tokens the KV pool holds on this build (vLLM's 'GPU KV cache size'); null "
        "for llama.cpp, transformers and training",
    )
    max_concurrent_users = serializers.IntegerField(
        allow_null=True,
        help_text="Server engines: users of context_tokens each served at once (vLLM's 'Maximum concurrency')",
    )


class _ThroughputOutputSerializer(serializers.Serializer):
    decode_tokens_per_s_per_user = RoundedField(
        1,
        help_text="Decode tokens/s each user sees while concurrent_users users are served: one decode step of all "
        "their sequences plus the other users' prompts prefilled meanwhile (each user starts a new request every "
        "output_tokens tokens); its own prompt is time_to_first_token_s",
    )
    decode_tokens_per_s_total = RoundedField(
        1,
        help_text="Output tokens/s of the concurrent_users users' sequences (× batch_size) together, each "
        "request's own prompt included: below decode_tokens_per_s_per_user × the sequences (one user alone: "
        "output_tokens / (time_to_first_token_s + output_tokens / decode_tokens_per_s_per_user))",
    )
    prefill_tokens_per_s = RoundedField(1, help_text="One prompt of prompt_tokens on idle GPUs")
    time_to_first_token_s = RoundedField(3, help_text="One prompt of prompt_tokens on idle GPUs, in seconds")
    training_tokens_per_s = RoundedField(
        1, help_text="Training: tokens trained per second by the whole build (all GPUs); 0 for inference"
    )
    served_output_tokens_per_s = RoundedField(
        1,
        help_text="Inference: output tokens/s of the whole build at full load, prefill included: as many "
        "sequences as the engine runs and the KV cache holds (served_sequences), whatever concurrent_users; "
        "0 for training",
    )
    served_sequences = serializers.IntegerField(
        help_text="Inference: sequences running at once at full load (the engine's cap or what the KV cache "
        "holds at the requests' mean depth); 0 for training"
    )
    prompt_tokens = serializers.IntegerField(
        help_text="Inference: prompt tokens per request these speeds are for (as given, or the default)"
    )
    output_tokens = serializers.IntegerField(
        help_text="Inference: output tokens per request these speeds are for (as given, or the default)"
    )
    prefill_share = RoundedField(
        3, help_text="Share of each user's time per output token spent prefilling the other users' prompts"
    )
    served_tensor_parallel = serializers.IntegerField(
        help_text="Inference: GPUs per engine instance in the layout served_output_tokens_per_s assumes, the one "
        "of most output tokens/s an engine would be set to: vLLM, SGLang and TensorRT-LLM try every split of the "
        "GPUs into served_replicas data-parallel replicas of k GPUs each (tensor parallel within a replica, k × "
        "replicas = gpu.count); llama.cpp and transformers run one instance on all GPUs (k = gpu.count, split as "
        "gpu.parallelism says). The per-user speeds are for the users' layout (users_tensor_parallel, "
        "users_replicas); 0 for training"
    )
    served_replicas = serializers.IntegerField(
        help_text="Inference: data-parallel engine instances (replicas) in that layout, each serving its share of "
        "the requests; 0 for training"
    )
    users_tensor_parallel = serializers.IntegerField(
        help_text="Inference: GPUs per engine instance in the layout the workload's concurrent_users are served on "
        "(the split of the GPUs that serves them fastest: one user gets tensor parallelism over all GPUs, many "
        "users more replicas); decode_tokens_per_s_per_user, time_to_first_token_s and the speed rule are for "
        "it; 0 for training"
    )
    users_replicas = serializers.IntegerField(
        help_text="Inference: data-parallel replicas in the users' layout, the users split evenly; 0 for training"
    )


class EstimateOutputSerializer(serializers.Serializer):
    """POST /api/v1/estimate: memory in GiB to 0.01, tokens/s to 0.1; `gpu` and `throughput` null without a GPU."""

    model = _ModelOutputSerializer(source="*")
    memory_gib = _MemoryOutputSerializer(source="memory")
    gpu = _GpuOutputSerializer(source="layout", allow_null=True)
    throughput = _ThroughputOutputSerializer(allow_null=True)
    assumptions = serializers.ListField(child=PhraseField())


# --------------------------------------------------------------------------- verdict


class _FixOpSchema(serializers.Serializer):
    op = serializers.ChoiceField(choices=[kind.value for kind in FixOpKind])
    kind = serializers.CharField(required=False, help_text="Part kind: cpus, gpus, psus, memory, …")
    sku = serializers.CharField(required=False)
    qty = serializers.IntegerField(required=False)
    old_sku = serializers.CharField(required=False, help_text="replace: the line that goes (absent: every line)")
    field = serializers.ChoiceField(choices=("psu_redundancy", "site_voltage"), required=False)
    value = serializers.JSONField(required=False)


@extend_schema_field(_FixOpSchema)
class FixOpField(serializers.Field):
    """One step of a fix with only the fields it uses."""

    def to_representation(self, value: Any) -> dict[str, Any]:
        return fix_op_data(value)


class FixOutputSerializer(serializers.Serializer):
    """A fix as data: the steps `POST /api/v1/builds/apply-fix` makes, and the sentence that says them."""

    ops = serializers.ListField(child=FixOpField())
    text = PhraseField()


class _MeasureField(serializers.JSONField):
    """A number or, for categorical checks (socket, form factor), a string; null when not applicable."""


class FindingOutputSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable dotted id, e.g. power.psu_capacity")
    severity = serializers.ChoiceField(choices=("error", "warning", "info"))
    message = PhraseField()
    measured = _MeasureField(allow_null=True)
    limit = _MeasureField(allow_null=True)
    unit = serializers.CharField(allow_blank=True)
    components = serializers.ListField(child=serializers.CharField())
    fixes = FixOutputSerializer(many=True, help_text="Each one applied and re-validated before it is offered")
    no_fix = serializers.BooleanField(
        help_text="An error that no change to the build from the catalog clears (no applicable fix offered)"
    )
    fixes_unchecked = serializers.BooleanField(
        help_text="Fixes exist but were not proven within this validation's budget: none is shown, none is denied"
    )


@extend_schema_field(OpenApiTypes.FLOAT)
class _UtilizationField(serializers.Field):
    def to_representation(self, value: Any) -> float | None:
        return round(value.load_w / value.capacity_w, 3) if value.capacity_w > 0 else None


class PowerOutputSerializer(serializers.Serializer):
    load_w = serializers.FloatField()
    capacity_w = serializers.FloatField(help_text="Usable under the redundancy at the site voltage")
    installed_w = serializers.FloatField()
    redundancy = serializers.CharField(help_text="none, n+1 or n+n")
    site_voltage = serializers.IntegerField()
    utilization = _UtilizationField(source="*", allow_null=True, help_text="load / capacity")


class PcieOutputSerializer(serializers.Serializer):
    lanes_needed = serializers.IntegerField()
    lanes_available = serializers.IntegerField()
    topology = serializers.ChoiceField(choices=("direct", "switched"))


class SlotsOutputSerializer(serializers.Serializer):
    gpus = serializers.IntegerField()
    gpu_bays = serializers.IntegerField()
    max_gpus = serializers.IntegerField()
    dimms = serializers.IntegerField()
    dimm_slots = serializers.IntegerField()
    psus = serializers.IntegerField()
    psu_bays = serializers.IntegerField()


class VramOutputSerializer(serializers.Serializer):
    total_gib = serializers.FloatField()
    needed_per_gpu_gib = serializers.FloatField(allow_null=True)
    usable_per_gpu_gib = serializers.FloatField(allow_null=True)


class PriceOutputSerializer(serializers.Serializer):
    currency = serializers.CharField()
    net = serializers.DecimalField(max_digits=16, decimal_places=2)
    vat = serializers.DecimalField(max_digits=16, decimal_places=2)
    gross = serializers.DecimalField(max_digits=16, decimal_places=2)


class VerdictOutputSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    findings = FindingOutputSerializer(many=True)
    power = PowerOutputSerializer()
    pcie = PcieOutputSerializer()
    slots = SlotsOutputSerializer()
    vram = VramOutputSerializer()
    estimate = EstimateOutputSerializer(allow_null=True)


@dataclass(frozen=True, slots=True)
class PricedVerdict:
    """A verdict with the build's price: what validate answers."""

    verdict: Verdict
    price: Price
    availability: BuildAvailability | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.verdict, name)


class ValidateOutputSerializer(VerdictOutputSerializer):
    """POST /api/v1/builds/validate; the instance is a `PricedVerdict`."""

    price = PriceOutputSerializer()
    ship_date = serializers.SerializerMethodField(
        help_text="When the build can ship from the suppliers' offers (null: a part has no live offer)"
    )
    lead_time_days = serializers.SerializerMethodField(
        help_text="Working days from today to the ship date (Russian production calendar)"
    )

    @extend_schema_field(serializers.DateField(allow_null=True))
    def get_ship_date(self, priced: PricedVerdict) -> str | None:
        ship_date = priced.availability.ship_date if priced.availability else None
        return ship_date.isoformat() if ship_date else None

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_lead_time_days(self, priced: PricedVerdict) -> int | None:
        return priced.availability.lead_time_days if priced.availability else None


AvailabilityReader = Callable[[BuildSpec], BuildAvailability]


def _availability(context: Mapping[str, Any], build: BuildSpec) -> BuildAvailability | None:
    reader: AvailabilityReader | None = context.get("availability")
    return reader(build) if reader else None


# --------------------------------------------------------------------------- recommendations


class BuildBodyOutputSerializer(serializers.Serializer):
    chassis = serializers.CharField()
    cpus = serializers.ListField(child=serializers.DictField())
    gpus = serializers.ListField(child=serializers.DictField())
    psus = serializers.ListField(child=serializers.DictField())
    memory = serializers.ListField(child=serializers.DictField())
    storage = serializers.ListField(child=serializers.DictField())
    nics = serializers.ListField(child=serializers.DictField())
    bridges = serializers.ListField(child=serializers.DictField())
    psu_redundancy = serializers.CharField()
    site_voltage = serializers.IntegerField()


@extend_schema_field(BuildBodyOutputSerializer)
class BuildBodyField(serializers.Field):
    """A BuildSpec as the build body clients send back (SKUs and quantities)."""

    def to_representation(self, value: Any) -> dict[str, Any]:
        return build_to_payload(value)


@extend_schema_field(ValidateOutputSerializer)
class _CandidateVerdictField(serializers.Field):
    def to_representation(self, value: Any) -> dict[str, Any]:
        priced = PricedVerdict(value.verdict, value.price, _availability(self.context, value.build))
        return serialize(ValidateOutputSerializer, priced)


class CandidateOutputSerializer(serializers.Serializer):
    build = BuildBodyField()
    verdict = _CandidateVerdictField(source="*")
    decode_tokens_per_s_per_user = RoundedField(
        2, help_text="As the estimate's: each user's decode tokens/s with the other users' prompts"
    )
    decode_tokens_per_s_total = RoundedField(
        2, help_text="As the estimate's: the users' output tokens/s together, their own prompts included"
    )
    training_tokens_per_s = RoundedField(
        1, help_text="Training: tokens trained per second by the whole build (all GPUs); 0 for inference"
    )
    served_output_tokens_per_s = RoundedField(
        1, help_text="Inference: the build's output tokens/s at full load, prefill included; 0 for training"
    )
    price = PriceOutputSerializer()
    why = serializers.ListField(child=PhraseField())
    ship_date = serializers.SerializerMethodField(help_text="As in the verdict: when the build can ship")
    lead_time_days = serializers.SerializerMethodField(
        help_text="Working days from today to the ship date (Russian production calendar)"
    )

    @extend_schema_field(serializers.DateField(allow_null=True))
    def get_ship_date(self, candidate: Any) -> str | None:
        found = _availability(self.context, candidate.build)
        return found.ship_date.isoformat() if found and found.ship_date else None

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_lead_time_days(self, candidate: Any) -> int | None:
        found = _availability(self.context, candidate.build)
        return found.lead_time_days if found else None

    def to_representation(self, instance: Any) -> dict[str, Any]:
        """Adds `class`: the candidate's class of machine (desktop-workstation, rack-workstation, gpu-server,
        hgx-server), a Python keyword and so not a declared field."""
        data = dict(super().to_representation(instance))
        data["class"] = machine_class(instance.build.chassis)
        return data


class RecommendationOutputSerializer(serializers.Serializer):
    estimate = EstimateOutputSerializer()
    candidates = CandidateOutputSerializer(many=True)
    considered = serializers.IntegerField(help_text="Builds priced and validated")
    elapsed_ms = RoundedField(1)
    suggestions = serializers.ListField(child=PhraseField(), help_text="When nothing fits: what would")


# --------------------------------------------------------------------------- stored verdicts


class _StoredFixSerializer(FixOutputSerializer):
    reason = serializers.SerializerMethodField()

    def get_reason(self, fix: FixData) -> dict[str, Any] | None:
        return phrase_to_data(fix.reason) if fix.reason else None


class _StoredFindingSerializer(FindingOutputSerializer):
    phrase = serializers.SerializerMethodField()
    fixes = _StoredFixSerializer(many=True)

    def get_phrase(self, finding: Any) -> dict[str, Any]:
        return phrase_to_data(finding.message)


class StoredVerdictSerializer(VerdictOutputSerializer):
    """A verdict for a JSON column (saved builds, quotes): the API's shape plus, per finding, `phrase`
    (`{msgid, params}` of the message) and, per fix, `reason`, so `stored_findings` can say them again in
    the reader's language."""

    findings = _StoredFindingSerializer(many=True)


def stored_verdict_data(verdict: Verdict) -> dict[str, Any]:
    return dict(StoredVerdictSerializer(verdict).data)


def _stored_fix(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A stored fix with its text made again from its steps and reason (as stored when that fails)."""
    fix = dict(raw)
    reason = phrase_from_data(raw.get("reason"))
    if raw.get("reason") is not None and reason is None:
        return fix
    try:
        ops = fix_from_data(raw).ops
    except FixNotApplicable:
        return fix
    fix["text"] = fix_sentence(FixData(ops=ops, reason=reason))
    return fix


def stored_findings(verdict: Mapping[str, Any] | None, names: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """A stored verdict's findings with `message` and each fix's `text` as phrases again (rows stored before
    the phrases were kept show their English text); `names` (SKU → the part's name in the reader's language,
    e.g. from the quote's lines) says the parts by name instead of SKU."""
    findings: Sequence[Any] = (verdict or {}).get("findings") or []
    shown = []
    for raw in findings:
        if not isinstance(raw, Mapping):
            continue
        finding = dict(raw)
        message = phrase_from_data(raw.get("phrase"))
        if isinstance(message, Phrase):
            finding["message"] = with_part_names(message, names or {})
        finding["fixes"] = [_stored_fix(fix) for fix in raw.get("fixes") or [] if isinstance(fix, Mapping)]
        for fix in finding["fixes"]:
            fix["text"] = with_part_names(fix.get("text", ""), names or {})
        shown.append(finding)
    return shown


@extend_schema_field(VerdictOutputSerializer)
class StoredVerdictField(serializers.JSONField):
    """A stored verdict shown as the API's verdict (the storage-only `phrase` and `reason` left out)."""

    def to_representation(self, value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        findings = [
            {
                **{key: item for key, item in finding.items() if key != "phrase"},
                "fixes": [
                    {key: item for key, item in fix.items() if key != "reason"} for fix in finding.get("fixes") or []
                ],
            }
            for finding in value.get("findings") or []
            if isinstance(finding, Mapping)
        ]
        return {**value, "findings": findings}
