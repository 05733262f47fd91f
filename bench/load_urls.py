"""URLs of bench_load's server: the project's, unchanged and first, then one probe that no deployment has.

`POST /api/v1/bench/validate-without-engine` is `POST /api/v1/builds/validate` with the engine's
`validate()` left out: a subclass of its view (the same throttle scope, parsers and renderer), the body read and
checked by `build_parse`, priced, its availability read and answered by `validate_data` — with the
verdict of the first body the probe served, kept. bench_load sends it the same body as validate, so its
answer is byte for byte validate's. Its throughput beside ping's is what validate could reach in the
same run if the engine cost nothing: the part of validate's gap to the trivial endpoint that the
engine's speed can close."""

from __future__ import annotations

from typing import Any

from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response

from catalog.specs import catalog_snapshot
from config.urls import handler400, handler403, handler404, handler500  # noqa: F401 - the root URL conf's
from config.urls import urlpatterns as project_urlpatterns
from configurator.api.builds import BuildValidateApi
from configurator.engine.builds import build_price
from configurator.engine.types import Verdict
from configurator.engine.validate import validate
from configurator.output_data import validate_data
from configurator.services import build_parse
from finance.vat import vat_percent_today
from procurement.selectors import availability_reader

PROBE_PATH = "api/v1/bench/validate-without-engine"
_kept: dict[str, Verdict] = {}  # catalog version → the verdict of the first body served on it


class ValidateWithoutEngineApi(BuildValidateApi):
    """BuildValidateApi with the verdict computed once (see the module's docstring)."""

    def post(self, request: Request) -> Response:
        snapshot = catalog_snapshot()
        build, workload = build_parse(payload=request.data, snapshot=snapshot)
        verdict = _kept.get(snapshot.version)
        if verdict is None:
            verdict = _kept[snapshot.version] = validate(build, snapshot=snapshot, workload=workload)
        price = build_price(build, vat_percent=vat_percent_today())
        return Response(validate_data(verdict, price, availability_reader()(build)))


urlpatterns: list[Any] = [*project_urlpatterns, path(PROBE_PATH, ValidateWithoutEngineApi.as_view())]
