"""Web pages of quotes: the list (`/quotes/`), a quote (`/quotes/<number>`), its PDF and its actions, and
the quote request of the build editor (its "Request a quote" button, answered here through
`configurator.web.views.EDITOR_OPS`; see quotes/apps.py).

Who sees a quote is decided by `quotes.selectors` (another customer's quote is 404); which buttons a
page offers by `quotes.policy.quote_actions`; every action is done (and checked again) by
`quotes.services`, whose refusals come back as a message on the quote page.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from rest_framework.throttling import ScopedRateThrottle

from accounts.models import User
from catalog.specs import catalog_snapshot
from config.throttle import throttle_counter
from configurator.engine.errors import ApplicationError
from configurator.outputs import stored_findings
from configurator.services import build_validate, saved_build_update
from configurator.web.viewmodels import gpu_title, part_rows, server_facility, verdict_view
from configurator.web.views import EditorPost
from configurator.wording import error_message, part_name
from quotes import services
from quotes.cluster_doc import line_groups
from quotes.forms import (
    MAX_BUILD_CHARS,
    CustomerQuoteRequestForm,
    DiscountForm,
    QuoteFilterForm,
    QuoteRequestForm,
    QuoteServicesForm,
    RejectForm,
    ReviseForm,
    RevisionForm,
)
from quotes.labels import ACTION_DONE, ERROR_MESSAGES
from quotes.models import Quote, RenderStatus
from quotes.pdf import quote_customer, quote_facts
from quotes.policy import ACTIONS, quote_actions, quote_discount_permission, quote_next_step, quote_permission
from quotes.pricing import SERVICE_KIND, hardware_net
from quotes.selectors import quote_get, quote_list, quote_request_note, quote_revisions
from quotes.services.extras import quote_services_set
from servicelines.services import service_defaults

LOGIN_URL = reverse_lazy("accounts:login")
PAGE_SIZE = 25
POLL_SECONDS = 2


def _user(request: HttpRequest) -> User:
    return cast(User, request.user)


def _revision(raw: Any) -> int | None:
    try:
        value = int(raw)
    except (TypeError, ValueError):
        return None
    return value if value >= 1 else None


def _detail_url(quote: Quote, *, latest: bool = True) -> str:
    url = reverse("quotes:detail", args=[quote.number])
    return url if latest else f"{url}?revision={quote.revision}"


@login_required(login_url=LOGIN_URL)
@require_GET
def quote_list_page(request: HttpRequest) -> HttpResponse:
    """Your quotes (customers) or all quotes (sales), newest first, filtered by status."""
    form = QuoteFilterForm(request.GET or None)
    status, all_revisions = None, False
    if form.is_bound and form.is_valid():
        status = form.cleaned_data["status"] or None
        all_revisions = form.cleaned_data["all_revisions"]
    quotes = quote_list(user=_user(request), status=status, latest_only=not all_revisions)
    page = Paginator(quotes, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "page": page, "query": query.urlencode(), "active": "quotes"}
    return render(request, "quotes/quote_list.html", context)


def _pdf_context(quote: Quote) -> dict[str, Any]:
    return {
        "quote": quote,
        "pdf_ready": quote.render_status == RenderStatus.READY and bool(quote.pdf),
        "poll_seconds": POLL_SECONDS,
        "pdf_url": f"{reverse('quotes:pdf', args=[quote.number])}?revision={quote.revision}",
        "status_url": f"{reverse('quotes:pdf-status', args=[quote.number])}?revision={quote.revision}",
    }


@login_required(login_url=LOGIN_URL)
@require_GET
def quote_detail_page(request: HttpRequest, number: str) -> HttpResponse:
    """One quote (the latest revision, or `?revision=`): lines, totals, history, PDF, allowed actions."""
    user = _user(request)
    quote = quote_get(user=user, number=number, revision=_revision(request.GET.get("revision")))
    revisions = quote_revisions(quote=quote)
    note = quote_request_note(quote)
    context = {
        **_pdf_context(quote),
        "lines": quote.lines.all(),
        "line_groups": line_groups(quote, list(quote.lines.all())),
        "events": quote.events.select_related("user"),
        "revisions": revisions,
        "is_latest": quote.revision == revisions[-1],
        "actions": quote_actions(user, quote),
        "next_step": quote_next_step(user, quote),
        "discount_form": (
            DiscountForm(initial={"revision": quote.revision, "discount_percent": quote.discount_percent})
            if quote_discount_permission(user, quote, quote.discount_percent)
            else None
        ),
        "revise_form": ReviseForm(initial={"revision": quote.revision, "discount_percent": quote.discount_percent}),
        "reject_form": RejectForm(initial={"revision": quote.revision}),
        "findings": stored_findings(quote.verdict, {line.sku: part_name(line) for line in quote.lines.all()}),
        "terms_language": settings.QUOTE_LANGUAGE,  # the terms are stored in the language of the documents
        **quote_facts(quote),  # the workload, its estimate, the ship date and facility figures, as the PDF says them
        "services_form": services_form(user, quote),
        "request_note": note,
        "customer_text": quote_customer(quote, note),
        "active": "quotes",
    }
    return render(request, "quotes/quote_detail.html", context)


@login_required(login_url=LOGIN_URL)
@require_GET
def quote_pdf_status(request: HttpRequest, number: str) -> HttpResponse:
    """The PDF box (htmx polls it while the PDF renders; the answer stops polling once it is ready)."""
    quote = quote_get(user=_user(request), number=number, revision=_revision(request.GET.get("revision")))
    return render(request, "quotes/_pdf_status.html", _pdf_context(quote))


@login_required(login_url=LOGIN_URL)
@require_GET
def quote_pdf_download(request: HttpRequest, number: str) -> FileResponse:
    quote = quote_get(user=_user(request), number=number, revision=_revision(request.GET.get("revision")))
    stored = services.quote_pdf_open(quote) if quote.render_status == RenderStatus.READY and quote.pdf else None
    if stored is None:
        raise Http404("The PDF is not ready yet.")
    return FileResponse(
        stored,
        as_attachment=True,
        filename=f"{quote.number}-R{quote.revision}.pdf",
        content_type="application/pdf",
    )


def _act(action: str, quote: Quote, user: User, request: HttpRequest) -> Quote | None:
    """Run one action through its service; None when the form of its inputs is not valid."""
    if action == "revise":
        revise = ReviseForm(request.POST)
        if not revise.is_valid():
            return None
        return services.quote_revise(quote=quote, user=user, discount_percent=revise.cleaned_data["discount_percent"])
    if action == "reject":
        reject = RejectForm(request.POST)
        if not reject.is_valid():
            return None
        return services.quote_reject(quote=quote, user=user, reason=reject.cleaned_data["reason"])
    simple: dict[str, Callable[..., Quote]] = {
        "submit": services.quote_submit,
        "approve": services.quote_approve,
        "send": services.quote_send,
        "accept": services.quote_accept,
        "refresh_prices": services.quote_refresh_prices,
    }
    return simple[action](quote=quote, user=user)


@login_required(login_url=LOGIN_URL)
@require_POST
def quote_discount(request: HttpRequest, number: str) -> HttpResponse:
    """POST `/quotes/<number>/discount`: a draft's discount, within what the user's role may give."""

    def change(quote: Quote, user: User, data: dict[str, Any]) -> object:
        return services.quote_discount_set(quote=quote, user=user, discount_percent=data["discount_percent"])

    return _draft_change(request, number, DiscountForm, change, _("The discount was changed."))


def _draft_change(
    request: HttpRequest,
    number: str,
    form_class: type[DiscountForm] | type[QuoteServicesForm],
    change: Callable[[Quote, User, dict[str, Any]], object],
    done: str,
) -> HttpResponse:
    """A form posted to change a draft (its discount, its services): the revision it names (or the POST's, when
    the form is not valid), the change by its service, and back to that revision's page with what happened."""
    user = _user(request)
    form = form_class(request.POST)
    revision = form.cleaned_data.get("revision") if form.is_valid() else _revision(request.POST.get("revision"))
    quote = quote_get(user=user, number=number, revision=revision)
    if not form.is_valid():
        messages.error(request, str(ERROR_MESSAGES["invalid"]))
        return redirect(_detail_url(quote, latest=False))
    try:
        change(quote, user, form.cleaned_data)
    except ApplicationError as error:
        messages.error(request, error_message(error, ERROR_MESSAGES))
        return redirect(_detail_url(quote, latest=False))
    messages.success(request, done)
    return redirect(_detail_url(quote, latest=False))


@login_required(login_url=LOGIN_URL)
@require_POST
def quote_action(request: HttpRequest, number: str, action: str) -> HttpResponse:
    """POST `/quotes/<number>/<action>`: the service decides; a refusal is shown, nothing changes."""
    if action not in ACTIONS:
        raise Http404("No such action.")
    user = _user(request)
    revision_form = RevisionForm(request.POST)
    revision = revision_form.cleaned_data.get("revision") if revision_form.is_valid() else None
    quote = quote_get(user=user, number=number, revision=revision)
    try:
        result = _act(action, quote, user, request)
    except ApplicationError as error:
        messages.error(request, error_message(error, ERROR_MESSAGES))
        return redirect(_detail_url(quote, latest=False))
    if result is None:
        messages.error(request, str(ERROR_MESSAGES["invalid"]))
        return redirect(_detail_url(quote, latest=False))
    messages.success(request, str(ACTION_DONE[action]))
    return redirect(_detail_url(result))


# --------------------------------------------------------------------------- the quote request of the build editor


def quote_request_form(request: HttpRequest, bound: bool) -> QuoteRequestForm:
    """The quote request's fields in the build editor (`quote_form`), bound to the editor's post if any."""
    return QuoteRequestForm(request.POST if bound else None, user=_user(request))


def quote_request(post: EditorPost) -> HttpResponse:
    """The editor's "Request a quote" (`op=quote` on `/builds/new` or `/builds/<id>`): make a draft quote of
    the posted build (saving a saved build first, so the quote points at what it shows) and go to it; a
    refusal draws the editor again with the reason."""
    request, user = post.request, _user(post.request)
    quote_form = quote_request_form(request, True)
    if not quote_form.is_valid():
        return post.render()
    customer = quote_form.cleaned_data.get("customer") or user  # required for sales; customers quote themselves
    key = str(request.POST.get("quote_key") or "")[:100] or None
    acknowledge = quote_form.cleaned_data["acknowledge_warnings"]
    try:
        if post.saved is not None:
            saved = saved_build_update(
                saved_build=post.saved,
                name=post.editor.name or None,
                notes=post.editor.notes or None,
                payload=post.body,
            )
            quote = services.quote_create(
                customer=customer,
                created_by=user,
                saved_build=saved,
                idempotency_key=key,
                acknowledge_warnings=acknowledge,
            )
        else:
            quote = services.quote_create(
                customer=customer,
                created_by=user,
                payload=post.body,
                idempotency_key=key,
                acknowledge_warnings=acknowledge,
            )
    except ApplicationError as error:
        return post.render(error=error_message(error, ERROR_MESSAGES))
    messages.success(request, _("Quote %(number)s was made.") % {"number": quote.number})
    return post.redirect(reverse("quotes:detail", args=[quote.number]))


# --------------------------------------------------------------------------- a draft's services


@login_required(login_url=LOGIN_URL)
@require_POST
def quote_services(request: HttpRequest, number: str) -> HttpResponse:
    """POST `/quotes/<number>/services`: a draft's service lines, as chosen (quotes.services.extras)."""

    def change(quote: Quote, user: User, data: dict[str, Any]) -> object:
        return quote_services_set(quote=quote, user=user, skus=data["services"])

    return _draft_change(request, number, QuoteServicesForm, change, _("The services were changed."))


def services_form(user: User, quote: Quote) -> QuoteServicesForm | None:
    """The services of a draft the user may change (as for refreshing its prices), else None."""
    if not quote_permission(user, quote, "refresh_prices"):
        return None
    chosen = [line.sku for line in quote.lines.all() if line.kind == SERVICE_KIND]
    base = hardware_net((line.kind, line.line_total, line.optional) for line in quote.lines.all())
    return QuoteServicesForm(initial={"revision": quote.revision, "services": chosen}, hardware_net=base)


# --------------------------------------------------------------------------- a customer's own quote request


def _request_rate_exceeded(user: User) -> float | None:
    """Seconds to wait when the user has asked for more quotes than the API's `quote_create` rate allows (one
    limit for the page and the API; config/throttle.py counts), else None."""
    rates = cast(dict[str, str | None], settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    rate = rates.get("quote_create")
    if not rate:
        return None
    allowed, duration = ScopedRateThrottle().parse_rate(rate)
    if allowed is None or duration is None:
        return None
    count, remaining = throttle_counter().hit(f"quote_request_page:{user.pk}", int(duration))
    return remaining if count > allowed else None


def _request_build(raw: Any) -> dict[str, Any] | None:
    try:
        body = json.loads(str(raw or ""))
    except ValueError:
        return None
    return body if isinstance(body, dict) and len(str(raw)) <= MAX_BUILD_CHARS else None


def _request_summary(body: dict[str, Any]) -> dict[str, Any]:
    """The build a request is for, checked again: its parts, price, warnings and facility figures (or why it
    cannot be quoted)."""
    snapshot = catalog_snapshot()
    try:
        build, verdict, price = build_validate(payload=body, snapshot=snapshot)
    except ApplicationError as error:
        return {"build_error": error_message(error, ERROR_MESSAGES)}
    return {
        "gpu_title": gpu_title(build),
        "chassis_name": part_name(build.chassis),
        "rows": part_rows(body, snapshot),
        "price": price,
        "verdict": verdict_view(verdict, price, snapshot),
        "facility": server_facility(verdict, build.chassis.rack_units),
        "is_workstation": build.chassis.is_workstation,
    }


@login_required(login_url=LOGIN_URL)
def quote_request_page(request: HttpRequest) -> HttpResponse:
    """`/quotes/request?build=<json>&services=<sku>…`: a customer asks for a quote of a recommended build
    (name, company, contact, services, comment) without the build editor; the POST makes a draft quote for
    sales. Anonymous visitors sign in or up first and come back with their choice (the address keeps it)."""
    user = _user(request)
    source = request.POST if request.method == "POST" else request.GET
    body = _request_build(source.get("build"))
    summary = _request_summary(body) if body is not None else {"build_error": _("No build was given.")}
    hardware = summary["price"].net if "price" in summary else None
    if request.method == "POST":
        form = CustomerQuoteRequestForm(request.POST, hardware_net=hardware)
    else:
        chosen = source.getlist("services")
        if not chosen and "is_workstation" in summary:
            chosen = [item.sku for item in service_defaults(workstation=summary["is_workstation"])]
        form = CustomerQuoteRequestForm(
            initial={
                "build": source.get("build", ""),
                "services": chosen,
                "name": user.get_full_name(),
                "company": getattr(user, "company", ""),
                "contact": user.email,
            },
            hardware_net=hardware,
        )
    context: dict[str, Any] = {"form": form, "active": "quotes", "is_sales": user.is_sales, **summary}
    if request.method != "POST" or user.is_sales:
        return render(request, "quotes/quote_request.html", context)
    if not form.is_valid() or "build_error" in summary:
        return render(request, "quotes/quote_request.html", context, status=400)
    verdict = summary["verdict"]
    if verdict.warnings and not form.cleaned_data["acknowledge_warnings"]:
        form.add_error("acknowledge_warnings", _("Read the warnings above and tick the box to go on."))
        return render(request, "quotes/quote_request.html", context, status=400)
    if (wait := _request_rate_exceeded(user)) is not None:
        context["error"] = _("Too many quote requests; try again in %(seconds)s s.") % {"seconds": math.ceil(wait)}
        return render(request, "quotes/quote_request.html", context, status=429)
    try:
        quote = services.quote_create(
            customer=user,
            created_by=user,
            payload=form.cleaned_data["build"],
            idempotency_key=str(request.POST.get("quote_key") or "")[:100] or None,
            acknowledge_warnings=form.cleaned_data["acknowledge_warnings"],
            services=form.cleaned_data["services"],
            request_note=form.request_note(),
        )
    except ApplicationError as error:
        context["error"] = error_message(error, ERROR_MESSAGES)
        return render(request, "quotes/quote_request.html", context, status=400)
    messages.success(
        request, _("Your request was sent: quote %(number)s is a draft for sales.") % {"number": quote.number}
    )
    return redirect(reverse("quotes:detail", args=[quote.number]))
