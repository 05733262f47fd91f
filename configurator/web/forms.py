"""Forms of the web pages: the workload form and the build editor (a header form plus one formset per part kind).

The forms check the shape of the input (types, ranges, known SKUs); the workload is then checked by the
same serializer and `workload_from_data` as the API, and builds by `build_validate`, so the pages and the
API refuse the same things.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, cast

from django import forms
from django.forms import formset_factory
from django.utils.formats import number_format
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ValidationError as WorkloadInvalid

from catalog.models import ChassisKind
from config.api import deserialize
from config.parsers import json_loads_limited
from configurator.counting import counted
from configurator.engine.builds import MAX_QTY, PART_KINDS
from configurator.engine.errors import DomainError, UnknownModelError
from configurator.engine.models_library import model_matches
from configurator.engine.part_fit import FORM_FACTORS, part_misfit
from configurator.engine.types import (
    ENGINES,
    KV_PRECISIONS,
    PRECISIONS,
    SITE_VOLTAGES,
    CatalogSnapshot,
    ChassisSpec,
    PartSpec,
)
from configurator.labels import ENGINE_LABELS, UNITS, FormFactor, Redundancy, Task, label
from configurator.serializers import (
    MAX_CONTEXT_TOKENS,
    MAX_TARGET_TOKENS_PER_S,
    MAX_USERS,
    WorkloadInputSerializer,
    workload_from_data,
)
from configurator.services import MAX_LINES
from configurator.use_cases import UseCase
from configurator.wording import num, part_name, say, storage_interface

MAX_CONFIG_CHARS = 100_000
RECOMMENDATION_LIMIT = 3


REQUEST_FIELDS = ("prompt_tokens", "output_tokens")


class WorkloadForm(forms.Form):
    """What the customer wants to run, and the limits of the build (the recommendations' constraints)."""

    model = forms.CharField(
        label=_("Model"),
        required=False,
        max_length=200,
        help_text=_("A model from the library (type to search) or a Hugging Face id."),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false", "placeholder": "llama-3.1-70b"}),
    )
    model_config = forms.CharField(
        label=_("Or paste the model's config.json"),
        required=False,
        max_length=MAX_CONFIG_CHARS,
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
    )
    task = forms.ChoiceField(label=_("Task"), choices=Task.choices, initial="inference")
    precision = forms.ChoiceField(
        label=_("Weight precision"),
        required=False,
        choices=[("", _("The model's native precision")), *((p, p.upper()) for p in PRECISIONS)],
    )
    context_tokens = forms.IntegerField(
        label=_("Context length, tokens"),
        min_value=1,
        max_value=MAX_CONTEXT_TOKENS,
        initial=8192,
        help_text=_("For fine-tuning: the training sequence length."),
    )
    concurrent_users = forms.IntegerField(label=_("Concurrent users"), min_value=1, max_value=MAX_USERS, initial=1)
    target_tokens_per_s = forms.FloatField(
        label=_("Target speed per user, tokens/s"),
        required=False,
        min_value=0.01,
        max_value=MAX_TARGET_TOKENS_PER_S,
        help_text=_("Empty: an interactive 10 tokens/s."),
    )
    max_price = forms.DecimalField(
        label=_("Budget, ₽ incl. VAT"),
        required=False,
        min_value=Decimal(0),
        max_digits=16,
        decimal_places=2,
    )
    form_factor = forms.ChoiceField(label=_("Form factor"), choices=FormFactor.choices, initial="any")
    require_ecc = forms.BooleanField(label=_("ECC memory required"), required=False)
    engine = forms.ChoiceField(
        label=_("Inference engine"),
        required=False,
        choices=[("", _("Chosen by precision")), *((e, ENGINE_LABELS.get(e, e)) for e in ENGINES)],
    )
    kv_cache_precision = forms.ChoiceField(
        label=_("KV cache precision"),
        required=False,
        choices=[("", _("Engine default")), *((p, p.upper()) for p in KV_PRECISIONS)],
    )

    prompt_tokens = forms.IntegerField(
        label=_("Prompt per request, tokens"),
        required=False,
        min_value=1,
        max_value=MAX_CONTEXT_TOKENS,
        help_text=_("Empty: the context less the answer."),
    )
    output_tokens = forms.IntegerField(
        label=_("Answer per request, tokens"),
        required=False,
        min_value=1,
        max_value=MAX_CONTEXT_TOKENS,
        help_text=_("Empty: 512, or a quarter of a shorter context."),
    )

    workload: Any = None

    @classmethod
    def initial_for(cls, use_case: UseCase) -> dict[str, Any]:
        """Form values of one of the article's use cases (configurator.use_cases)."""
        w, c = use_case.workload, use_case.constraints
        training = w.task != "inference"
        return {
            "model": w.model.slug,
            "task": w.task,
            "precision": w.precision,
            "context_tokens": w.sequence_length if training else w.context_tokens,
            "concurrent_users": w.concurrent_users,
            "target_tokens_per_s": w.target_tokens_per_s,
            "max_price": c.max_price,
            "form_factor": c.form_factor,
            "require_ecc": w.require_ecc or c.require_ecc,
            "engine": w.engine,
            "prompt_tokens": w.prompt_tokens,
            "output_tokens": w.output_tokens,
        }

    def clean_model_config(self) -> dict[str, Any] | None:
        raw = (self.cleaned_data.get("model_config") or "").strip()
        if not raw:
            return None
        try:
            value = json_loads_limited(raw)
        except ValueError as error:
            raise forms.ValidationError(_("This is not valid JSON: %(reason)s"), params={"reason": error}) from None
        if not isinstance(value, dict):
            raise forms.ValidationError(_("Paste the whole config.json object ({…})."))
        return value

    def workload_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        body: dict[str, Any] = {
            "task": data["task"],
            "context_tokens": data["context_tokens"],
            "sequence_length": data["context_tokens"],
            "concurrent_users": data["concurrent_users"],
            "require_ecc": data.get("require_ecc", False),
        }
        if data.get("model_config") is not None:
            body["model_config"] = data["model_config"]
        elif data.get("model"):
            body["model"] = data["model"].strip()
        for name in ("precision", "engine", "kv_cache_precision"):
            if data.get(name):
                body[name] = data[name]
        if data.get("target_tokens_per_s"):
            body["target_tokens_per_s"] = data["target_tokens_per_s"]
        if data["task"] == "inference":
            for name in ("prompt_tokens", "output_tokens"):
                if data.get(name) is not None:
                    body[name] = data[name]
        return body

    def constraints_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        constraints: dict[str, Any] = {
            "form_factor": data.get("form_factor") or "any",
            "require_ecc": bool(data.get("require_ecc")),
        }
        if data.get("max_price") is not None:
            constraints["max_price"] = data["max_price"]
        return constraints

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        if not cleaned.get("model") and cleaned.get("model_config") is None:
            self.add_error("model", _("Pick a model or paste its config.json."))
            return cleaned
        if cleaned.get("model") and cleaned.get("model_config") is not None:
            cleaned["model"] = ""  # a pasted config.json wins over the name field
        try:
            data = deserialize(WorkloadInputSerializer, self.workload_data())  # the thread's serializer
        except WorkloadInvalid as invalid:
            detail = invalid.detail if isinstance(invalid.detail, Mapping) else {"non_field_errors": invalid.detail}
            for name, reasons in detail.items():
                target = name if name in self.fields else None
                for reason in reasons if isinstance(reasons, list) else [reasons]:
                    self.add_error(target, str(reason))
            return cleaned
        try:
            self.workload = workload_from_data(data)
        except UnknownModelError:
            found = model_matches(str(cleaned.get("model") or ""))  # read before add_error drops the field
            self.add_error("model", _("Unknown model. Pick one from the list or paste its config.json."))
            closest = found.models[:3] or list(found.did_you_mean)
            if closest:  # the names people read, not slugs: "Llama 3.1 8B, Llama 3 8B"
                names = ", ".join(model.name for model in closest)
                self.add_error("model", _("Did you mean: %(models)s?") % {"models": names})
        except DomainError as error:
            target = "model_config" if cleaned.get("model_config") is not None else None
            fields = dict(error.fields)
            for field_name in REQUEST_FIELDS:  # the request's size is this form's own field: said beside it
                for said in fields.pop(field_name, []):
                    self.add_error(field_name, say(said))
            texts = [say(text) for values in fields.values() for text in values]
            if not texts and not any(field_name in error.fields for field_name in REQUEST_FIELDS):
                texts = [say(error.message)]
            for text in texts:
                self.add_error(target, _("The workload cannot be estimated: %(reason)s") % {"reason": text})
        return cleaned


# --------------------------------------------------------------------------- build editor


def _money(value: Decimal) -> str:
    return number_format(value, decimal_pos=0, use_l10n=True, force_grouping=True)


def _group_key(kind: str, spec: PartSpec) -> str:
    if kind == "chassis":
        return label(ChassisKind, getattr(spec, "kind", ""))
    return {
        "cpus": getattr(spec, "socket", ""),
        "gpus": getattr(spec, "vendor", ""),
        "psus": str(getattr(spec, "form_factor", "")).upper(),
        "memory": str(getattr(spec, "kind", "")).upper(),
    }.get(kind, "")


def _specs(kind: str, spec: Any) -> str:
    """The key figures of a part for its line in a list: what a sales engineer compares."""
    u = {code: str(label(UNITS, code)) for code in ("GB", "GB/s", "TB", "MT/s", "Gb/s", "W", "U")}
    if kind == "gpus":
        return (
            f"{num(spec.vram_gib, 0)} {u['GB']} {spec.memory_type.upper()}, {num(spec.bandwidth_gbs, 0)} {u['GB/s']}, "
            f"{spec.tdp_w} {u['W']}, {FORM_FACTORS.get(spec.form_factor, spec.form_factor)}"
        )
    if kind == "cpus":
        return f"{counted('cores', spec.cores)}, {spec.socket}"
    if kind == "chassis":
        size = f"{num(spec.rack_units, 0)} {u['U']}, " if spec.rack_units else ""
        form = FORM_FACTORS.get(spec.gpu_form_factor, spec.gpu_form_factor)
        return f"{size}{spec.cpu_socket}, {counted('GPUs at most', spec.max_gpu_count)} {form}"
    if kind == "psus":
        return f"{num(spec.watts_high_line, 0)} {u['W']}, {spec.form_factor.upper()}"
    if kind == "memory":
        return f"{spec.capacity_gb} {u['GB']} {spec.kind.upper()}, {spec.speed_mts} {u['MT/s']}"
    if kind == "storage":
        return f"{num(spec.capacity_tb, 2)} {u['TB']}, {storage_interface(spec.interface)}, {spec.form_factor.upper()}"
    if kind == "nics":
        return f"{spec.ports} × {spec.speed_gbps} {u['Gb/s']}"
    if kind == "bridges":
        return str(_("%(ways)s-way, %(spacing)s-slot") % {"ways": spec.ways, "spacing": spec.slot_spacing})
    return ""


def part_choices(
    snapshot: CatalogSnapshot, kind: str, *, blank: bool = True, chassis: ChassisSpec | None = None
) -> tuple[list[Any], dict[str, str]]:
    """Active catalog items of one kind for a <select>, grouped (socket, vendor, …) and labelled
    "name · key specs · price", and the parts that do not fit `chassis` (the last group) with the reason."""
    groups: dict[str, list[tuple[str, str]]] = {}
    misfits: list[tuple[str, str]] = []
    reasons: dict[str, str] = {}
    specs: dict[str, PartSpec] = snapshot.kind(kind)
    for spec in sorted(specs.values(), key=lambda s: (_group_key(kind, s), s.name, s.sku)):
        if not spec.is_active:
            continue
        facts = _specs(kind, spec)
        text = " · ".join(part for part in (part_name(spec), facts, f"{_money(spec.price)} ₽") if part)
        misfit = part_misfit(kind, spec, chassis)
        if misfit is not None:
            reasons[spec.sku] = str(say(misfit))
            misfits.append(
                (spec.sku, str(_("%(part)s — does not fit: %(reason)s") % {"part": text, "reason": reasons[spec.sku]}))
            )
            continue
        groups.setdefault(_group_key(kind, spec) or "—", []).append((spec.sku, text))
    choices: list[Any] = [("", _("— choose —"))] if blank else []
    choices.extend((group, options) for group, options in groups.items())
    if misfits:
        choices.append((str(_("Does not fit this chassis")), misfits))
    return choices, reasons


class PartSelect(forms.Select):
    """A <select> of parts whose misfits (`reasons`, by SKU) are greyed out: disabled, with the reason as their
    title. A misfit already chosen stays enabled, or the browser would drop the line from the post."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reasons: dict[str, str] = {}

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option: dict[str, Any] = super().create_option(*args, **kwargs)
        reason = self.reasons.get(str(option["value"]))
        if reason:
            option["attrs"]["title"] = reason
            option["attrs"]["data-misfit"] = "true"
            if not option["selected"]:
                option["attrs"]["disabled"] = True
        return option


class LineForm(forms.Form):
    sku = forms.ChoiceField(label=_("Part"), required=False, widget=PartSelect)
    qty = forms.IntegerField(label=_("Quantity"), min_value=1, max_value=MAX_QTY, initial=1)

    def __init__(
        self, *args: Any, choices: Sequence[Any] = (), reasons: Mapping[str, str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        field = cast(forms.ChoiceField, self.fields["sku"])
        field.choices = choices
        cast(PartSelect, field.widget).reasons = dict(reasons or {})


LineFormSet = formset_factory(LineForm, extra=0, max_num=MAX_LINES, validate_max=True, absolute_max=MAX_LINES)


class BuildHeaderForm(forms.Form):
    """The build's chassis and settings, its name for saving, and the workload it is checked against."""

    chassis = forms.ChoiceField(label=_("Chassis"))
    psu_redundancy = forms.ChoiceField(label=_("PSU redundancy"), choices=Redundancy.choices, initial="none")
    site_voltage = forms.TypedChoiceField(
        label=_("Site voltage"),
        choices=[(v, format_lazy("{}\u00a0{}", v, UNITS["V"])) for v in SITE_VOLTAGES],
        coerce=int,
        initial=230,
    )
    name = forms.CharField(label=_("Build name"), required=False, max_length=200)
    notes = forms.CharField(label=_("Notes"), required=False, widget=forms.Textarea(attrs={"rows": 2}))
    workload = forms.CharField(required=False, widget=forms.HiddenInput, max_length=MAX_CONFIG_CHARS)

    def __init__(self, *args: Any, snapshot: CatalogSnapshot, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["chassis"]).choices = part_choices(snapshot, "chassis")[0]

    def clean_workload(self) -> dict[str, Any] | None:
        raw = (self.cleaned_data.get("workload") or "").strip()
        if not raw:
            return None
        try:
            value = json_loads_limited(raw)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise forms.ValidationError(
                _("The workload could not be read; open the build from the workload page again.")
            )
        return value


class BuildEditor:
    """The header form and one formset per part kind, bound to POST data or built from a build body.

    `rows` keeps every line as typed, blank ones included (a just-added line), so the page can be drawn
    again after adding or removing a line; `body()` is the build body the services take.
    """

    def __init__(
        self,
        *,
        snapshot: CatalogSnapshot,
        data: Mapping[str, Any] | None = None,
        initial: Mapping[str, Any] | None = None,
        rows: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.bound = data is not None
        self.header = BuildHeaderForm(data=data, initial=initial, snapshot=snapshot, prefix="build")
        self.formsets: dict[str, Any] = {}
        chosen = (data or {}).get("build-chassis") if data is not None else (initial or {}).get("chassis")
        chassis = snapshot.chassis.get(str(chosen or ""))
        for kind in PART_KINDS:
            choices, reasons = part_choices(snapshot, kind, chassis=chassis)
            self.formsets[kind] = LineFormSet(
                data=data,
                initial=None if data is not None else list((rows or {}).get(kind, ())),
                prefix=kind,
                form_kwargs={"choices": choices, "reasons": reasons},
            )

    @classmethod
    def from_body(
        cls,
        body: Mapping[str, Any],
        *,
        snapshot: CatalogSnapshot,
        name: str = "",
        notes: str = "",
        rows: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    ) -> BuildEditor:
        workload = body.get("workload")
        initial = {
            "chassis": body.get("chassis") or "",
            "psu_redundancy": body.get("psu_redundancy", "none"),
            "site_voltage": body.get("site_voltage", 230),
            "name": name,
            "notes": notes,
            "workload": json.dumps(workload, ensure_ascii=False) if workload else "",
        }
        lines = rows or {kind: [dict(line) for line in body.get(kind) or ()] for kind in PART_KINDS}
        return cls(snapshot=snapshot, initial=initial, rows=lines)

    def is_valid(self) -> bool:
        valid = self.header.is_valid()
        for formset in self.formsets.values():
            valid = formset.is_valid() and valid
        return valid

    def rows(self) -> dict[str, list[dict[str, Any]]]:
        """Every line as cleaned (blank SKUs included); call after is_valid()."""
        return {
            kind: [
                {"sku": form.cleaned_data.get("sku") or "", "qty": form.cleaned_data.get("qty") or 1}
                for form in formset.forms
            ]
            for kind, formset in self.formsets.items()
        }

    def body(self) -> dict[str, Any]:
        """The build body (ARCHITECTURE.md) of the valid editor: lines without a part are left out."""
        header = self.header.cleaned_data
        body: dict[str, Any] = {"chassis": header["chassis"]}
        for kind, lines in self.rows().items():
            body[kind] = [line for line in lines if line["sku"]]
        body["psu_redundancy"] = header["psu_redundancy"]
        body["site_voltage"] = header["site_voltage"]
        body["workload"] = header.get("workload")
        return body

    @property
    def name(self) -> str:
        return str(self.header.cleaned_data.get("name") or "") if self.header.is_bound else ""

    @property
    def notes(self) -> str:
        return str(self.header.cleaned_data.get("notes") or "") if self.header.is_bound else ""

    def sections(self) -> list[tuple[str, Any]]:
        return list(self.formsets.items())
