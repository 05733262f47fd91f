"""/api/v1/orders/ and POST /api/v1/quotes/<number>/order (issue 15).

Customers see their own orders (status, ship date, lines, events); sales and catalog staff see all; sales
move them along the transition table; sales and catalog staff see the purchase lists (JSON, CSV per
supplier, CSV or XLSX). Another customer's order is 404.
"""

from __future__ import annotations

from typing import Any, cast

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from config.api import ApiErrorSerializer, StandardPagination
from orders import services
from orders.models import Order, OrderEvent, OrderLine, OrderStatus, PurchaseLine
from orders.selectors import (
    XLSX_CONTENT_TYPE,
    order_get,
    order_visible,
    purchase_list_csv,
    purchase_list_xlsx,
    purchase_lists,
)
from quotes.selectors import quote_get

ERRORS = {400: ApiErrorSerializer, 403: ApiErrorSerializer, 404: ApiErrorSerializer, 409: ApiErrorSerializer}


def _user(request: Request) -> User:
    return cast(User, request.user)


class OrderLineOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = OrderLine
        fields = ("position", "kind", "sku", "name", "qty", "unit_price", "line_total")


class OrderEventOutputSerializer(serializers.ModelSerializer):
    user: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = OrderEvent
        fields = ("type", "data", "user", "created_at")


class OrderTotalsSerializer(serializers.Serializer):
    net = serializers.DecimalField(max_digits=14, decimal_places=2, source="net_total")
    vat = serializers.DecimalField(max_digits=14, decimal_places=2, source="vat_total")
    gross = serializers.DecimalField(max_digits=14, decimal_places=2, source="gross_total")


class OrderSummarySerializer(serializers.ModelSerializer):
    quote = serializers.CharField(source="quote.number", read_only=True)
    customer = serializers.CharField(source="owner.username", read_only=True)
    totals = OrderTotalsSerializer(source="*", read_only=True)

    class Meta:
        model = Order
        fields: tuple[str, ...] = (
            "number", "quote", "customer", "status", "promised_ship_date", "currency", "totals", "plan_status",
            "created_at", "updated_at",
        )  # fmt: skip


class OrderDetailSerializer(OrderSummarySerializer):
    lines = OrderLineOutputSerializer(many=True, read_only=True)
    events = OrderEventOutputSerializer(many=True, read_only=True)

    class Meta(OrderSummarySerializer.Meta):
        fields = (*OrderSummarySerializer.Meta.fields, "lines", "events")


class OrderPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = OrderSummarySerializer(many=True)


def _detail(order: Order) -> dict[str, Any]:
    fresh = Order.objects.select_related("owner", "quote").prefetch_related("lines", "events__user").get(pk=order.pk)
    return dict(OrderDetailSerializer(fresh).data)


class QuoteOrderApi(APIView):
    """Turn an accepted quote into its order: 201 the first time, 200 with the same order after."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="quotes_order",
        request=None,
        responses={201: OrderDetailSerializer, 200: OrderDetailSerializer, **ERRORS},
    )
    def post(self, request: Request, number: str) -> Response:
        user = _user(request)
        quote = quote_get(user=user, number=number)
        order, created = services.order_place(quote=quote, user=user)
        return Response(_detail(order), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class OrderListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="orders_list", responses={200: OrderPageSerializer, 403: ApiErrorSerializer})
    def get(self, request: Request) -> Response:
        paginator = StandardPagination()
        page = paginator.paginate_queryset(order_visible(user=_user(request)), request, view=self)
        return paginator.get_paginated_response(OrderSummarySerializer(page, many=True).data)


class OrderDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="orders_retrieve", responses={200: OrderDetailSerializer, **ERRORS})
    def get(self, request: Request, number: str) -> Response:
        return Response(_detail(order_get(user=_user(request), number=number)))


class OrderAdvanceInputSerializer(serializers.Serializer):
    to = serializers.ChoiceField(choices=OrderStatus.choices)
    note = serializers.CharField(required=False, default="", max_length=500, allow_blank=True)


class OrderAdvanceApi(APIView):
    """Move the order to the next status of the transition table, or cancel it (sales)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="orders_advance",
        request=OrderAdvanceInputSerializer,
        responses={200: OrderDetailSerializer, **ERRORS},
    )
    def post(self, request: Request, number: str) -> Response:
        user = _user(request)
        order = order_get(user=user, number=number)
        serializer = OrderAdvanceInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        return Response(_detail(services.order_advance(order=order, to=data["to"], user=user, note=data["note"])))


class PurchaseLineOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = PurchaseLine
        fields = ("sku", "qty", "unit_price", "currency", "from_stock", "expected_days", "released")


class PurchaseListSerializer(serializers.Serializer):
    supplier = serializers.CharField()
    lines = PurchaseLineOutputSerializer(many=True)


class OrderPurchaseListsApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="orders_purchase_lists", responses={200: PurchaseListSerializer(many=True), **ERRORS})
    def get(self, request: Request, number: str) -> Response:
        user = _user(request)
        grouped = purchase_lists(user=user, order=order_get(user=user, number=number))
        return Response([PurchaseListSerializer({"supplier": s, "lines": lines}).data for s, lines in grouped.items()])


class OrderPurchaseListCsvApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="orders_purchase_list_csv",
        responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR), **ERRORS},
    )
    def get(self, request: Request, number: str, supplier: str) -> HttpResponse:
        user = _user(request)
        order = order_get(user=user, number=number)
        lines = purchase_lists(user=user, order=order).get(supplier)
        if lines is None:
            raise Http404(f"No purchase list of {supplier} in {number}.")
        response = HttpResponse(purchase_list_csv(supplier=supplier, lines=lines), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="{order.number}-{supplier}.csv"'
        return response


class OrderPurchaseListXlsxApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="orders_purchase_list_xlsx",
        responses={(200, XLSX_CONTENT_TYPE): OpenApiResponse(OpenApiTypes.BINARY), **ERRORS},
    )
    def get(self, request: Request, number: str, supplier: str) -> HttpResponse:
        user = _user(request)
        order = order_get(user=user, number=number)
        lines = purchase_lists(user=user, order=order).get(supplier)
        if lines is None:
            raise Http404(f"No purchase list of {supplier} in {number}.")
        response = HttpResponse(purchase_list_xlsx(supplier=supplier, lines=lines), content_type=XLSX_CONTENT_TYPE)
        response["Content-Disposition"] = f'attachment; filename="{order.number}-{supplier}.xlsx"'
        return response
