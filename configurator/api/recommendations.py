"""POST /api/v1/recommendations: the cheapest valid builds for a workload (anonymous users allowed)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from config.api import ApiErrorSerializer, deserialize
from configurator.api import PublicApi
from configurator.engine.types import NOISE_LEVELS, SITE_VOLTAGES
from configurator.outputs import RecommendationOutputSerializer
from configurator.serializers import (
    AmountField,
    CaseFreeChoiceField,
    NoiseField,
    StrictKeysMixin,
    WorkloadInputSerializer,
    workload_from_data,
)
from configurator.services import recommendation_make

FORM_FACTORS = ("workstation", "rack", "any")


class ConstraintsInputSerializer(StrictKeysMixin, serializers.Serializer):
    max_price = AmountField(
        max_digits=16,
        decimal_places=2,
        min_value=0,
        required=False,
        allow_null=True,
        help_text='Gross, incl. VAT; written as people do: "6 000 000", "6 000 000,00 ₽", "1,500,000"',
    )
    currency = serializers.ChoiceField(choices=("RUB",), default="RUB")
    form_factor = CaseFreeChoiceField(choices=FORM_FACTORS, default="any")
    max_power_w = serializers.IntegerField(min_value=100, max_value=100_000, required=False, allow_null=True)
    site_voltage = serializers.ChoiceField(choices=SITE_VOLTAGES, default=230)
    require_ecc = serializers.BooleanField(default=False)
    max_gpus = serializers.IntegerField(min_value=1, max_value=64, required=False, allow_null=True)
    gpu_count = serializers.IntegerField(
        min_value=1,
        max_value=64,
        required=False,
        allow_null=True,
        help_text='Exactly this many GPUs in every build ("full fine-tune on 8 GPUs"); max_gpus only caps. A 400 '
        "when no chassis of the catalog takes that many",
    )
    deliver_by = serializers.DateField(
        required=False,
        allow_null=True,
        help_text="Only builds that can ship by this date (from suppliers' offers; lead times, stock days, assembly "
        "and burn-in count working days on the Russian production calendar)",
    )
    chassis = serializers.ListField(child=serializers.CharField(max_length=100), required=False, max_length=50)
    noise = NoiseField(
        choices=NOISE_LEVELS,
        default="any",
        help_text="Where the machine will stand: office (desktop towers only), lab (towers and rack workstations, "
        "no rack servers with server fans), server_room or any. The workload's own `noise` counts when this is any",
    )

    def validate_deliver_by(self, value: date | None) -> date | None:
        """A date already past is a 400 naming the field (trial tr34: it answered "nothing ships by 2025-01-01")."""
        if value is not None and value < timezone.localdate():
            raise serializers.ValidationError(
                gettext("%(date)s is in the past: give the date the build must ship by, today or later.")
                % {"date": value.isoformat()}
            )
        return value


class RecommendationInputSerializer(StrictKeysMixin, serializers.Serializer):
    workload = WorkloadInputSerializer()
    constraints = ConstraintsInputSerializer(required=False)
    limit = serializers.IntegerField(min_value=1, max_value=10, default=5)


class RecommendationApi(PublicApi):
    """The cheapest valid builds for a workload, each validated by the same rules as a hand-made build."""

    throttle_scope = "anon_recommend"

    @extend_schema(
        operation_id="recommendations_create",
        request=RecommendationInputSerializer,
        responses={200: RecommendationOutputSerializer, 400: ApiErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        data: dict[str, Any] = deserialize(RecommendationInputSerializer, request.data)
        workload = workload_from_data(data["workload"], field_prefix="workload.")
        body = recommendation_make(workload=workload, constraints=data.get("constraints") or {}, limit=data["limit"])
        return Response(body)
