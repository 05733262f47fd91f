"""A quote's terms (issue 37 follow-up): the standing sentences of templates/quotes/terms.txt, and the
warranty and burn-in sentences made from the quote's own service lines, so the terms never promise
"36 months, 72-hour test included" beside a 1-year warranty line and a paid 48-hour burn-in line.

One function, `quote_terms`, makes the text a quote stores; the page and the PDF both print that stored
text, so they say the same. Quotes made earlier keep the terms stored with them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext, ngettext

from servicelines.models import Category, ServiceItem

TERMS_TEMPLATE = "quotes/terms.txt"


@dataclass(frozen=True)
class ServiceTerm:
    """What the terms need of one service line: its category, its term in years, its names."""

    category: str
    years: int | None
    name: str
    name_ru: str

    def label(self, language: str) -> str:
        return self.name_ru if language == "ru" and self.name_ru else self.name


def service_terms(items: Iterable[ServiceItem]) -> list[ServiceTerm]:
    return [ServiceTerm(item.category, item.years, item.name, item.name_ru) for item in items]


def service_terms_of_lines(skus: Sequence[str]) -> list[ServiceTerm]:
    """The services behind a quote's service lines (by SKU, on sale or not, in the lines' order)."""
    by_sku = {item.sku: item for item in ServiceItem.objects.filter(sku__in=list(skus))}
    return service_terms(by_sku[sku] for sku in skus if sku in by_sku)


def _warranty_sentence(services: Sequence[ServiceTerm], language: str) -> str:
    warranty = next((s for s in services if s.category == Category.WARRANTY), None)
    if warranty is None:  # no warranty line: the base warranty these terms have always stated
        return gettext("Warranty: 36 months on the assembly; components carry the manufacturer’s warranty.")
    if warranty.years:
        return ngettext(
            "Warranty: %(years)s year on the assembly (%(service)s); components carry the manufacturer’s warranty.",
            "Warranty: %(years)s years on the assembly (%(service)s); components carry the manufacturer’s warranty.",
            warranty.years,
        ) % {"years": warranty.years, "service": warranty.label(language)}
    return gettext("Warranty on the assembly: %(service)s; components carry the manufacturer’s warranty.") % {
        "service": warranty.label(language)
    }


def _included_sentence(services: Sequence[ServiceTerm], language: str) -> str:
    burn_in = next((s for s in services if s.category == Category.BURN_IN_REPORT), None)
    if burn_in is None:
        return gettext("The price includes assembly and OS installation on request; a burn-in test is not included.")
    return gettext("The price includes assembly, OS installation on request and the service line “%(service)s”.") % {
        "service": burn_in.label(language)
    }


def quote_terms(*, vat_percent: Decimal, validity_days: int, services: Sequence[ServiceTerm] = ()) -> str:
    """The terms printed on a new quote or revision, in QUOTE_LANGUAGE, the language of its documents
    (templates/quotes/terms.txt; a `QUOTE_TERMS` setting, a str.format template with `{vat}` and `{days}`,
    replaces them). They say what the lines are: prices without VAT, VAT at `vat_percent` (the rate of the
    quote's date) added on top of the total; what the price includes and the warranty, from `services`
    (the quote's service lines)."""
    vat = f"{vat_percent.normalize():f}"
    custom = getattr(settings, "QUOTE_TERMS", None)
    if custom is not None:
        return str(custom).format(vat=vat, days=validity_days)
    language = settings.QUOTE_LANGUAGE
    with translation.override(language):
        context = {
            "vat": vat,
            "days": str(validity_days),
            "included": _included_sentence(services, language),
            "warranty": _warranty_sentence(services, language),
        }
        return render_to_string(TERMS_TEMPLATE, context).strip()
