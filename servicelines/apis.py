"""GET /api/v1/services/ (the services on sale) and POST /api/v1/quotes/<number>/services (set a draft's
service lines; no body or `"services": null` means the defaults of the machine class)."""

from __future__ import annotations

from typing import cast

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from config.api import ApiErrorSerializer
from quotes.apis import QuoteDetailSerializer, _detail
from quotes.selectors import quote_get
from quotes.services.extras import quote_services_set
from servicelines.models import ServiceItem


class ServiceItemOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ServiceItem
        fields = (
            "sku", "name", "name_ru", "category", "years", "level", "region", "pricing", "price", "percent", "currency",
            "default_for", "is_sample",
        )  # fmt: skip


class ServiceListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="services_list", responses={200: ServiceItemOutputSerializer(many=True)})
    def get(self, request: Request) -> Response:
        items = ServiceItem.objects.filter(is_active=True).order_by("category", "sku")
        return Response(ServiceItemOutputSerializer(items, many=True).data)


class QuoteServicesInputSerializer(serializers.Serializer):
    services = serializers.ListField(
        child=serializers.SlugField(max_length=64), required=False, allow_null=True, max_length=32, default=None
    )


class QuoteServicesApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="quotes_services",
        request=QuoteServicesInputSerializer,
        responses={
            200: QuoteDetailSerializer,
            400: ApiErrorSerializer,
            403: ApiErrorSerializer,
            404: ApiErrorSerializer,
            409: ApiErrorSerializer,
        },
    )
    def post(self, request: Request, number: str) -> Response:
        user = cast(User, request.user)
        quote = quote_get(user=user, number=number)
        serializer = QuoteServicesInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(_detail(quote_services_set(quote=quote, user=user, skus=serializer.validated_data["services"])))
