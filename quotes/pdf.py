"""The quote PDF: a Django template rendered by WeasyPrint. Pure rendering: a Quote in, PDF bytes out.

Fonts: DejaVu Sans (Debian `fonts-dejavu-core`) covers Cyrillic; WeasyPrint finds it through fontconfig.
The document shows only what was copied into the quote when it was made (lines, prices, VAT rate,
terms, the build's findings), so rendering it again later gives the same text.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.functional import Promise
from django.utils.translation import pgettext_lazy

from configurator.labels import FINDING_TITLES, Task, label
from configurator.outputs import stored_findings
from configurator.wording import CURRENCY_SIGNS, num, part_name, part_spec, say
from quotes.models import Quote

#: The texts of the document are gettext strings (context "quote document"; Russian in locale/ru), rendered
#: in QUOTE_LANGUAGE whatever the language of the request or task that renders it.
KIND_LABELS: dict[str, Promise] = {
    "chassis": pgettext_lazy("quote document", "Platform"),
    "cpus": pgettext_lazy("quote document", "CPU"),
    "gpus": pgettext_lazy("quote document", "GPU"),
    "psus": pgettext_lazy("quote document", "Power supply"),
    "memory": pgettext_lazy("quote document", "Memory"),
    "storage": pgettext_lazy("quote document", "Drive"),
    "nics": pgettext_lazy("quote document", "Network card"),
    "bridges": pgettext_lazy("quote document", "NVLink bridge"),
    "services": pgettext_lazy("quote document", "Service"),
}
SEVERITY_LABELS: dict[str, Promise] = {
    "error": pgettext_lazy("quote document", "error"),
    "warning": pgettext_lazy("quote document", "warning"),
    "info": pgettext_lazy("quote document", "info"),
}
TITLE = pgettext_lazy("quote document", "Quote")
#: The seller's details in the order the document lists them (settings.SELLER; empty ones are left off).
SELLER_LABELS: dict[str, Promise] = {
    "address": pgettext_lazy("quote document", "Address"),
    "inn": pgettext_lazy("quote document", "INN"),
    "kpp": pgettext_lazy("quote document", "KPP"),
    "bank": pgettext_lazy("quote document", "Bank"),
    "bik": pgettext_lazy("quote document", "BIK"),
    "account": pgettext_lazy("quote document", "Account"),
    "correspondent_account": pgettext_lazy("quote document", "Correspondent account"),
}


def format_money(value: Decimal) -> str:
    """Money as the quote page shows it (`configurator.wording.num`, two places): `1 234 567,80` in Russian,
    `1,234,567.80` in English."""
    return num(value, 2)


def format_percent(value: Decimal) -> str:
    """`5.50` → `5,5` (ru) / `5.5` (en): as many places as the value needs, formatted like the page."""
    normalized = f"{Decimal(value).normalize():f}"
    return num(value, len(normalized.partition(".")[2]))


def _kind_prefix(kind: str, name: str) -> str:
    """The part kind before a line's name, unless the (Russian) name already starts with it."""
    text = str(KIND_LABELS.get(kind, kind))
    return "" if name.lower().startswith(text.lower()) else text


def _seller() -> dict[str, Any]:
    details = {key: str(value) for key, value in getattr(settings, "SELLER", {}).items() if value}
    return {
        "name": details.get("name", ""),
        "rows": [(str(text), details[key]) for key, text in SELLER_LABELS.items() if key in details],
        "signatory": details.get("signatory", ""),
        "signatory_title": details.get("signatory_title", ""),
    }


def _workload(quote: Quote) -> list[tuple[str, str]]:
    """What the build was sized for (the workload copied into the quote), as label/value rows."""
    workload = (quote.build_payload or {}).get("workload")
    if not isinstance(workload, dict):
        return []
    rows: list[tuple[str, str]] = []
    if workload.get("model"):
        rows.append((str(pgettext_lazy("quote document", "Model")), str(workload["model"])))
    elif workload.get("model_config"):
        rows.append((str(pgettext_lazy("quote document", "Model")), str(pgettext_lazy("quote document", "own config"))))
    if workload.get("task"):
        rows.append((str(pgettext_lazy("quote document", "Task")), str(label(Task, str(workload["task"])))))
    for key, text in (
        ("concurrent_users", pgettext_lazy("quote document", "Concurrent users")),
        ("context_tokens", pgettext_lazy("quote document", "Context, tokens")),
    ):
        if workload.get(key) is not None:
            rows.append((str(text), num(workload[key])))
    if workload.get("precision"):
        rows.append((str(pgettext_lazy("quote document", "Precision")), str(workload["precision"])))
    return rows


def _estimate(verdict: dict[str, Any]) -> list[tuple[str, str]]:
    """The estimate stored with the quote's verdict: speed and memory, formatted as on the page."""
    estimate = verdict.get("estimate")
    if not isinstance(estimate, dict):
        return []
    rows: list[tuple[str, str]] = []
    throughput = estimate.get("throughput") or {}
    gpu = estimate.get("gpu") or {}
    per_user = throughput.get("decode_tokens_per_s_per_user")
    total = throughput.get("decode_tokens_per_s_total")
    ttft = throughput.get("time_to_first_token_s")
    if per_user is not None:
        rows.append((str(pgettext_lazy("quote document", "Generation per user, tokens/s")), num(per_user, 1)))
    if total is not None:
        rows.append((str(pgettext_lazy("quote document", "Generation in total, tokens/s")), num(total, 1)))
    if ttft is not None:
        rows.append((str(pgettext_lazy("quote document", "Time to first token, s")), num(ttft, 2)))
    if gpu.get("per_gpu_gib") is not None and gpu.get("usable_gib") is not None:
        rows.append(
            (
                str(pgettext_lazy("quote document", "GPU memory used, GiB")),
                str(
                    pgettext_lazy("quote document", "%(used)s of %(usable)s per GPU")
                    % {"used": num(gpu["per_gpu_gib"], 1), "usable": num(gpu["usable_gib"], 1)}
                ),
            )
        )
    return rows


def _ship_date(verdict: dict[str, Any]) -> str:
    raw = verdict.get("ship_date")
    if not raw:
        return ""
    try:
        return date.fromisoformat(str(raw)).strftime("%d.%m.%Y")
    except ValueError:
        return ""


def _findings(verdict: dict[str, Any], names: dict[str, str]) -> list[dict[str, str]]:
    """The stored findings said in the active language: the rule's title and its sentence (phrases kept with
    the quote; a row stored before they were kept shows its English text)."""
    rows = []
    for finding in stored_findings(verdict, names):
        severity = str(finding.get("severity", ""))
        code = str(finding.get("code", ""))
        rows.append(
            {
                "code": code,
                "title": str(label(FINDING_TITLES, code)),
                "severity": str(SEVERITY_LABELS.get(severity, severity)),
                "message": str(say(finding.get("message", ""))),
            }
        )
    return rows


def quote_pdf_context(quote: Quote) -> dict[str, Any]:
    """What the template shows, its texts in QUOTE_LANGUAGE."""
    with translation.override(settings.QUOTE_LANGUAGE):
        return _context(quote)


def _context(quote: Quote) -> dict[str, Any]:
    lines = list(quote.lines.all())
    customer = quote.owner
    created = timezone.localtime(quote.created_at)
    validity_days = settings.QUOTE_VALIDITY_DAYS
    return {
        "quote": quote,
        "title": str(TITLE),
        "created_date": created.strftime("%d.%m.%Y"),
        "valid_until": timezone.localtime(quote.valid_until).strftime("%d.%m.%Y") if quote.valid_until else "",
        "validity_days": validity_days,
        "customer_name": customer.get_full_name() or customer.username,
        "customer_company": customer.company,
        "customer_email": customer.email,
        "lines": [
            {
                "position": line.position,
                "kind": _kind_prefix(line.kind, part_name(line)),
                "sku": line.sku,
                "name": part_name(line),
                "spec": part_spec(line),
                "qty": line.qty,
                "unit_price": format_money(line.unit_price),
                "list_price": format_money(line.list_price),
                "total": format_money(line.line_total),
            }
            for line in lines
            if not line.optional
        ],
        "optional_lines": [
            {
                "sku": line.sku,
                "name": part_name(line),
                "spec": part_spec(line),
                "qty": line.qty,
                "unit_price": format_money(line.unit_price),
                "total": format_money(line.line_total),
            }
            for line in lines
            if line.optional
        ],
        "findings": _findings(quote.verdict or {}, {line.sku: part_name(line) for line in lines}),
        "discount": format_percent(quote.discount_percent) if quote.discount_percent else "",
        "vat_percent": format_percent(quote.vat_percent),
        "net": format_money(quote.net_total),
        "vat": format_money(quote.vat_total),
        "gross": format_money(quote.gross_total),
        "currency": CURRENCY_SIGNS.get(quote.currency, quote.currency),
        "seller": _seller(),
        "workload": _workload(quote),
        "estimate": _estimate(quote.verdict or {}),
        "ship_date": _ship_date(quote.verdict or {}),
        "terms": [line for line in quote.terms.splitlines() if line.strip()],
    }


QUOTE_CSS = Path(__file__).with_name("quote_pdf.css")


@dataclass(frozen=True)
class PdfRenderer:
    """What every render of a process shares: one fontconfig setup (WeasyPrint's FontConfiguration, ~13 ms
    to build) and the quote's stylesheet parsed once against it."""

    font_config: Any
    quote_css: Any


@functools.cache
def pdf_renderer() -> PdfRenderer:
    """This process's renderer, made on first use (the web process only needs it when rendering eagerly;
    a Celery worker makes it at start, config/celery.py)."""
    from weasyprint import CSS
    from weasyprint.text.fonts import FontConfiguration

    font_config = FontConfiguration()
    return PdfRenderer(font_config, CSS(string=QUOTE_CSS.read_text(encoding="utf-8"), font_config=font_config))


#: Garbage collection in a rendering process: a render allocates ~10^5 short-lived objects (boxes, styles,
#: Pango layouts), so with the default thresholds (700, 10, 10) the collector runs hundreds of times per
#: render and a full collection now and then walks every object of Django and WeasyPrint (the p95 tail:
#: 265 ms against 163 ms with GC off, issue 17). Young collections are made rarer, and what exists after
#: the warm-up is frozen out of every later collection (gc.freeze). HEURISTIC: the thresholds were picked
#: from the render's allocation count (bench/bench_quotes.py shows the effect), not tuned finely.
RENDER_GC_THRESHOLDS = (20_000, 20, 50)


def pdf_worker_warm_up() -> None:
    """Prepare a process that renders PDFs (the Celery worker's child, at start): build the font
    configuration and the stylesheet, render one page so WeasyPrint's lazy imports and caches are filled,
    then freeze everything that exists into the permanent generation and raise the GC thresholds."""
    import gc

    render_html_pdf("<p style=\"font-family: 'DejaVu Sans'\">Quote No. 1</p>")
    gc.collect()
    gc.freeze()
    gc.set_threshold(*RENDER_GC_THRESHOLDS)


def render_html_pdf(html: str, *, stylesheets: Sequence[Any] = ()) -> bytes:
    from weasyprint import HTML

    renderer = pdf_renderer()
    document = HTML(string=html, base_url=str(settings.BASE_DIR))
    return bytes(document.write_pdf(stylesheets=list(stylesheets), font_config=renderer.font_config))


def render_quote_pdf(quote: Quote) -> bytes:
    with translation.override(settings.QUOTE_LANGUAGE):
        html = render_to_string("quotes/quote_pdf.html", quote_pdf_context(quote))
    return render_html_pdf(html, stylesheets=[pdf_renderer().quote_css])
