"""GET /api/v1/suppliers/: the suppliers with their live offers' count (sales and catalog staff)."""

from __future__ import annotations

from typing import cast

from django.db.models import Count, Q
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from config.api import ApiErrorSerializer
from configurator.engine.errors import Forbidden
from procurement.models import Supplier


class SupplierOutputSerializer(serializers.ModelSerializer):
    live_offers = serializers.IntegerField(read_only=True)
    stale_offers = serializers.IntegerField(read_only=True)

    class Meta:
        model = Supplier
        fields = ("slug", "name", "currency", "contact", "terms", "is_sample", "live_offers", "stale_offers")


class SupplierListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="suppliers_list",
        responses={200: SupplierOutputSerializer(many=True), 403: ApiErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        user = cast(User, request.user)
        if not (user.is_sales or user.is_catalog_staff or user.is_superuser):
            raise Forbidden("Only sales and catalog staff see suppliers.")
        today = timezone.localdate()
        suppliers = Supplier.objects.annotate(
            live_offers=Count("offers", filter=Q(offers__valid_until__gte=today)),
            stale_offers=Count("offers", filter=Q(offers__valid_until__lt=today)),
        ).order_by("name")
        return Response(SupplierOutputSerializer(suppliers, many=True).data)
