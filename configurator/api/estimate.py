"""POST /api/v1/estimate and GET /api/v1/llm-models/ (ARCHITECTURE.md §HTTP API)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.specs import catalog_snapshot
from config.api import ApiErrorSerializer, deserialize
from configurator.api import PublicApi
from configurator.engine.errors import InvalidInput
from configurator.engine.estimate import StatedLayout, estimate
from configurator.engine.estimate.topology import built_in_link
from configurator.engine.gpu_match import counted_gpu, match_gpu
from configurator.engine.models_library import model_search
from configurator.engine.phrase import LazyTexts, Phrase
from configurator.engine.spellings import spelling_notes
from configurator.engine.types import Estimate
from configurator.output_data import estimate_data
from configurator.outputs import EstimateOutputSerializer
from configurator.serializers import WorkloadInputSerializer, context_note, workload_from_data

MAX_GPUS = 64
GPU_COUNT_LIMIT = gettext_lazy(
    "At most {max_value} GPUs in one estimate. A 72-GPU NVLink rack (GB200/GB300 NVL72) is not in the catalog: "
    "estimate one 8-GPU node (the rack runs replicas of it), or ask POST /api/v1/clusters/recommendations for a "
    "multi-node cluster."
)


class EstimateApi(PublicApi):
    """Memory, GPU layout and speed of an LLM workload; anonymous users may call it (throttled)."""

    throttle_scope = "anon_estimate"

    class InputSerializer(WorkloadInputSerializer):
        gpu = serializers.CharField(
            required=False,
            allow_null=True,
            max_length=100,
            help_text="GPU: a catalog SKU (GET /api/v1/catalog/gpus/) or its name as people write it ('H100', "
            "'RTX 4090', 'NVIDIA H100 80GB HBM3', 'A100-SXM4-80GB'): case, spaces, hyphens, the vendor and brand "
            "words are ignored; a memory size (80GB), memory type (HBM3) and form (SXM5, PCIe, NVL) choose the "
            "variant. A bare card name with several variants ('H100', 'A100', 'H200') is the SXM server module "
            "with the most memory, and the assumptions say so. A name not in the catalog, or one that names "
            "several different cards, is a 400 listing the closest GPUs",
        )
        gpu_count = serializers.IntegerField(
            min_value=1,
            max_value=MAX_GPUS,
            default=1,
            error_messages={"max_value": GPU_COUNT_LIMIT},
            help_text="GPUs the workload runs on, 1 to 64. A 72-GPU NVLink rack (GB200/GB300 NVL72) is not in "
            "the catalog: estimate one 8-GPU node, or ask POST /api/v1/clusters/recommendations for a cluster",
        )
        tensor_parallel_size = serializers.IntegerField(
            min_value=1,
            max_value=MAX_GPUS,
            required=False,
            allow_null=True,
            help_text="Inference: the layout a run used (vLLM --tensor-parallel-size, TensorRT-LLM tp_size): the "
            "GPUs run gpu_count / (tensor × pipeline) replicas of it instead of the layout the estimate would "
            "choose, the users spread evenly over them. Tensor parallel on vllm, sglang and tensorrt-llm, when the "
            "model's heads split evenly; not with pipeline_parallel_size > 1; not for training (estimated data "
            "parallel). Otherwise a 400 with the reason",
        )
        pipeline_parallel_size = serializers.IntegerField(
            min_value=1,
            max_value=MAX_GPUS,
            required=False,
            allow_null=True,
            help_text="Inference: pipeline stages of one replica (vLLM --pipeline-parallel-size; llama.cpp's layer "
            "split over its GPUs); see tensor_parallel_size",
        )

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
        notes: list[Phrase] = []
        count, named = counted_gpu(sku) if sku else (None, sku)
        if count is not None:  # "8xH100": the count is the name's unless gpu_count says another
            if "gpu_count" in request.data and data["gpu_count"] != count:
                said = Phrase(
                    "'%(text)s' says %(count)s GPUs and gpu_count says %(given)s: give one of them",
                    text=sku, count=count, given=data["gpu_count"],
                )  # fmt: skip
                raise InvalidInput(said, fields={"gpu": [said], "gpu_count": [said]})
            if not 1 <= count <= MAX_GPUS:
                said = Phrase("'%(text)s' says %(count)s GPUs: 1 to %(most)s", text=sku, count=count, most=MAX_GPUS)
                raise InvalidInput(said, fields={"gpu": [said]})
            data["gpu_count"], sku = count, named
        if sku:
            found = match_gpu(catalog_snapshot().gpus, sku)
            gpu = found.gpu
            notes.extend(() if found.note is None else (found.note,))
        notes.extend(spelling_notes(request.data, workload.task))
        context = context_note(data, workload)
        notes.extend(() if context is None else (context,))
        tp, pp = data.get("tensor_parallel_size"), data.get("pipeline_parallel_size")
        result = estimate(
            workload,
            gpu,
            data["gpu_count"],
            link_gbs=built_in_link(gpu, data["gpu_count"]) if gpu is not None else None,
            stated=None if tp is None and pp is None else StatedLayout(tp or 1, pp or 1),
        )
        return Response(estimate_data(_said_first(result, notes)))


def _said_first(result: Estimate, notes: list[Phrase]) -> Estimate:
    """`result` with the readings of the request (the GPU variant, a precision or engine read as another, a
    context raised to hold the request) before its own assumptions."""
    if not notes:
        return result
    own = result.assumptions
    return replace(result, assumptions=LazyTexts(lambda: [*notes, *own]))


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
