"""POST /api/v1/quotes/cluster/ (beside quotes.apis, which is at the module size limit): a draft quote for a
cluster of GPU nodes (issue 39 item 5), made from the same body as POST /api/v1/clusters/recommendations plus
the GPU of the option to quote. A customer asks for their own (as /quotes/request does for a server); a sales
engineer for a customer, with a discount."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import CUSTOMERS, User
from config.api import ApiErrorSerializer, WriteScopedRateThrottle
from configurator.api.clusters import ClusterInputSerializer
from configurator.engine.errors import InvalidInput
from configurator.serializers import workload_from_data
from quotes.apis import QuoteDetailSerializer, _detail, _user
from quotes.inputs import QuoteRequestFieldsSerializer
from quotes.policy import quote_create_permission
from quotes.services.cluster import quote_create_cluster


class ClusterDesignInputSerializer(ClusterInputSerializer):
    gpu = serializers.CharField(
        max_length=64, required=False, allow_null=True, help_text="The option's GPU SKU; empty: the first option"
    )


class ClusterQuoteInputSerializer(QuoteRequestFieldsSerializer):
    cluster = ClusterDesignInputSerializer()
    customer = serializers.IntegerField(
        required=False, min_value=1, help_text="The customer's user id (sales only; default: yourself)"
    )
    discount_percent = serializers.DecimalField(
        max_digits=5, decimal_places=2, min_value=0, max_value=100, default=Decimal(0)
    )
    acknowledge_warnings = serializers.BooleanField(default=False)


def _customer(user: User, customer_id: int | None) -> User:
    if customer_id is None or customer_id == user.pk:
        return user
    if not (decision := quote_create_permission(user=user, customer_id=customer_id)):
        raise decision.error()  # before the lookup: no one probes for user ids
    found = User.objects.filter(pk=customer_id, is_active=True).first()
    if found is None:
        raise InvalidInput("Unknown customer.", fields={"customer": ["no active user with this id"]})
    if not found.in_group(CUSTOMERS):
        raise InvalidInput(
            "Quotes are made for customers only; this user is not a customer.",
            fields={"customer": ["not a member of the customers group"]},
        )
    return found


class QuoteClusterCreateApi(APIView):
    """Make a draft quote for a cluster: its lines by section (nodes with their parts × N, compute fabric,
    front-end / storage network, storage, management, racks and power, services), priced as any quote."""

    permission_classes = [IsAuthenticated]
    throttle_classes = [WriteScopedRateThrottle]
    throttle_scope = "quote_create"

    @extend_schema(
        operation_id="quotes_cluster_create",
        request=ClusterQuoteInputSerializer,
        responses={201: QuoteDetailSerializer, 400: ApiErrorSerializer, 403: ApiErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        user = _user(request)
        serializer = ClusterQuoteInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data: dict[str, Any] = serializer.validated_data
        customer = _customer(user, data.get("customer"))
        design = dict(data["cluster"])
        workload = workload_from_data(design["workload"], field_prefix="cluster.workload.")
        design["workload"] = request.data["cluster"]["workload"]  # as sent: JSON, to design it again later
        with transaction.atomic():
            quote = quote_create_cluster(
                customer=customer,
                created_by=user,
                workload=workload,
                request=design,
                acknowledge_warnings=data["acknowledge_warnings"],
                discount_percent=data["discount_percent"],
                services=data.get("services"),
                request_note=data.get("request"),
            )
            body = _detail(quote)
        return Response(body, status=status.HTTP_201_CREATED)
