"""POST /api/v1/estimate and GET /api/v1/llm-models/ (ARCHITECTURE.md §HTTP API)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.specs import catalog_snapshot
from config.api import ApiErrorSerializer, deserialize
from configurator.api import PublicApi
from configurator.engine.errors import UnknownSkuError
from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_search
from configurator.engine.types import GpuSpec
from configurator.output_data import estimate_data
from configurator.outputs import EstimateOutputSerializer
from configurator.serializers import WorkloadInputSerializer, workload_from_data

# Interconnects that always join the GPUs of a system (SXM baseboards, OAM); bridges are optional parts,
# so bridged PCIe cards are estimated over PCIe unless a build says otherwise.
_BUILT_IN_LINKS = ("nvswitch-sxm", "infinity-fabric-oam")


def gpu_link_gbs(gpu: GpuSpec) -> float | None:
    """GPU-to-GPU bandwidth of a GPU's built-in fabric, None when the GPUs talk over PCIe."""
    return gpu.nvlink_gbs if gpu.nvlink_kind in _BUILT_IN_LINKS else None


class EstimateApi(PublicApi):
    """Memory, GPU layout and speed of an LLM workload; anonymous users may call it (throttled)."""

    throttle_scope = "anon_estimate"

    class InputSerializer(WorkloadInputSerializer):
        gpu = serializers.CharField(required=False, allow_null=True, max_length=100, help_text="GPU SKU")
        gpu_count = serializers.IntegerField(min_value=1, max_value=64, default=1)

    @extend_schema(
        operation_id="estimate_create",
        request=InputSerializer,
        responses={200: EstimateOutputSerializer, 400: ApiErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        data = deserialize(self.InputSerializer, request.data)
        workload = workload_from_data(data)
        sku = data.get("gpu")
        gpu = None
        if sku:
            gpu = catalog_snapshot().gpus.get(sku.strip().lower())
            if gpu is None:
                raise UnknownSkuError(f"Unknown GPU '{sku}'.", fields={"gpu": [f"Unknown GPU SKU '{sku}'."]})
        result = estimate(
            workload,
            gpu,
            data["gpu_count"],
            link_gbs=gpu_link_gbs(gpu) if gpu is not None else None,
        )
        return Response(estimate_data(result))


class LlmModelListApi(APIView):
    """The model library: architectures the estimator knows by slug or Hugging Face id."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        slug = serializers.CharField()
        name = serializers.CharField()
        hf_id = serializers.CharField()
        family = serializers.CharField()
        params = serializers.IntegerField(source="total_params")
        active_params = serializers.IntegerField()
        layers = serializers.IntegerField()
        context = serializers.IntegerField(source="max_context")  # type: ignore[assignment]
        native_precision = serializers.CharField()

    @extend_schema(
        operation_id="llm_models_list",
        parameters=[
            OpenApiParameter(
                "search",
                str,
                description=(
                    "What a person would type: family, size, version, Hugging Face id or a common spelling "
                    "('llama 8b', 'llama3', 'qwen 32b', 'deepseek 671b', 'r1'). Every word must match; the best "
                    "matches come first. Empty: every model, by family and size."
                ),
            )
        ],
        responses=OutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        models = model_search(request.query_params.get("search", ""))
        data: list[dict[str, Any]] = self.OutputSerializer(models, many=True).data  # type: ignore[assignment]
        return Response(data)
