"""Web pages of quotes: the list (`/quotes/`), a quote (`/quotes/<number>`), its PDF and its actions, and
the quote request of the build editor (its "Request a quote" button, answered here through
`configurator.web.views.EDITOR_OPS`; see quotes/apps.py).

Who sees a quote is decided by `quotes.selectors` (another customer's quote is 404); which buttons a
page offers by `quotes.policy.quote_actions`; every action is done (and checked again) by
`quotes.services`, whose refusals come back as a message on the quote page.
"""

from __future__ import annotations

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

from accounts.models import User
from configurator.engine.errors import ApplicationError
from configurator.outputs import stored_findings
from configurator.services import saved_build_update
from configurator.web.views import EditorPost
from configurator.wording import error_message, part_name
from quotes import services
from quotes.forms import DiscountForm, QuoteFilterForm, QuoteRequestForm, RejectForm, ReviseForm, RevisionForm
from quotes.labels import ACTION_DONE, ERROR_MESSAGES
from quotes.models import Quote, RenderStatus
from quotes.pdf import quote_facts
from quotes.policy import ACTIONS, quote_actions, quote_discount_permission, quote_next_step
from quotes.selectors import quote_get, quote_list, quote_revisions

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
    context = {
        **_pdf_context(quote),
        "lines": quote.lines.all(),
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
        **quote_facts(quote),  # the workload, its estimate and the ship date, as the PDF says them
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
    user = _user(request)
    form = DiscountForm(request.POST)
    revision = form.cleaned_data.get("revision") if form.is_valid() else _revision(request.POST.get("revision"))
    quote = quote_get(user=user, number=number, revision=revision)
    if not form.is_valid():
        messages.error(request, str(ERROR_MESSAGES["invalid"]))
        return redirect(_detail_url(quote, latest=False))
    try:
        services.quote_discount_set(quote=quote, user=user, discount_percent=form.cleaned_data["discount_percent"])
    except ApplicationError as error:
        messages.error(request, error_message(error, ERROR_MESSAGES))
        return redirect(_detail_url(quote, latest=False))
    messages.success(request, _("The discount was changed."))
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
