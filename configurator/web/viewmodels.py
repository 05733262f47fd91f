"""View models for the web pages: the engine's dataclasses (Recommendation, Verdict, Estimate) shaped for
templates.

Nothing here decides anything: figures come from `recommendation_find` / `build_validate` and the catalog
snapshot; this module only adds names, percentages for the bars and translated labels. Sentences stay
`Phrase`s, which the templates say in the page's language.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any, cast

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from catalog.models import ChassisKind
from configurator.engine.availability import BuildAvailability
from configurator.engine.builds import MAX_QTY, PART_KINDS, build_to_payload, money
from configurator.engine.facility import FacilityFigures, facility_figures
from configurator.engine.fixes import fix_op_data
from configurator.engine.model_params import PASTED_SOURCE
from configurator.engine.phrase import Phrase
from configurator.engine.recommend import Recommendation
from configurator.engine.recommend.ranking import label_phrase
from configurator.engine.types import BuildSpec, CatalogSnapshot, Estimate, Finding, Fix, Price, Throughput, Verdict
from configurator.labels import (
    FINDING_TITLES,
    MEMORY_PARTS,
    PARALLELISM_LABELS,
    PART_KIND_LABELS,
    Severity,
    label,
    value_label,
)
from configurator.wording import part_name, say, with_part_names

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True, slots=True)
class Meter:
    """`used` against `capacity` (same unit); `percent` is capped at 100 for the bar's width. Above
    `warn_at` (a fraction) the bar shows as high; None when using all of it is fine (PCIe lanes)."""

    used: float
    capacity: float
    unit: str
    warn_at: float | None = 0.8

    @property
    def ratio(self) -> float | None:
        return self.used / self.capacity if self.capacity > 0 else None

    @property
    def percent(self) -> float:
        ratio = self.ratio
        return 100.0 if ratio is None else round(min(ratio, 1.0) * 100, 1)

    @property
    def over(self) -> bool:
        return self.used > self.capacity

    @property
    def level(self) -> str:
        ratio = self.ratio
        if ratio is None or ratio > 1:
            return "over"
        return "high" if self.warn_at is not None and ratio > self.warn_at else "ok"


@dataclass(frozen=True, slots=True)
class Segment:
    key: str
    label: str
    gib: float
    percent: float


@dataclass(frozen=True, slots=True)
class MemoryBar:
    """One GPU's memory: the need split by kind against the usable VRAM of that GPU.

    The estimator gives the breakdown for the whole model and the need of the most loaded GPU; each
    part's share of that GPU is taken in proportion to the whole-model breakdown.
    """

    gpu_sku: str
    gpu_count: int
    parallelism: str
    per_gpu_gib: float
    usable_gib: float
    fits: bool
    segments: tuple[Segment, ...]
    usable_percent: float
    gpu_name: str = ""  # the catalog name ("NVIDIA H200 NVL"); the SKU when the catalog was not at hand

    @property
    def free_gib(self) -> float:
        return round(max(self.usable_gib - self.per_gpu_gib, 0.0), 2)


@dataclass(frozen=True, slots=True)
class PartRow:
    kind: str
    kind_label: str
    sku: str
    name: str
    qty: int
    unit_price: Decimal | None
    line_total: Decimal | None


@dataclass(frozen=True, slots=True)
class FixView:
    index: int
    ops: tuple[Mapping[str, Any], ...]
    text: str
    applicable: bool

    @property
    def op(self) -> str:
        """The editor's "apply" button value: the fix's steps themselves, so a click applies what the person
        saw even when the verdict on screen is a moment older than the form."""
        return "fix:" + json.dumps({"ops": list(self.ops)}, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class FindingView:
    index: int
    code: str
    severity: str
    severity_label: str
    title: str
    message: str
    measured: Any
    limit: Any
    unit: str
    components: tuple[str, ...]
    fixes: tuple[FixView, ...]
    no_fix: bool = False
    fixes_unchecked: bool = False


@dataclass(frozen=True, slots=True)
class VerdictView:
    valid: bool
    findings: tuple[FindingView, ...]
    power: Meter
    installed_w: float
    redundancy: str
    site_voltage: int
    lanes: Meter
    topology: str
    slots: Mapping[str, int]
    memory: MemoryBar | None
    throughput: Throughput | None
    assumptions: tuple[str, ...]
    price: Price | None
    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> tuple[FindingView, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[FindingView, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")


@dataclass(frozen=True, slots=True)
class CandidateView:
    rank: int
    body: Mapping[str, Any]
    chassis_sku: str
    chassis_name: str
    chassis_kind: str
    rack_units: float | None
    rows: tuple[PartRow, ...]
    gpu_summary: str  # the product: "2 × NVIDIA RTX PRO 6000 Blackwell Max-Q" (catalog names, not SKUs)
    price: Price
    tokens_per_user: float  # as estimated; rounded once, where it is shown (`num`)
    tokens_total: float
    training_tokens: float  # training: tokens/s of the whole build (0 for inference)
    verdict: VerdictView
    why: tuple[str, ...]
    ships_in_days: int | None = None  # None: a part has no live offer (or availability was not asked)
    ship_date: dt.date | None = None
    free_gpu_slots: int = 0  # upgrade room: GPUs the chassis takes beyond these
    noise: str = ""
    tokens_served: float = 0.0  # inference: the build's output tokens/s at full load, prefill included
    label: str = ""  # what the build is in its list (a Phrase; recommend.ranking), "" outside a recommendation
    facility: FacilityFigures | None = None  # rack servers: amps per feed, BTU/h, rack units (engine.facility)


#: What a chassis sounds like, from the catalog's `server_airflow`: HEURISTIC, no datasheet gives dB(A) for all
#: of them; chassis built for server airflow run high-static-pressure fans meant for a server room, the
#: others are desk-side workstations.
NOISE_LABELS = {
    True: gettext_lazy("loud: server room"),
    False: gettext_lazy("quiet: office"),
}


# --------------------------------------------------------------------------- pieces


def memory_bar(estimate: Estimate | None, snapshot: CatalogSnapshot | None = None) -> MemoryBar | None:
    """The per-GPU stacked bar of an estimate with a GPU layout; None without one."""
    if estimate is None or estimate.layout is None:
        return None
    layout, breakdown = estimate.layout, estimate.memory
    total = breakdown.total
    per_gpu, usable = layout.per_gpu_gib, layout.usable_gib
    scale = max(per_gpu, usable) or 1.0
    segments = []
    for key, name in MEMORY_PARTS:
        whole = float(getattr(breakdown, key))
        if whole <= 0 or total <= 0:
            continue
        share = whole / total * per_gpu
        segments.append(Segment(key=key, label=str(name), gib=round(share, 2), percent=round(share / scale * 100, 2)))
    return MemoryBar(
        gpu_sku=layout.sku,
        gpu_count=layout.count,
        parallelism=label(PARALLELISM_LABELS, layout.parallelism),
        per_gpu_gib=round(per_gpu, 2),
        usable_gib=round(usable, 2),
        fits=layout.fits,
        segments=tuple(segments),
        usable_percent=round(usable / scale * 100, 2),
        gpu_name=part_name(gpu) if (gpu := (snapshot.gpus.get(layout.sku) if snapshot else None)) else layout.sku,
    )


def part_names(snapshot: CatalogSnapshot | None) -> dict[str, str]:
    """Every catalog SKU → the part's name in the active language (for the sentences pages show)."""
    if snapshot is None:
        return {}
    names = {sku: part_name(spec) for sku, spec in snapshot.chassis.items()}
    for kind in PART_KINDS:
        names.update((sku, part_name(spec)) for sku, spec in snapshot.kind(kind).items())
    return names


def _fix_view(index: int, fix: Fix, names: Mapping[str, str]) -> FixView:
    return FixView(
        index=index,
        ops=tuple(fix_op_data(op) for op in fix.ops),
        text=with_part_names(fix.text, names),
        applicable=fix.applicable,
    )


def finding_views(findings: Sequence[Finding], snapshot: CatalogSnapshot | None = None) -> tuple[FindingView, ...]:
    """Findings with translated titles, errors first, then warnings, then notes, each kind in the verdict's
    order; `index` is the position in the verdict."""
    names = part_names(snapshot)
    views = [
        FindingView(
            index=index,
            code=f.code,
            severity=f.severity,
            severity_label=label(Severity, f.severity),
            title=label(FINDING_TITLES, f.code),
            message=with_part_names(f.message, names),
            measured=value_label(f.measured, f.code, names),
            limit=value_label(f.limit, f.code, names),
            unit=f.unit,
            components=f.components,
            fixes=tuple(_fix_view(i, fix, names) for i, fix in enumerate(f.fixes)),
            no_fix=f.no_fix,
            fixes_unchecked=f.fixes_unchecked,
        )
        for index, f in enumerate(findings)
    ]
    return tuple(sorted(views, key=lambda v: (SEVERITY_ORDER.get(v.severity, 3), v.index)))


def verdict_view(verdict: Verdict, price: Price | None = None, snapshot: CatalogSnapshot | None = None) -> VerdictView:
    power, pcie, estimate = verdict.power, verdict.pcie, verdict.estimate
    findings = finding_views(verdict.findings, snapshot)
    counts = {severity: sum(1 for f in findings if f.severity == severity) for severity in SEVERITY_ORDER}
    return VerdictView(
        valid=verdict.valid,
        findings=findings,
        power=Meter(power.load_w, power.capacity_w, "W"),
        installed_w=power.installed_w,
        redundancy=power.redundancy,
        site_voltage=power.site_voltage,
        lanes=Meter(float(pcie.lanes_needed), float(pcie.lanes_available), "lanes", None),
        topology=pcie.topology,
        slots=asdict(verdict.slots),
        memory=memory_bar(estimate, snapshot),
        throughput=estimate.throughput if estimate is not None else None,
        assumptions=tuple(estimate.assumptions) if estimate is not None else (),
        price=price,
        counts=counts,
    )


def part_rows(body: Mapping[str, Any], snapshot: CatalogSnapshot) -> tuple[PartRow, ...]:
    """The chassis and every line of a build body with catalog names and list prices (RUB, without VAT)."""
    rows: list[PartRow] = []
    chassis = snapshot.chassis.get(str(body.get("chassis") or ""))
    if chassis is not None:
        rows.append(
            PartRow(
                "chassis",
                label(PART_KIND_LABELS, "chassis"),
                chassis.sku,
                part_name(chassis),
                1,
                chassis.price,
                chassis.price,
            )
        )
    for kind in PART_KINDS:
        for line in body.get(kind) or ():
            sku = str(line.get("sku") or "")
            qty = line.get("qty")
            spec = snapshot.kind(kind).get(sku)
            if spec is None or not isinstance(qty, int) or not 1 <= qty <= MAX_QTY:
                continue
            rows.append(
                PartRow(
                    kind, label(PART_KIND_LABELS, kind), sku, part_name(spec), qty, spec.price, money(spec.price * qty)
                )
            )
    return tuple(rows)


def gpu_title(build: BuildSpec) -> str:
    """The product a customer buys, by catalog names: "2 × NVIDIA RTX PRO 6000 Blackwell Max-Q"."""
    return ", ".join(f"{line.qty} × {part_name(line.spec)}" for line in build.gpus)


def server_facility(verdict: Verdict, rack_units: float | None) -> FacilityFigures | None:
    """The facility figures of a rack server (None for a desk-side workstation, which has no rack units)."""
    if not rack_units:
        return None
    power = verdict.power
    return facility_figures(
        load_w=power.load_w,
        psu_count=verdict.slots.psus,
        redundancy=power.redundancy,
        site_voltage=power.site_voltage,
        rack_units=rack_units,
    )


def candidate_views(
    result: Recommendation,
    snapshot: CatalogSnapshot,
    availability: Callable[[BuildSpec], BuildAvailability] | None = None,
) -> tuple[CandidateView, ...]:
    """The recommended builds for the cards and the comparison table; `availability` (the procurement
    reader) gives each its ship date."""
    views = []
    # the reasons name parts by SKU and warnings by rule code: a customer reads names and titles instead
    names = {**part_names(snapshot), **{code: str(title) for code, title in FINDING_TITLES.items()}}
    for rank, candidate in enumerate(result.candidates, start=1):
        build, chassis = candidate.build, candidate.build.chassis
        body = build_to_payload(build)
        ships = availability(build) if availability is not None else None
        verdict = verdict_view(candidate.verdict, candidate.price, snapshot)
        views.append(
            CandidateView(
                rank=rank,
                body=body,
                chassis_sku=chassis.sku,
                chassis_name=part_name(chassis),
                chassis_kind=label(ChassisKind, chassis.kind),
                rack_units=chassis.rack_units,
                rows=part_rows(body, snapshot),
                gpu_summary=gpu_title(build),
                price=candidate.price,
                tokens_per_user=candidate.decode_tokens_per_s_per_user,
                tokens_total=candidate.decode_tokens_per_s_total,
                training_tokens=candidate.training_tokens_per_s,
                verdict=verdict,
                why=tuple(with_part_names(line, names) for line in candidate.why),
                ships_in_days=ships.lead_time_days if ships is not None else None,
                ship_date=ships.ship_date if ships is not None else None,
                free_gpu_slots=max(int(verdict.slots.get("max_gpus", 0)) - int(verdict.slots.get("gpus", 0)), 0),
                noise=str(NOISE_LABELS[bool(chassis.server_airflow)]),
                tokens_served=candidate.served_output_tokens_per_s,
                label=label_phrase(candidate.label) if candidate.label else "",
                facility=server_facility(candidate.verdict, chassis.rack_units),
            )
        )
    return tuple(views)


# --------------------------------------------------------------------------- sources by name

#: Source texts in the estimator's sentences (repository paths with commit hashes, file names) → the name a
#: reader knows them by; the API keeps the full reference, the pages say the name.
SOURCE_NAMES: tuple[tuple[re.Pattern[str], str | Promise], ...] = (
    (
        re.compile(r"llama\.cpp tools/quantize/README\.md(?: @[0-9a-f]{6,40})?"),
        gettext_lazy("llama.cpp quantization table"),
    ),
    (
        re.compile(r"decode_calibration\.csv(?: \(bench/accuracy\.py\))?"),
        gettext_lazy("llama.cpp benchmark tables (GPU-Benchmarks-on-LLM-Inference, ai-benchmarks, llama.cpp)"),
    ),
    (
        re.compile(r"server_speed\.csv(?: \(bench/accuracy\.py\))?"),
        gettext_lazy("published serving benchmarks (vLLM, SGLang, TensorRT-LLM)"),
    ),
    (re.compile(r" ?@[0-9a-f]{7,40}\b"), ""),  # a commit hash left anywhere
)
#: A library model's `source` (where its config.json was read: repositories, or a research note such as "copies
#: of the HF config.json found by …", trial tr34) is named as what it is; a pasted config.json's source
#: ("pasted config.json (model_type …)") stays. The estimator's other sources are Phrases and are said as such.
MODEL_SOURCE = gettext_lazy("the model's published config.json")


def _named(value: Any) -> Any:
    if not isinstance(value, Phrase):
        return value
    values = {
        name: (
            cast(str, MODEL_SOURCE)
            if name == "source" and not isinstance(inner, Phrase) and not str(inner).startswith(PASTED_SOURCE)
            else _named(inner)
        )
        for name, inner in value.values.items()
    }
    again = type(value)  # the same sentence (its msgid already extracted where the engine wrote it)
    if value.plural_template is not None and value.count_name is not None:
        return again.plural(value.template, value.plural_template, value.count_name, **values)
    return again(value.template, **values)


def cited(line: Any) -> str:
    """An assumption sentence in the page's language with its sources named ("llama.cpp quantization
    table"), not pasted as repository paths and commit hashes."""
    text = str(say(_named(line)))
    for pattern, name in SOURCE_NAMES:
        text = pattern.sub(str(name), text)
    return text


@dataclass(frozen=True, slots=True)
class ResultView:
    """The recommendation's summary above the cards: the search, the model and what it needs in all."""

    considered: int
    elapsed_ms: float
    total_params_b: float
    active_params_b: float
    memory_total_gib: float
    assumptions: tuple[str, ...]
    suggestions: tuple[str, ...]


def result_view(result: Recommendation, snapshot: CatalogSnapshot | None = None) -> ResultView:
    estimate = result.estimate
    return ResultView(
        considered=result.considered,
        elapsed_ms=round(result.elapsed_ms, 1),
        total_params_b=round(estimate.total_params / 1e9, 2),
        active_params_b=round(estimate.active_params / 1e9, 2),
        memory_total_gib=round(estimate.memory.total, 2),
        assumptions=tuple(estimate.assumptions),
        suggestions=tuple(with_part_names(line, part_names(snapshot)) for line in result.suggestions),
    )


def workload_memory(estimate: Estimate) -> tuple[Segment, ...]:
    """The whole model's memory breakdown (all GPUs together) as segments of its total."""
    breakdown = estimate.memory
    total = breakdown.total or 1.0
    return tuple(
        Segment(
            key=key,
            label=str(name),
            gib=round(float(getattr(breakdown, key)), 2),
            percent=round(float(getattr(breakdown, key)) / total * 100, 2),
        )
        for key, name in MEMORY_PARTS
        if float(getattr(breakdown, key)) > 0
    )
