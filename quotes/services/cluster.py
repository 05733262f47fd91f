"""A quote (R1) for a cluster of GPU nodes (issue 39 item 5): one configuration of many lines.

The cluster is designed again from the request (configurator.engine.cluster.recommend, the engine the cluster
card shows), the option of the GPU asked (or the first: valid ones first, cheapest first) is taken, and its
lines by section (configurator.engine.cluster.bill) are priced like every quote's hardware (quotes.pricing at the
quote's discount; services by `_shared.lines_price`; VAT from the dated table). What it was made from is kept
in `build_payload` (`cluster`: the request, `workload`, `design`: GPU, nodes, catalog versions), so the design
can be made again and compared (`cluster_quote_revalidate`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from catalog.cluster_specs import cluster_catalog
from catalog.specs import catalog_snapshot
from configurator.engine.cluster.bill import cluster_facility, cluster_lines
from configurator.engine.cluster.data import option_data
from configurator.engine.cluster.recommend import ClusterOption, recommend_cluster
from configurator.engine.errors import ErrorCode, InvalidInput
from configurator.engine.types import Workload
from finance.vat import vat_percent_on
from quotes.models import Quote, QuoteEventType, QuoteLine, QuoteStatus
from quotes.pricing import cluster_line_draft
from quotes.services._shared import creation_checked, event_add, lines_build, lines_price, totals_dict
from quotes.services.extras import service_line
from quotes.services.numbering import quote_number_next
from quotes.services.render import render_queue_on_commit
from quotes.services.terms import quote_terms
from servicelines.models import ServiceItem
from servicelines.services import services_by_sku

#: The request fields the design is made from (configurator.api.clusters.ClusterInputSerializer).
DESIGN_FIELDS = ("nodes", "rack_kw_limit", "site_voltage_v", "compute_switch", "dataset_tb", "oversubscription")


def cluster_design(*, workload: Workload, request: Mapping[str, Any]) -> tuple[ClusterOption, str]:
    """The option of the GPU asked (`request["gpu"]`, else the first) and the catalog versions it was made of."""
    snapshot, cat = catalog_snapshot(), cluster_catalog()
    found = recommend_cluster(
        snapshot,
        cat,
        workload,
        nodes=request.get("nodes"),
        dataset_tb=float(request.get("dataset_tb") or 0.0),
        rack_kw_limit=float(request.get("rack_kw_limit") or 40.0),
        site_voltage_v=int(request.get("site_voltage_v") or 400),
        compute_switch=request.get("compute_switch"),
        oversubscription=float(request.get("oversubscription") or 1.0),
    )
    gpu = request.get("gpu")
    options = [o for o in found.options if gpu in (None, o.build.spec.node.gpus[0].spec.sku)]
    if not options:
        offered = sorted(o.build.spec.node.gpus[0].spec.sku for o in found.options)
        raise InvalidInput(
            f"No cluster of {gpu} nodes holds this workload; offered: {', '.join(offered)}.",
            fields={"cluster.gpu": [f"not one of {', '.join(offered)}"]},
        )
    return options[0], f"{snapshot.version}/{cat.version}"


def _checked(option: ClusterOption, acknowledge_warnings: bool) -> None:
    errors = [f for f in option.findings if f.severity == "error"]
    if errors:
        texts = [f"{f.code}: {f.message}" for f in errors]
        raise InvalidInput(
            "The cluster has errors; it cannot be quoted: " + "; ".join(texts),
            code=ErrorCode.BUILD_INVALID,
            fields={"cluster": texts},
        )
    warnings = [f"{f.code}: {f.message}" for f in option.findings if f.severity == "warning"]
    if warnings and not acknowledge_warnings:
        raise InvalidInput(
            "The cluster has warnings; acknowledge them to make a quote: " + "; ".join(warnings),
            code=ErrorCode.WARNINGS_NOT_ACKNOWLEDGED,
            fields={"acknowledge_warnings": warnings},
        )


def _verdict(option: ClusterOption) -> dict[str, Any]:
    facility = cluster_facility(option.build)
    data = option_data(option)
    return {
        "cluster": {
            "gpu": data["gpu"],
            "nodes": data["nodes"],
            "gpus_per_node": data["gpus_per_node"],
            "purpose": data["purpose"],
            "facility": {
                "racks": facility.racks,
                "load_kw": facility.load_kw,
                "max_rack_kw": facility.max_rack_kw,
                "max_amps_per_feed": facility.max_amps_per_feed,
                "site_voltage_v": facility.site_voltage_v,
                "rack_kw_limit": facility.rack_kw_limit,
            },
            "fabric": data["fabric"],
            "serving": data["serving"],
            "training": data["training"],
            "findings": [{k: f[k] for k in ("code", "severity", "message")} for f in data["findings"]],
        }
    }


def quote_create_cluster(
    *,
    customer: User,
    created_by: User,
    workload: Workload,
    request: Mapping[str, Any],
    acknowledge_warnings: bool = False,
    discount_percent: Decimal | int | str = 0,
    services: Sequence[str] | None = None,
    request_note: Mapping[str, str] | None = None,
) -> Quote:
    """A draft quote for the cluster `request` (its `workload` already read from `request["workload"]`): who may
    and the refusals as `quote_create` (errors → `build_invalid`, warnings → `warnings_not_acknowledged`)."""
    discount = creation_checked(customer=customer, created_by=created_by, discount_percent=discount_percent)
    option, versions = cluster_design(workload=workload, request=request)
    _checked(option, acknowledge_warnings)
    service_items: list[ServiceItem] = []
    if services is not None:
        service_items, unknown = services_by_sku(services)
        if unknown:
            raise InvalidInput("Unknown services.", fields=unknown)
    drafts = [
        cluster_line_draft(line.section, line.kind, line.spec, line.qty, discount, per_node=line.per_node)
        for line in cluster_lines(option.build, cluster_catalog())
    ]
    vat_percent = vat_percent_on(timezone.localdate())
    design = {
        "gpu": option.build.spec.node.gpus[0].spec.sku,
        "nodes": option.build.spec.nodes,
        "node_chassis": option.build.spec.node.chassis.sku,
        "price": str(option.build.price),
        "catalog_versions": versions,
    }
    with transaction.atomic():
        quote = Quote(
            number=quote_number_next(),
            revision=1,
            owner=customer,
            created_by=created_by,
            status=QuoteStatus.DRAFT,
            currency="RUB",
            vat_percent=vat_percent,
            discount_percent=discount,
            terms=quote_terms(vat_percent=vat_percent, validity_days=settings.QUOTE_VALIDITY_DAYS),
            build_payload={
                "cluster": {k: request.get(k) for k in (*DESIGN_FIELDS, "gpu")},
                "workload": request.get("workload"),
                "design": design,
            },
            verdict=_verdict(option),
        )
        lines: list[QuoteLine] = lines_build(quote, drafts)
        first = len(lines) + 1
        lines += [service_line(quote, first + offset, item) for offset, item in enumerate(service_items)]
        for line in lines[len(drafts) :]:
            line.section = "services"
        lines_price(quote, lines)
        quote.save()
        QuoteLine.objects.bulk_create(lines)
        event_add(
            quote,
            QuoteEventType.CREATED,
            user=created_by,
            data={
                "totals": totals_dict(quote),
                "discount_percent": str(discount),
                "cluster": design,
                "acknowledged_warnings": [f.code for f in option.findings if f.severity == "warning"],
                **({"services": [item.sku for item in service_items]} if services is not None else {}),
                **({"request": dict(request_note)} if request_note else {}),
            },
        )
        render_queue_on_commit(quote.pk)
    return quote


def cluster_quote_revalidate(*, quote: Quote, workload: Workload) -> dict[str, Any]:
    """The stored cluster request designed again now: whether it is still valid, and the nodes and hardware price
    then and now (the quote's lines are not changed)."""
    stored = quote.build_payload or {}
    option, versions = cluster_design(workload=workload, request=stored.get("cluster") or {})
    design = stored.get("design") or {}
    return {
        "valid": option.valid,
        "findings": [f"{f.code}: {f.message}" for f in option.findings if f.severity == "error"],
        "nodes": {"then": design.get("nodes"), "now": option.build.spec.nodes},
        "price": {"then": design.get("price"), "now": str(option.build.price)},
        "catalog_versions": {"then": design.get("catalog_versions"), "now": versions},
    }
