"""The quote PDF: what the document says (`quote_pdf_context`, every text in QUOTE_LANGUAGE) and its render
(quotes/pdf_layout.py, ReportLab). Pure rendering: a Quote in, PDF bytes out.

The document shows only what was copied into the quote when it was made (lines, prices, VAT rate,
terms, the build's findings), so rendering it again later gives the same text.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import timezone, translation
from django.utils.functional import Promise
from django.utils.translation import npgettext, pgettext, pgettext_lazy

from catalog.cluster_models import CLUSTER_MODELS
from configurator.engine.facility import DEFAULT_SITE_VOLTAGE, FacilityFigures, facility_figures
from configurator.engine.models_library import model_library
from configurator.labels import FINDING_TITLES, Task, label
from configurator.outputs import stored_findings
from configurator.wording import CURRENCY_SIGNS, facility_rows, num, part_name, part_spec, say
from quotes import pdf_layout
from quotes.cluster_doc import cluster_facility_rows, cluster_sections, is_cluster
from quotes.models import Quote, QuoteLine
from quotes.selectors import quote_request_note

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
#: The document's headings, column heads and fixed sentences (context "quote document").
DOCUMENT_LABELS: dict[str, Promise] = {
    "number": pgettext_lazy("quote document", "Number"),
    "revision": pgettext_lazy("quote document", "revision"),
    "date": pgettext_lazy("quote document", "Date"),
    "valid": pgettext_lazy("quote document", "Valid"),
    "customer": pgettext_lazy("quote document", "Customer"),
    "currency": pgettext_lazy("quote document", "Currency"),
    "ships": pgettext_lazy("quote document", "Ships"),
    "discount": pgettext_lazy("quote document", "Discount"),
    "sized_for": pgettext_lazy("quote document", "What the build was sized for"),
    "speeds_note": pgettext_lazy(
        "quote document", "The speeds are the configurator's estimate for this workload, not a guarantee."
    ),
    "facility": pgettext_lazy("quote document", "For the data centre"),
    "configuration": pgettext_lazy("quote document", "Configuration"),
    "no": pgettext_lazy("quote document", "No."),
    "sku": pgettext_lazy("quote document", "SKU"),
    "name_specs": pgettext_lazy("quote document", "Name and specifications"),
    "qty": pgettext_lazy("quote document", "Qty"),
    "price": pgettext_lazy("quote document", "Price"),
    "amount": pgettext_lazy("quote document", "Amount"),
    "net": pgettext_lazy("quote document", "Total without VAT:"),
    "gross": pgettext_lazy("quote document", "Total incl. VAT:"),
    "options": pgettext_lazy("quote document", "Options (not in the total)"),
    "check": pgettext_lazy("quote document", "Configuration check"),
    "checked_notes": pgettext_lazy(
        "quote document",
        "The configuration was checked against the compatibility rules; no errors. "
        "Notes (warnings accepted by the customer):",
    ),
    "checked_clean": pgettext_lazy(
        "quote document", "The configuration was checked against the compatibility rules: no errors and no warnings."
    ),
    "terms": pgettext_lazy("quote document", "Terms"),
    "for_seller": pgettext_lazy("quote document", "For the seller"),
    "signature": pgettext_lazy("quote document", "signature"),
    "page": pgettext_lazy("quote document", "page"),
    "of": pgettext_lazy("quote document", "of"),
    "subtotal": pgettext_lazy("quote document", "Section subtotal:"),
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
        # the library model's name ("Llama 3.1 8B"), not its slug; a Hugging Face id stays as typed
        model = model_library().get(str(workload["model"]))
        rows.append((str(pgettext_lazy("quote document", "Model")), model.name if model else str(workload["model"])))
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
        # as the workload form lists it ("Q4_K_M", "BF16"), not the stored value ("q4_k_m")
        rows.append((str(pgettext_lazy("quote document", "Precision")), str(workload["precision"]).upper()))
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
    served = throughput.get("served_output_tokens_per_s")  # absent from estimates stored before issue 33
    if per_user is not None:
        rows.append((str(pgettext_lazy("quote document", "Generation per user, tokens/s")), num(per_user, 1)))
    if total is not None:
        rows.append((str(pgettext_lazy("quote document", "Generation in total, tokens/s")), num(total, 1)))
    if served:
        rows.append((str(pgettext_lazy("quote document", "Output at full load, tokens/s")), num(served, 0)))
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


def quote_ship_date(verdict: dict[str, Any]) -> date | None:
    """The earliest ship date stored with the quote's verdict (by the suppliers' offers on the quote's date)."""
    raw = verdict.get("ship_date")
    if not raw:
        return None
    try:
        return date.fromisoformat(str(raw))
    except ValueError:
        return None


def quote_facility(verdict: dict[str, Any]) -> FacilityFigures | None:
    """The facility figures of a rack server (engine.facility) from the power budget, PSU count and rack units
    stored with the quote's verdict; None for a workstation or a quote stored before rack units were kept."""
    power, slots, units = verdict.get("power"), verdict.get("slots"), verdict.get("rack_units")
    if not isinstance(power, dict) or not isinstance(slots, dict) or not units:
        return None
    try:
        return facility_figures(
            load_w=float(power["load_w"]),
            psu_count=int(slots["psus"]),
            redundancy=str(power.get("redundancy") or "none"),
            site_voltage=int(power.get("site_voltage") or DEFAULT_SITE_VOLTAGE),
            rack_units=float(units),
        )
    except (KeyError, TypeError, ValueError):
        return None


def quote_facts(quote: Quote) -> dict[str, Any]:
    """What the page and the PDF both say about the build beyond its lines, in the active language: the
    workload it was sized for, its estimate, its ship date and, for a rack server, its facility figures
    (one source for both documents); a cluster's facility figures from quotes.cluster_doc."""
    figures = quote_facility(quote.verdict or {})
    facility = facility_rows(figures) if figures is not None else []
    return {
        "workload": _workload(quote),
        "estimate": _estimate(quote.verdict or {}),
        "ship_date": quote_ship_date(quote.verdict or {}),
        "facility": cluster_facility_rows(quote) if is_cluster(quote) else facility,
    }


def _line_row(line: QuoteLine) -> dict[str, Any]:
    """A line as the document's table shows it (a cluster part without the kind before its name)."""
    return {
        "position": line.position,
        "kind": "" if line.kind in CLUSTER_MODELS else _kind_prefix(line.kind, part_name(line)),
        "sku": line.sku,
        "name": part_name(line),
        "spec": part_spec(line),
        "qty": line.qty,
        "unit_price": format_money(line.unit_price),
        "total": format_money(line.line_total),
    }


def _ship_date(verdict: dict[str, Any]) -> str:
    found = quote_ship_date(verdict)
    return found.strftime("%d.%m.%Y") if found else ""


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
    """What the document says, every text in QUOTE_LANGUAGE (quotes/pdf_layout.py draws it)."""
    with translation.override(settings.QUOTE_LANGUAGE):
        return _context(quote)


def _context(quote: Quote) -> dict[str, Any]:
    lines = list(quote.lines.all())
    customer = quote.owner
    created = timezone.localtime(quote.created_at)
    valid_until = timezone.localtime(quote.valid_until).strftime("%d.%m.%Y") if quote.valid_until else ""
    ship_date = _ship_date(quote.verdict or {})
    note = quote_request_note(quote) or {}
    return {
        "quote": quote,
        "title": str(TITLE),
        "created_date": created.strftime("%d.%m.%Y"),
        "valid_text": _valid_text(valid_until, settings.QUOTE_VALIDITY_DAYS),
        "customer_text": f"{quote_customer(quote, note)} ({customer.email})"
        if customer.email
        else quote_customer(quote, note),
        "lines": [_line_row(line) for line in lines if not line.optional],
        "sections": cluster_sections(lines, _line_row, format_money) if is_cluster(quote) else [],
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
        "net": format_money(quote.net_total),
        "vat": format_money(quote.vat_total),
        "gross": format_money(quote.gross_total),
        "currency": CURRENCY_SIGNS.get(quote.currency, quote.currency),
        "seller": _seller(),
        **{key: value for key, value in quote_facts(quote).items() if key != "ship_date"},
        "ship_text": (
            pgettext("quote document", "from %(ship_date)s (by the suppliers' offers on the quote's date)")
            % {"ship_date": ship_date}
            if ship_date
            else ""
        ),
        "terms": [line for line in quote.terms.splitlines() if line.strip()],
        "labels": {
            **{key: str(text) for key, text in DOCUMENT_LABELS.items()},
            "vat": pgettext("quote document", "VAT %(vat_percent)s %%:")
            % {"vat_percent": format_percent(quote.vat_percent)},
        },
    }


def _valid_text(valid_until: str, validity_days: int) -> str:
    if valid_until:
        return pgettext("quote document", "until %(valid_until)s inclusive") % {"valid_until": valid_until}
    return npgettext(
        "quote document",
        "%(days)s day from the date it is sent",
        "%(days)s days from the date it is sent",
        validity_days,
    ) % {"days": validity_days}


def quote_customer(quote: Quote, note: dict[str, str] | None = None) -> str:
    """`Neuronet LLC, Alice Ivanova, INN 7701234567`: who the quote is for, as one line, on the page and the
    PDF — the company and name the customer typed in the quote request (`note`), else the account's, and
    its INN when known (issue 37 trial: both named the login)."""
    note, customer = note or {}, quote.owner
    name = note.get("name") or customer.get_full_name() or customer.username
    company = note.get("company") or customer.company
    inn = pgettext("quote document", "INN %(inn)s") % {"inn": customer.inn} if customer.inn else ""
    return ", ".join(part.strip() for part in (company, name, inn) if part.strip())


def render_quote_pdf(quote: Quote) -> bytes:
    """The quote's PDF (ReportLab, quotes/pdf_layout.py), its texts in QUOTE_LANGUAGE."""
    return pdf_layout.render(
        quote_pdf_context(quote), font_dir=settings.QUOTE_PDF_FONT_DIR, lang=settings.QUOTE_LANGUAGE
    )


def pdf_worker_warm_up() -> None:
    """Prepare a process that renders PDFs (the Celery worker's child, at start): read the fonts, build the
    styles and render one line, so the first quote does not pay for them (~40 ms), then freeze what exists
    (Django, the fonts) out of every later collection. The collector's thresholds stay the default: a
    quote render sets off about one young collection in two renders and its time does not move with
    them (measured against (20000, 20, 50), issue 17)."""
    import gc

    pdf_layout.styles()
    pdf_layout.render_line("Quote No. 1", font_dir=settings.QUOTE_PDF_FONT_DIR)
    gc.collect()
    gc.freeze()
