"""/api/v1/orders/ and POST /api/v1/quotes/<number>/order (issue 15).

Customers see their own orders (status, ship date, whether it is at risk and why, lines, events); sales and
catalog staff see all (`?at_risk=true`: only those at risk); sales move them along the transition table;
sales and catalog staff see the purchase lists (JSON with the roubles of every amount at today's rate, CSV
per supplier, CSV or XLSX). Another customer's order is 404.
"""

from __future__ import annotations

from typing import Any, cast

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from config.api import ApiErrorSerializer, StandardPagination
from orders import services
from orders.exports import XLSX_CONTENT_TYPE, purchase_list_download
from orders.labels import risk_sentence
from orders.models import Order, OrderEvent, OrderLine, OrderStatus
from orders.purchasing import STAFF_EVENTS
from orders.selectors import (
    customer_event_data,
    may_see_purchases,
    order_get,
    order_visible,
    purchase_lists,
    purchase_rates,
    purchase_table,
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

    def to_representation(self, instance: OrderEvent) -> dict[str, Any]:
        """Staff read an event's data whole; its customer only what concerns them (no suppliers, no prices:
        orders.selectors.customer_event_data)."""
        shown = dict(super().to_representation(instance))
        if not self.context.get("staff"):
            shown["data"] = customer_event_data(instance.type, instance.data)
        return shown


class OrderTotalsSerializer(serializers.Serializer):
    net = serializers.DecimalField(max_digits=14, decimal_places=2, source="net_total")
    vat = serializers.DecimalField(max_digits=14, decimal_places=2, source="vat_total")
    gross = serializers.DecimalField(max_digits=14, decimal_places=2, source="gross_total")


class RiskReasonSerializer(serializers.Serializer):
    code = serializers.ChoiceField(
        choices=(
            "short",
            "late",
            "overdue",
            "stale_offer",
            "offer_gone",
            "stock_short",
            "not_received",
            "po_cancelled",
        ),
        help_text="short: no priced offer for `qty` units; late: the build can ship on `date`, after the promise; "
        "overdue: the promised `date` passed; stale_offer/offer_gone: an offer a purchase relies on expired on "
        "`date` or was deleted; stock_short: the supplier's later price list lacks `qty` reserved units; "
        "not_received: `qty` units of a purchase order expected by `date` have not arrived; po_cancelled: a purchase "
        "order was cancelled with `qty` units not received",
    )
    sku = serializers.CharField(allow_blank=True)
    supplier = serializers.CharField(allow_blank=True, help_text="The supplier's code (sales and catalog staff only)")
    qty = serializers.IntegerField(allow_null=True)
    date = serializers.DateField(allow_null=True)
    message = serializers.CharField(help_text="The reason in the client's language")


class OrderSummarySerializer(serializers.ModelSerializer):
    quote = serializers.CharField(source="quote.number", read_only=True)
    customer = serializers.CharField(source="owner.username", read_only=True)
    totals = OrderTotalsSerializer(source="*", read_only=True)
    at_risk = serializers.BooleanField(read_only=True, help_text="The promised ship date may not be kept")
    risk_reasons = serializers.SerializerMethodField()

    class Meta:
        model = Order
        fields: tuple[str, ...] = (
            "number", "quote", "customer", "status", "promised_ship_date", "currency", "totals", "plan_status",
            "at_risk", "risk_reasons", "created_at", "updated_at",
        )  # fmt: skip

    @extend_schema_field(RiskReasonSerializer(many=True))
    def get_risk_reasons(self, order: Order) -> list[dict[str, Any]]:
        staff = bool(self.context.get("staff"))
        return [
            {**reason, "supplier": reason.get("supplier", "") if staff else "",
             "message": risk_sentence(reason, show_supplier=staff)}
            for reason in order.risk_reasons or ()
        ]  # fmt: skip


class OrderDetailSerializer(OrderSummarySerializer):
    lines = OrderLineOutputSerializer(many=True, read_only=True)
    events = serializers.SerializerMethodField(help_text="Events about purchase orders and receipts: staff only")

    class Meta(OrderSummarySerializer.Meta):
        fields = (*OrderSummarySerializer.Meta.fields, "lines", "events")

    @extend_schema_field(OrderEventOutputSerializer(many=True))
    def get_events(self, order: Order) -> list[dict[str, Any]]:
        staff = bool(self.context.get("staff"))
        events = [event for event in order.events.all() if staff or event.type not in STAFF_EVENTS]
        return list(OrderEventOutputSerializer(events, many=True, context={"staff": staff}).data)


class OrderPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = OrderSummarySerializer(many=True)


def _detail(order: Order, user: User) -> dict[str, Any]:
    fresh = Order.objects.select_related("owner", "quote").prefetch_related("lines", "events__user").get(pk=order.pk)
    return dict(OrderDetailSerializer(fresh, context={"staff": may_see_purchases(user)}).data)


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
        return Response(_detail(order, user), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class OrderListFilterSerializer(serializers.Serializer):
    at_risk = serializers.BooleanField(required=False, allow_null=True, default=None)
    serial = serializers.CharField(
        required=False, max_length=100, help_text="Only the orders whose received parts carry this serial number"
    )


class OrderListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="orders_list",
        parameters=[OrderListFilterSerializer],
        responses={200: OrderPageSerializer, 400: ApiErrorSerializer, 403: ApiErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        user = _user(request)
        filters = OrderListFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        paginator = StandardPagination()
        orders = order_visible(user=user, at_risk=filters.validated_data["at_risk"])
        if "serial" in filters.validated_data:
            orders = orders.filter(serials__serial=filters.validated_data["serial"].strip()).distinct()
        page = paginator.paginate_queryset(orders, request, view=self)
        data = OrderSummarySerializer(page, many=True, context={"staff": may_see_purchases(user)}).data
        return paginator.get_paginated_response(data)


class OrderDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="orders_retrieve", responses={200: OrderDetailSerializer, **ERRORS})
    def get(self, request: Request, number: str) -> Response:
        user = _user(request)
        return Response(_detail(order_get(user=user, number=number), user))


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
        return Response(_detail(services.order_advance(order=order, to=data["to"], user=user, note=data["note"]), user))


class PurchaseLineOutputSerializer(serializers.Serializer):
    sku = serializers.CharField(source="line.sku")
    name = serializers.CharField(help_text="In the client's language")
    qty = serializers.IntegerField(source="line.qty")
    unit_price = serializers.DecimalField(max_digits=14, decimal_places=2, source="line.unit_price")
    currency = serializers.CharField(source="line.currency", help_text="The offer's own currency")
    line_total = serializers.DecimalField(max_digits=16, decimal_places=2, help_text="In `currency`")
    unit_price_rub = serializers.DecimalField(
        max_digits=16, decimal_places=2, allow_null=True, help_text="At `rate` (null: no rate for the currency)"
    )
    line_total_rub = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    rate = serializers.DecimalField(
        max_digits=18, decimal_places=8, source="rate.rub_per_unit", allow_null=True, default=None,
        help_text="Roubles per unit of `currency` (null for roubles)",
    )  # fmt: skip
    rate_date = serializers.DateField(source="rate.date", allow_null=True, default=None)
    from_stock = serializers.BooleanField(source="line.from_stock")
    expected_days = serializers.IntegerField(source="line.expected_days", help_text="Working days")
    released = serializers.BooleanField(source="line.released")


class PurchaseListSerializer(serializers.Serializer):
    supplier = serializers.CharField()
    lines = PurchaseLineOutputSerializer(many=True)
    total_rub = serializers.DecimalField(max_digits=16, decimal_places=2, help_text="At the lines' rates")
    rates_on = serializers.DateField(help_text="The rates are those in force on this day")


class OrderPurchaseListsApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="orders_purchase_lists", responses={200: PurchaseListSerializer(many=True), **ERRORS})
    def get(self, request: Request, number: str) -> Response:
        user = _user(request)
        grouped = purchase_lists(user=user, order=order_get(user=user, number=number))
        rates = purchase_rates(lines=[line for lines in grouped.values() for line in lines])
        lists = []
        for supplier, lines in grouped.items():
            table = purchase_table(lines=lines, rates=rates)
            lists.append(
                {"supplier": supplier, "lines": list(table.rows), "total_rub": table.total_rub, "rates_on": rates.day}
            )
        return Response(PurchaseListSerializer(lists, many=True).data)


def _purchase_file(request: Request, number: str, supplier: str, fmt: str) -> HttpResponse:
    user = _user(request)
    order = order_get(user=user, number=number)
    lines = purchase_lists(user=user, order=order).get(supplier)
    if lines is None:
        raise Http404(f"No purchase list of {supplier} in {number}.")
    return purchase_list_download(lines=lines, supplier=supplier, name=f"{order.number}-{supplier}", fmt=fmt)


class OrderPurchaseListCsvApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="orders_purchase_list_csv",
        responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR), **ERRORS},
    )
    def get(self, request: Request, number: str, supplier: str) -> HttpResponse:
        return _purchase_file(request, number, supplier, "csv")


class OrderPurchaseListXlsxApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="orders_purchase_list_xlsx",
        responses={(200, XLSX_CONTENT_TYPE): OpenApiResponse(OpenApiTypes.BINARY), **ERRORS},
    )
    def get(self, request: Request, number: str, supplier: str) -> HttpResponse:
        return _purchase_file(request, number, supplier, "xlsx")
