"""`/clusters/`: the cluster card for a workload one server cannot hold (issue 39): nodes, fabric, storage,
the rack view (which node, switch and PDU sit where), power per rack and the bill of materials, from the same
body the API answers (engine.cluster.data)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST
from rest_framework.exceptions import ValidationError

from accounts.models import User
from catalog.models import Chassis, Gpu
from configurator.engine.errors import ApplicationError, DomainError
from configurator.engine.types import PRECISIONS
from configurator.labels import Task
from configurator.serializers import workload_from_data
from configurator.services import cluster_recommendation_make
from configurator.wording import part_name, say
from quotes.services.cluster import quote_create_cluster

# the cluster body's words (engine.cluster: BomLine.section, RackPlan.role) as the page says them
SECTIONS = {
    "nodes": _("GPU nodes"),
    "compute fabric": _("compute fabric"),
    "front-end": _("front-end network"),
    "management": _("management network"),
    "storage": _("storage"),
    "racks and power": _("racks and power"),
    "cables": _("cables and transceivers"),
}
ROLES = {"compute": _("nodes"), "network": _("network")}


class ClusterForm(forms.Form):
    model = forms.CharField(label=_("Model"), max_length=200, initial="llama-3.1-405b")
    task = forms.ChoiceField(label=_("Task"), choices=Task.choices, initial="inference")
    precision = forms.ChoiceField(
        label=_("Weight precision"),
        required=False,
        choices=[("", _("The model's native precision")), *((p, p.upper()) for p in PRECISIONS)],
    )
    concurrent_users = forms.IntegerField(label=_("Concurrent users"), min_value=1, max_value=10_000, initial=200)
    nodes = forms.IntegerField(
        label=_("Nodes (empty: the fewest that hold it)"), min_value=1, max_value=256, required=False
    )
    rack_kw_limit = forms.FloatField(label=_("Power per rack, kW"), min_value=5, max_value=200, initial=40.0)
    target_tokens_per_s = forms.FloatField(
        label=_("Speed per user, tokens/s (empty: 10)"), min_value=0.01, max_value=10_000, required=False
    )

    def workload_data(self) -> dict[str, Any]:
        data = self.cleaned_data
        body: dict[str, Any] = {"model": data["model"].strip(), "task": data["task"]}
        body["concurrent_users"] = data["concurrent_users"]
        if data.get("precision"):
            body["precision"] = data["precision"]
        if data.get("target_tokens_per_s"):
            body["target_tokens_per_s"] = data["target_tokens_per_s"]
        return body

    def cluster_request(self, gpu: str | None) -> dict[str, Any]:
        """The body of POST /api/v1/quotes/cluster/'s `cluster` this card was sized from, with the GPU shown."""
        data = self.cleaned_data
        return {
            "workload": self.workload_data(),
            "nodes": data.get("nodes"),
            "rack_kw_limit": data["rack_kw_limit"],
            "gpu": gpu,
        }


def _names(option: dict[str, Any]) -> dict[str, str]:
    """SKU → the part's name in the page's language: the bill's cluster parts, the node chassis and the GPU
    (issue 37: a customer reads names, not SKUs)."""
    names = {
        line["sku"]: part_name(SimpleNamespace(name=line["name"], name_ru=line.get("name_ru", "")))
        for line in option["bom"]
        if line["section"] != "nodes" or line["sku"] != option["node_chassis"]
    }
    for model, sku in ((Chassis, option["node_chassis"]), (Gpu, option["gpu"])):
        row = model.objects.filter(sku=sku).only("name", "name_ru").first()
        names[sku] = part_name(row) if row is not None else sku
    return names


@require_GET
def cluster_page(request: HttpRequest) -> HttpResponse:
    form = ClusterForm(request.GET) if request.GET.get("model") else ClusterForm()
    context: dict[str, Any] = {"form": form, "active": "clusters"}
    if form.is_bound and form.is_valid():
        try:
            workload = workload_from_data(form.workload_data())
            body = cluster_recommendation_make(
                workload=workload,
                nodes=form.cleaned_data.get("nodes"),
                rack_kw_limit=form.cleaned_data["rack_kw_limit"],
            )
        except ValidationError as error:
            for name, reasons in error.detail.items() if isinstance(error.detail, dict) else []:
                form.add_error(name if name in form.fields else None, [str(r) for r in reasons])
        except DomainError as error:
            context["error"] = say(error.message)
        else:
            option = body["options"][0]
            names = _names(option)
            for rack in option["racks"]:
                rack["role_label"] = ROLES.get(rack["role"], rack["role"])
                rack["rack_name"], rack["pdu_name"] = (
                    names.get(rack["rack"], rack["rack"]),
                    names.get(rack["pdu"], rack["pdu"]),
                )
                for device in rack["devices"]:
                    device["name"] = names.get(device["sku"], device["sku"])
            sections: dict[str, list[dict[str, Any]]] = {}
            for line in option["bom"]:
                line["label"] = part_name(SimpleNamespace(name=line["name"], name_ru=line.get("name_ru", "")))
                sections.setdefault(str(SECTIONS.get(line["section"], line["section"])), []).append(line)
            option.update(gpu_name=names[option["gpu"]], node_name=names[option["node_chassis"]])
            for part, key in ((option["fabric"], "switch"), (option["frontend"], "switch"), (option["storage"], "sku")):
                if part is not None:
                    part["switch_name" if key == "switch" else "name"] = names.get(part[key], part[key])
            context.update(option=option, others=body["options"][1:], sections=sections, miss=body["speed_miss"])
    return render(request, "configurator/cluster.html", context)


@require_POST
@login_required
def cluster_quote_request(request: HttpRequest) -> HttpResponse:
    """The signed-in user's own quote for the cluster the card shows (as /quotes/request does for a server):
    the same design made again from the card's fields, then the quote page."""
    form = ClusterForm(request.POST)
    if not form.is_valid():
        return render(request, "configurator/cluster.html", {"form": form, "active": "clusters"}, status=400)
    user = cast(User, request.user)
    try:
        body = form.cluster_request(request.POST.get("gpu") or None)
        workload = workload_from_data(body["workload"])
        quote = quote_create_cluster(customer=user, created_by=user, workload=workload, request=body)
    except (ApplicationError, DomainError, ValidationError) as error:
        message = error.message if isinstance(error, DomainError) else str(error)
        context = {"form": form, "active": "clusters", "error": say(message)}
        return render(request, "configurator/cluster.html", context, status=400)
    return redirect("quotes:detail", number=quote.number)
