"""POST /api/v1/builds/validate (anonymous) and saved builds /api/v1/builds/ (signed-in users).

Views validate the body's shape, call one service and render; the rules live in configurator.engine.rules.
Customers see only their own saved builds (another's is 404); sales engineers see all.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from catalog.specs import catalog_snapshot
from config.api import ApiErrorSerializer, StandardPagination
from configurator.api import PublicApi
from configurator.engine.builds import MAX_QTY
from configurator.engine.errors import DomainError
from configurator.engine.types import REDUNDANCY_MODES, SITE_VOLTAGES
from configurator.models import SavedBuild
from configurator.output_data import validate_data
from configurator.outputs import StoredVerdictField, ValidateOutputSerializer
from configurator.serializers import StrictKeysMixin, WorkloadInputSerializer
from configurator.services import (
    MAX_LINES,
    build_apply_fix,
    build_parse,
    build_validate,
    saved_build_create,
    saved_build_delete,
    saved_build_get,
    saved_build_list,
    saved_build_update,
)
from procurement.selectors import availability_reader

# --------------------------------------------------------------------------- input


class LineSerializer(serializers.Serializer):
    sku = serializers.CharField(max_length=100)
    qty = serializers.IntegerField(min_value=1, max_value=MAX_QTY, default=1)


def _line_list() -> serializers.ListSerializer[Any]:
    return serializers.ListSerializer(child=LineSerializer(), required=False, max_length=MAX_LINES)


class BuildInputSerializer(serializers.Serializer):
    """A build body (ARCHITECTURE.md): chassis SKU, {sku, qty} lines per part kind, redundancy, voltage and an
    optional workload. It documents the body; the service checks it and names bad fields `gpus[0].qty`, and
    refuses unknown keys naming the closest valid one (`gpu` → `gpus`)."""

    chassis = serializers.CharField(max_length=100)
    cpus = _line_list()
    gpus = _line_list()
    psus = _line_list()
    memory = _line_list()
    storage = _line_list()
    nics = _line_list()
    bridges = _line_list()
    psu_redundancy = serializers.ChoiceField(
        choices=REDUNDANCY_MODES,
        required=False,
        help_text="Default: a rack chassis' first supported mode, none for a tower",
    )
    site_voltage = serializers.ChoiceField(choices=SITE_VOLTAGES, default=230)
    workload = WorkloadInputSerializer(required=False, allow_null=True)


@extend_schema_field(BuildInputSerializer)
class BuildField(serializers.JSONField):
    """A build body, checked by the service (so its fields are named like the validate endpoint's)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError("Expected a build object.")
        return data


# --------------------------------------------------------------------------- validate


class BuildValidateApi(PublicApi):
    """Check a build against every integrator rule and price it; anonymous users may call it (throttled)."""

    throttle_scope = "anon_validate"

    @extend_schema(
        operation_id="builds_validate",
        request=BuildInputSerializer,
        responses={200: ValidateOutputSerializer, 400: ApiErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        build, verdict, price = build_validate(payload=request.data)
        return Response(validate_data(verdict, price, availability_reader()(build)))


class ApplyFixInputSerializer(StrictKeysMixin, serializers.Serializer):
    build = BuildField(help_text="A build body, as sent to validate")
    fix = serializers.JSONField(help_text='A fix as returned in a finding: {"ops": [...], "text": "..."}')


class ApplyFixOutputSerializer(serializers.Serializer):
    build = serializers.JSONField(help_text="The build body with the fix made")
    verdict = ValidateOutputSerializer()


class BuildApplyFixApi(PublicApi):
    """Make one of the fixes a verdict offered on the build and check the result again (nothing is stored)."""

    throttle_scope = "anon_validate"

    @extend_schema(
        operation_id="builds_apply_fix",
        request=ApplyFixInputSerializer,
        responses={200: ApplyFixOutputSerializer, 400: ApiErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = ApplyFixInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        body, verdict, price = build_apply_fix(
            payload=serializer.validated_data["build"], fix=serializer.validated_data["fix"]
        )
        fixed, _workload = build_parse(
            payload=body, snapshot=catalog_snapshot()
        )  # the new body, read as validate reads it
        return Response({"build": body, "verdict": validate_data(verdict, price, availability_reader()(fixed))})


# --------------------------------------------------------------------------- saved builds


class SavedBuildOutputSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    build = serializers.JSONField(source="payload")
    verdict = StoredVerdictField(source="last_verdict")

    class Meta:
        model = SavedBuild
        fields = ("id", "name", "notes", "owner", "build", "valid", "verdict", "created", "updated")


class SavedBuildInputSerializer(StrictKeysMixin, serializers.Serializer):
    name = serializers.CharField(max_length=200)
    notes = serializers.CharField(allow_blank=True, required=False, default="")
    build = BuildField()


@contextmanager
def _fields_under(prefix: str) -> Iterator[None]:
    """Name the fields of a DomainError raised for the nested build body as `build.<field>`."""
    try:
        yield
    except DomainError as error:
        raise error.nested(f"{prefix}.") from error


def _build_from(serializer: serializers.Serializer) -> dict[str, Any] | None:
    return serializer.validated_data.get("build")


class SavedBuildListApi(GenericAPIView):
    """Saved builds: yours (customers) or everyone's (sales); create one with its verdict."""

    permission_classes = [IsAuthenticated]
    pagination_class = StandardPagination
    serializer_class = SavedBuildOutputSerializer

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return SavedBuild.objects.none()
        return saved_build_list(user=self.request.user)

    @extend_schema(operation_id="builds_list", responses=SavedBuildOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        data = SavedBuildOutputSerializer(page, many=True).data
        return self.get_paginated_response(data)

    @extend_schema(
        operation_id="builds_create",
        request=SavedBuildInputSerializer,
        responses={201: SavedBuildOutputSerializer, 400: ApiErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = SavedBuildInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with _fields_under("build"):
            saved = saved_build_create(
                owner=request.user,
                name=serializer.validated_data["name"],
                notes=serializer.validated_data.get("notes", ""),
                payload=_build_from(serializer),
            )
        return Response(SavedBuildOutputSerializer(saved).data, status=status.HTTP_201_CREATED)


class SavedBuildDetailApi(GenericAPIView):
    """One saved build: read, change (the build is re-validated) or delete."""

    permission_classes = [IsAuthenticated]
    serializer_class = SavedBuildOutputSerializer
    queryset = SavedBuild.objects.none()

    def _get(self, request: Request, pk: int) -> SavedBuild:
        return saved_build_get(user=request.user, pk=pk)

    @extend_schema(operation_id="builds_retrieve", responses=SavedBuildOutputSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(SavedBuildOutputSerializer(self._get(request, pk)).data)

    def _update(self, request: Request, pk: int, *, partial: bool) -> Response:
        saved = self._get(request, pk)
        serializer = SavedBuildInputSerializer(data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        with _fields_under("build"):
            saved = saved_build_update(
                saved_build=saved,
                name=serializer.validated_data.get("name"),
                notes=serializer.validated_data.get("notes"),
                payload=_build_from(serializer),
            )
        return Response(SavedBuildOutputSerializer(saved).data)

    @extend_schema(
        operation_id="builds_update",
        request=SavedBuildInputSerializer,
        responses={200: SavedBuildOutputSerializer, 400: ApiErrorSerializer},
    )
    def put(self, request: Request, pk: int) -> Response:
        return self._update(request, pk, partial=False)

    @extend_schema(
        operation_id="builds_partial_update",
        request=SavedBuildInputSerializer,
        responses={200: SavedBuildOutputSerializer, 400: ApiErrorSerializer},
    )
    def patch(self, request: Request, pk: int) -> Response:
        return self._update(request, pk, partial=True)

    @extend_schema(operation_id="builds_destroy", responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        saved_build_delete(saved_build=self._get(request, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)
