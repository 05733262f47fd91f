"""Build validation and saved builds: the doors (API, admin, management command) call these.

`build_validate` reads the catalog through the cached snapshot (one SQL query when the catalog has not
changed), so a validation costs a constant number of queries whatever the build's size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404
from rest_framework.exceptions import ValidationError

from catalog.cluster_specs import cluster_catalog
from catalog.specs import catalog_snapshot
from config.api import deserialize
from configurator.engine.builds import PART_KINDS, build_from_payload, build_price, build_to_payload
from configurator.engine.cluster.data import recommendation_data as cluster_data
from configurator.engine.cluster.recommend import recommend_cluster
from configurator.engine.errors import DomainError
from configurator.engine.fixes import apply_fix, fix_from_data
from configurator.engine.phrase import Phrase
from configurator.engine.recommend import Recommendation, VramReserve, recommend
from configurator.engine.recommend.policy import chassis_holds_count
from configurator.engine.rules.context import active
from configurator.engine.types import BuildSpec, CatalogSnapshot, Constraints, Price, Verdict, Workload
from configurator.engine.validate import validate
from configurator.models import SavedBuild
from configurator.output_data import recommendation_data
from configurator.outputs import stored_verdict_data
from configurator.serializers import WorkloadInputSerializer, workload_from_data
from finance.vat import vat_percent_today
from procurement.selectors import availability_reader

WORKLOAD_PREFIX = "workload."
MAX_LINES = 64  # lines per part kind in a body; more than any real build has


def _flatten(detail: Any, prefix: str) -> dict[str, list[str]]:
    if isinstance(detail, Mapping):
        fields: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = prefix if key == "non_field_errors" else f"{prefix}.{key}"
            for sub, reasons in _flatten(value, name).items():
                fields.setdefault(sub, []).extend(reasons)
        return fields
    if isinstance(detail, list | tuple):
        return {prefix: [str(item) for item in detail]}
    return {prefix: [str(detail)]}


def workload_from_payload(raw: Any) -> Workload | None:
    """The build body's optional `workload` → Workload; bad input raises DomainError naming
    `workload.<field>`."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise DomainError(
            Phrase("The build is not valid input."), fields={"workload": [Phrase("must be an object or null")]}
        )
    try:
        data = deserialize(WorkloadInputSerializer, dict(raw))  # the thread's serializer: no fields copied
    except ValidationError as error:
        raise DomainError(
            Phrase("The workload is not valid input."), fields=_flatten(error.detail, "workload")
        ) from None
    return workload_from_data(data, field_prefix=WORKLOAD_PREFIX)


def build_parse(*, payload: Any, snapshot: CatalogSnapshot) -> tuple[BuildSpec, Workload | None]:
    """A build body → BuildSpec and Workload; DomainError names every bad field (`gpus[0].qty`, `workload.model`)."""
    if not isinstance(payload, Mapping):
        raise DomainError(
            Phrase("The build must be a JSON object."), fields={"non_field_errors": [Phrase("expected an object")]}
        )
    too_long: dict[str, list[str]] = {
        kind: [Phrase("at most %(most)s lines", most=MAX_LINES)]
        for kind in PART_KINDS
        if isinstance(payload.get(kind), list) and len(payload[kind]) > MAX_LINES
    }
    if too_long:
        raise DomainError(Phrase("The build is not valid input."), fields=too_long)
    build = build_from_payload(payload, snapshot)
    return build, workload_from_payload(payload.get("workload"))


def build_validate(*, payload: Any, snapshot: CatalogSnapshot | None = None) -> tuple[BuildSpec, Verdict, Price]:
    """Validate a build body (ARCHITECTURE.md `POST /api/v1/builds/validate`) and price it with the VAT rate in
    force today (finance.vat.vat_percent_today). Bad input raises DomainError with the fields named."""
    snapshot = snapshot or catalog_snapshot()
    build, workload = build_parse(payload=payload, snapshot=snapshot)
    verdict = validate(build, snapshot=snapshot, workload=workload)
    price = build_price(build, vat_percent=vat_percent_today())
    return build, verdict, price


def build_apply_fix(
    *, payload: Any, fix: Any, snapshot: CatalogSnapshot | None = None
) -> tuple[dict[str, Any], Verdict, Price]:
    """A fix as the API returned it (`{"ops": [...], "text": …}`) made on a build body: the new body (the
    workload kept as given), its verdict and price. Bad bodies name `build.<field>`, bad fixes `fix.<field>`,
    and a fix that cannot be made on this build (it changes the workload, or names a line the build lacks)
    is a 400 `fix_not_applicable`; nothing is stored."""
    snapshot = snapshot or catalog_snapshot()
    fix_data = fix_from_data(fix)
    try:
        build, workload = build_parse(payload=payload, snapshot=snapshot)
    except DomainError as error:
        raise error.nested("build.") from error
    fixed = apply_fix(build, fix_data, snapshot)
    body = build_to_payload(fixed)
    if isinstance(payload, Mapping) and payload.get("workload") is not None:
        body["workload"] = payload["workload"]
    verdict = validate(fixed, snapshot=snapshot, workload=workload)
    return body, verdict, build_price(fixed, vat_percent=vat_percent_today())


def _stored_payload(build: BuildSpec, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The normalised body (SKUs merged, defaults filled) plus the workload as given."""
    body = build_to_payload(build)
    body["workload"] = payload.get("workload")
    return body


# --------------------------------------------------------------------------- saved builds (selectors)


def saved_build_list(*, user: Any) -> QuerySet[SavedBuild]:
    """Sales engineers (and superusers) see every saved build; everyone else their own."""
    queryset = SavedBuild.objects.select_related("owner").order_by("-updated", "-id")
    if getattr(user, "is_sales", False):
        return queryset
    return queryset.filter(owner=user)


def saved_build_get(*, user: Any, pk: int) -> SavedBuild:
    """One saved build the user may see; another customer's build is 404, not 403."""
    found = saved_build_list(user=user).filter(pk=pk).first()
    if found is None:
        raise Http404("No such saved build.")
    return found


# --------------------------------------------------------------------------- saved builds (services)


def saved_build_create(*, owner: Any, name: str, notes: str = "", payload: Any) -> SavedBuild:
    """Validate the body and store it with its verdict (an invalid build is stored too, marked invalid)."""
    build, verdict, _ = build_validate(payload=payload)
    return SavedBuild.objects.create(
        owner=owner,
        name=name,
        notes=notes,
        payload=_stored_payload(build, payload),
        last_verdict=stored_verdict_data(verdict),
        valid=verdict.valid,
    )


@transaction.atomic
def saved_build_update(
    *,
    saved_build: SavedBuild,
    name: str | None = None,
    notes: str | None = None,
    payload: Any = None,
) -> SavedBuild:
    """Change name, notes and/or the build; the build is re-validated against the current catalog."""
    if name is not None:
        saved_build.name = name
    if notes is not None:
        saved_build.notes = notes
    body = payload if payload is not None else saved_build.payload
    build, verdict, _ = build_validate(payload=body)
    saved_build.payload = _stored_payload(build, body)
    saved_build.last_verdict = stored_verdict_data(verdict)
    saved_build.valid = verdict.valid
    saved_build.save()
    return saved_build


def saved_build_delete(*, saved_build: SavedBuild) -> None:
    saved_build.delete()


# --------------------------------------------------------------------------- recommendations


def _gpu_count(count: int | None, cap: int | None, snapshot: CatalogSnapshot) -> int | None:
    """An exact GPU count, checked against the catalog: a 400 (DomainError) above `max_gpus` or when no active
    chassis takes that many GPUs (its bays and rated count; an HGX baseboard only its 4 or 8)."""
    if count is None:
        return None
    if cap is not None and count > cap:
        reason = Phrase("gpu_count %(count)s is above max_gpus %(cap)s", count=count, cap=cap)
        raise DomainError(Phrase("The constraints are not valid input."), fields={"constraints.gpu_count": [reason]})
    if not any(chassis_holds_count(chassis, count) for chassis in active(snapshot.chassis)):
        most = max((min(c.max_gpu_count, c.gpu_bays) for c in active(snapshot.chassis)), default=0)
        reason = Phrase(
            "no chassis of the catalog takes %(count)s GPUs (the most any takes: %(most)s)", count=count, most=most
        )
        raise DomainError(Phrase("The constraints are not valid input."), fields={"constraints.gpu_count": [reason]})
    return int(count)


def constraints_from_data(data: Mapping[str, Any], snapshot: CatalogSnapshot) -> Constraints:
    """Validated constraint fields → Constraints; unknown chassis SKUs are named `constraints.chassis[i]`."""
    chassis = tuple(str(sku).strip().lower() for sku in data.get("chassis") or ())
    unknown = {
        f"constraints.chassis[{index}]": [f"unknown chassis SKU {sku!r}"]
        for index, sku in enumerate(chassis)
        if sku not in snapshot.chassis
    }
    if unknown:
        raise DomainError(Phrase("The constraints are not valid input."), fields=unknown)
    return Constraints(
        max_price=data.get("max_price"),
        currency=data.get("currency", settings.DEFAULT_CURRENCY),
        form_factor=data.get("form_factor", "any"),
        max_power_w=data.get("max_power_w"),
        site_voltage=int(data.get("site_voltage", 230)),
        require_ecc=bool(data.get("require_ecc", False)),
        max_gpus=data.get("max_gpus"),
        gpu_count=_gpu_count(data.get("gpu_count"), data.get("max_gpus"), snapshot),
        chassis=chassis,
        deliver_by=data.get("deliver_by"),
        noise=data.get("noise", "any"),
    )


def recommendation_find(
    *, workload: Workload, constraints: Mapping[str, Any], limit: int = 5, availability: Any = None
) -> Recommendation:
    """The cheapest valid builds for a workload from the current catalog (constraints as validated data), priced
    with the VAT rate in force today (finance.vat.vat_percent_today); `availability` reads the suppliers' offers
    (procurement.selectors.availability_reader by default)."""
    snapshot = catalog_snapshot()
    availability = availability or availability_reader()
    return recommend(
        snapshot,
        workload,
        constraints_from_data(constraints, snapshot),
        limit=limit,
        vat_percent=vat_percent_today(),
        availability=availability,
        reserve=VramReserve(
            share=float(getattr(settings, "RECOMMEND_VRAM_RESERVE_SHARE", 0.05)),
            min_gib=float(getattr(settings, "RECOMMEND_VRAM_RESERVE_MIN_GIB", 1.0)),
        ),
    )


def recommendation_make(*, workload: Workload, constraints: Mapping[str, Any], limit: int = 5) -> dict[str, Any]:
    """`recommendation_find` as the API's response body (with each build's ship date)."""
    availability = availability_reader()
    result = recommendation_find(workload=workload, constraints=constraints, limit=limit, availability=availability)
    return recommendation_data(result, availability)


def cluster_recommendation_make(
    *,
    workload: Workload,
    nodes: int | None = None,
    rack_kw_limit: float = 40.0,
    site_voltage_v: int = 400,
    compute_switch: str | None = None,
    dataset_tb: float = 0.0,
    oversubscription: float = 1.0,
) -> dict[str, Any]:
    """A cluster for the workload from the current catalog and cluster parts (issue 39), as the API's body."""
    found = recommend_cluster(
        catalog_snapshot(),
        cluster_catalog(),
        workload,
        nodes=nodes,
        dataset_tb=dataset_tb,
        rack_kw_limit=rack_kw_limit,
        site_voltage_v=site_voltage_v,
        compute_switch=compute_switch,
        oversubscription=oversubscription,
    )
    return cluster_data(found)
