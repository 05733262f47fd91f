"""The API's hot answers — estimate, verdict, recommendation — as plain Python: the same JSON as the output
serializers of configurator.outputs, field for field and type for type, without DRF's per-field machinery.

The serializers stay the contract (the OpenAPI schema, stored verdicts, the management commands); these
functions are what the estimate, validate and recommendation answers are made with, and
tests/api/test_output_data.py checks them equal to the serializers' `.data` on the catalog's platforms,
random builds with workloads, estimates of every task and recommendations. DRF walks each field through
`get_attribute` and `to_representation` (~60 µs for one verdict, ~0.1 ms per recommended build); this is a
few dict literals. Rules copied from the serializers: a field whose value is None is None whatever its
type; sentences (`Phrase`) stay as they are; numbers are rounded and money quantized as the fields do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from rest_framework import serializers

from configurator.engine.availability import BuildAvailability
from configurator.engine.builds import build_to_payload
from configurator.engine.fixes import fix_op_data
from configurator.engine.recommend.policy import machine_class
from configurator.engine.types import (
    BuildSpec,
    Candidate,
    Estimate,
    Finding,
    Fix,
    Price,
    Verdict,
)

AvailabilityReader = Callable[[BuildSpec], BuildAvailability]
#: PriceOutputSerializer's fields: the quantizing and string form of DRF's DecimalField itself
_MONEY = serializers.DecimalField(max_digits=16, decimal_places=2)
_CENTS, _MONEY_BELOW = -2, Decimal(10) ** 14  # what _MONEY writes as it is: two places, at most 16 digits


def _money(value: Any) -> str:
    """_MONEY.to_representation(value): an amount already in kopecks (engine.builds.money) as it is, without
    DRF's quantizing in a copied decimal context (the field's own path for anything else)."""
    # a NaN or an infinity has a letter for its exponent, never -2
    if type(value) is Decimal and value.as_tuple().exponent == _CENTS and abs(value) < _MONEY_BELOW:
        return f"{value:f}"
    return str(_MONEY.to_representation(value))


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _rounded(value: Any, places: int) -> float | None:
    return None if value is None else round(float(value), places)


def _phrases(values: Iterable[Any] | None) -> list[Any] | None:
    """A ListField of PhraseField: each sentence kept (a Phrase is a str), anything else as its text."""
    if values is None:
        return None
    return [value if value is None or isinstance(value, str) else str(value) for value in values]


def price_data(price: Price | None) -> dict[str, Any] | None:
    if price is None:
        return None
    return {
        "currency": _str(price.currency),
        "net": None if price.net is None else _money(price.net),
        "vat": None if price.vat is None else _money(price.vat),
        "gross": None if price.gross is None else _money(price.gross),
    }


def estimate_data(estimate: Estimate | None) -> dict[str, Any] | None:
    """EstimateOutputSerializer(estimate).data."""
    if estimate is None:
        return None
    memory, layout, throughput = estimate.memory, estimate.layout, estimate.throughput
    return {
        "model": {
            "slug": _str(estimate.model_slug),
            "total_params_b": None if estimate.total_params is None else round(estimate.total_params / 1e9, 2),
            "active_params_b": None if estimate.active_params is None else round(estimate.active_params / 1e9, 2),
        },
        "memory_gib": None
        if memory is None
        else {
            "weights": _rounded(memory.weights, 2),
            "kv_cache": _rounded(memory.kv_cache, 2),
            "activations": _rounded(memory.activations, 2),
            "gradients": _rounded(memory.gradients, 2),
            "optimizer": _rounded(memory.optimizer, 2),
            "overhead": _rounded(memory.overhead, 2),
            "total": _rounded(memory.total, 2),
        },
        "gpu": None
        if layout is None
        else {
            "sku": _str(layout.sku),
            "count": _int(layout.count),
            "parallelism": layout.parallelism,
            "per_gpu_gib": _rounded(layout.per_gpu_gib, 2),
            "usable_gib": _rounded(layout.usable_gib, 2),
            "fits": _bool(layout.fits),
            "kv_cache_tokens": _int(layout.kv_cache_tokens),
            "max_concurrent_users": _int(layout.max_concurrent_users),
        },
        "throughput": None
        if throughput is None
        else {
            "decode_tokens_per_s_per_user": _rounded(throughput.decode_tokens_per_s_per_user, 1),
            "decode_tokens_per_s_total": _rounded(throughput.decode_tokens_per_s_total, 1),
            "prefill_tokens_per_s": _rounded(throughput.prefill_tokens_per_s, 1),
            "time_to_first_token_s": _rounded(throughput.time_to_first_token_s, 3),
            "training_tokens_per_s": _rounded(throughput.training_tokens_per_s, 1),
            "served_output_tokens_per_s": _rounded(throughput.served_output_tokens_per_s, 1),
            "served_sequences": _int(throughput.served_sequences),
            "prompt_tokens": _int(throughput.prompt_tokens),
            "output_tokens": _int(throughput.output_tokens),
            "prefill_share": _rounded(throughput.prefill_share, 3),
            "served_tensor_parallel": _int(throughput.served_tensor_parallel),
            "served_replicas": _int(throughput.served_replicas),
            "users_tensor_parallel": _int(throughput.users_tensor_parallel),
            "users_replicas": _int(throughput.users_replicas),
        },
        "assumptions": _phrases(estimate.assumptions),
    }


def _fix_data(fix: Fix) -> dict[str, Any]:
    text = fix.text
    return {
        "ops": None if fix.ops is None else [None if op is None else fix_op_data(op) for op in fix.ops],
        "text": text if text is None or isinstance(text, str) else str(text),
    }


def _finding_data(finding: Finding) -> dict[str, Any]:
    message = finding.message
    return {
        "code": _str(finding.code),
        "severity": finding.severity,
        "message": message if message is None or isinstance(message, str) else str(message),
        "measured": finding.measured,
        "limit": finding.limit,
        "unit": _str(finding.unit),
        "components": None if finding.components is None else [_str(sku) for sku in finding.components],
        "fixes": None if finding.fixes is None else [_fix_data(fix) for fix in finding.fixes],
        "no_fix": _bool(finding.no_fix),
        "fixes_unchecked": _bool(finding.fixes_unchecked),
    }


def verdict_data(verdict: Verdict) -> dict[str, Any]:
    """VerdictOutputSerializer(verdict).data."""
    power, pcie, slots, vram = verdict.power, verdict.pcie, verdict.slots, verdict.vram
    return {
        "valid": _bool(verdict.valid),
        "findings": [_finding_data(finding) for finding in verdict.findings],
        "power": {
            "load_w": _float(power.load_w),
            "capacity_w": _float(power.capacity_w),
            "installed_w": _float(power.installed_w),
            "redundancy": _str(power.redundancy),
            "site_voltage": _int(power.site_voltage),
            "utilization": round(power.load_w / power.capacity_w, 3) if power.capacity_w > 0 else None,
        },
        "pcie": {
            "lanes_needed": _int(pcie.lanes_needed),
            "lanes_available": _int(pcie.lanes_available),
            "topology": pcie.topology,
        },
        "slots": {
            "gpus": _int(slots.gpus),
            "gpu_bays": _int(slots.gpu_bays),
            "max_gpus": _int(slots.max_gpus),
            "dimms": _int(slots.dimms),
            "dimm_slots": _int(slots.dimm_slots),
            "psus": _int(slots.psus),
            "psu_bays": _int(slots.psu_bays),
        },
        "vram": {
            "total_gib": _float(vram.total_gib),
            "needed_per_gpu_gib": _float(vram.needed_per_gpu_gib),
            "usable_per_gpu_gib": _float(vram.usable_per_gpu_gib),
        },
        "estimate": estimate_data(verdict.estimate),
    }


def validate_data(verdict: Verdict, price: Price, availability: BuildAvailability | None = None) -> dict[str, Any]:
    """ValidateOutputSerializer(PricedVerdict(verdict, price, availability)).data: the verdict, its price and
    when the build can ship."""
    data = verdict_data(verdict)
    data["price"] = price_data(price)
    ship_date = availability.ship_date if availability else None
    data["ship_date"] = ship_date.isoformat() if ship_date else None
    data["lead_time_days"] = availability.lead_time_days if availability else None
    return data


def candidate_data(candidate: Candidate, availability: AvailabilityReader | None) -> dict[str, Any]:
    """CandidateOutputSerializer(candidate, context={"availability": availability}).data."""
    found = availability(candidate.build) if availability else None
    return {
        "build": build_to_payload(candidate.build),
        "verdict": validate_data(candidate.verdict, candidate.price, found),
        "decode_tokens_per_s_per_user": _rounded(candidate.decode_tokens_per_s_per_user, 2),
        "decode_tokens_per_s_total": _rounded(candidate.decode_tokens_per_s_total, 2),
        "training_tokens_per_s": _rounded(candidate.training_tokens_per_s, 1),
        "served_output_tokens_per_s": _rounded(candidate.served_output_tokens_per_s, 1),
        "price": price_data(candidate.price),
        "why": _phrases(candidate.why),
        "ship_date": found.ship_date.isoformat() if found and found.ship_date else None,
        "lead_time_days": found.lead_time_days if found else None,
        "class": machine_class(candidate.build.chassis),
    }


def recommendation_data(recommendation: Any, availability: AvailabilityReader | None) -> dict[str, Any]:
    """RecommendationOutputSerializer(recommendation, context={"availability": availability}).data."""
    return {
        "estimate": estimate_data(recommendation.estimate),
        "candidates": [candidate_data(candidate, availability) for candidate in recommendation.candidates],
        "considered": _int(recommendation.considered),
        "elapsed_ms": _rounded(recommendation.elapsed_ms, 1),
        "suggestions": _phrases(recommendation.suggestions),
    }
