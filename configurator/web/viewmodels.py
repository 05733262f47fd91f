"""View models for the web pages: the API's dicts (recommendation, verdict, estimate) shaped for templates.

Nothing here decides anything: figures come from `recommendation_make` / `build_validate` and the catalog
snapshot; this module only adds names, percentages for the bars and translated labels.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from catalog.models import ChassisKind
from configurator.engine.builds import MAX_QTY, PART_KINDS, money
from configurator.engine.types import CatalogSnapshot, FixOpKind
from configurator.labels import (
    FINDING_TITLES,
    MEMORY_PARTS,
    PARALLELISM_LABELS,
    PART_KIND_LABELS,
    Severity,
    label,
)

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
    throughput: Mapping[str, Any] | None
    assumptions: tuple[str, ...]
    price: Mapping[str, str] | None
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
    gpu_summary: str
    price: Mapping[str, str]
    tokens_per_user: float
    tokens_total: float
    verdict: VerdictView
    why: tuple[str, ...]


# --------------------------------------------------------------------------- pieces


def memory_bar(estimate: Mapping[str, Any] | None) -> MemoryBar | None:
    """The per-GPU stacked bar of an estimate with a GPU layout; None without one."""
    if not estimate or not estimate.get("gpu"):
        return None
    gpu = estimate["gpu"]
    breakdown = estimate.get("memory_gib") or {}
    total = float(breakdown.get("total") or 0.0)
    per_gpu = float(gpu.get("per_gpu_gib") or 0.0)
    usable = float(gpu.get("usable_gib") or 0.0)
    scale = max(per_gpu, usable) or 1.0
    segments = []
    for key, name in MEMORY_PARTS:
        whole = float(breakdown.get(key) or 0.0)
        if whole <= 0 or total <= 0:
            continue
        share = whole / total * per_gpu
        segments.append(Segment(key=key, label=str(name), gib=round(share, 2), percent=round(share / scale * 100, 2)))
    return MemoryBar(
        gpu_sku=str(gpu.get("sku", "")),
        gpu_count=int(gpu.get("count") or 1),
        parallelism=label(PARALLELISM_LABELS, gpu.get("parallelism")),
        per_gpu_gib=round(per_gpu, 2),
        usable_gib=round(usable, 2),
        fits=bool(gpu.get("fits")),
        segments=tuple(segments),
        usable_percent=round(usable / scale * 100, 2),
    )


def _text(value: Any) -> str:
    """A text as is (a domain `Phrase` stays one, so the page can say it in its language); else str."""
    return value if isinstance(value, str) else str(value or "")


def _fix_view(index: int, fix: Mapping[str, Any]) -> FixView:
    ops = tuple(op for op in fix.get("ops") or () if isinstance(op, Mapping))
    return FixView(
        index=index,
        ops=ops,
        text=_text(fix.get("text")),
        applicable=bool(ops) and all(op.get("op") != FixOpKind.CHANGE_WORKLOAD for op in ops),
    )


def finding_views(findings: Sequence[Mapping[str, Any]]) -> tuple[FindingView, ...]:
    """Findings with translated titles, in the verdict's order (errors first); `index` is the position in
    the verdict, which the editor's "apply" button sends back."""
    views = [
        FindingView(
            index=index,
            code=str(f.get("code", "")),
            severity=str(f.get("severity", "info")),
            severity_label=label(Severity, f.get("severity")),
            title=label(FINDING_TITLES, f.get("code")),
            message=_text(f.get("message")),
            measured=f.get("measured"),
            limit=f.get("limit"),
            unit=str(f.get("unit") or ""),
            components=tuple(f.get("components") or ()),
            fixes=tuple(_fix_view(i, fix) for i, fix in enumerate(f.get("fixes") or ())),
            no_fix=bool(f.get("no_fix")),
        )
        for index, f in enumerate(findings)
    ]
    return tuple(sorted(views, key=lambda v: (SEVERITY_ORDER.get(v.severity, 3), v.index)))


def verdict_view(verdict: Mapping[str, Any], price: Mapping[str, str] | None = None) -> VerdictView:
    power = verdict.get("power") or {}
    pcie = verdict.get("pcie") or {}
    estimate = verdict.get("estimate")
    findings = finding_views(verdict.get("findings") or ())
    counts = {severity: sum(1 for f in findings if f.severity == severity) for severity in SEVERITY_ORDER}
    return VerdictView(
        valid=bool(verdict.get("valid")),
        findings=findings,
        power=Meter(float(power.get("load_w") or 0), float(power.get("capacity_w") or 0), "W"),
        installed_w=float(power.get("installed_w") or 0),
        redundancy=str(power.get("redundancy", "none")),
        site_voltage=int(power.get("site_voltage") or 230),
        lanes=Meter(float(pcie.get("lanes_needed") or 0), float(pcie.get("lanes_available") or 0), "lanes", None),
        topology=str(pcie.get("topology", "")),
        slots=dict(verdict.get("slots") or {}),
        memory=memory_bar(estimate),
        throughput=(estimate or {}).get("throughput"),
        assumptions=tuple((estimate or {}).get("assumptions") or ()),
        price=price or verdict.get("price"),
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
                chassis.name,
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
                PartRow(kind, label(PART_KIND_LABELS, kind), sku, spec.name, qty, spec.price, money(spec.price * qty))
            )
    return tuple(rows)


def candidate_views(result: Mapping[str, Any], snapshot: CatalogSnapshot) -> tuple[CandidateView, ...]:
    views = []
    for rank, candidate in enumerate(result.get("candidates") or (), start=1):
        body = candidate["build"]
        chassis = snapshot.chassis.get(body["chassis"])
        gpus = ", ".join(f"{line['qty']} × {line['sku']}" for line in body.get("gpus") or ())
        views.append(
            CandidateView(
                rank=rank,
                body=body,
                chassis_sku=body["chassis"],
                chassis_name=chassis.name if chassis else body["chassis"],
                chassis_kind=label(ChassisKind, chassis.kind if chassis else None),
                rack_units=chassis.rack_units if chassis else None,
                rows=part_rows(body, snapshot),
                gpu_summary=gpus,
                price=candidate["price"],
                tokens_per_user=float(candidate.get("decode_tokens_per_s_per_user") or 0),
                tokens_total=float(candidate.get("decode_tokens_per_s_total") or 0),
                verdict=verdict_view(candidate["verdict"], candidate["price"]),
                why=tuple(candidate.get("why") or ()),
            )
        )
    return tuple(views)


def workload_memory(estimate: Mapping[str, Any]) -> tuple[Segment, ...]:
    """The whole model's memory breakdown (all GPUs together) as segments of its total."""
    breakdown = estimate.get("memory_gib") or {}
    total = float(breakdown.get("total") or 0.0) or 1.0
    return tuple(
        Segment(
            key=key,
            label=str(name),
            gib=float(breakdown.get(key) or 0.0),
            percent=round(float(breakdown.get(key) or 0.0) / total * 100, 2),
        )
        for key, name in MEMORY_PARTS
        if float(breakdown.get(key) or 0.0) > 0
    )
