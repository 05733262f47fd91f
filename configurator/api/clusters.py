"""POST /api/v1/clusters/recommendations: a cluster of GPU nodes for a workload one server cannot hold (issue 39)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from config.api import ApiErrorSerializer, deserialize
from configurator.api import PublicApi
from configurator.serializers import StrictKeysMixin, WorkloadInputSerializer, workload_from_data
from configurator.services import cluster_recommendation_make


class ClusterInputSerializer(StrictKeysMixin, serializers.Serializer):
    workload = WorkloadInputSerializer()
    nodes = serializers.IntegerField(
        min_value=1, max_value=256, required=False, allow_null=True, help_text="Empty: the fewest that hold it"
    )
    rack_kw_limit = serializers.FloatField(min_value=5, max_value=200, default=40.0, help_text="kW per rack")
    site_voltage_v = serializers.ChoiceField(choices=(380, 400, 415, 480), default=400, help_text="Three-phase, L-L")
    compute_switch = serializers.CharField(max_length=64, required=False, allow_null=True)
    dataset_tb = serializers.FloatField(min_value=0, max_value=100_000, default=0.0)
    oversubscription = serializers.FloatField(
        min_value=1, max_value=8, default=1.0, help_text="Leaf downlinks per uplink; 1 = non-blocking"
    )


class _Fabric(serializers.Serializer):
    switch = serializers.CharField()
    speed_gbps = serializers.IntegerField()
    rails = serializers.IntegerField()
    tiers = serializers.IntegerField()
    leaves = serializers.IntegerField()
    spines = serializers.IntegerField()
    downlinks_per_leaf = serializers.IntegerField()
    oversubscription = serializers.FloatField()
    nodes_per_su = serializers.IntegerField()


class _Switches(serializers.Serializer):
    switch = serializers.CharField()
    count = serializers.IntegerField()


class _Storage(serializers.Serializer):
    sku = serializers.CharField()
    count = serializers.IntegerField()
    need_tb = serializers.FloatField()
    checkpoint_tb = serializers.FloatField()
    checkpoint_write_s = serializers.FloatField()


class _Device(serializers.Serializer):
    id = serializers.CharField()
    kind = serializers.CharField()
    sku = serializers.CharField()
    u = serializers.IntegerField()
    height_u = serializers.IntegerField()


class _Rack(serializers.Serializer):
    index = serializers.IntegerField()
    role = serializers.CharField()
    rack = serializers.CharField()
    used_u = serializers.IntegerField()
    rack_units = serializers.IntegerField()
    load_kw = serializers.FloatField()
    weight_kg = serializers.FloatField()
    pdu = serializers.CharField()
    pdus_per_feed = serializers.IntegerField()
    feeds = serializers.IntegerField()
    amps_per_feed = serializers.FloatField()
    amps_per_pdu = serializers.FloatField()
    devices = _Device(many=True)


class _Line(serializers.Serializer):
    section = serializers.CharField()
    sku = serializers.CharField()
    name = serializers.CharField()
    name_ru = serializers.CharField(allow_blank=True, help_text="The Russian name (empty: the same as `name`)")
    qty = serializers.IntegerField()
    unit_price = serializers.DecimalField(max_digits=18, decimal_places=2)
    total = serializers.DecimalField(max_digits=18, decimal_places=2)


class _Finding(serializers.Serializer):
    code = serializers.CharField()
    severity = serializers.CharField()
    message = serializers.CharField()
    measured = serializers.JSONField(allow_null=True)
    limit = serializers.JSONField(allow_null=True)
    unit = serializers.CharField()


class _Serving(serializers.Serializer):
    parallelism = serializers.CharField()
    nodes_per_replica = serializers.IntegerField()
    replicas = serializers.IntegerField()
    decode_tokens_per_s_per_user = serializers.FloatField()
    decode_tokens_per_s_total = serializers.FloatField()


class _Training(serializers.Serializer):
    tokens_per_s = serializers.FloatField()
    tflops_per_gpu = serializers.FloatField()
    scaling_efficiency = serializers.FloatField()
    step_s = serializers.FloatField()
    one_more_node_tokens_per_s = serializers.FloatField()


class ClusterOptionSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    nodes = serializers.IntegerField()
    gpus_per_node = serializers.IntegerField()
    gpu = serializers.CharField()
    node_chassis = serializers.CharField()
    node_load_w = serializers.FloatField()
    purpose = serializers.CharField()
    price = serializers.DecimalField(max_digits=18, decimal_places=2)
    load_kw = serializers.FloatField()
    fabric = _Fabric(allow_null=True)
    frontend = _Switches(allow_null=True)
    management = _Switches()
    storage = _Storage(allow_null=True)
    racks = _Rack(many=True)
    bom = _Line(many=True)
    findings = _Finding(many=True)
    serving = _Serving(allow_null=True)
    training = _Training(allow_null=True)


class _SpeedMiss(serializers.Serializer):
    gpu = serializers.CharField()
    nodes = serializers.IntegerField()
    tokens_per_s = serializers.FloatField()
    target_tokens_per_s = serializers.FloatField()
    miss_percent = serializers.FloatField()


class ClusterOutputSerializer(serializers.Serializer):
    options = ClusterOptionSerializer(many=True)
    elapsed_ms = serializers.FloatField()
    target_tokens_per_s = serializers.FloatField(
        allow_null=True, help_text="Serving: the per-user decode speed every passing option reaches"
    )
    speed_miss = _SpeedMiss(allow_null=True, help_text="Serving: no option reaches the target; the fastest one")


class ClusterRecommendationApi(PublicApi):
    """A cluster per SXM GPU of the catalog: nodes, compute fabric, front-end, storage, racks, PDUs, cables and
    its bill, checked by the cluster rules; valid ones first, cheapest first."""

    throttle_scope = "anon_recommend"

    @extend_schema(
        operation_id="clusters_recommendations_create",
        request=ClusterInputSerializer,
        responses={200: ClusterOutputSerializer, 400: ApiErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        data: dict[str, Any] = deserialize(ClusterInputSerializer, request.data)
        workload = workload_from_data(data["workload"], field_prefix="workload.")
        body = cluster_recommendation_make(
            workload=workload,
            nodes=data.get("nodes"),
            rack_kw_limit=data["rack_kw_limit"],
            site_voltage_v=int(data["site_voltage_v"]),
            compute_switch=data.get("compute_switch"),
            dataset_tb=data["dataset_tb"],
            oversubscription=data["oversubscription"],
        )
        return Response(ClusterOutputSerializer(body).data)
