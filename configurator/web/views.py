"""Web pages of the configurator: the workload page (`/`) and the build editor (`/builds/…`).

Views are thin: a form checks the input, one service answers (`recommendation_find`, `build_validate`,
`saved_build_*`), `configurator.web.viewmodels` shapes the answer for the template. htmx requests get the part of
the page that changes (results, verdict panel, editor); other requests get the whole page, so every page
also works without JavaScript. Buttons of the editor that belong to another app (the quote request) are
answered by what that app registers in `EDITOR_OPS` and `EDITOR_FORMS`, so nothing here imports it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse, reverse_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from catalog.specs import catalog_snapshot
from config.parsers import json_loads_limited
from configurator.engine.builds import PART_KINDS
from configurator.engine.errors import DomainError
from configurator.engine.models_library import model_instruct_id, model_matches
from configurator.engine.types import CatalogSnapshot
from configurator.labels import USE_CASE_TITLES, label
from configurator.models import SavedBuild
from configurator.services import (
    build_apply_fix,
    build_validate,
    recommendation_find,
    saved_build_create,
    saved_build_get,
    saved_build_list,
    saved_build_update,
)
from configurator.use_cases import use_cases
from configurator.web.forms import RECOMMENDATION_LIMIT, BuildEditor, WorkloadForm
from configurator.web.viewmodels import candidate_views, part_rows, result_view, verdict_view, workload_memory
from configurator.wording import error_message, said_fields, say
from procurement.selectors import availability_reader

LOGIN_URL = reverse_lazy("accounts:login")
MODEL_SUGGESTIONS = 8
EMPTY_BODY: dict[str, Any] = {"chassis": "", "psu_redundancy": "none", "site_voltage": 230}


def _partial(request: HttpRequest) -> bool:
    """An htmx request that wants a fragment (not a boosted navigation)."""
    htmx = getattr(request, "htmx", None)
    if not htmx:
        return False
    return not htmx.boosted


# --------------------------------------------------------------------------- workload page


def _presets() -> list[dict[str, str]]:
    return [{"slug": case.slug, "title": label(USE_CASE_TITLES, case.slug)} for case in use_cases()]


def _bound_workload_form(request: HttpRequest) -> WorkloadForm:
    if request.method == "POST":
        return WorkloadForm(request.POST)
    preset = request.GET.get("preset")
    for case in use_cases():
        if case.slug == preset:
            initial = WorkloadForm.initial_for(case)
            return WorkloadForm({k: v for k, v in initial.items() if v not in (None, False)})
    if request.GET.get("model"):
        return WorkloadForm(request.GET)
    return WorkloadForm()


def _share_query(form: WorkloadForm) -> str | None:
    """The page's address for these inputs (none for a pasted config.json, which is too long for one)."""
    if form.cleaned_data.get("model_config") is not None:
        return None
    values = {
        name: form.cleaned_data.get(name)
        for name in form.fields
        if name != "model_config" and form.cleaned_data.get(name) not in (None, "", False)
    }
    return f"{reverse('configurator:workload')}?{urlencode(values)}"


@require_http_methods(["GET", "POST"])
def workload_page(request: HttpRequest) -> HttpResponse:
    """`/`: the workload form and, once it is valid, the recommended builds (anonymous users allowed).

    htmx asks for the form and the answer (a submit, a preset), or, with `fragment=results`, for the answer
    alone as the inputs change (static/js/app.js); either way the answer's address replaces the page's, so
    it can be shared and reloaded."""
    form = _bound_workload_form(request)
    live = request.POST.get("fragment") == "results" or request.GET.get("fragment") == "results"
    context: dict[str, Any] = {"form": form, "presets": _presets(), "active": "workload", "live": live}
    if form.is_bound and form.is_valid():
        snapshot = catalog_snapshot()
        availability = availability_reader()
        try:
            result = recommendation_find(
                workload=form.workload,
                constraints=form.constraints_data(),
                limit=RECOMMENDATION_LIMIT,
                availability=availability,
            )
        except DomainError as error:
            context["error"] = say(error.message)
        else:
            context.update(
                result=result_view(result, snapshot),
                candidates=candidate_views(result, snapshot, availability),
                model=form.workload.model,
                instruct_id=model_instruct_id(form.workload.model.slug),
                workload=form.workload,
                workload_data=form.workload_data(),
                model_memory=workload_memory(result.estimate),
            )
    if _partial(request):
        template = "configurator/_results.html" if live else "configurator/_workload.html"
        response = render(request, template, context)
        share = _share_query(form) if form.is_bound and form.is_valid() else None
        if share:
            response["HX-Replace-Url" if live else "HX-Push-Url"] = share
        return response
    return render(request, "configurator/workload.html", context)


@require_GET
def model_suggestions(request: HttpRequest) -> HttpResponse:
    """The model picker's search: library models for `?model=`, best first ("llama 8b", "llama3", "r1"), or the
    closest ones as "did you mean" when none matches (engine.model_match)."""
    query = (request.GET.get("model") or "").strip()
    found = model_matches(query) if query else None
    models = found.models[:MODEL_SUGGESTIONS] if found else []
    options = [{"model": model, "instruct_id": model_instruct_id(model.slug)} for model in models]
    did_you_mean = list(found.did_you_mean) if found else []
    context = {"options": options, "query": query, "did_you_mean": did_you_mean}
    return render(request, "configurator/_model_options.html", context)


@require_GET
def glossary(request: HttpRequest) -> HttpResponse:
    """The words a customer meets on the pages (Q4_K_M, KV cache, LoRA, NVLink), said plainly (issue 37, item 2);
    the workload form and the footer link here, each term to its own anchor."""
    return render(request, "configurator/glossary.html", {"active": "glossary"})


# --------------------------------------------------------------------------- build editor


def _check(body: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a body for the verdict panel: the verdict (as the API's dict), its view and the priced rows,
    or the input problems when the body cannot be validated."""
    snapshot = catalog_snapshot()
    if not body.get("chassis"):
        return {"verdict": None, "problems": [], "rows": part_rows(body, snapshot), "need_chassis": True}
    try:
        build, verdict, price = build_validate(payload=body, snapshot=snapshot)
    except DomainError as error:
        problems = [f"{name}: {'; '.join(reasons)}" for name, reasons in said_fields(error.fields).items()] or [
            say(error.message)
        ]
        return {"verdict": None, "problems": problems, "rows": part_rows(body, snapshot)}
    availability = availability_reader()(build)
    return {
        "ships_in_days": availability.lead_time_days,
        "ship_date": availability.ship_date,
        "without_offer": availability.without_offer,
        "verdict": verdict_view(verdict, price, snapshot),
        "problems": [],
        "rows": part_rows(body, snapshot),
    }


def _state_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """The build as its address holds it: the keys of a build body that say something."""
    keys = ("chassis", "psu_redundancy", "site_voltage", "workload", *PART_KINDS)
    return {key: body[key] for key in keys if body.get(key) not in (None, "", [], ())}


def _state_url(body: Mapping[str, Any] | None, saved: SavedBuild | None) -> str | None:
    """The editor's address for this build (`?build=<json>`), so a reload or a shared link shows it as it is
    now, unsaved changes included (a saved build as saved, and an empty one, keep their plain address); None
    for a form that cannot be read."""
    if body is None:
        return None
    base = reverse("configurator:build-edit", args=[saved.pk]) if saved else reverse("configurator:build-new")
    state = _state_body(body)
    if not body.get("chassis") or not _unsaved(body, saved):
        return base
    return f"{base}?{urlencode({'build': json.dumps(state, separators=(',', ':'), default=str)})}"


def _unsaved(body: Mapping[str, Any] | None, saved: SavedBuild | None) -> bool:
    """Whether leaving the page would lose work: a new build with a chassis, or a saved one changed."""
    if body is None:
        return saved is None
    if saved is None:
        return bool(body.get("chassis"))
    return json.dumps(_state_body(body), sort_keys=True, default=str) != json.dumps(
        _state_body(saved.payload), sort_keys=True, default=str
    )


def _editor_context(
    request: HttpRequest,
    editor: BuildEditor,
    body: Mapping[str, Any] | None,
    saved: SavedBuild | None,
    *,
    bound: bool = False,
    focus: str | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    checked = _check(body) if body is not None else {"verdict": None, "problems": [], "rows": (), "invalid": True}
    action = reverse("configurator:build-edit", args=[saved.pk]) if saved else reverse("configurator:build-new")
    return {
        "state_url": _state_url(body, saved),
        "unsaved": _unsaved(body, saved),
        "editor": editor,
        "saved": saved,
        "action_url": action,
        "check_url": reverse("configurator:build-check"),
        **{name: make(request, bound) for name, make in EDITOR_FORMS.items()},
        "quote_key": uuid.uuid4().hex,
        "workload": (body or {}).get("workload"),
        "focus": focus,
        "error": error,
        "active": "editor",
        **checked,
    }


def _render_editor(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    template = "configurator/_editor.html" if _partial(request) else "configurator/build_editor.html"
    return render(request, template, context)


def _body_from_query(raw: str | None) -> dict[str, Any]:
    """`?build=<json>` from a recommendation: only the known keys of a build body are kept."""
    if not raw:
        return dict(EMPTY_BODY)
    try:
        value = json_loads_limited(raw)
    except ValueError:
        return dict(EMPTY_BODY)
    if not isinstance(value, dict):
        return dict(EMPTY_BODY)
    keys = ("chassis", "psu_redundancy", "site_voltage", "workload", *PART_KINDS)
    return {**EMPTY_BODY, **{key: value[key] for key in keys if key in value}}


def _client_redirect(request: HttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if _partial(request) else HttpResponseRedirect(url)


#: Messages for the error codes of the editor's own services; others show their own text.
ERROR_MESSAGES = {
    "forbidden": gettext_lazy("You are not allowed to do this."),
    "not_found": gettext_lazy("Not found."),
    "invalid": gettext_lazy("The input is not valid."),
}


@dataclass(frozen=True, slots=True)
class EditorPost:
    """A valid post of the editor's form, handed to a button another app answers."""

    request: HttpRequest
    editor: BuildEditor
    body: dict[str, Any]
    saved: SavedBuild | None

    def render(self, *, error: str | None = None) -> HttpResponse:
        """The editor again, with the posted forms (and their errors) and `error` above it."""
        context = _editor_context(self.request, self.editor, self.body, self.saved, bound=True, error=error)
        return _render_editor(self.request, context)

    def redirect(self, url: str) -> HttpResponse:
        return _client_redirect(self.request, url)


#: Buttons of the editor answered by another app, by `op` (quotes registers "quote" in quotes/apps.py).
EDITOR_OPS: dict[str, Callable[[EditorPost], HttpResponse]] = {}
#: Forms another app shows in the editor, by context name, made from the request; `bound` when the
#: editor's whole form was posted (quotes registers "quote_form").
EDITOR_FORMS: dict[str, Callable[[HttpRequest, bool], forms.Form]] = {}


def _editor_post(request: HttpRequest, snapshot: CatalogSnapshot, saved: SavedBuild | None) -> HttpResponse:
    """Every button of the editor posts the whole form; `op` says what to do with it."""
    editor = BuildEditor(snapshot=snapshot, data=request.POST)
    op = str(request.POST.get("op") or "check")
    if not editor.is_valid():
        return _render_editor(request, _editor_context(request, editor, None, saved, bound=True))
    rows, body = editor.rows(), editor.body()
    name, notes = editor.name, editor.notes
    kind, _sep, rest = op.partition(":")[2].partition(":")

    if op.startswith("add:") and kind in PART_KINDS:
        rows[kind].append({"sku": "", "qty": 1})
        fresh = BuildEditor.from_body(body, snapshot=snapshot, name=name, notes=notes, rows=rows)
        focus = f"{kind}-{len(rows[kind]) - 1}-sku"
        return _render_editor(request, _editor_context(request, fresh, body, saved, focus=focus))

    if op.startswith("remove:") and kind in PART_KINDS and rest.isdigit() and int(rest) < len(rows[kind]):
        del rows[kind][int(rest)]
        new_body = {**body, kind: [line for line in rows[kind] if line["sku"]]}
        fresh = BuildEditor.from_body(new_body, snapshot=snapshot, name=name, notes=notes, rows=rows)
        return _render_editor(request, _editor_context(request, fresh, new_body, saved))

    if op.startswith("fix:"):
        return _apply_fix(request, snapshot, saved, body, op, name=name, notes=notes)

    if op == "save":
        return _save(request, editor, body, saved)

    if op in EDITOR_OPS:
        return EDITOR_OPS[op](EditorPost(request, editor, body, saved))

    if op == "check":
        context = _editor_context(request, editor, body, saved, bound=True)
        return render(request, "configurator/_verdict.html", context)
    # "refresh" (Enter in a text field) and anything unknown: draw the editor again, nothing changed
    fresh = BuildEditor.from_body(body, snapshot=snapshot, name=name, notes=notes, rows=rows)
    return _render_editor(request, _editor_context(request, fresh, body, saved))


def _apply_fix(
    request: HttpRequest,
    snapshot: CatalogSnapshot,
    saved: SavedBuild | None,
    body: dict[str, Any],
    op: str,
    *,
    name: str,
    notes: str,
) -> HttpResponse:
    """`fix:<json>`: the fix's steps as shown next to a finding, made on the posted body by the same service as
    `POST /api/v1/builds/apply-fix` (then checked again like any edit)."""
    error = None
    try:
        fix = json_loads_limited(op.removeprefix("fix:"))
        body, _verdict, _price = build_apply_fix(payload=body, fix=fix, snapshot=snapshot)
    except (ValueError, DomainError):
        error = _("This fix could not be applied; the build was not changed.")
    fresh = BuildEditor.from_body(body, snapshot=snapshot, name=name, notes=notes)
    return _render_editor(request, _editor_context(request, fresh, body, saved, error=error))


def _save(
    request: HttpRequest,
    editor: BuildEditor,
    body: dict[str, Any],
    saved: SavedBuild | None,
) -> HttpResponse:
    if not editor.name:
        editor.header.add_error("name", _("Name the build to save it."))
        return _render_editor(request, _editor_context(request, editor, body, saved, bound=True))
    try:
        if saved is None:
            saved = saved_build_create(owner=request.user, name=editor.name, notes=editor.notes, payload=body)
        else:
            saved = saved_build_update(saved_build=saved, name=editor.name, notes=editor.notes, payload=body)
    except DomainError as error:
        context = _editor_context(request, editor, body, saved, bound=True, error=error_message(error, ERROR_MESSAGES))
        return _render_editor(request, context)
    messages.success(request, _("The build was saved."))
    return _client_redirect(request, reverse("configurator:build-edit", args=[saved.pk]))


@login_required(login_url=LOGIN_URL)
@require_http_methods(["GET", "POST"])
def build_new(request: HttpRequest) -> HttpResponse:
    """`/builds/new`: an empty editor, or a recommended build from `?build=<json>`."""
    snapshot = catalog_snapshot()
    if request.method == "POST":
        return _editor_post(request, snapshot, None)
    body = _body_from_query(request.GET.get("build"))
    editor = BuildEditor.from_body(body, snapshot=snapshot)
    return _render_editor(request, _editor_context(request, editor, body, None))


@login_required(login_url=LOGIN_URL)
@require_http_methods(["GET", "POST"])
def build_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """`/builds/<id>`: a saved build (the owner's, or any for sales; 404 otherwise)."""
    saved = saved_build_get(user=request.user, pk=pk)
    snapshot = catalog_snapshot()
    if request.method == "POST":
        return _editor_post(request, snapshot, saved)
    # `?build=` holds changes not saved yet (the editor keeps its address up to date)
    body = _body_from_query(request.GET["build"]) if request.GET.get("build") else saved.payload
    editor = BuildEditor.from_body(body, snapshot=snapshot, name=saved.name, notes=saved.notes)
    return _render_editor(request, _editor_context(request, editor, body, saved))


@login_required(login_url=LOGIN_URL)
@require_POST
def build_check(request: HttpRequest) -> HttpResponse:
    """The verdict panel for the posted editor form (htmx, on every change)."""
    snapshot = catalog_snapshot()
    editor = BuildEditor(snapshot=snapshot, data=request.POST)
    body = editor.body() if editor.is_valid() else None
    saved_pk = str(request.POST.get("saved_build") or "")
    saved = saved_build_get(user=request.user, pk=int(saved_pk)) if saved_pk.isdigit() else None
    context = _editor_context(request, editor, body, saved, bound=True)
    context["editing"] = request.POST.get("editing") == "1"
    return render(request, "configurator/_verdict.html", context)


@login_required(login_url=LOGIN_URL)
@require_GET
def build_list(request: HttpRequest) -> HttpResponse:
    """`/builds/`: saved builds (your own; sales see everyone's)."""
    builds = saved_build_list(user=request.user)[:200]
    return render(request, "configurator/build_list.html", {"builds": builds, "active": "builds"})
