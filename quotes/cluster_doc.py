"""What the quote page and the quote PDF say of a cluster quote (issue 39 item 6): its lines by section with
section subtotals, and its facility figures (racks, kW per rack, amps per feed), in the active language."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import pgettext, pgettext_lazy

from configurator.engine.cluster.bill import SECTIONS
from configurator.wording import num, part_name
from quotes.models import Quote, QuoteLine
from quotes.pricing import SERVICE_KIND

SERVICES_SECTION = "services"
SECTION_TITLES: dict[str, Promise] = {
    "nodes": pgettext_lazy("cluster section", "GPU nodes"),
    "compute_fabric": pgettext_lazy("cluster section", "Compute fabric"),
    "frontend": pgettext_lazy("cluster section", "Front-end and storage network"),
    "storage": pgettext_lazy("cluster section", "Storage"),
    "management": pgettext_lazy("cluster section", "Management network"),
    "racks_power": pgettext_lazy("cluster section", "Racks and power"),
    SERVICES_SECTION: pgettext_lazy("cluster section", "Services"),
}

#: A cluster part's kind (catalog.cluster_models.CLUSTER_MODELS) as the quote page names it before the part.
CLUSTER_KIND_LABELS: dict[str, Promise] = {
    "switches": pgettext_lazy("cluster part", "Switch"),
    "adapters": pgettext_lazy("cluster part", "Adapter"),
    "cables": pgettext_lazy("cluster part", "Cable"),
    "storage_nodes": pgettext_lazy("cluster part", "Storage node"),
    "racks": pgettext_lazy("cluster part", "Rack"),
    "pdus": pgettext_lazy("cluster part", "PDU"),
}


def line_groups(quote: Quote, lines: Sequence[QuoteLine]) -> list[dict[str, Any]]:
    """The quote page's table: a cluster quote by section (title, lines, subtotal); a machine's parts as one
    group, then its services under one "Services" heading."""
    if is_cluster(quote):
        return cluster_sections(lines, lambda line: line, lambda value: value)
    groups = [
        {"key": "", "title": "", "lines": [line for line in lines if line.kind != SERVICE_KIND], "subtotal": None}
    ]
    services = [line for line in lines if line.kind == SERVICE_KIND]
    if services:  # one heading, then the rows (issue 37 trial: "Услуги" stood on every service row)
        groups.append(
            {
                "key": SERVICES_SECTION,
                "title": str(SECTION_TITLES[SERVICES_SECTION]),
                "lines": services,
                "subtotal": None,
            }
        )
    return groups


def is_cluster(quote: Quote) -> bool:
    return isinstance(quote.build_payload, dict) and "cluster" in quote.build_payload


def cluster_sections(
    lines: Sequence[QuoteLine], row: Callable[[QuoteLine], Any], money: Callable[[Decimal], Any]
) -> list[dict[str, Any]]:
    """The non-optional lines grouped by section in SECTIONS order (then services): title, rows (`row(line)`) and
    the subtotal (`money(Σ line totals)`); the subtotals add up to the quote's net total."""
    order = [*SECTIONS, SERVICES_SECTION]
    found: list[dict[str, Any]] = []
    for section in order:
        members = [line for line in lines if not line.optional and (line.section or SERVICES_SECTION) == section]
        if not members:
            continue
        total = sum((line.line_total for line in members), Decimal(0))
        found.append(
            {
                "key": section,
                "title": str(SECTION_TITLES[section]),
                "lines": [row(line) for line in members],
                "subtotal": money(total),
                "subtotal_value": total,
            }
        )
    return found


def _gpu_name(quote: Quote, cluster: dict[str, Any]) -> str:
    """The nodes' GPU by the name the quote's GPU line gives it (a customer reads names, not SKUs: issue 37)."""
    sku = str(cluster.get("gpu") or "")
    line = quote.lines.filter(sku=sku).first() if sku else None
    return part_name(line) if line is not None else sku


def cluster_facility_rows(quote: Quote) -> list[tuple[str, str]]:
    """The cluster's nodes and what the site must give it, as label/value rows."""
    cluster = (quote.verdict or {}).get("cluster") or {}
    facility = cluster.get("facility") or {}
    if not facility:
        return []
    rows = [
        (
            pgettext("cluster facility", "Nodes"),
            pgettext("cluster facility", "%(nodes)s × %(gpus)s GPU %(gpu)s")
            % {"nodes": cluster.get("nodes"), "gpus": cluster.get("gpus_per_node"), "gpu": _gpu_name(quote, cluster)},
        ),
        (pgettext("cluster facility", "Racks"), str(facility["racks"])),
        (
            pgettext("cluster facility", "Power, whole cluster"),
            pgettext("cluster facility", "%(kw)s kW") % {"kw": num(facility["load_kw"], 1)},
        ),
        (
            pgettext("cluster facility", "Heaviest rack"),
            pgettext("cluster facility", "%(kw)s kW (site limit %(limit)s kW)")
            % {"kw": num(facility["max_rack_kw"], 1), "limit": num(facility["rack_kw_limit"])},
        ),
        (
            pgettext("cluster facility", "Current per feed"),
            pgettext("cluster facility", "%(amps)s A per phase at %(volts)s V three-phase, two feeds (A/B) per rack")
            % {"amps": num(facility["max_amps_per_feed"], 1), "volts": facility["site_voltage_v"]},
        ),
    ]
    serving = cluster.get("serving")
    if serving:
        rows.append(
            (
                pgettext("cluster facility", "Speed per user"),
                pgettext("cluster facility", "%(speed)s tokens/s (%(layout)s, %(replicas)s replicas)")
                % {
                    "speed": num(serving["decode_tokens_per_s_per_user"], 1),
                    "layout": serving["parallelism"],
                    "replicas": serving["replicas"],
                },
            )
        )
    return rows
