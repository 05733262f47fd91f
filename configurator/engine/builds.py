"""Build bodies ↔ BuildSpec, and what a build costs. Pure: takes a CatalogSnapshot, no ORM.

A build body is the JSON of ARCHITECTURE.md `POST /api/v1/builds/validate`:
``{"chassis": sku, "cpus": [{"sku", "qty"}], "gpus": […], "psus": […], "memory": […], "storage": […],
"nics": […], "bridges": […], "psu_redundancy": "n+1", "site_voltage": 230}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from difflib import get_close_matches
from typing import Any

from configurator.engine.errors import DomainError
from configurator.engine.phrase import Phrase
from configurator.engine.types import (
    REDUNDANCY_MODES,
    SITE_VOLTAGES,
    BuildSpec,
    CatalogSnapshot,
    Line,
    Price,
)

PART_KINDS: tuple[str, ...] = ("cpus", "gpus", "psus", "memory", "storage", "nics", "bridges")
MAX_QTY = 64  # no line of a real build needs more; larger values are refused as absurd
CENT = Decimal("0.01")
HUNDRED = Decimal(100)  # a percentage's divisor, made once (money is on every priced build's path)
BUILD_KEYS: tuple[str, ...] = ("chassis", *PART_KINDS, "psu_redundancy", "site_voltage", "workload")
LINE_KEYS: tuple[str, ...] = ("sku", "qty")
_BUILD_KEY_SET, _LINE_KEY_SET = frozenset(BUILD_KEYS), frozenset(LINE_KEYS)


# What people call a field when they do not know its name (checked only against the valid keys given)
KEY_SYNONYMS = {
    "budget": "max_price",
    "price": "max_price",
    "cost": "max_price",
    "users": "concurrent_users",
    "context": "context_tokens",
    "ctx": "context_tokens",
    "seq_len": "sequence_length",
    "power": "max_power_w",
    "voltage": "site_voltage",
    "ecc": "require_ecc",
}


def closest_key(key: str, valid: Iterable[str]) -> str | None:
    """The valid key meant by `key`: a close spelling (difflib), a known synonym, or the one valid key that
    has `key` as one of its words (`users` → `concurrent_users`)."""
    allowed = list(valid)
    close = get_close_matches(key, allowed, n=1, cutoff=0.6)
    if close:
        return close[0]
    lowered = key.lower()
    if KEY_SYNONYMS.get(lowered) in allowed:
        return KEY_SYNONYMS[lowered]
    holding = [name for name in allowed if lowered in name.split("_")]
    return holding[0] if len(holding) == 1 else None


def unknown_key_reason(key: str, valid: Iterable[str]) -> str:
    """Why `key` is refused, with the closest valid key when one is close (`closest_key`)."""
    valid = tuple(valid)
    close = closest_key(key, valid)
    if close:
        return Phrase("unknown field %(key)s; did you mean %(close)s?", key=repr(key), close=repr(close))
    return Phrase("unknown field %(key)s; expected one of %(valid)s", key=repr(key), valid=", ".join(valid))


def unknown_keys(body: Mapping[str, Any], valid: Iterable[str], *, prefix: str = "") -> dict[str, list[str]]:
    """Every key of `body` that is not in `valid`, named `prefix + key`, each with its reason: a typo such
    as `"gpu": [...]` is refused rather than silently ignored (which would validate a build without GPUs)."""
    allowed = tuple(valid)
    return {f"{prefix}{key}": [unknown_key_reason(str(key), allowed)] for key in body if key not in allowed}


def _spelled(sku: str) -> str:
    """A SKU as people copy it from a spec sheet ("L40S", " H100 SXM "): lower case, spaces as hyphens."""
    return "-".join(sku.lower().split())


def resolve_sku(sku: Any, catalog_part: Mapping[str, Any]) -> str | None:
    """The catalog SKU `sku` names: itself, or the same written in another case or with spaces for hyphens
    ("L40S" → "l40s"); None when it names none."""
    if not isinstance(sku, str):
        return None
    if sku in catalog_part:
        return sku
    spelled = _spelled(sku)
    return spelled if spelled in catalog_part else None


def unknown_sku(kind: str, sku: Any, catalog_part: Mapping[str, Any]) -> Phrase:
    """Why `sku` is refused, with the closest catalog SKU when one is close (`h100-sxm5` → `h100-sxm`)."""
    close = get_close_matches(_spelled(sku), list(catalog_part), n=1, cutoff=0.75) if isinstance(sku, str) else []
    if kind == "chassis":
        if close:
            return Phrase("unknown chassis SKU %(sku)s; did you mean %(close)s?", sku=repr(sku), close=repr(close[0]))
        return Phrase("unknown chassis SKU %(sku)s", sku=repr(sku))
    if close:
        return Phrase(
            "unknown %(kind)s SKU %(sku)s; did you mean %(close)s?", kind=kind, sku=repr(sku), close=repr(close[0])
        )
    return Phrase("unknown %(kind)s SKU %(sku)s", kind=kind, sku=repr(sku))


def build_from_payload(payload: Mapping[str, Any], snapshot: CatalogSnapshot) -> BuildSpec:
    """Resolve SKUs against the snapshot. Unknown SKUs and bad quantities raise a DomainError that
    names every offending field (e.g. ``gpus[0].sku``), so the API answers 400, never 500."""
    errors: dict[str, list[str]] = {} if _BUILD_KEY_SET.issuperset(payload) else unknown_keys(payload, BUILD_KEYS)
    chassis_sku = payload.get("chassis")
    resolved_chassis = resolve_sku(chassis_sku, snapshot.chassis)
    chassis = snapshot.chassis[resolved_chassis] if resolved_chassis is not None else None
    if chassis is None:
        errors["chassis"] = [
            unknown_sku("chassis", chassis_sku, snapshot.chassis) if chassis_sku else Phrase("a chassis is required")
        ]

    lines: dict[str, tuple[Line[Any], ...]] = {}
    for kind in PART_KINDS:
        raw_lines = payload.get(kind) or ()
        if type(raw_lines) is not list and (not isinstance(raw_lines, Sequence) or isinstance(raw_lines, str | bytes)):
            errors[kind] = [Phrase("must be a list of {sku, qty}")]
            continue
        catalog_part = snapshot.kind(kind)
        merged: dict[str, int] = {}
        for index, raw in enumerate(raw_lines):
            if type(raw) is not dict and not isinstance(raw, Mapping):
                errors[f"{kind}[{index}]"] = [Phrase("must be an object {sku, qty}")]
                continue
            if not _LINE_KEY_SET.issuperset(raw):
                errors.update(unknown_keys(raw, LINE_KEYS, prefix=f"{kind}[{index}]."))
            sku: Any = raw.get("sku")
            qty = raw.get("qty", 1)
            resolved = resolve_sku(sku, catalog_part)
            known = resolved is not None
            if resolved is None:
                errors[f"{kind}[{index}].sku"] = [unknown_sku(kind, sku, catalog_part)]
            else:
                sku = resolved
            if type(qty) is not int and (isinstance(qty, bool) or not isinstance(qty, int)):
                errors[f"{kind}[{index}].qty"] = [Phrase("must be an integer")]
            elif qty < 1:
                errors[f"{kind}[{index}].qty"] = [Phrase("must be at least 1")]
            elif qty > MAX_QTY:
                errors[f"{kind}[{index}].qty"] = [Phrase("must be at most %(most)s", most=MAX_QTY)]
            elif known:
                merged[sku] = merged.get(sku, 0) + qty
        for sku, total in merged.items():
            if total > MAX_QTY:
                errors[kind] = [
                    Phrase("%(sku)s: %(total)s in total, at most %(most)s", sku=sku, total=total, most=MAX_QTY)
                ]
        lines[kind] = tuple(Line(spec=catalog_part[sku], qty=qty) for sku, qty in merged.items())

    # a rack runs its PSUs redundant (its first supported mode); "none" would make every such body invalid
    default_mode = (
        chassis.psu_redundancy_modes[0] if chassis and chassis.is_rack and chassis.psu_redundancy_modes else "none"
    )
    redundancy = payload.get("psu_redundancy", default_mode)
    if redundancy not in REDUNDANCY_MODES:
        errors["psu_redundancy"] = [Phrase("must be one of %(choices)s", choices=", ".join(REDUNDANCY_MODES))]
    voltage = payload.get("site_voltage", 230)
    if voltage not in SITE_VOLTAGES or isinstance(voltage, bool):
        errors["site_voltage"] = [Phrase("must be one of %(choices)s", choices=", ".join(map(str, SITE_VOLTAGES)))]

    if errors or chassis is None:
        raise DomainError(Phrase("The build is not valid input."), fields=errors)
    return BuildSpec(
        chassis=chassis,
        psu_redundancy=str(redundancy),
        site_voltage=int(voltage),
        **lines,
    )


def build_to_payload(build: BuildSpec) -> dict[str, Any]:
    """The inverse of build_from_payload (SKUs and quantities only)."""
    body: dict[str, Any] = {"chassis": build.chassis.sku}
    for kind in PART_KINDS:
        body[kind] = [{"sku": line.spec.sku, "qty": line.qty} for line in getattr(build, kind)]
    body["psu_redundancy"] = build.psu_redundancy
    body["site_voltage"] = build.site_voltage
    return body


def build_lines(build: BuildSpec) -> list[tuple[str, Any, int]]:
    """Every priced line of the build as (kind, spec, qty), chassis first."""
    rows: list[tuple[str, Any, int]] = [("chassis", build.chassis, 1)]
    for kind in PART_KINDS:
        rows.extend((kind, line.spec, line.qty) for line in getattr(build, kind))
    return rows


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, ROUND_HALF_UP)  # positional: the keyword costs as much as the rounding


def build_price(build: BuildSpec, *, vat_percent: Decimal) -> Price:
    """List price of the build: Σ unit price × qty (each line rounded to kopecks), VAT on the net.

    All catalog prices share one currency (RUB); a line in another currency is refused rather
    than converted at a guessed rate.
    """
    currency = build.chassis.currency
    net = Decimal(0)
    # build_lines' order without its list (the recommender prices every build it validates)
    for spec, qty in _priced_lines(build):
        if spec.currency != currency:
            raise DomainError(
                Phrase(
                    "%(sku)s is priced in %(currency)s, the build in %(build_currency)s.",
                    sku=spec.sku,
                    currency=spec.currency,
                    build_currency=currency,
                ),
                fields={"currency": [Phrase("mixed currencies in one build")]},
            )
        net += (spec.price * qty).quantize(CENT, ROUND_HALF_UP)  # money(), inlined
    net = money(net)
    vat = money(net * vat_percent / HUNDRED)
    return Price(currency=currency, net=net, vat=vat, gross=net + vat)


def _priced_lines(build: BuildSpec) -> Iterator[tuple[Any, int]]:
    """(spec, qty) of every line of the build, chassis first, in `build_lines`' order."""
    yield build.chassis, 1
    for lines in (build.cpus, build.gpus, build.psus, build.memory, build.storage, build.nics, build.bridges):
        for line in lines:
            yield line.spec, line.qty
